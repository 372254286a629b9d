// The SM's private state (its CTAs, warp slots, sub-partitions, mbarrier table), shared by
// the files that implement Sm (sm.cc, sm_dsmem.cc). Not part of the SM's interface.
#pragma once

#include <algorithm>
#include <array>
#include <deque>
#include <map>
#include <memory>
#include <vector>

#include "core/mbarrier.h"
#include "core/sm.h"
#include "sim/prefetch.h"

namespace xpusim::core {

using kernel::Op;

struct Sm::MbarrierSlot {
  MBarrier bar;
  std::vector<WarpSlot*> waiters;  // parked in mbarrier_wait_parity
};

// A CTA's mbarriers by shared offset. A CTA has a handful, and every wait, arrive and TMA
// credit looks one up: the offsets are one sorted array (a probe or two in one host line),
// not a tree of separately allocated nodes. Slots never move and are never erased.
class Sm::MbarrierTable {
 public:
  MbarrierSlot* find(std::uint32_t offset) {
    const auto it = std::lower_bound(offsets_.begin(), offsets_.end(), offset);
    return it != offsets_.end() && *it == offset ? slots_[it - offsets_.begin()] : nullptr;
  }
  bool contains(std::uint32_t offset) { return find(offset) != nullptr; }
  // mbarrier.init: a new slot, or the one at `offset` made afresh.
  MbarrierSlot& init(std::uint32_t offset, const MBarrier& bar) {
    MbarrierSlot* slot = find(offset);
    if (slot == nullptr) {
      storage_.push_back({});
      slot = &storage_.back();
      const auto at = std::lower_bound(offsets_.begin(), offsets_.end(), offset) - offsets_.begin();
      offsets_.insert(offsets_.begin() + at, offset);
      slots_.insert(slots_.begin() + at, slot);
    }
    *slot = {.bar = bar, .waiters = {}};
    return *slot;
  }

 private:
  std::vector<std::uint32_t> offsets_;  // ascending
  std::vector<MbarrierSlot*> slots_;    // beside offsets_
  std::deque<MbarrierSlot> storage_;    // stable addresses
};

struct Sm::Cta {
  CtaWork work;
  sched::CtaFootprint footprint;
  mem::SharedMemory smem;
  std::vector<std::unique_ptr<WarpSlot>> warps;
  std::uint32_t alive = 0;
  std::function<void()> exited;
  MbarrierTable mbarriers;
  // The barrier the last TMA landing credited (slots never move): every line of a box
  // credits the same one.
  std::uint32_t credited_offset = 0;
  MbarrierSlot* credited = nullptr;
  struct Bar {
    std::uint32_t arrived = 0;
    std::uint32_t expected_threads = 0;  // 0: every thread of the CTA
    std::vector<WarpSlot*> waiting;
    // bar.red's reductions of the round's arrivals (each waiting kBarrierRed gets its own).
    std::uint64_t red_sum = 0;
    bool red_and = true;
    bool red_or = false;
  };
  std::map<std::uint32_t, Bar> bars;            // bar.sync id → arrivals of the current round
  std::unique_ptr<ClusterContext> own_cluster;  // a plain CTA's cluster of one
  ClusterContext* cluster = nullptr;
  std::uint32_t tma_inflight = 0;  // TMA operations it issued that have not finished
  // Warpgroup-wide mm (MmInstruction::warpgroup): B fetches the other warps of the fetcher's
  // warpgroup may still take, oldest first.
  struct SharedB {
    std::uint64_t id = 0;
    std::uint32_t group = 0;     // warp index / 4
    kernel::MmInstruction mm{};  // the fetcher's instruction: its B operand is the key
    bool arrived = false;
    std::uint32_t taken = 0;  // bit i: warp 4 x group + i has taken it (the fetcher included)
    std::vector<WarpSlot*> waiting{};  // took it before it arrived
  };
  std::vector<SharedB> shared_b{};
  std::uint64_t next_shared_b = 1;
  bool retire_pending = false;  // every warp exited; retires when tma_inflight is 0
};

// A warp's SM-side state. It is its own wake-up event (no allocation per operation). Aligned,
// with what every wake-up touches first (the event, the stall state, the warp's handle), so
// the event loop's prefetch of its first two host lines covers them.
struct alignas(64) Sm::WarpSlot : sim::Event {
  WarpSlot(Sm& s, Cta& c, const kernel::WarpCoords& coords, std::uint32_t sub, std::uint64_t a)
      : sm(s),
        cta(c),
        warp(s, c.work.params, *c.work.args, coords, s.cfg_.functional,
             c.work.kernel->context.get()),
        sp(sub),
        age(a) {
    warp.executor_slot = this;
    warp.line_profile = s.cfg_.line_profile;
  }
  Sm& sm;
  Cta& cta;
  StallReason state = StallReason::kNone;
  std::uint64_t since_cycle = 0;  // the SM cycle `state` began (one conversion a stall)
  kernel::Warp warp;
  std::uint32_t sp;
  std::uint64_t age;  // launch order: lower is older (GTO)
  Op op;
  // The issue slots its last dependent chain (kAluChain) still owes the sub-partition: a chain
  // books one slot at issue; the rest issued as operands arrived, in cycles the others left.
  std::uint32_t chain_owed = 0;
  bool faulted = false;       // parked for good by a fault
  std::uint32_t pending = 0;  // parts of a multi-part access still in flight
  std::uint32_t slot = 0;     // hardware warp slot (its trace track)
  sim::Tick started = 0;
  // The mm register file (made on first use) and its tokens: per register, the register loads
  // in flight that write it.
  std::unique_ptr<kernel::RegisterFile> regs;
  std::vector<std::uint32_t> reg_pending;
  std::uint32_t reg_loads = 0;  // register loads in flight
  std::uint32_t stores = 0;     // posted global stores not yet acknowledged
  // Returned with register loads or stores in flight: exits when the last lands.
  bool exit_deferred = false;
  struct MmState {
    std::uint32_t columns = 0;  // predicated-on B columns: the math issues
    std::uint32_t a_regs = 0;
    std::uint64_t macs = 0;
    std::uint32_t active_threads = 0;
    // B in a page-table segment: the physical lines the memory issue reads.
    std::vector<std::uint64_t> segment_lines;
    std::vector<std::uint64_t> segment_pages;  // the pages they lie in, each once, in order
    sim::Tick translate_since = 0;             // its PTE loads were issued (mm_translate)
    // t1 with retention through a segment: the lines of each column's selections, in order.
    std::vector<std::uint64_t> segment_selections;
    std::vector<std::uint64_t> pinned;  // L1 lines pinned until the math is done
    bool math = false;                  // B and A ready: the next issue is the math form
    bool token_wait = false;            // blocked on an A register's token
    sim::Tick token_since = 0;
    std::uint64_t shared_b = 0;  // the Cta::SharedB this warp's B fetch fills (0: none)
  } mm;
  // Bulk async-groups (cp.async.bulk.commit_group / wait_group): committed groups from id
  // `group_base` on, each with its operations' shared reads and completions outstanding; the
  // open group collects operations until the next commit.
  struct Group {
    std::uint32_t unread = 0;
    std::uint32_t unfinished = 0;
  };
  std::deque<Group> groups;
  std::uint64_t group_base = 0;
  Group open_group;
  bool group_wait = false;  // parked in wait_group

 protected:
  void process() override {
    sm.stall(*this, StallReason::kNone);
    warp.resume();
  }
  // For speed only: the resumed kernel reads its locals and the awaiter's results from its
  // coroutine frame, cold in the host's caches with thousands of warps (a 16 B-per-lane load
  // keeps 1.5 KiB there): the frame, up to kFrameBytes (the first kFrameBytes when its size
  // is not known), four host lines a step.
  void prefetch() const override {
    // The slot's third host line (the event loop fetched the first two): the warp's
    // coordinates, its sub-partition and age, the start of its operation.
    sim::prefetch(reinterpret_cast<const char*>(this) + 128);
    const auto* f = static_cast<const char*>(warp.frame());
    if (f == nullptr) return;
    const std::size_t known = warp.frame_bytes();
    const char* end = f + (known == 0 || known > kFrameBytes ? kFrameBytes : known);
    for (; f < end; f += 256) {
      sim::prefetch(f);
      sim::prefetch(f + 64);
      sim::prefetch(f + 128);
      sim::prefetch(f + 192);
    }
  }
  static constexpr std::size_t kFrameBytes = 2048;
};

// A TMA operation this SM issued, from submission to finish (the job's tag is its index).
struct Sm::TmaRecord {
  WarpSlot* warp = nullptr;
  Cta* cta = nullptr;
  ClusterContext* cluster = nullptr;  // the CTA's, kept here for the landings
  kernel::TmaOp op{};
  // Destination CTAs (loads, shared-to-cluster copies): their ranks and SMs, in the TMA
  // unit's destination order. A rank's SM never changes once its CTA has started.
  struct Destination {
    std::uint32_t rank = 0;
    Sm* sm = nullptr;
  };
  std::array<Destination, tma::kMaxDestinations> to{};
  std::uint32_t destinations = 0;
  std::uint64_t group = 0;  // bulk-group operations: the group id
  bool in_use = false;
};

// An issue event per sub-partition; scheduled only while a warp of it waits to issue.
struct Sm::SubPartition : sim::Event {
  explicit SubPartition(Sm& s) : sm(s) {}
  Sm& sm;
  std::vector<WarpSlot*> ready;
  // ready[i]'s age, kept beside it: picking the oldest then reads no WarpSlot (64 of them per
  // SM, cold in the host's caches).
  std::vector<std::uint64_t> ready_age;
  std::uint64_t last_age = 0;  // the age of the warp issued last
  bool has_last = false;
  std::uint64_t free_cycle = 0;
  std::uint64_t mma_free_cycle = 0;  // the tensor pipe's next free cycle (PTX mma.sync)

 protected:
  void process() override { sm.issue(*this); }
};

}  // namespace xpusim::core
