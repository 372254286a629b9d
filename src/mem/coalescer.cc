#include "mem/coalescer.h"

#include "sim/result.h"

namespace xpusim::mem {

std::vector<LineRequest> coalesce(std::span<const Addr> lane_addrs, std::uint32_t access_bytes,
                                  std::uint32_t active_mask, std::uint32_t line_bytes,
                                  std::uint32_t sector_bytes) {
  XPUSIM_CHECK(lane_addrs.size() <= 32, "a warp has at most 32 lanes");
  XPUSIM_CHECK(access_bytes > 0, "an access moves at least one byte");
  XPUSIM_CHECK(
      sector_bytes > 0 && line_bytes % sector_bytes == 0 && line_bytes / sector_bytes <= 32,
      "a line is 1..32 whole sectors");
  std::vector<LineRequest> out;
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
      for (LineRequest& r : out) {  // at most 64 lines: a linear scan beats a map
        if (r.line_addr == line_addr) hit = &r;
      }
      if (hit == nullptr) hit = &out.emplace_back(LineRequest{.line_addr = line_addr});
      hit->sector_mask |= 1u << bit;
    }
  }
  return out;
}

}  // namespace xpusim::mem
