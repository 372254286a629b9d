#include "sched/resources.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <limits>

namespace xpusim::sched {

namespace {

template <class T>
T round_up(T v, T unit) {
  return unit == 0 ? v : (v + unit - 1) / unit * unit;
}

// Remaining / need per resource, in enum order; a resource the CTA does not use never limits.
std::array<std::uint64_t, 5> fits(const SmCapacity& cap, const SmUsage& used,
                                  const CtaFootprint& need) {
  const auto div = [](std::uint64_t have, std::uint64_t in_use, std::uint64_t per) {
    if (per == 0) return std::numeric_limits<std::uint64_t>::max();
    return in_use >= have ? 0 : (have - in_use) / per;
  };
  return {div(cap.warps, used.warps, need.warps), div(cap.threads, used.threads, need.threads),
          div(cap.registers, used.registers, need.registers), div(cap.cta_slots, used.ctas, 1),
          div(cap.shared_bytes, used.shared_bytes, need.shared_bytes)};
}

}  // namespace

SmCapacity SmCapacity::from_chip(const config::ChipSpec& chip) {
  SmCapacity c;
  c.warps = chip.sm.max_warps;
  c.threads = chip.sm.max_threads;
  c.registers = chip.sm.registers;
  c.cta_slots = chip.sm.max_blocks;
  c.shared_bytes = chip.sm.shared_memory_bytes;
  c.max_threads_per_cta = chip.sm.max_threads_per_block;
  c.max_registers_per_thread = chip.sm.max_registers_per_thread;
  c.max_shared_per_cta = chip.sm.shared_memory_per_block_bytes;
  return c;
}

CtaFootprint footprint(const SmCapacity& cap, const CtaShape& shape) {
  CtaFootprint f;
  f.warps = shape.warps();
  f.threads = shape.threads;
  // Registers are allocated per warp, rounded up to the allocation unit.
  f.registers = f.warps * round_up(shape.registers_per_thread * 32, cap.register_alloc_unit);
  f.shared_bytes = round_up<std::uint64_t>(shape.shared_bytes + cap.shared_reserved_per_cta,
                                           cap.shared_alloc_unit);
  return f;
}

void SmUsage::add(const CtaFootprint& f) {
  warps += f.warps, threads += f.threads, registers += f.registers, ++ctas;
  shared_bytes += f.shared_bytes;
}

void SmUsage::remove(const CtaFootprint& f) {
  XPUSIM_CHECK(ctas > 0 && warps >= f.warps && threads >= f.threads && registers >= f.registers &&
                   shared_bytes >= f.shared_bytes,
               "removing a CTA that is not resident");
  warps -= f.warps, threads -= f.threads, registers -= f.registers, --ctas;
  shared_bytes -= f.shared_bytes;
}

std::string_view name(Resource r) {
  switch (r) {
    case Resource::kWarps:
      return "warp slots";
    case Resource::kThreads:
      return "threads";
    case Resource::kRegisters:
      return "registers";
    case Resource::kCtaSlots:
      return "CTA slots";
    case Resource::kSharedMemory:
      return "shared memory";
  }
  return "?";
}

std::uint32_t free_slots(const SmCapacity& cap, const SmUsage& used, const CtaFootprint& need) {
  const auto f = fits(cap, used, need);
  return static_cast<std::uint32_t>(*std::min_element(f.begin(), f.end()));
}

Resource limiting_resource(const SmCapacity& cap, const SmUsage& used, const CtaFootprint& need) {
  const auto f = fits(cap, used, need);
  return static_cast<Resource>(std::min_element(f.begin(), f.end()) - f.begin());
}

Status check_cta_shape(const SmCapacity& cap, const CtaShape& shape) {
  if (shape.threads == 0 || shape.threads > cap.max_threads_per_cta) {
    return Error{fmt::format("CTA threads = {} is outside 1..{} (max threads per block)",
                             shape.threads, cap.max_threads_per_cta)};
  }
  if (shape.registers_per_thread == 0 ||
      shape.registers_per_thread > cap.max_registers_per_thread) {
    return Error{fmt::format("CTA registers per thread = {} is outside 1..{}",
                             shape.registers_per_thread, cap.max_registers_per_thread)};
  }
  if (shape.shared_bytes > cap.max_shared_per_cta) {
    return Error{fmt::format("CTA shared memory = {} B exceeds the {} B a block may use",
                             shape.shared_bytes, cap.max_shared_per_cta)};
  }
  const CtaFootprint f = footprint(cap, shape);
  if (free_slots(cap, SmUsage{}, f) == 0) {
    const Resource r = limiting_resource(cap, SmUsage{}, f);
    return Error{fmt::format(
        "CTA ({} threads, {} registers/thread, {} B shared) does not fit on an empty SM: it "
        "needs more {} than the SM has ({} warps, {} registers, {} B shared after allocation "
        "granularity)",
        shape.threads, shape.registers_per_thread, shape.shared_bytes, name(r), f.warps,
        f.registers, f.shared_bytes)};
  }
  return Ok{};
}

}  // namespace xpusim::sched
