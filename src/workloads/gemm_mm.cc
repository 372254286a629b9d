// gemm.mm: C = A·B on the `mm` tensor-multiply instruction, the way a hand-written kernel would
// tile it.
//
// Kernel gemm_mm: one CTA of W warps computes a (32·W) x TN tile of C; lane l of warp w owns C
// row 32·w + l of the tile, whose TN values live in its mm registers r0..r(TN-1) (zeroed at
// the start). K advances TK at a time:
//   - the CTA's threads copy the B tile (TK x TN elements) from global into shared memory with
//     plain 16-byte load_global / store_shared per lane, in the layout mm reads: t0 (B
//     column-major) column j's TK elements contiguous at j·TK·eb; t1 (B row-major) row e's TN
//     elements contiguous at e·TN·eb;
//   - each lane loads its A row's TK elements (TK·eb/4 registers from r256) with
//     load_registers_global, 4 registers (16 B) at a time — asynchronous; the mm waits for them;
//   - one mm (k = TK, n = TN, c_base 0, a_base 256, B in shared memory) per warp;
//   - sync_threads between tiles. With stages = 2 (default) shared memory holds two B tiles:
//     tile i+1 is copied while tile i is multiplied (one barrier per K step); with stages = 1
//     there is one buffer and two barriers per K step.
// Epilogue: each lane stores its C row's TN values (16 B per lane per store) to global C.
// Grid: (N / TN) x (M / (32·W)).
//
// Verification (functional mode): every C element against a naive GEMM computed here. Integer
// types (s8, s16, u16, s32, u32; seed2 ¶72): the exact sum's low 32 bits (C wraps mod 2^32). bf16:
// the double-precision sum, and |got - want| <= K · 2^-22 · Σ_e |a_e·b_e| + 1e-30 (fp32
// accumulation of exact products over K adds is within K · 2^-24 · Σ|a·b|; 4x margin).
#include "workloads/gemm_mm.h"

#include <fmt/format.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <span>
#include <vector>

#include "kernel/warp.h"
#include "sim/float_formats.h"
#include "workloads/ubench/common.h"

namespace xpusim::workloads {
namespace {

using kernel::Addr;
using kernel::kWarpSize;
using kernel::LaneMask;
using kernel::Lanes;
using kernel::MmInstruction;
using kernel::MmType;
using kernel::Warp;
using U32 = std::uint32_t;
using U64 = std::uint64_t;

constexpr std::string_view kKernel = "gemm_mm";
constexpr std::string_view kName = "gemm.mm";
constexpr U32 kABase = 256;     // first A register (seed2 ¶95)
constexpr U32 kMaxARegs = 256;  // r256..r511 of the 512-register mm file
constexpr U32 kMaxTileN = 256;  // C in r0..r255
constexpr U64 kMaxDim = 16384;  // each matrix fits in 4 GiB (kGemmMm* spacing)
constexpr U32 kRegsPerThread = 128;

struct Chunk {  // 16 bytes, one lane's share of a copy or store
  std::uint32_t w[4];
};

// The `type` parameter: 0 bf16 (fp32 C), then the integer types of seed2 ¶72 (int32 C, wrapping
// modulo 2^32): 1 s8, 2 s16, 3 u16, 4 s32, 5 u32.
constexpr U32 kTypeBf16 = 0, kTypeS8 = 1, kTypes = 6;
constexpr MmType kMmTypes[kTypes] = {MmType::kBF16, MmType::kS8,  MmType::kS16,
                                     MmType::kU16,  MmType::kS32, MmType::kU32};

U32 type_bytes(U32 type) {
  return kernel::mm_type_bytes(kMmTypes[type]);
}

// Element i of a host buffer of `type`, as a number (integers exactly).
double element(U32 type, const std::vector<std::uint8_t>& bytes, U64 i) {
  const U32 eb = type_bytes(type);
  std::uint32_t raw = 0;
  for (U32 b = 0; b < eb; ++b)
    raw |= std::uint32_t{bytes[i * eb + b]} << (8 * b);
  switch (kMmTypes[type]) {
    case MmType::kBF16:
      return bf16_to_float(static_cast<std::uint16_t>(raw));
    case MmType::kS8:
      return static_cast<std::int8_t>(static_cast<std::uint8_t>(raw));
    case MmType::kS16:
      return static_cast<std::int16_t>(static_cast<std::uint16_t>(raw));
    case MmType::kS32:
      return static_cast<std::int32_t>(raw);
    default:  // u16, u32
      return raw;
  }
}

// Args: A, B, C (pointers), m, n, k, type (kMmTypes), b_layout (0 t0, 1 t1), tile_n, tile_k,
// stages.
sim::Task<> gemm_mm_kernel(Warp& w) {
  const kernel::KernelArgs& a = w.args();
  const Addr pa = a.get_ptr(0), pb = a.get_ptr(1), pc = a.get_ptr(2);
  const U64 n = a.get_u32(4), k = a.get_u32(5);
  const U32 type = a.get_u32(6);
  const bool t1 = a.get_u32(7) == 1;
  const U32 tn = a.get_u32(8), tk = a.get_u32(9), stages = a.get_u32(10);
  const U32 eb = type_bytes(type);
  const U32 threads = w.params().threads_per_block();
  const U64 row = U64{w.block_id().y} * threads + U64{w.warp_id()} * kWarpSize;  // lane 0's
  const U64 col0 = U64{w.block_id().x} * tn;
  const U32 tile_bytes = tk * tn * eb;
  const U32 chunks = tile_bytes / 16;
  const U32 a_regs = tk * eb / 4;
  const U64 k_tiles = k / tk;

  // One mm per shared buffer (the b_addresses differ).
  std::vector<MmInstruction> mm(stages);
  for (U32 s = 0; s < stages; ++s) {
    MmInstruction& m = mm[s];
    m.a_type = m.b_type = kMmTypes[type];
    m.c_base = 0;
    m.a_base = kABase;
    m.k = tk;
    m.n = tn;
    m.t1 = t1;
    m.b_shared = true;
    const U64 base = U64{s} * tile_bytes;
    const U32 entries = t1 ? tk : tn;  // row starts (t1) or column starts (t0)
    const U32 stride = t1 ? tn * eb : tk * eb;
    for (U32 i = 0; i < entries; ++i)
      m.b_addresses.push_back(base + U64{i} * stride);
  }

  // C = 0 in r0..r(TN-1): one move per register.
  kernel::RegisterFile& regs = w.registers();
  for (U32 l = 0; l < kWarpSize; ++l)
    for (U32 j = 0; j < tn; ++j)
      regs.at(l, j) = 0;
  co_await w.alu(tn);

  // Copies B tile `kt` into shared buffer `buf`: chunk c (16 B) of the tile goes to
  // buf·tile_bytes + 16·c; the CTA's threads take chunks thread id, + threads, ...
  const auto copy_tile = [&](U64 kt, U32 buf) -> sim::Task<> {
    const U32 per_line = t1 ? tn * eb : tk * eb;  // contiguous bytes in global per column/row
    for (U32 c0 = w.warp_id() * kWarpSize; c0 < chunks; c0 += threads) {
      LaneMask mask = 0;
      const auto src = kernel::lanes<Addr>([&](U32 l) {
        const U32 c = c0 + l;
        if (c >= chunks) return pb;
        mask |= LaneMask{1} << l;
        const U32 line = c * 16 / per_line, off = c * 16 % per_line;
        const U64 element = t1 ? (kt * tk + line) * n + col0   // row kt·TK + line, column col0
                               : (col0 + line) * k + kt * tk;  // column col0 + line, row kt·TK
        return pb + element * eb + off;
      });
      const auto dst =
          kernel::lanes<Addr>([&](U32 l) { return Addr{buf} * tile_bytes + Addr{c0 + l} * 16; });
      const auto v = co_await w.load_global<Chunk>(src, mask);
      co_await w.store_shared<Chunk>(dst, v, mask);
    }
  };
  // This warp's A rows, K slice kt, into r256.. (asynchronous).
  const auto load_a = [&](U64 kt) -> sim::Task<> {
    for (U32 r = 0; r < a_regs; r += 4) {
      const auto at = kernel::lanes<Addr>(
          [&](U32 l) { return pa + ((row + l) * k + kt * tk) * eb + Addr{r} * 4; });
      co_await w.load_registers_global(kABase + r, 4, at);
    }
  };

  if (stages == 2) {
    co_await copy_tile(0, 0);
    co_await w.sync_threads();
    for (U64 kt = 0; kt < k_tiles; ++kt) {
      co_await load_a(kt);
      if (kt + 1 < k_tiles) co_await copy_tile(kt + 1, static_cast<U32>((kt + 1) % 2));
      co_await w.mm(mm[kt % 2]);
      co_await w.sync_threads();  // tile kt+1 is in; buffer kt%2 is free for tile kt+2
    }
  } else {
    for (U64 kt = 0; kt < k_tiles; ++kt) {
      co_await load_a(kt);
      co_await copy_tile(kt, 0);
      co_await w.sync_threads();
      co_await w.mm(mm[0]);
      co_await w.sync_threads();
    }
  }

  // Epilogue: lane l's C row, 4 values (16 B) per store.
  for (U32 j = 0; j < tn; j += 4) {
    const auto v = kernel::lanes<Chunk>([&](U32 l) {
      return Chunk{{regs.at(l, j), regs.at(l, j + 1), regs.at(l, j + 2), regs.at(l, j + 3)}};
    });
    const auto at = kernel::lanes<Addr>([&](U32 l) { return pc + ((row + l) * n + col0 + j) * 4; });
    co_await w.store_global<Chunk>(at, v);
  }
}

std::uint64_t param(const system::ParamValues& v, std::string_view name) {
  return ubench::param(v, name);
}

class GemmMm final : public system::Workload {
 public:
  std::string_view name() const override { return kName; }
  std::string_view description() const override {
    return "C = A x B (bf16 -> fp32 or s8 -> int32) on the mm tensor instruction: B tiles "
           "through shared memory, A rows in registers, C in registers";
  }
  std::vector<system::ParamDecl> params() const override {
    return {
        {.name = "m",
         .description = "rows of A and C",
         .default_value = 256,
         .min = 32,
         .max = kMaxDim},
        {.name = "n",
         .description = "columns of B and C",
         .default_value = 256,
         .min = 16,
         .max = kMaxDim},
        {.name = "k",
         .description = "columns of A, rows of B",
         .default_value = 256,
         .min = 16,
         .max = kMaxDim},
        {.name = "type",
         .description = "0: bf16 inputs, fp32 C; integer inputs, int32 C (wrapping): 1 s8, 2 s16, "
                        "3 u16, 4 s32, 5 u32",
         .default_value = 0,
         .min = 0,
         .max = kTypes - 1},
        {.name = "b_layout",
         .description = "0: B column-major (mm t0); 1: row-major (mm t1)",
         .default_value = 0,
         .min = 0,
         .max = 1},
        {.name = "warps",
         .description = "warps per CTA (32 C rows each)",
         .default_value = 4,
         .min = 1,
         .max = 32},
        {.name = "tile_n",
         .description = "C columns per CTA (mm n), a multiple of 16",
         .default_value = 128,
         .min = 16,
         .max = kMaxTileN},
        {.name = "tile_k",
         .description = "K per step (mm k), a multiple of 16; 0: 64 for s8, 32 for 16-bit "
                        "types, 16 for 32-bit ones",
         .default_value = 0,
         .min = 0,
         .max = 1024},
        {.name = "stages",
         .description = "B tiles in shared memory (2: copy overlaps mm)",
         .default_value = 2,
         .min = 1,
         .max = 2},
        {.name = "seed",
         .description = "random inputs' seed",
         .default_value = 1,
         .min = 0,
         .max = 0xFFFF'FFFF},
    };
  }

  Status setup(system::Chip& chip, const kernel::KernelRegistry& kernels,
               const system::ParamValues& values) override {
    m_ = param(values, "m"), n_ = param(values, "n"), k_ = param(values, "k");
    type_ = static_cast<U32>(param(values, "type"));
    t1_ = param(values, "b_layout") == 1;
    warps_ = static_cast<U32>(param(values, "warps"));
    tn_ = static_cast<U32>(param(values, "tile_n"));
    tk_ = static_cast<U32>(param(values, "tile_k"));
    if (tk_ == 0) tk_ = 64 / type_bytes(type_);
    stages_ = static_cast<U32>(param(values, "stages"));
    const U64 seed = param(values, "seed");
    const U32 eb = type_bytes(type_);
    const U64 rows = U64{32} * warps_;
    std::vector<Error> errors;
    if (tn_ % 16 != 0) {
      errors.push_back({fmt::format("{}: tile_n {} is not a multiple of 16", kName, tn_)});
    }
    if (tk_ % 16 != 0) {
      errors.push_back({fmt::format("{}: tile_k {} is not a multiple of 16", kName, tk_)});
    } else if (tk_ * eb / 4 > kMaxARegs) {
      errors.push_back({fmt::format("{}: tile_k {} needs {} A registers; r{}.. holds {}", kName,
                                    tk_, tk_ * eb / 4, kABase, kMaxARegs)});
    }
    if (m_ % rows != 0) {
      errors.push_back(
          {fmt::format("{}: m {} is not a multiple of the CTA's {} rows (32 x warps {})", kName, m_,
                       rows, warps_)});
    }
    if (tn_ != 0 && n_ % tn_ != 0) {
      errors.push_back({fmt::format("{}: n {} is not a multiple of tile_n {}", kName, n_, tn_)});
    }
    if (tk_ != 0 && k_ % tk_ != 0) {
      errors.push_back({fmt::format("{}: k {} is not a multiple of tile_k {}", kName, k_, tk_)});
    }
    if (!errors.empty()) return errors;
    auto kdef = kernels.find(kKernel);
    if (!kdef) return kdef.errors();

    // Inputs: host copies (A row-major; B in its layout), written to device memory when data
    // moves.
    std::mt19937_64 gen(seed);
    const auto fill = [&](std::vector<std::uint8_t>& bytes, U64 elements) {
      bytes.assign(elements * eb, 0);
      for (U64 i = 0; i < elements; ++i) {
        if (type_ == kTypeS8) {
          bytes[i] = static_cast<std::uint8_t>(gen() >> 56);
        } else if (type_ != kTypeBf16) {  // every bit pattern of the integer type
          const U64 v = gen();
          for (U32 b = 0; b < eb; ++b)
            bytes[i * eb + b] = static_cast<std::uint8_t>(v >> (8 * b));
        } else {  // uniform in [-1, 1) with 24 random bits, rounded to bf16
          const float x = static_cast<float>(static_cast<double>(gen() >> 40) / 8388608.0 - 1.0);
          const std::uint16_t b = float_to_bf16(x);
          bytes[2 * i] = static_cast<std::uint8_t>(b & 0xFF);
          bytes[2 * i + 1] = static_cast<std::uint8_t>(b >> 8);
        }
      }
    };
    fill(a_, m_ * k_);
    fill(b_, k_ * n_);
    auto a = chip.allocate("gemm.mm: A", a_.size());
    if (!a) return a.errors();
    auto b = chip.allocate("gemm.mm: B", b_.size());
    if (!b) return b.errors();
    auto c = chip.allocate("gemm.mm: C", 4 * m_ * n_);
    if (!c) return c.errors();
    a_at_ = *a, b_at_ = *b, c_at_ = *c;
    if (chip.options().functional) {
      if (auto st = chip.memory().write(a_at_, std::as_bytes(std::span(a_))); !st) return st;
      if (auto st = chip.memory().write(b_at_, std::as_bytes(std::span(b_))); !st) return st;
    }

    const char* stats[] = {"mm.instructions", "mm.b_bytes", "tensor.busy_cycles"};
    for (U32 i = 0; i < 3; ++i) {
      auto v = ubench::sum_over_sms(chip, stats[i]);
      if (!v) return v.errors();
      before_[i] = *v;
    }
    const kernel::LaunchParams p{
        .grid = {static_cast<U32>(n_ / tn_), static_cast<U32>(m_ / rows), 1},
        .cluster = {1, 1, 1},
        .block = {32 * warps_, 1, 1},
        .dynamic_shared_bytes = stages_ * tk_ * tn_ * eb,
        .registers_per_thread = kRegsPerThread};
    auto id = chip.launch(**kdef, p,
                          kernel::KernelArgs()
                              .ptr(a_at_)
                              .ptr(b_at_)
                              .ptr(c_at_)
                              .u32(static_cast<U32>(m_))
                              .u32(static_cast<U32>(n_))
                              .u32(static_cast<U32>(k_))
                              .u32(type_)
                              .u32(t1_ ? 1 : 0)
                              .u32(tn_)
                              .u32(tk_)
                              .u32(stages_));
    if (!id) return id.errors();
    launch_ = *id;
    return Ok{};
  }

  Result<std::vector<system::Measurement>> report(system::Chip& chip) override {
    if (auto st = ubench::check_completed(chip, launch_, kName); !st) return st.errors();
    const bool functional = chip.options().functional;
    if (functional) {
      if (auto st = verify(chip); !st) return st.errors();
    }
    const config::ChipSpec& spec = chip.spec();
    const system::KernelRun& run = chip.run(launch_);
    const double ps = static_cast<double>(run.completed - run.first_start);
    const double cycles = ubench::ps_to_sm_cycles(spec, ps);
    const double ops =
        2.0 * static_cast<double>(m_) * static_cast<double>(n_) * static_cast<double>(k_);
    const double tflops = ops / ps;  // ops per ps = Tops/s
    // The rate of the type (core/sm_tensor.cc mm_rate): s8 the int8 one, the 16-bit types the
    // bf16 one, the 32-bit integers the f32 one.
    const config::TensorSpec& ts = spec.sm.tensor;
    const double peak = type_ == kTypeS8 ? spec.peak_int8_dense_tops()
                        : type_bytes(type_) == 2
                            ? spec.peak_bf16_dense_tflops()
                            : spec.peak_bf16_dense_tflops() * ts.f32_fma_per_cycle /
                                  std::max<U32>(1, ts.bf16_fma_per_cycle);
    const bool integer = type_ != kTypeBf16;
    const char* type_name = kernel::mm_type_name(kMmTypes[type_]);
    double now[3];
    const char* stats[] = {"mm.instructions", "mm.b_bytes", "tensor.busy_cycles"};
    for (U32 i = 0; i < 3; ++i) {
      auto v = ubench::sum_over_sms(chip, stats[i]);
      if (!v) return v.errors();
      now[i] = *v - before_[i];
    }
    const double sms = static_cast<double>(ubench::busy_sms(chip).size());
    const double cores = spec.sm.tensor.cores;
    const U32 eb = type_bytes(type_);
    const double expected_mm = static_cast<double>(m_ / 32) * static_cast<double>(n_ / tn_) *
                               static_cast<double>(k_ / tk_);
    const std::string shape =
        fmt::format("{} x {} x {} {}, B {}, CTA {} warps x tile_n {} x tile_k {}, {} stage{}", m_,
                    n_, k_, type_name, t1_ ? "row-major (t1)" : "column-major (t0)", warps_, tn_,
                    tk_, stages_, stages_ == 1 ? "" : "s");
    std::vector<system::Measurement> out{
        {.name = "cycles",
         .measured = cycles,
         .configured = std::nullopt,
         .unit = "cycles",
         .note = fmt::format("first CTA start to last CTA exit, SM clock; {}{}", shape,
                             functional ? "" : "; C not verified (timing-only)")},
        {.name = integer ? "TOPS" : "TFLOP/s",
         .measured = tflops,
         .configured = peak,
         .unit = integer ? "TOPS" : "TFLOP/s",
         .note = fmt::format(
             "2·M·N·K over first CTA start to last CTA exit; configured = the chip's dense {} peak",
             type_ == kTypeS8         ? "int8"
             : type_bytes(type_) == 2 ? "bf16"
                                      : "fp32 (mm f32 rate)")},
        {.name = "% of dense peak",
         .measured = 100.0 * tflops / peak,
         .configured = std::nullopt,
         .unit = "%",
         .note = fmt::format("{} CTAs on {} of {} SMs", (n_ / tn_) * (m_ / (32 * warps_)), sms,
                             chip.num_sms())},
        {.name = "tensor-unit busy",
         .measured = cycles * sms * cores == 0 ? 0 : 100.0 * now[2] / (cycles * sms * cores),
         .configured = std::nullopt,
         .unit = "%",
         .note = "sum of sm*.tensor.busy_cycles / (cycles x SMs used x tensor cores per SM)"},
        {.name = "mm instructions",
         .measured = now[0],
         .configured = expected_mm,
         .unit = "instructions",
         .note = "configured = M/32 x N/tile_n x K/tile_k"},
        {.name = "mm.b_bytes",
         .measured = now[1],
         .configured = expected_mm * tk_ * tn_ * eb,
         .unit = "bytes",
         .note = "B bytes the mm memory issues read (shared); configured = mm x tile_k x tile_n "
                 "x element bytes"},
    };
    if (auto rate = ubench::l2_hit_rate(chip)) out.push_back(*rate);
    return out;
  }

 private:
  // Every C element against the naive GEMM; the error names the first mismatch.
  Status verify(system::Chip& chip) {
    std::vector<std::uint32_t> c(m_ * n_);
    if (auto st = chip.memory().read(c_at_, std::as_writable_bytes(std::span(c))); !st) {
      return st;
    }
    // Inputs as numbers: A row-major, B column-major (bt[j·K + e] = B[e][j]).
    const auto value = [&](const std::vector<std::uint8_t>& bytes, U64 i) {
      return element(type_, bytes, i);
    };
    std::vector<double> a(m_ * k_), bt(k_ * n_);
    for (U64 i = 0; i < m_ * k_; ++i)
      a[i] = value(a_, i);
    for (U64 e = 0; e < k_; ++e) {
      for (U64 j = 0; j < n_; ++j)
        bt[j * k_ + e] = value(b_, t1_ ? e * n_ + j : j * k_ + e);
    }
    for (U64 i = 0; i < m_; ++i) {
      const double* ar = &a[i * k_];
      for (U64 j = 0; j < n_; ++j) {
        const double* bc = &bt[j * k_];
        const std::uint32_t bits = c[i * n_ + j];
        if (type_ != kTypeBf16) {
          // The exact sum modulo 2^64 (two 32-bit factors reach 2^64), then its low 32 bits.
          std::uint64_t sum = 0;
          for (U64 e = 0; e < k_; ++e)
            sum += static_cast<std::uint64_t>(static_cast<std::int64_t>(ar[e])) *
                   static_cast<std::uint64_t>(static_cast<std::int64_t>(bc[e]));
          const auto want = static_cast<std::int32_t>(static_cast<std::uint32_t>(sum));
          const auto got = static_cast<std::int32_t>(bits);
          if (got != want) {
            return Error{
                fmt::format("{}: C[{}][{}] = {}, want {} (int32, exact)", kName, i, j, got, want)};
          }
        } else {
          double sum = 0, abs_sum = 0;
          for (U64 e = 0; e < k_; ++e) {
            sum += ar[e] * bc[e];
            abs_sum += std::fabs(ar[e] * bc[e]);
          }
          const double got = std::bit_cast<float>(bits);
          const double tol = static_cast<double>(k_) * std::ldexp(1.0, -22) * abs_sum + 1e-30;
          if (!(std::fabs(got - sum) <= tol)) {
            return Error{
                fmt::format("{}: C[{}][{}] = {:.9g}, want {:.9g} (|error| {:.3g} > "
                            "tolerance K·2^-22·Σ|a·b| = {:.3g})",
                            kName, i, j, got, sum, std::fabs(got - sum), tol)};
          }
        }
      }
    }
    return Ok{};
  }

  U64 m_ = 0, n_ = 0, k_ = 0;
  U32 type_ = kTypeBf16;
  bool t1_ = false;
  U32 warps_ = 4, tn_ = 128, tk_ = 32, stages_ = 2;
  std::vector<std::uint8_t> a_, b_;
  double before_[3] = {0, 0, 0};
  std::uint32_t launch_ = 0;
  kernel::Addr a_at_ = 0, b_at_ = 0, c_at_ = 0;
};

}  // namespace

Status register_gemm_mm(kernel::KernelRegistry& kernels, system::WorkloadRegistry& workloads) {
  if (auto st = kernels.add({.name = std::string(kKernel),
                             .description = "C = A x B with mm: B tiles via shared memory, A rows "
                                            "in registers (the gemm.mm workload)",
                             .args = {{"a", kernel::ArgKind::kPtr},
                                      {"b", kernel::ArgKind::kPtr},
                                      {"c", kernel::ArgKind::kPtr},
                                      {"m", kernel::ArgKind::kU32},
                                      {"n", kernel::ArgKind::kU32},
                                      {"k", kernel::ArgKind::kU32},
                                      {"type", kernel::ArgKind::kU32},
                                      {"b_layout", kernel::ArgKind::kU32},
                                      {"tile_n", kernel::ArgKind::kU32},
                                      {"tile_k", kernel::ArgKind::kU32},
                                      {"stages", kernel::ArgKind::kU32}},
                             .body = gemm_mm_kernel,
                             .static_shared_bytes = 0});
      !st) {
    return st;
  }
  return workloads.add(std::make_unique<GemmMm>());
}

}  // namespace xpusim::workloads
