// Per-SM resources and a CTA's needs: what the work distributor counts when it asks "how many
// more CTAs of this grid fit on this SM?" — the free slots of seed1 ¶139.
//
// Allocation granularities follow the CUDA occupancy rules for compute capability 9.0 (CUDA
// occupancy calculator, cuda_occupancy.h): registers are allocated per warp in units of 256,
// shared memory in units of 128 B, and every CTA also holds 1 KiB of shared memory reserved for
// the system. With them, free slots on an empty SM equal
// cudaOccupancyMaxActiveBlocksPerMultiprocessor.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "config/chip_spec.h"
#include "sim/result.h"

namespace xpusim::sched {

// What one SM offers.
struct SmCapacity {
  std::uint32_t warps = 64;
  std::uint32_t threads = 2048;
  std::uint32_t registers = 65536;         // 32-bit registers
  std::uint32_t cta_slots = 32;            // resident CTAs
  std::uint64_t shared_bytes = 228 << 10;  // shared-memory carve-out
  std::uint32_t max_threads_per_cta = 1024;
  std::uint32_t max_registers_per_thread = 255;
  std::uint64_t max_shared_per_cta = 227 << 10;
  std::uint32_t register_alloc_unit = 256;       // per warp
  std::uint32_t shared_alloc_unit = 128;         // bytes
  std::uint32_t shared_reserved_per_cta = 1024;  // bytes, held by the system per CTA

  static SmCapacity from_chip(const config::ChipSpec& chip);
};

// What one CTA of a grid needs (all CTAs of a grid are alike, seed1 ¶139).
struct CtaShape {
  std::uint32_t threads = 128;
  std::uint32_t registers_per_thread = 32;
  std::uint64_t shared_bytes = 0;  // dynamic + static shared memory

  std::uint32_t warps() const { return (threads + 31) / 32; }
  friend bool operator==(const CtaShape&, const CtaShape&) = default;
};

// The amounts one CTA of `shape` actually holds on an SM of `cap`, after granularity.
struct CtaFootprint {
  std::uint32_t warps = 0;
  std::uint32_t threads = 0;
  std::uint32_t registers = 0;
  std::uint64_t shared_bytes = 0;
};
CtaFootprint footprint(const SmCapacity& cap, const CtaShape& shape);

// What is in use on one SM (sums of footprints of its resident CTAs).
struct SmUsage {
  std::uint32_t warps = 0;
  std::uint32_t threads = 0;
  std::uint32_t registers = 0;
  std::uint32_t ctas = 0;
  std::uint64_t shared_bytes = 0;

  void add(const CtaFootprint& f);
  void remove(const CtaFootprint& f);  // XPUSIM_CHECKs it was added
  friend bool operator==(const SmUsage&, const SmUsage&) = default;
};

// The resources counted by free_slots, for --explain messages.
enum class Resource : std::uint8_t { kWarps, kThreads, kRegisters, kCtaSlots, kSharedMemory };
std::string_view name(Resource r);

// Free slots: min over resources of floor(remaining / need) (seed1 ¶139, digest §5 item 1).
std::uint32_t free_slots(const SmCapacity& cap, const SmUsage& used, const CtaFootprint& need);

// The resource that bounds free_slots (the first in enum order among those reaching the min).
Resource limiting_resource(const SmCapacity& cap, const SmUsage& used, const CtaFootprint& need);

// Rejects a CTA shape an empty SM cannot hold, one line naming the item, value and rule:
// threads 0 or > max_threads_per_cta, registers_per_thread 0 or > max, shared_bytes >
// max_shared_per_cta, or a footprint larger than the SM.
Status check_cta_shape(const SmCapacity& cap, const CtaShape& shape);

}  // namespace xpusim::sched
