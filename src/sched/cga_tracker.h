// Per-GPC concurrent-CGA counters (seed1 ¶211), gpc_local_cga_id pools (¶226–227, ¶237), the
// CWD's CGA memory-slot pool (¶222–223) and the CGA completion protocol (¶223, ¶231–233, digest
// §3.9), as the CWD and GPMs see them.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "sim/result.h"

namespace xpusim::sched {

// What the completion protocol emits, in the order a CGA produces them (digest §3.9).
enum class CgaEvent : std::uint8_t {
  kCtaComplete,     // MPC → GPM/CWD cta_complete
  kCgaActiveZero,   // GPM's active-CTA count reached 0 (¶231)
  kDsmemFlush,      // MPC → SM DSMEM flush, one per CTA
  kDsmemFlushDone,  // MPC → GPM dsmem_flush_done, one per CTA
  kIdReclaimed,     // gpc_local_cga_id back in the pool (¶227)
  kCgaComplete,     // GPM → CWD cga_complete; the per-GPC counter goes up (¶211)
};
std::string_view name(CgaEvent e);

struct CgaTrackerConfig {
  // gpc_local_cga_id pool size per GPC; the id is an 8-bit field (¶226), so <= 256. 16 is our
  // assumption: the patent gives no pool size.
  std::uint32_t ids_per_gpc = 16;
  // Per-GPC counter start value; 0 → the GPC's SM count × cgas_per_sm. ¶211 says only "based on
  // the number of SMs"; one CGA per SM is our assumption.
  std::uint32_t max_cgas_per_gpc = 0;
  std::uint32_t cgas_per_sm = 1;
  // CGA memory slots (the CGA linear memory the CWD hands each GPC_CGA from one pool, with its
  // lmem_blk_idx, ¶118, ¶135, ¶222): a launch takes one, cga_complete returns it (¶223).
  // 0: unlimited (the patent gives no pool size). At most kMaxMemorySlots.
  std::uint32_t memory_slots = 0;
};
inline constexpr std::uint32_t kMaxMemorySlots = 1u << 16;

// What holds budget() down; ties go to the first in enum order.
enum class CgaLimit : std::uint8_t { kCounter, kIdPool };
std::string_view name(CgaLimit l);

class CgaTracker {
 public:
  // Rejects an empty GPC list, a GPC with 0 SMs, ids_per_gpc outside [1, 256], cgas_per_sm 0.
  static Status check(std::span<const std::uint32_t> sms_per_gpc, const CgaTrackerConfig& cfg);
  // XPUSIM_CHECKs check(); validate user input with it first.
  explicit CgaTracker(std::span<const std::uint32_t> sms_per_gpc, const CgaTrackerConfig& cfg = {});

  std::uint32_t num_gpcs() const { return static_cast<std::uint32_t>(gpcs_.size()); }
  // How many more CGAs GPC g may take now: min(counter, free ids). 0 = a launch on g stalls
  // (¶237 for the pool; the counter blocking is our reading of ¶211, digest §5 item 9).
  std::uint32_t budget(std::uint32_t gpc) const;
  std::uint32_t counter(std::uint32_t gpc) const;   // the ¶211 counter now
  std::uint32_t max_cgas(std::uint32_t gpc) const;  // its start value
  std::uint32_t free_ids(std::uint32_t gpc) const;
  CgaLimit limit(std::uint32_t gpc) const;           // the smaller of counter and free ids
  std::uint32_t live_cgas(std::uint32_t gpc) const;  // launched, cga_complete not yet sent
  // CGA memory slots free now (the uint32 maximum when the pool is unlimited), the most in use at
  // once, and launch attempts refused for an empty pool.
  std::uint32_t free_slots() const {
    return memory_slots_ == 0 ? std::numeric_limits<std::uint32_t>::max() : free_slots_;
  }
  std::uint32_t peak_slots() const { return peak_slots_; }
  void note_slot_stall() { ++slot_stalls_; }
  std::uint64_t slot_stalls() const { return slot_stalls_; }

  // Allocates the lowest free id (a free vector with a priority encoder, ¶227), decrements
  // the counter and takes a memory slot; returns a handle, never reused. XPUSIM_CHECKs budget > 0,
  // a free slot and ctas >= 1.
  std::uint64_t on_launch(std::uint32_t gpc, std::uint32_t ctas);
  // The same, but a 0 budget counts a stall and returns nothing.
  std::optional<std::uint64_t> try_launch(std::uint32_t gpc, std::uint32_t ctas);
  // For a launcher that checks budget() itself and finds 0.
  void note_stall(std::uint32_t gpc);
  // Launch attempts refused for a 0 budget (try_launch or note_stall), in all and per GPC.
  std::uint64_t stalls() const { return stalls_; }
  std::uint64_t stalls(std::uint32_t gpc) const;

  bool is_live(std::uint64_t cga) const { return live_.contains(cga); }
  std::uint32_t local_id(std::uint64_t cga) const;  // gpc_local_cga_id
  std::uint32_t gpc_of(std::uint64_t cga) const;
  std::uint32_t active_ctas(std::uint64_t cga) const;

  // The protocol, step by step; each call returns the events it produced, in order.
  // A CTA exit → kCtaComplete; the exit that takes the active count to 0 also gives
  // kCgaActiveZero and one kDsmemFlush per CTA. Each flush ack → kDsmemFlushDone; the last also
  // gives kIdReclaimed then kCgaComplete, and only then do the id and the memory slot return to
  // their pools and the counter go up (¶232: no stale DSMEM traffic can reach a reused id). Out of
  // order calls (flush ack before active zero, more exits or acks than CTAs, unknown handle)
  // XPUSIM_CHECK-fail.
  std::vector<CgaEvent> on_cta_exit(std::uint64_t cga);
  std::vector<CgaEvent> on_flush_done(std::uint64_t cga);

 private:
  struct Gpc {
    std::uint32_t counter = 0;
    std::uint32_t max_cgas = 0;
    std::uint32_t free_ids = 0;
    std::uint32_t live = 0;
    std::uint64_t stalls = 0;
    std::vector<bool> id_in_use;
  };
  struct Cga {
    std::uint32_t gpc = 0;
    std::uint32_t local_id = 0;
    std::uint32_t ctas = 0;
    std::uint32_t active = 0;           // CTAs not yet exited
    std::uint32_t flushes_pending = 0;  // set when active reaches 0
  };
  const Gpc& gpc_at(std::uint32_t gpc) const;
  Cga& cga_at(std::uint64_t cga);
  const Cga& cga_at(std::uint64_t cga) const;

  std::vector<Gpc> gpcs_;
  std::unordered_map<std::uint64_t, Cga> live_;
  std::uint64_t next_handle_ = 1;  // 0 is never a handle
  std::uint64_t stalls_ = 0;
  std::uint32_t memory_slots_ = 0;  // 0: unlimited
  std::uint32_t free_slots_ = 0;
  std::uint32_t peak_slots_ = 0;
  std::uint64_t slot_stalls_ = 0;
};

}  // namespace xpusim::sched
