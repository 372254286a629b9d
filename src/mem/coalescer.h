// Coalescing of one warp-wide global access into per-line requests, the CUDA rule for compute
// capability 6.0 and newer (CUDA C++ Programming Guide, "Global Memory" under compute
// capability 5.x/6.x; Nsight Compute's "sectors per request"): a warp access touches the set
// of 32 B sectors its active lanes cover, and the L1 handles it as one request per 128 B line.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "mem/mem_request.h"

namespace xpusim::mem {

struct LineRequest {
  Addr line_addr = 0;             // first byte of the line
  std::uint32_t sector_mask = 0;  // bit s: sector s of the line is touched
  std::uint32_t sectors() const {
    return static_cast<std::uint32_t>(__builtin_popcount(sector_mask));
  }
  MemRequest to_request(std::uint32_t sm, bool write) const {
    return MemRequest{
        .addr = line_addr, .bytes = 0, .write = write, .sm = sm, .sector_mask = sector_mask};
  }
};

// `lane_addrs[i]` is lane i's address (at most 32 lanes); lane i takes part when bit i of
// `active_mask` is set and reads/writes `access_bytes` from its address. A lane whose bytes
// cross a sector or a line boundary touches every sector it covers. Lines come out in the
// order their first active lane appears (lane order), so the result is deterministic.
// At most this many lines per warp access (32 lanes, each crossing at most one line boundary).
inline constexpr std::uint32_t kMaxLinesPerAccess = 64;

// The same into `out` (at least kMaxLinesPerAccess entries, no allocation); returns the count.
std::uint32_t coalesce_into(std::span<const Addr> lane_addrs, std::uint32_t access_bytes,
                            std::uint32_t active_mask, std::span<LineRequest> out,
                            std::uint32_t line_bytes = 128, std::uint32_t sector_bytes = 32);

std::vector<LineRequest> coalesce(std::span<const Addr> lane_addrs, std::uint32_t access_bytes,
                                  std::uint32_t active_mask, std::uint32_t line_bytes = 128,
                                  std::uint32_t sector_bytes = 32);

}  // namespace xpusim::mem
