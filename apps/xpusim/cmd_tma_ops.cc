// `xpusim tma copy` and `xpusim tma layout`: run one TMA operation on fresh memory, or show
// where a box lands in shared memory (text and SVG).
#include "cmd_tma_ops.h"

#include <fmt/format.h>

#include <charconv>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>

#include "mem/global_memory.h"
#include "mem/pattern.h"
#include "mem/shared_memory.h"
#include "sim/file_read.h"
#include "tma/copy_engine.h"
#include "tma/layout_map.h"
#include "tma/swizzle.h"
#include "tma/tensor_map_io.h"

namespace xpusim::cli {

namespace {

template <class T>
Result<std::vector<T>> parse_list(std::string_view flag, std::string_view text) {
  std::vector<T> out;
  if (text.empty()) return out;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    if (i < text.size() && text[i] != ',') continue;
    const std::string_view item = text.substr(start, i - start);
    T v{};
    const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
    if (ec != std::errc{} || end != item.data() + item.size()) {
      return Error{fmt::format("{} = {}: item {} ('{}') is not a {} integer", flag, text,
                               out.size(), item,
                               std::is_signed_v<T> ? "32-bit signed" : "16-bit unsigned")};
    }
    out.push_back(v);
    start = i + 1;
  }
  return out;
}

std::uint32_t window_bytes(const tma::TensorMap& map) {
  const std::uint64_t box = tma::box_bytes(map);
  const std::uint64_t align = std::max<std::uint64_t>(128, tma::swizzle_alignment(map.swizzle));
  return static_cast<std::uint32_t>((box + align - 1) / align * align);
}

// Bytes of global memory the tensor spans from its base address; nullopt when that, or the
// end address, does not fit in 64 bits (a wrapped product would initialize a few bytes).
std::optional<std::uint64_t> footprint(const tma::TensorMap& map) {
  std::uint64_t bytes = 0, end = 0;
  const bool wraps =
      map.rank == 1
          ? __builtin_mul_overflow(map.global_dim[0], tma::element_bits(map.data_type), &bytes)
          : __builtin_mul_overflow(map.global_strides[map.rank - 2], map.global_dim[map.rank - 1],
                                   &bytes);
  if (wraps) return std::nullopt;
  if (map.rank == 1) bytes = bytes / 8 + (bytes % 8 != 0);
  if (__builtin_add_overflow(bytes, map.global_address, &end)) return std::nullopt;
  return bytes;
}

Status init_global(mem::GlobalMemory& g, const tma::TensorMap& map, const std::string& init,
                   std::uint64_t bytes) {
  if (auto p = mem::parse_pattern(init)) return mem::fill_pattern(g, map.global_address, bytes, *p);
  if (!std::filesystem::exists(init)) {
    return Error{fmt::format("--global-init = {}: neither a pattern ({}) nor a file", init,
                             mem::pattern_names())};
  }
  // The file's bytes are the tensor's from its base address: at most its footprint.
  auto data = read_file_bounded(init, "--global-init file (at most the tensor's bytes)", bytes);
  if (!data) return data.errors();
  return g.write(map.global_address,
                 {reinterpret_cast<const std::byte*>(data->data()), data->size()});
}

Status write_file(const std::string& path, std::span<const std::byte> bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  if (!out) return Error{fmt::format("--out = {}: cannot write the file", path)};
  return Ok{};
}

std::optional<tma::ReduceOp> parse_reduce(std::string_view op) {
  for (auto r :
       {tma::ReduceOp::kAdd, tma::ReduceOp::kMin, tma::ReduceOp::kMax, tma::ReduceOp::kInc,
        tma::ReduceOp::kDec, tma::ReduceOp::kAnd, tma::ReduceOp::kOr, tma::ReduceOp::kXor}) {
    if (op == fmt::format("reduce-{}", tma::name(r))) return r;
  }
  return std::nullopt;
}

struct CopyOpts {
  std::string file, coords, offsets, mcast, op = "load", global_init = "splitmix",
                                            smem_init = "splitmix", out;
};

int run_copy(const CopyOpts& o) {
  auto map = tma::load_tensor_map_file(o.file);
  if (!map) return fail(map.errors());
  auto coords = parse_list<std::int32_t>("--coords", o.coords);
  auto offsets = parse_list<std::uint16_t>("--offsets", o.offsets);
  std::vector<Error> errors;
  if (!coords) errors.push_back(coords.error());
  if (!offsets) errors.push_back(offsets.error());
  std::uint32_t mask = 1;
  if (!o.mcast.empty()) {
    const bool hex = o.mcast.rfind("0x", 0) == 0;
    const std::string_view digits = std::string_view(o.mcast).substr(hex ? 2 : 0);
    const auto [end, ec] =
        std::from_chars(digits.data(), digits.data() + digits.size(), mask, hex ? 16 : 10);
    if (ec != std::errc{} || end != digits.data() + digits.size() || mask == 0 || mask > 0xffff) {
      errors.push_back(
          {fmt::format("--mcast = {}: must be a non-zero 16-bit CTA mask (e.g. 0x3)", o.mcast)});
    }
  }
  const auto reduce = parse_reduce(o.op);
  const bool known_op = o.op == "load" || o.op == "store" || o.op == "prefetch" || reduce;
  if (!known_op) {
    errors.push_back({fmt::format(
        "--op = {}: must be load, store, prefetch or reduce-{{add,min,max,inc,dec,and,or,xor}}",
        o.op)});
  }
  if (o.out.empty() && known_op && o.op != "prefetch") {
    errors.push_back({fmt::format("--out: required for --op {}", o.op)});
  }
  if (map->mode == tma::Mode::kIm2col && o.op != "load" && o.op != "prefetch") {
    errors.push_back({fmt::format("--op = {}: im2col maps support load only", o.op)});
  }
  if (!errors.empty()) return fail(errors);

  const std::optional<std::uint64_t> spans = footprint(*map);
  if (!spans) {
    return fail(
        {{fmt::format("{}: the tensor's end (globalAddress + the outermost globalStrides "
                      "x globalDim) does not fit in 64-bit addresses",
                      o.file)}});
  }
  const std::uint64_t span = *spans;
  constexpr std::uint64_t kMaxFootprint = std::uint64_t{1} << 30;
  if (span > kMaxFootprint) {
    return fail(
        {{fmt::format("{}: the tensor spans {} bytes; `tma copy` initializes at most {} "
                      "(use a smaller globalDim)",
                      o.file, span, kMaxFootprint)}});
  }
  mem::GlobalMemory global;
  if (auto st = init_global(global, *map, o.global_init, span); !st) return fail(st.errors());

  const std::uint32_t window = window_bytes(*map);
  const int ctas = 32 - std::countl_zero(mask);
  std::vector<mem::SharedMemory> smem(static_cast<std::size_t>(ctas), mem::SharedMemory(window));
  if (o.op != "load") {
    const auto p = mem::parse_pattern(o.smem_init);
    if (!p) {
      return fail({{fmt::format("--smem-init = {}: must be one of {}", o.smem_init,
                                mem::pattern_names())}});
    }
    mem::fill_pattern(smem[0], *p);
  }

  Result<tma::CopyReport> report = Error{"unreachable"};
  std::vector<std::byte> result;
  if (o.op == "load") {
    std::vector<mem::SharedMemory*> cluster;
    for (auto& s : smem)
      cluster.push_back(&s);
    auto targets = tma::multicast_targets(cluster, static_cast<std::uint16_t>(mask), 0);
    if (!targets) return fail(targets.errors());
    report = map->mode == tma::Mode::kIm2col
                 ? tma::load_im2col(*map, *coords, *offsets, global, *targets)
                 : tma::load_tile(*map, *coords, global, *targets);
    if (report) {
      // The box bytes; a swizzle permutes within 128 B rows, so then whole rows.
      const std::uint64_t box = report->bytes_per_destination;
      const std::uint64_t n = map->swizzle == tma::Swizzle::kNone ? box : (box + 127) / 128 * 128;
      for (const auto& t : *targets) {
        const auto bytes = t.smem->bytes().subspan(0, n);
        result.insert(result.end(), bytes.begin(), bytes.end());
      }
    }
  } else if (o.op == "prefetch") {
    report = tma::prefetch_tile(*map, *coords);
  } else {
    report = o.op == "store" ? tma::store_tile(*map, *coords, smem[0], 0, global)
                             : tma::reduce_tile(*map, *reduce, *coords, smem[0], 0, global);
    if (report) {
      result.resize(span);
      if (auto st = global.read(map->global_address, result); !st) return fail(st.errors());
    }
  }
  if (!report) return fail(report.errors());
  if (!o.out.empty()) {
    if (auto st = write_file(o.out, result); !st) return fail(st.errors());
  }
  std::printf("%s: %s, %llu elements (%llu out of bounds), %zu global requests\n", o.op.c_str(),
              o.file.c_str(), static_cast<unsigned long long>(report->elements),
              static_cast<unsigned long long>(report->oob_elements),
              report->global_requests.size());
  if (o.op == "load") {
    std::printf("expect_tx %llu bytes per destination, %u destination(s)\n",
                static_cast<unsigned long long>(report->bytes_per_destination),
                report->destinations);
  }
  if (!o.out.empty()) std::printf("wrote %zu bytes to %s\n", result.size(), o.out.c_str());
  return kExitOk;
}

struct LayoutOpts {
  std::string file, coords, offsets, svg;
  bool elements = false;
};

int run_layout(const LayoutOpts& o) {
  auto map = tma::load_tensor_map_file(o.file);
  if (!map) return fail(map.errors());
  auto coords = parse_list<std::int32_t>("--coords", o.coords);
  auto offsets = parse_list<std::uint16_t>("--offsets", o.offsets);
  if (!coords || !offsets) {
    std::vector<Error> errors;
    if (!coords) errors.push_back(coords.error());
    if (!offsets) errors.push_back(offsets.error());
    return fail(errors);
  }
  // Default request: the box at the origin (and zero offsets for im2col).
  if (coords->empty()) coords->assign(map->rank, 0);
  if (offsets->empty() && map->mode == tma::Mode::kIm2col) offsets->assign(map->rank - 2, 0);
  auto layout = tma::map_layout(*map, *coords, *offsets);
  if (!layout) return fail(layout.errors());
  std::fputs(o.elements ? tma::layout_elements_text(*map, *layout).c_str()
                        : tma::layout_text(*map, *layout).c_str(),
             stdout);
  if (!o.svg.empty()) {
    const std::string title = fmt::format("{}: {} swizzle, {}-byte elements", o.file,
                                          tma::name(map->swizzle), layout->element_bytes);
    const std::string svg = tma::layout_svg(*map, *layout, title);
    if (auto st = write_file(o.svg, {reinterpret_cast<const std::byte*>(svg.data()), svg.size()});
        !st) {
      return fail({{fmt::format("--svg = {}: cannot write the file", o.svg)}});
    }
  }
  return kExitOk;
}

}  // namespace

void add_tma_copy_command(CLI::App& tma, const GlobalOptions& g, Action& action) {
  auto* cmd = tma.add_subcommand("copy", "Run one TMA operation on fresh memory; write the result");
  auto o = std::make_shared<CopyOpts>();
  cmd->add_option("FILE", o->file, "tensor map (.yaml/.yml/.json)")->required();
  cmd->add_option("--coords", o->coords, "box coordinates c0,c1,... (dim 0 first; signed)");
  cmd->add_option("--offsets", o->offsets, "im2col offsets (W,H,D), 16-bit each");
  cmd->add_option("--mcast", o->mcast, "multicast CTA mask (e.g. 0x5); output = each CTA's window");
  cmd->add_option("--op", o->op,
                  "load | store | prefetch | reduce-{add,min,max,inc,dec,and,or,xor}")
      ->capture_default_str();
  cmd->add_option("--global-init", o->global_init,
                  "global memory: pattern (zero, address, splitmix) or a raw file at the base")
      ->capture_default_str();
  cmd->add_option("--smem-init", o->smem_init, "shared memory pattern for store/reduce")
      ->capture_default_str();
  cmd->add_option("--out", o->out, "file for the destination bytes (shared window or tensor)");
  cmd->callback([&g, &action, o] {
    action = [&g, o] {
      if (auto errors = reject_sim_outputs(g, "tma copy"); !errors.empty()) return fail(errors);
      return run_copy(*o);
    };
  });
}

void add_tma_layout_command(CLI::App& tma, const GlobalOptions& g, Action& action) {
  auto* cmd = tma.add_subcommand("layout", "Show which global element lands at which shared byte");
  auto o = std::make_shared<LayoutOpts>();
  cmd->add_option("FILE", o->file, "tensor map (.yaml/.yml/.json)")->required();
  cmd->add_option("--coords", o->coords, "box coordinates (default: the origin)");
  cmd->add_option("--offsets", o->offsets, "im2col offsets (W,H,D)");
  cmd->add_flag("--elements", o->elements, "one line per element instead of the chunk grid");
  cmd->add_option("--svg", o->svg, "also write an SVG picture (16 B chunks coloured by column)");
  cmd->callback([&g, &action, o] {
    action = [&g, o] {
      if (auto errors = reject_sim_outputs(g, "tma layout"); !errors.empty()) return fail(errors);
      return run_layout(*o);
    };
  });
}

}  // namespace xpusim::cli
