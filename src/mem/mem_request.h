// MemRequest: one timing-only memory transaction between an SM and the memory hierarchy. It
// covers sectors of ONE cache line; the SM layer splits a warp access with coalesce() first.
// No data travels here: bytes live in the functional GlobalMemory (docs/memory-hierarchy.md).
#pragma once

#include <cstdint>
#include <functional>

#include "mem/global_memory.h"

namespace xpusim::mem {

struct MemRequest {
  Addr addr = 0;                  // any byte of the line; with sector_mask == 0, the first byte
  std::uint32_t bytes = 0;        // with sector_mask == 0: the range [addr, addr + bytes)
  bool write = false;             // informational; load()/store() decide the direction
  std::uint32_t sm = 0;           // issuing SM (its L1, its crossbar port, its near partition)
  std::uint32_t sector_mask = 0;  // sectors of addr's line; 0 = the sectors the range covers
  // Set sampling (transactions only, stores): the lines this one stands for, itself included.
  std::uint32_t weight = 1;
};

// Invoked once, at the tick the request completes (load data usable / store acknowledged).
using Done = std::function<void()>;

// Message size of a read request or a write acknowledgement on the crossbar and the DSMEM
// network: an address plus a few control bits. Our assumption (no public figure).
inline constexpr std::uint32_t kControlMessageBytes = 8;

}  // namespace xpusim::mem
