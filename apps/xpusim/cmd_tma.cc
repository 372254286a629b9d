// `tma`: tools for the tensor-memory-access unit. Each subcommand is one add_tma_* function
// below, listed in add_tma_command; `lint` checks a tensor map file against every cuda.h rule.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include "cli.h"
#include "cmd_tma_ops.h"
#include "mem/global_memory.h"
#include "mem/shared_memory.h"
#include "sim/file_read.h"
#include "tma/copy_engine.h"
#include "tma/swizzle.h"
#include "tma/tensor_map_encode.h"
#include "tma/tensor_map_io.h"

namespace xpusim::cli {
namespace {

using tma::TensorMap;

constexpr std::uint32_t kSectorBytes = 32;

// A file by extension, or `-` for stdin (JSON when it starts with '{', else YAML).
Result<TensorMap> read_map(const std::string& path) {
  if (path != "-") return tma::load_tensor_map_file(path);
  auto read = read_stream_bounded(std::cin, "<stdin>");
  if (!read) return read.errors();
  const std::string& text = *read;
  const auto first = text.find_first_not_of(" \t\r\n");
  return first != std::string::npos && text[first] == '{'
             ? tma::parse_tensor_map_json(text, "<stdin>")
             : tma::parse_tensor_map_yaml(text, "<stdin>");
}

template <class T, std::size_t N>
std::string list(const std::array<T, N>& a, std::size_t n) {
  return fmt::format("[{}]",
                     fmt::join(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(n), ", "));
}

// Global requests of one box at the origin (im2col: the bounding box's first pixel of image 0,
// where a filter base is always valid).
Result<std::size_t> origin_requests(const TensorMap& map) {
  std::vector<std::int32_t> coords(map.rank, 0);
  if (map.mode == tma::Mode::kTiled) {
    auto r = tma::prefetch_tile(map, coords);
    if (!r) return r.errors();
    return r->global_requests.size();
  }
  for (std::uint32_t i = 0; i + 2 < map.rank; ++i)
    coords[i + 1] = map.pixel_box_lower_corner[i];
  const std::vector<std::uint16_t> offsets(map.rank - 2, 0);
  const std::uint64_t bytes = tma::box_footprint(map);
  mem::GlobalMemory global;
  mem::SharedMemory smem(static_cast<std::uint32_t>((bytes + 1023) / 1024 * 1024));
  const tma::SmemTarget dst[] = {{.smem = &smem, .offset = 0}};
  auto r = tma::load_im2col(map, coords, offsets, global, dst);
  if (!r) return r.errors();
  return r->global_requests.size();
}

// Bytes of one inner box row as read from global memory (interleaved: whole chunks, each
// read on its own when elementStrides[0] skips some; docs/tma.md).
std::uint64_t inner_row_bytes(const TensorMap& map) {
  if (map.mode == tma::Mode::kIm2col)
    return tma::packed_bytes(map.data_type, map.channels_per_pixel);
  if (map.interleave != tma::Interleave::kNone)
    return map.element_strides[0] == 1
               ? map.box_dim[0] * (map.interleave == tma::Interleave::k16B ? 16u : 32u)
               : (map.interleave == tma::Interleave::k16B ? 16u : 32u);
  return tma::packed_bytes(map.data_type, map.box_dim[0]);
}

int lint(const std::string& path, bool cuda) {
  Result<TensorMap> loaded = read_map(path);
  if (!loaded) return fail(loaded.errors());
  const TensorMap& m = *loaded;
  if (cuda) {  // what a real GPU's cuTensorMapEncode takes: no xpusim extension
    std::vector<Error> errors;
    for (std::string& line : tma::cuda_extensions(m))
      errors.push_back(Error{fmt::format("{}: --cuda: {}", path == "-" ? "<stdin>" : path, line)});
    if (!errors.empty()) return fail(errors);
  }
  // A copy engine that refuses a valid map is reported, not fatal: the rules are the lint.
  Result<std::size_t> requests = origin_requests(m);

  std::string out;
  const auto row = [&out](std::string_view label, const std::string& value) {
    out += fmt::format("{:<21}{}\n", fmt::format("{}:", label), value);
  };
  const bool tiled = m.mode == tma::Mode::kTiled;
  row("tensor map", path == "-" ? "<stdin>" : path);
  row("mode", tiled ? "tiled" : "im2col");
  row("dataType", fmt::format("{} ({} bits)", name(m.data_type), tma::element_bits(m.data_type)));
  row("rank", fmt::format("{}", m.rank));
  row("globalAddress", fmt::format("{:#x}", m.global_address));
  row("globalDim", list(m.global_dim, m.rank));
  row("globalStrides", list(m.global_strides, m.rank - 1));
  if (tiled) {
    row("boxDim", list(m.box_dim, m.rank));
  } else {
    row("pixelBoxLowerCorner", list(m.pixel_box_lower_corner, m.rank - 2));
    row("pixelBoxUpperCorner", list(m.pixel_box_upper_corner, m.rank - 2));
    row("channelsPerPixel", fmt::format("{}", m.channels_per_pixel));
    row("pixelsPerColumn", fmt::format("{}", m.pixels_per_column));
  }
  row("elementStrides", list(m.element_strides, m.rank));
  row("interleave", std::string(name(m.interleave)));
  const std::uint32_t span = tma::swizzle_span_bytes(m.swizzle);
  row("swizzle",
      span == 0 ? std::string("NONE") : fmt::format("{} (span {} B)", name(m.swizzle), span));
  row("l2Promotion", std::string(name(m.l2_promotion)));
  row("oobFill", m.oob_fill == tma::OobFill::kConstant
                     ? fmt::format("CONSTANT ({:#x}; xpusim extension)", m.oob_fill_value)
                     : std::string(name(m.oob_fill)));
  const std::uint64_t bytes = tma::box_bytes(m);
  row("bytes per box", fmt::format("{}", bytes));
  row("expect_tx bytes", fmt::format("{} (per destination CTA)", bytes));
  if (const std::uint64_t span_bytes = tma::box_footprint(m); span_bytes != bytes) {
    row("shared-memory span",
        fmt::format("{} (each row starts its own {} B swizzle span; the gaps are left alone)",
                    span_bytes, span));
  }
  row("global requests", requests ? fmt::format("{} (<= 128 B each, box at the origin)", *requests)
                                  : fmt::format("n/a ({})", requests.error().message));
  std::fputs(out.c_str(), stdout);

  for (const std::string& w : tma::overlapping_strides(m))
    std::fprintf(stderr, "warning: %s\n", w.c_str());
  const std::uint64_t inner = inner_row_bytes(m);
  if (inner % kSectorBytes != 0) {
    const std::uint64_t fetched = (inner + kSectorBytes - 1) / kSectorBytes * kSectorBytes;
    std::fprintf(stderr,
                 "warning: the inner box row is %llu B, not a multiple of the %u B sector: each "
                 "row fetches %llu B of sectors (%llu%% wasted bandwidth)\n",
                 static_cast<unsigned long long>(inner), kSectorBytes,
                 static_cast<unsigned long long>(fetched),
                 static_cast<unsigned long long>((fetched - inner) * 100 / fetched));
  }
  return kExitOk;
}

void add_tma_lint(CLI::App& tma, const GlobalOptions& g, Action& action) {
  auto* cmd = tma.add_subcommand(
      "lint",
      "Check a tensor map file (.yaml/.yml/.json, or - for stdin) against every "
      "cuTensorMapEncode rule; print all violations, or a summary of the valid map");
  auto file = std::make_shared<std::string>();
  auto cuda = std::make_shared<bool>(false);
  cmd->add_option("FILE", *file, "tensor map file (see docs/tma.md)")->required();
  cmd->add_flag("--cuda", *cuda,
                "Also refuse xpusim's extensions (oobFill: CONSTANT): the map must be one a real "
                "GPU's cuTensorMapEncode takes");
  cmd->callback([&g, &action, file, cuda] {
    action = [&g, file, cuda] {
      if (auto errors = reject_sim_outputs(g, "tma lint"); !errors.empty()) return fail(errors);
      return lint(*file, *cuda);
    };
  });
}

}  // namespace

void add_tma_command(CLI::App& app, const GlobalOptions& g, Action& action) {
  auto* tma = app.add_subcommand(
      "tma", "Tensor-memory-access tools: lint a tensor map, run one copy, show the smem layout");
  tma->require_subcommand(1);
  add_tma_lint(*tma, g, action);
  add_tma_copy_command(*tma, g, action);
  add_tma_layout_command(*tma, g, action);
}

}  // namespace xpusim::cli
