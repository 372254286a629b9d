// L2Slice: one slice of the L2. Sectored (tag per 128 B line, fill per 32 B sector),
// set-associative, true LRU, write-back with write-allocate.
//
//  - Read: sectors valid -> hit after `hit_latency_cycles`. Missing sectors allocate an MSHR
//    (one per line, with a pending-sector mask) and read HBM one sector at a time; a later
//    read needing only sectors already in flight is a merged miss: it waits on the same fill,
//    no second HBM read. Missing sectors of a line that already has an MSHR join it.
//  - MSHR-full back-pressure: a read needing a new MSHR when all are busy waits in a FIFO
//    (never dropped); once one is waiting, later reads needing a new MSHR queue behind it, so
//    they complete later. Reads that hit or merge still proceed (hit-under-miss).
//  - Fill: the line is allocated when its first sectors arrive (not at miss time, so a line
//    with fills in flight is never a victim); the LRU victim's dirty sectors are written back
//    to HBM.
//  - Write: write-allocate without fetch (the L2 keeps byte masks, so a partial-sector write
//    needs no read); written sectors become valid and dirty; acknowledged after the hit latency.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "mem/address_map.h"
#include "mem/busy_mshrs.h"
#include "mem/hbm.h"
#include "mem/line_table.h"
#include "mem/sector_cache.h"
#include "sim/clock.h"
#include "sim/component.h"
#include "sim/host_lines.h"

namespace xpusim::mem {

struct L2SliceParams {
  std::uint64_t bytes = 512 * 1024;
  std::uint32_t ways = 16;
  sim::Cycles hit_latency_cycles = 100;  // tag + data pipeline, L2 clock
  std::uint32_t mshrs = 64;
  SetIndex set_index = SetIndex::kHash;
  // Dirty victims whose HBM write may be in flight at once; 0: no limit. A write that evicts
  // one with all of them held is acknowledged once the first frees (docs/memory-hierarchy.md).
  std::uint32_t writeback_buffers = 0;
};

// Called when the data (or the write acknowledgement) may leave the slice: at once for a hit,
// with `pipeline_cycles` of the slice's latency still to add behind the response port; at the
// fill for a miss, with 0 (the fill already paid the lookup).
using SliceReply = std::function<void(sim::Cycles pipeline_cycles)>;

// The same as an interface: what the memory system's in-flight requests implement, so that a
// request allocates nothing on its way through the slice. Must outlive the reply.
class SliceClient {
 public:
  virtual void slice_reply(sim::Cycles pipeline_cycles) = 0;

 protected:
  ~SliceClient() = default;
};

class L2Slice : public sim::Component {
 public:
  L2Slice(Component& parent, std::string name, sim::Clock& l2_clock, const L2SliceParams& params,
          const PhysicalAddressMap& map, Hbm& hbm);
  ~L2Slice() override;

  void read(std::uint64_t line, std::uint32_t sectors, SliceReply reply);
  void write(std::uint64_t line, std::uint32_t sectors, SliceReply reply);
  void read(std::uint64_t line, std::uint32_t sectors, SliceClient& client);
  void write(std::uint64_t line, std::uint32_t sectors, SliceClient& client);

  // Transaction-level timing (docs/memory-hierarchy.md): the request is handled when it is
  // issued, as if it arrived at `at`, and the slice answers with the tick the data (or the
  // acknowledgement) may leave and the pipeline cycles still to add behind the response port,
  // as a SliceReply would be called. A miss takes one of the MSHRs (the slice's `mshrs` as
  // servers: it starts when the earliest one frees) and books HBM from then; the missing
  // line's tags are allocated at its fill, as with events (a line in flight is never a
  // victim): each call first applies the fills due by `at`. Until the data is back, reads of
  // its sectors are merged misses that answer with it.
  struct Answer {
    sim::Tick ready = 0;
    sim::Cycles pipeline = 0;
    // A miss that read HBM: the tick its HBM booking started from (after any MSHR wait).
    bool read_hbm = false;
    sim::Tick hbm_from = 0;
  };
  // With `weight` > 1 the read stands for that many like it in sets that are not sampled (set
  // sampling, docs/memory-hierarchy.md): its counts are weighted (HBM books only its own
  // sectors; the lines it stands for book theirs, MemorySystem::follow_at).
  Answer read_at(std::uint64_t line, std::uint32_t sectors, sim::Tick at,
                 std::uint32_t weight = 1) {
    return read_in(tags_.set_index(line), line, sectors, at, weight);
  }
  // The same for a line whose set, `tags().set_index(line)`, the caller knows (and write_in
  // for write_at).
  Answer read_in(std::size_t set, std::uint64_t line, std::uint32_t sectors, sim::Tick at,
                 std::uint32_t weight);
  Answer write_at(std::uint64_t line, std::uint32_t sectors, sim::Tick at,
                  std::uint32_t weight = 1) {
    return write_in(tags_.set_index(line), line, sectors, at, weight);
  }
  Answer write_in(std::size_t set, std::uint64_t line, std::uint32_t sectors, sim::Tick at,
                  std::uint32_t weight);

  // Transaction-level timing: applies the fills due by `upto` (allocating their lines, writing
  // back dirty victims at the fill's tick). read_at and write_at do it themselves; a run calls
  // it when a kernel ends, so the eviction counts include every fill already back.
  void settle(sim::Tick upto);

  // For speed only (sim::Event::prefetch): starts loading what a read or fill of `line` will
  // look up. No effect on the slice's state.
  void prefetch(std::uint64_t line) const;
  // The same for read_at (transaction-level timing).
  void prefetch_transaction(std::uint64_t line) const {
    prefetch_transaction(tags_.set_index(line), line);
  }
  void prefetch_transaction(std::size_t set, std::uint64_t line) const;

  const SectorCache& tags() const { return tags_; }
  // With the transaction-level timing: those busy when the last miss arrived.
  std::size_t mshrs_in_use() const { return transactions_ ? busy_mshrs_.size() : mshrs_in_use_; }
  std::size_t waiting() const { return waiting_.size(); }

  // Counters the L2 totals sum.
  sim::Counter& hits;
  sim::Counter& misses;
  sim::Counter& merged_misses;
  sim::Counter& writes;
  sim::Counter& evictions;
  sim::Counter& writebacks;
  sim::Counter& writeback_sectors;
  sim::Counter& hbm_read_sectors;
  sim::Counter& mshr_full_stalls;
  sim::Counter& writeback_full_stalls;

 private:
  // Whom to answer: a client, or else a std::function (the public SliceReply overloads).
  struct Reply {
    SliceClient* client = nullptr;
    SliceReply fn;
    void operator()(sim::Cycles pipeline) {
      if (client != nullptr) {
        client->slice_reply(pipeline);
      } else {
        fn(pipeline);
      }
    }
  };
  struct Waiter {
    std::uint32_t sectors = 0;  // all must be filled before the reply
    Reply reply;
  };
  // MSHRs live in a pool of slots that is never shrunk (a slot keeps its waiter vector's
  // capacity), found by line through a small open-addressing index: no allocation per miss.
  struct Mshr {
    std::uint64_t line = 0;
    std::uint32_t pending = 0;  // sectors with an HBM read in flight
    std::vector<Waiter> waiters;
  };
  struct Queued {
    std::uint64_t line = 0;
    std::uint32_t sectors = 0;
    Reply reply;
  };
  class FillEvent;

  // The MSHR of `line`, or null.
  Mshr* find_mshr(std::uint64_t line);
  Mshr& add_mshr(std::uint64_t line);
  void erase_mshr(Mshr& m);

  void start_read(std::uint64_t line, std::uint32_t sectors, Reply reply);
  void start_write(std::uint64_t line, std::uint32_t sectors, Reply reply);
  bool needs_new_mshr(std::uint64_t line, std::uint32_t sectors);
  void serve_read(std::uint64_t line, std::uint32_t sectors, Reply reply);
  // `client`: who asked (a prefetch hint for the fill; null for a SliceReply).
  void fetch(std::uint64_t line, Mshr& m, std::uint32_t sectors, const SliceClient* client);
  void fill(std::uint64_t line, std::uint32_t sectors);
  // Finds or allocates the line's tags; a dirty victim is written back from `writeback_at`
  // (transaction-level timing) or, with kWritebackNow, now, holding a write-back buffer until
  // its HBM write is done. `buffer_free` (if given): when the buffer it took was free, which a
  // write that evicted waits for; else the allocation's tick. (A plain tick, not an optional:
  // GCC built the optional on the stack and read it back whole, a store-forwarding stall on
  // every fill.)
  static constexpr sim::Tick kWritebackNow = sim::kMaxTick;
  SectorCache::Line& allocate(std::uint64_t line, sim::Tick writeback_at = kWritebackNow,
                              sim::Tick* buffer_free = nullptr) {
    return allocate_in(tags_.set_index(line), line, writeback_at, buffer_free);
  }
  // The same in the line's set, `tags_.set_index(line)`.
  SectorCache::Line& allocate_in(std::size_t set, std::uint64_t line, sim::Tick writeback_at,
                                 sim::Tick* buffer_free);
  // Takes a write-back buffer at `at`: `at` if one is free, else the tick the first frees.
  sim::Tick take_writeback_buffer(sim::Tick at);
  // Transaction-level timing: the MSHR a miss at `at` gets; returns when it starts.
  sim::Tick take_mshr(sim::Tick at);
  // Transaction-level timing: frees the MSHR that frees first, applying its fill.
  void retire_first();
  void drain_waiting();
  void account_occupancy();  // adds the area up to now; call before the MSHR count changes

  sim::Clock& clock_;
  L2SliceParams params_;
  Hbm& hbm_;
  SectorCache tags_;
  std::vector<std::unique_ptr<Mshr>> mshr_pool_;
  std::vector<Mshr*> mshr_free_;
  LineTable<Mshr*> mshr_index_;
  std::size_t mshrs_in_use_ = 0;
  std::vector<Waiter> ready_;  // fill()'s scratch list, kept for its capacity
  std::deque<Queued> waiting_;
  std::vector<std::unique_ptr<FillEvent>> fill_pool_;
  std::vector<FillEvent*> fill_free_;
  // Transaction-level timing. Each busy MSHR (ordered by the tick it frees, at most
  // `mshrs`); when its miss found the line absent, the fill allocates it (the line is in
  // `arriving_` until then, with that tick as its first fill). Per line of tags_ (by
  // SectorCache::index_of): the sectors fetched by its last miss and the tick they are back. An
  // allocated line's missing sectors are marked valid at the miss, so reads of them until `ready`
  // are merged misses.
  struct InFlight {
    sim::Tick ready = 0;
    std::uint32_t pending = 0;
    std::uint32_t weight = 1;  // set sampling: the lines this one stands for (its eviction's)
  };
  BusyMshrs busy_mshrs_;
  sim::HostLineVector<InFlight> in_flight_;  // made by the first read_at (per way, as the tags)
  // A missing line with its miss in flight: its first fill (which allocates it) and when all
  // its pending sectors are back.
  struct Arriving {
    sim::Tick first_fill = 0;
    sim::Tick ready = 0;
    std::uint32_t pending = 0;
    std::uint32_t weight = 1;
  };
  LineTable<Arriving> arriving_;
  bool transactions_ = false;  // read_at or write_at was used: occupancy_area_ is complete
  bool weighted_ = false;      // a read or write stood for others (set sampling): weights vary
  // Time-weighted MSHR occupancy: integral of mshrs_in_use over ticks.
  double occupancy_area_ = 0.0;
  sim::Tick occupancy_since_ = 0;
  sim::Scalar& mshr_peak_;
  // The held write-back buffers: a min-heap of the ticks their HBM writes are done (at most
  // params_.writeback_buffers of them; unused when that is 0).
  std::vector<sim::Tick> writebacks_;
};

}  // namespace xpusim::mem
