#include "mem/coalescer.h"

#include "sim/result.h"

namespace xpusim::mem {

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
  std::uint32_t n = 0;
  for (std::size_t lane = 0; lane < lane_addrs.size(); ++lane) {
    if ((active_mask >> lane & 1u) == 0) continue;
    const Addr first = lane_addrs[lane];
    const Addr last = first + access_bytes - 1;
    XPUSIM_CHECK(last >= first, "a lane's access wraps past 2^64");
    for (Addr sector = first / sector_bytes; sector <= last / sector_bytes; ++sector) {
      const Addr line_addr = sector * sector_bytes / line_bytes * line_bytes;
      const auto bit =
          static_cast<std::uint32_t>((sector * sector_bytes - line_addr) / sector_bytes);
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

std::vector<LineRequest> coalesce(std::span<const Addr> lane_addrs, std::uint32_t access_bytes,
                                  std::uint32_t active_mask, std::uint32_t line_bytes,
                                  std::uint32_t sector_bytes) {
  std::vector<LineRequest> out(kMaxLinesPerAccess);
  out.resize(coalesce_into(lane_addrs, access_bytes, active_mask, out, line_bytes, sector_bytes));
  return out;
}

}  // namespace xpusim::mem
