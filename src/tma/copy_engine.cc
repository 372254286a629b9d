// Helpers every TMA operation shares: multicast target selection (seed0 ¶152), the
// out-of-bounds fill pattern (¶78-¶80), the ≤128 B line split of requests (¶89) and the
// shared-memory size of a box (the expect_tx figure).
#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "tma/box_walk.h"
#include "tma/copy_engine.h"

namespace xpusim::tma {

Result<std::vector<SmemTarget>> multicast_targets(std::span<mem::SharedMemory* const> cluster,
                                                  std::uint16_t cta_mask, std::uint32_t offset) {
  if (cta_mask == 0) {
    return Error{"multicast CTA mask 0x0 selects no CTA (at least one bit must be set)"};
  }
  std::vector<SmemTarget> out;
  for (std::uint32_t rank = 0; rank < 16; ++rank) {
    if ((cta_mask >> rank & 1u) == 0) continue;
    if (rank >= cluster.size()) {
      return Error{fmt::format(
          "multicast CTA mask {:#06x} names CTA rank {}, but the cluster has {} CTAs (ranks "
          "0..{})",
          cta_mask, rank, cluster.size(), cluster.size() == 0 ? 0 : cluster.size() - 1)};
    }
    if (cluster[rank] == nullptr) {
      return Error{
          fmt::format("multicast CTA mask {:#06x} names CTA rank {}, which has no shared "
                      "memory window",
                      cta_mask, rank)};
    }
    out.push_back({.smem = cluster[rank], .offset = offset});
  }
  return out;
}

// NAN_REQUEST_ZERO_FMA fills with seed0 ¶80's "format-specific NaN", which cuda.h does not
// spell out; the pattern is the one H200 silicon writes (tools/silicon). Packed and integer
// types fill with zeros (cuda.h allows NaN fill only for float types).
std::vector<std::byte> oob_fill_pattern(const TensorMap& map) {
  const std::uint32_t bytes = std::max<std::uint32_t>(1, element_bits(map.data_type) / 8);
  std::vector<std::byte> out(bytes, std::byte{0});
  if (map.oob_fill == OobFill::kConstant) {  // seed0 ¶78-80: the programmed constant
    for (std::size_t i = 0; i < out.size() && i < 8; ++i)
      out[i] = static_cast<std::byte>(map.oob_fill_value >> (8 * i) & 0xFF);
    return out;
  }
  if (map.oob_fill != OobFill::kNanRequestZeroFma || !is_float(map.data_type)) return out;
  // H200 silicon fills every float type with the 16-bit pattern 0x7FF7 repeated (f16
  // 0x7FF7, f32 0x7FF77FF7, f64 0x7FF77FF77FF77FF7): a quiet NaN in each format.
  for (std::size_t i = 0; i < out.size(); i += 2)
    out[i] = std::byte{0xF7}, out[i + 1] = std::byte{0x7F};
  return out;
}

void append_line_requests(RequestList& out, mem::Addr addr, std::uint64_t bytes) {
  out.append(addr, bytes);
}

namespace {
// A box as rows x row bytes: tiled, its dim-0 runs; im2col, its pixels (seed0 ¶117).
std::pair<std::uint64_t, std::uint64_t> box_rows(const TensorMap& map) {
  const auto stride = [&](std::uint32_t d) {
    return std::max<std::uint32_t>(1, map.element_strides[d]);
  };
  if (map.mode == Mode::kIm2col) {
    return {map.pixels_per_column, row_smem_bytes(map.data_type, map.channels_per_pixel)};
  }
  const bool interleaved = map.interleave != Interleave::kNone;
  std::uint64_t rows = 1;
  for (std::uint32_t d = 1; d < std::min(map.rank, kMaxRank); ++d) {
    // Interleaved boxes take dimension rank-2 at its coordinate only (box_walk.cc).
    if (interleaved && d + 2 == map.rank) continue;
    rows *= (map.box_dim[d] + stride(d) - 1) / stride(d);
  }
  // cuda.h: elementStrides[0] is ignored unless the layout is interleaved; interleaved rows
  // are whole 16 B / 32 B chunks.
  if (interleaved) {
    const std::uint64_t chunk = map.interleave == Interleave::k16B ? 16 : 32;
    return {rows, (map.box_dim[0] + stride(0) - 1) / stride(0) * chunk};
  }
  return {rows, row_smem_bytes(map.data_type, map.box_dim[0])};
}
}  // namespace

std::uint64_t box_bytes(const TensorMap& map) {
  const auto [rows, row] = box_rows(map);
  return rows * row;
}

std::uint64_t box_footprint(const TensorMap& map) {
  const auto [rows, row] = box_rows(map);
  if (map.interleave != Interleave::kNone) return rows * row;  // packed (box_walk.cc)
  return rows * row_layout(map.swizzle, row).pitch;
}

std::string_view name(ReduceOp op) {
  switch (op) {
    case ReduceOp::kAdd:
      return "add";
    case ReduceOp::kMin:
      return "min";
    case ReduceOp::kMax:
      return "max";
    case ReduceOp::kInc:
      return "inc";
    case ReduceOp::kDec:
      return "dec";
    case ReduceOp::kAnd:
      return "and";
    case ReduceOp::kOr:
      return "or";
    case ReduceOp::kXor:
      return "xor";
  }
  return "?";
}

}  // namespace xpusim::tma
