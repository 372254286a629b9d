#include "mem/coalescer.h"

#include <algorithm>
#include <bit>
#include <cstring>

#include "sim/result.h"

namespace xpusim::mem {

namespace {

// Sector and line arithmetic for any geometry ...
struct AnyGeometry {
  std::uint32_t line_bytes;
  std::uint32_t sector_bytes;
  Addr sector_of(Addr a) const { return a / sector_bytes; }
  Addr line_addr(Addr sector) const { return sector * sector_bytes / line_bytes * line_bytes; }
  std::uint32_t bit(Addr sector, Addr line_addr) const {
    return static_cast<std::uint32_t>((sector * sector_bytes - line_addr) / sector_bytes);
  }
};

// ... and for the usual one, powers of two: shifts instead of four hardware divides per lane.
struct PowerOfTwoGeometry {
  unsigned line_shift;
  unsigned sector_shift;
  Addr sector_of(Addr a) const { return a >> sector_shift; }
  Addr line_addr(Addr sector) const { return (sector << sector_shift) >> line_shift << line_shift; }
  std::uint32_t bit(Addr sector, Addr) const {
    return static_cast<std::uint32_t>(sector & ((Addr{1} << (line_shift - sector_shift)) - 1));
  }
};

// Non-zero unless lane l's address is base + l x stride for every lane: the differences OR-ed
// without a branch, a full warp two lanes a step in vector registers (GCC's vector extension,
// also Clang's).
Addr off_stride(std::span<const Addr> lane_addrs, Addr base, Addr stride) {
  std::size_t l = 0;
  Addr diff = 0;
  if (lane_addrs.size() == 32) {
    using Pair = Addr __attribute__((vector_size(16)));
    Pair expect = {base, base + stride};
    const Pair step = {2 * stride, 2 * stride};
    Pair acc = {0, 0};
    for (; l < 32; l += 2) {
      Pair a;
      std::memcpy(&a, &lane_addrs[l], sizeof a);
      acc |= a ^ expect;
      expect += step;
    }
    diff = acc[0] | acc[1];
  }
  for (; l < lane_addrs.size(); ++l)
    diff |= lane_addrs[l] ^ (base + l * stride);
  return diff;
}

// The common case in one step: every lane active, lane i at base + i x access_bytes (a unit-
// stride warp access). The lanes then cover one contiguous byte range, so the result is its
// sectors line by line, in address order, which is also lane order: what walk() returns.
// Returns false (nothing written) for any other access.
bool unit_stride(std::span<const Addr> lane_addrs, std::uint32_t access_bytes,
                 std::uint32_t active_mask, std::span<LineRequest> out, const PowerOfTwoGeometry& g,
                 std::uint32_t& n) {
  const std::size_t lanes = lane_addrs.size();
  const std::uint32_t all = lanes >= 32 ? ~0u : (1u << lanes) - 1;
  if (lanes == 0 || (active_mask & all) != all) return false;
  const Addr base = lane_addrs[0];
  const Addr bytes = Addr{access_bytes} * lanes;
  if (base + bytes - 1 < base) return false;  // wraps: leave the check to walk()
  if (off_stride(lane_addrs, base, access_bytes) != 0) return false;
  // Line by line: the sectors of [first, last) that fall in each.
  n = 0;
  const unsigned per_line = g.line_shift - g.sector_shift;  // log2(sectors a line)
  const Addr first = g.sector_of(base), last = g.sector_of(base + bytes - 1) + 1;
  for (Addr line = first >> per_line; line <= (last - 1) >> per_line; ++line) {
    const Addr lo = std::max(first, line << per_line), hi = std::min(last, (line + 1) << per_line);
    const auto count = static_cast<unsigned>(hi - lo);
    const std::uint32_t run = count >= 32 ? ~0u : (1u << count) - 1;
    out[n++] = LineRequest{.line_addr = line << g.line_shift,
                           .sector_mask = run << (lo - (line << per_line))};
  }
  return true;
}

template <class Geometry>
std::uint32_t walk(std::span<const Addr> lane_addrs, std::uint32_t access_bytes,
                   std::uint32_t active_mask, std::span<LineRequest> out, const Geometry& g) {
  std::uint32_t n = 0;
  for (std::size_t lane = 0; lane < lane_addrs.size(); ++lane) {
    if ((active_mask >> lane & 1u) == 0) continue;
    const Addr first = lane_addrs[lane];
    const Addr last = first + access_bytes - 1;
    XPUSIM_CHECK(last >= first, "a lane's access wraps past 2^64");
    for (Addr sector = g.sector_of(first); sector <= g.sector_of(last); ++sector) {
      const Addr line_addr = g.line_addr(sector);
      const std::uint32_t bit = g.bit(sector, line_addr);
      LineRequest* hit = nullptr;
      // At most 64 lines, and lanes usually hit the last one: a backward linear scan.
      for (std::uint32_t i = n; i-- > 0;) {
        if (out[i].line_addr == line_addr) {
          hit = &out[i];
          break;
        }
      }
      if (hit == nullptr) {
        hit = &out[n++];
        *hit = LineRequest{.line_addr = line_addr};
      }
      hit->sector_mask |= 1u << bit;
    }
  }
  return n;
}

}  // namespace

std::uint32_t coalesce_into(std::span<const Addr> lane_addrs, std::uint32_t access_bytes,
                            std::uint32_t active_mask, std::span<LineRequest> out,
                            std::uint32_t line_bytes, std::uint32_t sector_bytes) {
  XPUSIM_CHECK(lane_addrs.size() <= 32, "a warp has at most 32 lanes");
  XPUSIM_CHECK(access_bytes > 0, "an access moves at least one byte");
  XPUSIM_CHECK(
      sector_bytes > 0 && line_bytes % sector_bytes == 0 && line_bytes / sector_bytes <= 32,
      "a line is 1..32 whole sectors");
  XPUSIM_CHECK(out.size() >= kMaxLinesPerAccess, "room for every line of a warp access");
  XPUSIM_CHECK(access_bytes <= line_bytes, "a lane touches at most two lines");
  if (std::has_single_bit(line_bytes) && std::has_single_bit(sector_bytes)) {
    const PowerOfTwoGeometry g{
        .line_shift = static_cast<unsigned>(std::countr_zero(line_bytes)),
        .sector_shift = static_cast<unsigned>(std::countr_zero(sector_bytes))};
    std::uint32_t n = 0;
    if (unit_stride(lane_addrs, access_bytes, active_mask, out, g, n)) return n;
    return walk(lane_addrs, access_bytes, active_mask, out, g);
  }
  return walk(lane_addrs, access_bytes, active_mask, out,
              AnyGeometry{.line_bytes = line_bytes, .sector_bytes = sector_bytes});
}

std::vector<LineRequest> coalesce(std::span<const Addr> lane_addrs, std::uint32_t access_bytes,
                                  std::uint32_t active_mask, std::uint32_t line_bytes,
                                  std::uint32_t sector_bytes) {
  std::vector<LineRequest> out(kMaxLinesPerAccess);
  out.resize(coalesce_into(lane_addrs, access_bytes, active_mask, out, line_bytes, sector_bytes));
  return out;
}

}  // namespace xpusim::mem
