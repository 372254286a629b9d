#include "sched/cga_tracker.h"

#include <fmt/format.h>

#include <algorithm>

namespace xpusim::sched {

std::string_view name(CgaEvent e) {
  switch (e) {
    case CgaEvent::kCtaComplete:
      return "cta_complete";
    case CgaEvent::kCgaActiveZero:
      return "cga_active_zero";
    case CgaEvent::kDsmemFlush:
      return "dsmem_flush";
    case CgaEvent::kDsmemFlushDone:
      return "dsmem_flush_done";
    case CgaEvent::kIdReclaimed:
      return "id_reclaimed";
    case CgaEvent::kCgaComplete:
      return "cga_complete";
  }
  return "?";
}

std::string_view name(CgaLimit l) {
  switch (l) {
    case CgaLimit::kCounter:
      return "concurrent-CGA counter";
    case CgaLimit::kIdPool:
      return "gpc_local_cga_id pool";
  }
  return "?";
}

Status CgaTracker::check(std::span<const std::uint32_t> sms_per_gpc, const CgaTrackerConfig& cfg) {
  if (sms_per_gpc.empty()) return Error{"CGA tracker: no GPCs: need at least one"};
  for (std::size_t g = 0; g < sms_per_gpc.size(); ++g) {
    if (sms_per_gpc[g] == 0) {
      return Error{fmt::format("CGA tracker: GPC {} has 0 SMs: need at least one", g)};
    }
  }
  // 8-bit gpc_local_cga_id field in SM2SM packets (seed1 ¶226).
  if (cfg.ids_per_gpc < 1 || cfg.ids_per_gpc > 256) {
    return Error{fmt::format(
        "CGA tracker ids_per_gpc = {}: must be in [1, 256] (8-bit gpc_local_cga_id, seed1 ¶226)",
        cfg.ids_per_gpc)};
  }
  if (cfg.memory_slots > kMaxMemorySlots) {
    return Error{fmt::format("CGA tracker memory_slots = {}: must be 0 (unlimited) to {}",
                             cfg.memory_slots, kMaxMemorySlots)};
  }
  if (cfg.max_cgas_per_gpc == 0 && cfg.cgas_per_sm == 0) {
    return Error{"CGA tracker cgas_per_sm = 0: must be >= 1 when max_cgas_per_gpc is 0"};
  }
  return Ok{};
}

CgaTracker::CgaTracker(std::span<const std::uint32_t> sms_per_gpc, const CgaTrackerConfig& cfg) {
  XPUSIM_CHECK(check(sms_per_gpc, cfg).ok(), "invalid CGA tracker config");
  memory_slots_ = free_slots_ = cfg.memory_slots;
  gpcs_.resize(sms_per_gpc.size());
  for (std::size_t g = 0; g < gpcs_.size(); ++g) {
    Gpc& gpc = gpcs_[g];
    // seed1 ¶211: initialized from the GPC's SM count (floor-swept GPCs differ).
    gpc.max_cgas =
        cfg.max_cgas_per_gpc != 0 ? cfg.max_cgas_per_gpc : sms_per_gpc[g] * cfg.cgas_per_sm;
    gpc.counter = gpc.max_cgas;
    gpc.free_ids = cfg.ids_per_gpc;
    gpc.id_in_use.assign(cfg.ids_per_gpc, false);
  }
}

const CgaTracker::Gpc& CgaTracker::gpc_at(std::uint32_t gpc) const {
  XPUSIM_CHECK(gpc < gpcs_.size(), "GPC index out of range");
  return gpcs_[gpc];
}

CgaTracker::Cga& CgaTracker::cga_at(std::uint64_t cga) {
  const auto it = live_.find(cga);
  XPUSIM_CHECK(it != live_.end(), "unknown or completed CGA handle");
  return it->second;
}

const CgaTracker::Cga& CgaTracker::cga_at(std::uint64_t cga) const {
  const auto it = live_.find(cga);
  XPUSIM_CHECK(it != live_.end(), "unknown or completed CGA handle");
  return it->second;
}

std::uint32_t CgaTracker::budget(std::uint32_t gpc) const {
  const Gpc& g = gpc_at(gpc);
  return std::min(g.counter, g.free_ids);
}

std::uint32_t CgaTracker::counter(std::uint32_t gpc) const {
  return gpc_at(gpc).counter;
}
std::uint32_t CgaTracker::max_cgas(std::uint32_t gpc) const {
  return gpc_at(gpc).max_cgas;
}
std::uint32_t CgaTracker::free_ids(std::uint32_t gpc) const {
  return gpc_at(gpc).free_ids;
}
std::uint32_t CgaTracker::live_cgas(std::uint32_t gpc) const {
  return gpc_at(gpc).live;
}
std::uint64_t CgaTracker::stalls(std::uint32_t gpc) const {
  return gpc_at(gpc).stalls;
}

CgaLimit CgaTracker::limit(std::uint32_t gpc) const {
  const Gpc& g = gpc_at(gpc);
  return g.counter <= g.free_ids ? CgaLimit::kCounter : CgaLimit::kIdPool;
}

std::uint64_t CgaTracker::on_launch(std::uint32_t gpc, std::uint32_t ctas) {
  XPUSIM_CHECK(budget(gpc) > 0, "CGA launched on a GPC with no budget (counter or id pool)");
  XPUSIM_CHECK(ctas >= 1, "a CGA has at least one CTA");
  XPUSIM_CHECK(free_slots() > 0, "CGA launched with the memory-slot pool empty");
  if (memory_slots_ != 0) peak_slots_ = std::max(peak_slots_, memory_slots_ - --free_slots_);
  Gpc& g = gpcs_[gpc];
  // Lowest free id: a free vector with a priority encoder (¶227).
  const auto it = std::find(g.id_in_use.begin(), g.id_in_use.end(), false);
  XPUSIM_CHECK(it != g.id_in_use.end(), "free-id count disagrees with the free vector");
  *it = true;
  --g.free_ids;
  --g.counter;
  ++g.live;
  const std::uint64_t handle = next_handle_++;
  live_.emplace(handle,
                Cga{gpc, static_cast<std::uint32_t>(it - g.id_in_use.begin()), ctas, ctas, 0});
  return handle;
}

std::optional<std::uint64_t> CgaTracker::try_launch(std::uint32_t gpc, std::uint32_t ctas) {
  if (budget(gpc) == 0) {
    note_stall(gpc);
    return std::nullopt;
  }
  return on_launch(gpc, ctas);
}

void CgaTracker::note_stall(std::uint32_t gpc) {
  XPUSIM_CHECK(gpc < gpcs_.size(), "GPC index out of range");
  ++gpcs_[gpc].stalls;
  ++stalls_;
}

std::uint32_t CgaTracker::local_id(std::uint64_t cga) const {
  return cga_at(cga).local_id;
}
std::uint32_t CgaTracker::gpc_of(std::uint64_t cga) const {
  return cga_at(cga).gpc;
}
std::uint32_t CgaTracker::active_ctas(std::uint64_t cga) const {
  return cga_at(cga).active;
}

std::vector<CgaEvent> CgaTracker::on_cta_exit(std::uint64_t cga) {
  Cga& c = cga_at(cga);
  XPUSIM_CHECK(c.active > 0, "CTA exit after every CTA of the CGA had exited");
  std::vector<CgaEvent> events;
  events.reserve(--c.active == 0 ? 2 + c.ctas : 1);
  events.push_back(CgaEvent::kCtaComplete);
  if (c.active == 0) {
    // GPM's active count hit 0 (¶231); the MPC now flushes each CTA's DSMEM (digest §3.9 step 4).
    events.push_back(CgaEvent::kCgaActiveZero);
    for (std::uint32_t i = 0; i < c.ctas; ++i)
      events.push_back(CgaEvent::kDsmemFlush);
    c.flushes_pending = c.ctas;
  }
  return events;
}

std::vector<CgaEvent> CgaTracker::on_flush_done(std::uint64_t cga) {
  Cga& c = cga_at(cga);
  XPUSIM_CHECK(c.active == 0, "dsmem_flush_done before every CTA of the CGA exited");
  XPUSIM_CHECK(c.flushes_pending > 0, "more dsmem_flush_done than CTAs");
  std::vector<CgaEvent> events{CgaEvent::kDsmemFlushDone};
  if (--c.flushes_pending > 0) return events;
  // ¶232: the id is reclaimed only after every flush, so no stale DSMEM traffic reaches a CGA
  // that reuses it; then cga_complete lets the CWD raise the counter (¶211, ¶223).
  Gpc& g = gpcs_[c.gpc];
  g.id_in_use[c.local_id] = false;
  ++g.free_ids;
  events.push_back(CgaEvent::kIdReclaimed);
  XPUSIM_CHECK(g.counter < g.max_cgas, "per-GPC counter above its start value");
  ++g.counter;
  if (memory_slots_ != 0) ++free_slots_;  // the CWD frees the slot on cga_complete (¶223)
  --g.live;
  events.push_back(CgaEvent::kCgaComplete);
  live_.erase(cga);
  return events;
}

}  // namespace xpusim::sched
