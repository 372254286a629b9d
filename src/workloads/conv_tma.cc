// conv.tma: a convolution as an implicit GEMM on gemm.tma's kernel (tma_gemm_body), with the
// A operand gathered by TMA im2col loads.
//
// GEMM view: row m of A / C is output pixel (n, p, q) (m = (n·P + p)·Q + q, NPQ order, so C is
// exactly the NPQK output); column j of C is output channel j; the GEMM K runs over (r, s, c)
// in K steps of TC channels: step kt = (r·S + s)·CB + cb, CB = ceil(C / TC), TC = tile_k.
//   - A: an im2col map over the NHWC input (globalDim {C, W, H, N}), corners lower = -pad,
//     upper = pad - (filter - 1)·dilation (CUTLASS's), elementStrides {1, stride, stride, 1},
//     channelsPerPixel TC, pixelsPerColumn = the rows one CTA loads. The filter-base box of a
//     row then has exactly Q positions (P along H), so the walk from output pixel m's base
//     (q·stride - pad, p·stride - pad, n) visits m, m+1, ... in GEMM-row order, wrapping into
//     the next row and the next image as the GEMM rows do. One load_im2col per K step with
//     coords {cb·TC, q·stride - pad, p·stride - pad, n} and offsets {s·dilation, r·dilation}.
//   - B: a tiled map over the filter viewed as {C, R·S, K} (the same bytes as [K][R·S·C]), box
//     {TC, 1, rows}; the third dimension keeps a channel block from running into the next
//     (r, s) when C is not a multiple of TC: channels >= C are zero in both operands.
//   - Tiles past the end (M not a multiple of the CTA tile, K not of tile_n) read out-of-bounds
//     zeros and their C rows / columns are clipped by the TMA store.
// The im2col walk carries across images, so an M tile may span images; what the map cannot
// express is rejected with a named error: offsets above 8 bits (rank 4), corners outside
// [-128, 127], per-thread copies (copy 1).
//
// Verification: every output element against a naive direct convolution (s8 exact, bf16 with
// gemm.mm's tolerance over R·S·C terms).
#include "workloads/conv_tma.h"

#include <fmt/format.h>

#include <cmath>
#include <memory>
#include <span>

#include "tma/tensor_map_encode.h"
#include "workloads/gemm_tma.h"
#include "workloads/ubench/common.h"

namespace xpusim::workloads {
namespace {

using kernel::Addr;
using kernel::TmaOp;
using kernel::Warp;
using U16 = std::uint16_t;
using U32 = std::uint32_t;
using U64 = std::uint64_t;

constexpr std::string_view kKernel = "conv_tma";
constexpr std::string_view kName = "conv.tma";
constexpr U64 kMaxOperandBytes = U64{1} << 32;  // each operand at most 4 GiB
constexpr U32 kMaxOffset = 255;                 // rank-4 im2col offsets are 8 bits

// conv_tma's own arguments, after the shared ones.
constexpr std::size_t kP = kTmaGemmArgCount, kQ = kP + 1, kStride = kP + 2, kPad = kP + 3,
                      kDilation = kP + 4, kFilterS = kP + 5, kChannelBlocks = kP + 6;

struct StepPos {  // K step kt as (r, s, channel block)
  U32 r = 0, s = 0, cb = 0, rs = 0;
};
StepPos step_pos(const Warp& w, U64 kt) {
  const kernel::KernelArgs& a = w.args();
  const U32 cbs = a.get_u32(kChannelBlocks), fs = a.get_u32(kFilterS);
  StepPos p;
  p.cb = static_cast<U32>(kt % cbs);
  p.rs = static_cast<U32>(kt / cbs);
  p.r = p.rs / fs;
  p.s = p.rs % fs;
  return p;
}

// A: TC channels of the pixels from output pixel `row` on, filter tap (r, s).
TmaOp conv_load_a(const Warp& w, U64 kt, U64 row, U32 smem, U32 mbar, U16 cta_mask) {
  const kernel::KernelArgs& a = w.args();
  const U64 p_out = a.get_u32(kP), q_out = a.get_u32(kQ);
  const std::int64_t stride = a.get_u32(kStride), pad = a.get_u32(kPad);
  const U32 dilation = a.get_u32(kDilation), tc = a.get_u32(kTmaGemmArgTileK);
  const StepPos k = step_pos(w, kt);
  const U64 n = row / (p_out * q_out), p = row / q_out % p_out, q = row % q_out;
  TmaOp op{.kind = kernel::TmaKind::kLoadIm2col, .descriptor = a.get_ptr(0)};
  op.coords = {static_cast<std::int32_t>(U64{k.cb} * tc),
               static_cast<std::int32_t>(static_cast<std::int64_t>(q) * stride - pad),
               static_cast<std::int32_t>(static_cast<std::int64_t>(p) * stride - pad),
               static_cast<std::int32_t>(n), 0};
  op.rank = 4;
  op.offsets = {static_cast<U16>(k.s * dilation), static_cast<U16>(k.r * dilation), 0};
  op.offset_count = 2;
  op.smem = smem;
  op.mbar = mbar;
  op.cta_mask = cta_mask;
  return op;
}

// B: TC channels of tap (r, s) of output channels row, row + 1, ...
TmaOp conv_load_b(const Warp& w, U64 kt, U64 row, U32 smem, U32 mbar, U16 cta_mask) {
  const kernel::KernelArgs& a = w.args();
  const StepPos k = step_pos(w, kt);
  TmaOp op{.kind = kernel::TmaKind::kLoadTile, .descriptor = a.get_ptr(1)};
  op.coords = {static_cast<std::int32_t>(U64{k.cb} * a.get_u32(kTmaGemmArgTileK)),
               static_cast<std::int32_t>(k.rs), static_cast<std::int32_t>(row), 0, 0};
  op.rank = 3;
  op.smem = smem;
  op.mbar = mbar;
  op.cta_mask = cta_mask;
  return op;
}

sim::Task<> conv_tma_kernel(Warp& w) {
  return tma_gemm_body(w, conv_load_a, conv_load_b);
}

std::uint64_t param(const system::ParamValues& v, std::string_view name) {
  return ubench::param(v, name);
}

class ConvTma final : public system::Workload {
 public:
  std::string_view name() const override { return kName; }
  std::string_view description() const override {
    return "implicit-GEMM convolution (NHWC x KRSC -> NPQK, bf16 -> fp32 or s8 -> int32) on "
           "gemm.tma's kernel, A gathered by TMA im2col loads";
  }
  std::vector<system::ParamDecl> params() const override {
    std::vector<system::ParamDecl> p{
        {.name = "n", .description = "images", .default_value = 2, .min = 1, .max = 4096},
        {.name = "h", .description = "input height", .default_value = 16, .min = 1, .max = 4096},
        {.name = "w", .description = "input width", .default_value = 16, .min = 1, .max = 4096},
        {.name = "c",
         .description = "input channels (a multiple of 16 B: 8 bf16, 16 s8)",
         .default_value = 64,
         .min = 1,
         .max = 65536},
        {.name = "k",
         .description = "output channels (filters), a multiple of 4",
         .default_value = 128,
         .min = 4,
         .max = 65536},
        {.name = "r", .description = "filter height", .default_value = 3, .min = 1, .max = 32},
        {.name = "s", .description = "filter width", .default_value = 3, .min = 1, .max = 32},
        {.name = "stride",
         .description = "stride along H and W",
         .default_value = 1,
         .min = 1,
         .max = 8},
        {.name = "pad",
         .description = "zero padding on every side",
         .default_value = 1,
         .max = 128},
        {.name = "dilation",
         .description = "filter dilation along H and W",
         .default_value = 1,
         .min = 1,
         .max = 255},
    };
    for (system::ParamDecl& d : tma_gemm_tiling_params())
      p.push_back(std::move(d));
    return p;
  }

  Status setup(system::Chip& chip, const kernel::KernelRegistry& kernels,
               const system::ParamValues& values) override {
    n_ = param(values, "n"), h_ = param(values, "h"), w_ = param(values, "w");
    c_ = param(values, "c"), k_ = param(values, "k"), r_ = param(values, "r");
    s_ = param(values, "s"), stride_ = param(values, "stride"), pad_ = param(values, "pad");
    dil_ = param(values, "dilation");
    std::vector<Error> errors;
    t_ = tma_gemm_tiling(values, chip.spec(), kName, errors);
    const auto err = [&](std::string msg) {
      errors.push_back({fmt::format("{}: {}", kName, msg)});
    };
    const U32 eb = t_.eb();
    if (t_.copy) err("copy 1 is gemm.tma's variant; conv.tma loads A with TMA im2col (copy 0)");
    if (c_ * eb % 16 != 0) {
      err(
          fmt::format("c {} makes {} B pixels; a pixel must be a multiple of 16 B (cuda.h "
                      "globalStrides rule)",
                      c_, c_ * eb));
    }
    if (k_ % 4 != 0) {
      err(
          fmt::format("k {} is not a multiple of 4 (the output's rows must be a multiple of "
                      "16 B)",
                      k_));
    }
    const auto extent = [&](U64 in, U64 filter, const char* what, const char* out) -> U64 {
      const std::int64_t span =
          static_cast<std::int64_t>(in + 2 * pad_) - static_cast<std::int64_t>((filter - 1) * dil_);
      if (span < 1) {
        err(
            fmt::format("{} {} + 2 x pad {} is smaller than the dilated filter ({} - 1) x {} + 1; "
                        "{} would be empty",
                        what, in, pad_, filter, dil_, out));
        return 0;
      }
      return static_cast<U64>(span - 1) / stride_ + 1;
    };
    p_ = extent(h_, r_, "h", "P");
    q_ = extent(w_, s_, "w", "Q");
    for (const auto& [name, taps] : {std::pair{"s", s_}, std::pair{"r", r_}}) {
      if ((taps - 1) * dil_ > kMaxOffset) {
        err(
            fmt::format("({} {} - 1) x dilation {} = {}: im2col offsets of a 4-D map are 8 bits "
                        "(at most {})",
                        name, taps, dil_, (taps - 1) * dil_, kMaxOffset));
      }
    }
    if (n_ * h_ * w_ * c_ * eb > kMaxOperandBytes || k_ * r_ * s_ * c_ * eb > kMaxOperandBytes ||
        n_ * p_ * q_ * k_ * 4 > kMaxOperandBytes) {
      err("an operand exceeds 4 GiB (input, filter or output)");
    }
    if (!errors.empty()) return errors;
    auto kdef = kernels.find(kKernel);
    if (!kdef) return kdef.errors();
    m_ = n_ * p_ * q_;
    cblocks_ = (c_ + t_.tile_k - 1) / t_.tile_k;
    const U64 k_steps = r_ * s_ * cblocks_;
    auto at = allocate_tma_gemm(chip, kName, n_ * h_ * w_ * c_ * eb, k_ * r_ * s_ * c_ * eb,
                                n_ * p_ * q_ * k_ * 4);
    if (!at) return at.errors();
    at_ = *at;

    if (chip.options().functional) {
      std::mt19937_64 gen(param(values, "seed"));
      in_ = tma_random_operand(gen, n_ * h_ * w_ * c_, t_.int8);
      filter_ = tma_random_operand(gen, k_ * r_ * s_ * c_, t_.int8);
      if (auto st = chip.memory().write(at_.a, std::as_bytes(std::span(in_))); !st) return st;
      if (auto st = chip.memory().write(at_.b, std::as_bytes(std::span(filter_))); !st) {
        return st;
      }
    }
    const tma::DataType in = t_.int8 ? tma::DataType::kUint8 : tma::DataType::kBfloat16;
    const auto pad = static_cast<std::int32_t>(pad_);
    const auto upper = [&](U64 taps) { return pad - static_cast<std::int32_t>((taps - 1) * dil_); };
    const auto a_map = tma::encode_im2col(
        {.data_type = in,
         .rank = 4,
         .global_address = at_.a,
         .global_dim = {c_, w_, h_, n_},
         .global_strides = {c_ * eb, w_ * c_ * eb, h_ * w_ * c_ * eb},
         .pixel_box_lower_corner = {-pad, -pad},
         .pixel_box_upper_corner = {upper(s_), upper(r_)},
         .channels_per_pixel = t_.tile_k,
         .pixels_per_column = t_.a_rows(),
         .element_strides = {1, static_cast<U32>(stride_), static_cast<U32>(stride_), 1},
         .swizzle = t_.swizzle ? tma::Swizzle::k128B : tma::Swizzle::kNone});
    const auto b_map = tma::encode_tiled({.data_type = in,
                                          .rank = 3,
                                          .global_address = at_.b,
                                          .global_dim = {c_, r_ * s_, k_},
                                          .global_strides = {c_ * eb, r_ * s_ * c_ * eb},
                                          .box_dim = {t_.tile_k, 1, t_.b_rows()},
                                          .element_strides = {1, 1, 1}});
    std::vector<Error> map_errors;
    const auto write = [&](Addr at, const Result<tma::TensorMap>& map, std::string_view what) {
      if (auto st = write_tensor_map(chip, at, map, kName, what); !st) {
        for (const Error& e : st.errors())
          map_errors.push_back(e);
      }
    };
    write(at_.maps, a_map, "A (im2col)");
    write(at_.maps + 128, b_map, "B (filter)");
    write(at_.maps + 256, tma_gemm_c_map(t_, at_.c, m_, k_), "C (output)");
    if (!map_errors.empty()) return map_errors;

    before_ = read_tma_gemm_counters(chip);
    const kernel::LaunchParams launch = tma_gemm_launch(t_, m_, k_);
    ctas_ = launch.grid.count();
    k_steps_ = k_steps;
    auto id = chip.launch(**kdef, launch,
                          tma_gemm_args(t_, at_, m_, k_, r_ * s_ * c_, k_steps)
                              .u32(static_cast<U32>(p_))
                              .u32(static_cast<U32>(q_))
                              .u32(static_cast<U32>(stride_))
                              .u32(static_cast<U32>(pad_))
                              .u32(static_cast<U32>(dil_))
                              .u32(static_cast<U32>(s_))
                              .u32(static_cast<U32>(cblocks_)));
    if (!id) return id.errors();
    launch_ = *id;
    return Ok{};
  }

  Result<std::vector<system::Measurement>> report(system::Chip& chip) override {
    if (auto st = ubench::check_completed(chip, launch_, kName); !st) return st.errors();
    if (chip.options().functional) {
      if (auto st = verify(chip); !st) return st.errors();
    }
    const double ops =
        2.0 * static_cast<double>(m_) * static_cast<double>(k_) * static_cast<double>(r_ * s_ * c_);
    const double expected_mm =
        static_cast<double>(ctas_) * t_.consumers * static_cast<double>(k_steps_);
    const std::string shape = fmt::format(
        "N {} H {} W {} C {} -> P {} Q {} K {}, filter {}x{} stride {} pad {} dilation {}, {}, "
        "GEMM {} x {} x {}, {}",
        n_, h_, w_, c_, p_, q_, k_, r_, s_, stride_, pad_, dil_, t_.int8 ? "s8" : "bf16", m_, k_,
        r_ * s_ * c_, tma_gemm_tiling_text(t_));
    return tma_gemm_measurements(chip, launch_, t_, ops, expected_mm, before_, shape);
  }

 private:
  // Every output element against a direct convolution (padding: taps outside the input skip).
  Status verify(system::Chip& chip) {
    std::vector<std::uint32_t> out(m_ * k_);
    if (auto st = chip.memory().read(at_.c, std::as_writable_bytes(std::span(out))); !st) {
      return st;
    }
    std::vector<double> in(in_.size() / t_.eb()), f(filter_.size() / t_.eb());
    for (U64 i = 0; i < in.size(); ++i)
      in[i] = tma_operand_value(in_, i, t_.int8);
    for (U64 i = 0; i < f.size(); ++i)
      f[i] = tma_operand_value(filter_, i, t_.int8);
    for (U64 n = 0; n < n_; ++n) {
      for (U64 p = 0; p < p_; ++p) {
        for (U64 q = 0; q < q_; ++q) {
          for (U64 k = 0; k < k_; ++k) {
            double sum = 0, abs_sum = 0;
            for (U64 r = 0; r < r_; ++r) {
              const std::int64_t y = static_cast<std::int64_t>(p * stride_ + r * dil_) -
                                     static_cast<std::int64_t>(pad_);
              if (y < 0 || y >= static_cast<std::int64_t>(h_)) continue;
              for (U64 s = 0; s < s_; ++s) {
                const std::int64_t x = static_cast<std::int64_t>(q * stride_ + s * dil_) -
                                       static_cast<std::int64_t>(pad_);
                if (x < 0 || x >= static_cast<std::int64_t>(w_)) continue;
                const double* pixel =
                    &in[((n * h_ + static_cast<U64>(y)) * w_ + static_cast<U64>(x)) * c_];
                const double* tap = &f[((k * r_ + r) * s_ + s) * c_];
                for (U64 c = 0; c < c_; ++c) {
                  sum += pixel[c] * tap[c];
                  abs_sum += std::fabs(pixel[c] * tap[c]);
                }
              }
            }
            const U64 m = (n * p_ + p) * q_ + q;
            if (auto st = check_tma_result(kName, fmt::format("out[{}][{}][{}][{}]", n, p, q, k),
                                           out[m * k_ + k], sum, abs_sum, r_ * s_ * c_, t_.int8);
                !st) {
              return st;
            }
          }
        }
      }
    }
    return Ok{};
  }

  U64 n_ = 0, h_ = 0, w_ = 0, c_ = 0, k_ = 0, r_ = 0, s_ = 0, stride_ = 1, pad_ = 0, dil_ = 1;
  U64 p_ = 0, q_ = 0, m_ = 0, cblocks_ = 0, ctas_ = 0, k_steps_ = 0;
  TmaGemmTiling t_{};
  std::vector<std::uint8_t> in_, filter_;
  TmaGemmCounters before_{};
  U32 launch_ = 0;
  TmaGemmBuffers at_;
};

}  // namespace

Status register_conv_tma(kernel::KernelRegistry& kernels, system::WorkloadRegistry& workloads) {
  std::vector<kernel::ArgDecl> args = tma_gemm_arg_decls();
  for (const char* name : {"p", "q", "stride", "pad", "dilation", "filter_s", "channel_blocks"})
    args.push_back({name, kernel::ArgKind::kU32});
  if (auto st = kernels.add({.name = std::string(kKernel),
                             .description = "implicit-GEMM convolution: gemm_tma's pipeline with "
                                            "an im2col A operand (conv.tma)",
                             .args = std::move(args),
                             .body = conv_tma_kernel,
                             .static_shared_bytes = 0});
      !st) {
    return st;
  }
  return workloads.add(std::make_unique<ConvTma>());
}

}  // namespace xpusim::workloads
