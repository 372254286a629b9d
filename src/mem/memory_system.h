// MemorySystem: the memory hierarchy of one chip, timing only: per-SM L1s, the crossbar, the
// L2 slices, HBM and the DSMEM network, assembled from the chip config. Callback-based: a
// request books the ports it crosses when it is issued and wakes the units it reaches by
// events, so idle units cost nothing. Data stays in the functional GlobalMemory, which the SM
// layer reads and writes itself. See docs/memory-hierarchy.md.
//
// A load's path: L1 lookup -> (miss) crossbar request port of the line's slice -> slice
// (hit, merge or MSHR + HBM) -> crossbar response port -> L1 fill -> done. The L1 hit latency
// is charged once on every load, hit or miss.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "mem/address_map.h"
#include "mem/coalescer.h"
#include "mem/crossbar.h"
#include "mem/dsmem_network.h"
#include "mem/hbm.h"
#include "mem/l1_cache.h"
#include "mem/l2_cache.h"
#include "mem/mem_request.h"
#include "mem/memory_worker.h"
#include "sim/clock.h"
#include "sim/component.h"
#include "sim/trace.h"

namespace xpusim::config {
struct ChipSpec;
}

namespace xpusim::mem {

// How the hierarchy is timed (docs/memory-hierarchy.md, "Transaction-level timing").
enum class MemoryTiming : std::uint8_t {
  // Each request steps through the units at the ticks it reaches them (an event at the slice,
  // at a fill, back at the SM), so every shared resource is booked in time order.
  kEvents,
  // A request is timed whole when it is issued: the slice's lookup, HBM and the response port
  // are booked then for the ticks the request will reach them, and its one event is its
  // completion. Faster, and approximate: the slice sees requests in issue order (not arrival
  // order) and fills its tags at the miss.
  kTransactions,
};
std::string_view to_string(MemoryTiming t);
// "events" | "transactions"; nullopt for anything else.
std::optional<MemoryTiming> parse_memory_timing(std::string_view text);

// The largest set_sampling (MemoryParams): a 128-line box still has two sampled lines.
inline constexpr std::uint32_t kMaxSetSampling = 64;

struct MemoryParams {
  std::uint64_t sm_clock_hz = 1'000'000'000;
  std::uint64_t l2_clock_hz = 1'000'000'000;   // L2 and crossbar
  std::vector<std::uint32_t> gpc_of_sm = {0};  // one entry per SM
  std::uint32_t gpcs = 1;
  AddressMapParams map;
  L1Params l1;
  CrossbarParams crossbar;
  L2Params l2;
  HbmParams hbm;
  DsmemParams dsmem;
  MemoryTiming timing = MemoryTiming::kEvents;
  // Set sampling of TMA loads under kTransactions (docs/memory-hierarchy.md, "Set sampling"):
  // only a box's lines in one L2 set of every `set_sampling` are timed, each standing for the
  // box's lines next to it. 1 times every line.
  std::uint32_t set_sampling = 1;
  // Under kTransactions without tracing: warp accesses (load_lines, store_lines) are timed on
  // a second host thread (MemoryWorker); the results are the same as on one.
  bool worker_thread = false;

  // From a validated chip config. The L1 gets what the largest shared-memory carve-out leaves
  // (sm.l1_shared_bytes - sm.shared_memory_bytes); MemorySystem::set_l1_capacity changes it.
  static MemoryParams from_chip(const config::ChipSpec& chip);
  std::uint32_t near_partition(std::uint32_t sm) const {
    return gpc_of_sm[sm] * map.l2_partitions / gpcs;
  }
};

// Whom a request reports its completion to (the overloads of load/store that take one).
class RequestClient {
 public:
  virtual void request_done(std::uint64_t tag) = 0;
  // For speed only: start loading (sim::prefetch) what request_done(tag) will touch; the
  // request calls it a few events before. Must not change any state.
  virtual void prefetch_done(std::uint64_t /*tag*/) const {}

 protected:
  ~RequestClient() = default;
};

class MemorySystem : public sim::Component, private MemoryWorker::Handler {
 public:
  // Pending events call back into the units: keep the memory system alive while the
  // simulation runs (as every component, see docs/architecture.md).
  MemorySystem(Component& parent, const MemoryParams& params, std::string_view name = "mem");
  ~MemorySystem() override;

  // A global load of some sectors of one line; `done` runs when the data reaches the SM.
  // `cache_in_l1 = false` is ld.global.cg: the L1 is neither looked up nor filled.
  void load(const MemRequest& r, Done done, bool cache_in_l1 = true);
  // A global store (L1 write-through, no-allocate); `done` runs when L2 acknowledges it.
  void store(const MemRequest& r, Done done);
  // The same, reporting to `client` with `tag` instead of calling a Done: what a caller that
  // keeps its own per-request state uses (the SM's port), so a request allocates nothing.
  void load(const MemRequest& r, RequestClient& client, std::uint64_t tag, bool cache_in_l1 = true);
  void store(const MemRequest& r, RequestClient& client, std::uint64_t tag);
  // Transaction-level timing without tracing (batches_accesses()): the lines of one warp
  // access of SM `sm` (coalesce_into's output), each timed as load()/store() would time it,
  // reporting to `client` once, when the last is done. The L1 takes a load's missing sectors
  // then too. One event per access.
  bool batches_accesses() const { return transactions_ && !tracing_; }
  void load_lines(std::uint32_t sm, std::span<const LineRequest> lines, RequestClient& client,
                  std::uint64_t tag);
  void store_lines(std::uint32_t sm, std::span<const LineRequest> lines, RequestClient& client,
                   std::uint64_t tag);
  // Transaction-level timing: a load that bypasses the L1 (ld.global.cg, a TMA line) issued
  // at tick `at` (now or later), timed whole; returns when its data is at the SM. No event:
  // the caller keeps the tick. What the TMA unit's box-at-once generator uses.
  // With `weight` > 1 (set sampling) the load stands for that many lines of its box in sets
  // that are not sampled: the L2's counts are weighted, and `sampled` (if given) keeps what
  // its lookup found for follow_at.
  struct SampledLoad {
    sim::Tick arrival = 0;  // at the slice
    L2Slice::Answer answer;
  };
  sim::Tick load_at(const MemRequest& r, sim::Tick at, std::uint32_t weight = 1,
                    SampledLoad* sampled = nullptr);
  // Set sampling: a TMA line of a set that is not sampled, issued at `at`, which the sampled
  // line `by` stands for. It crosses its own crossbar ports and, if `by` read HBM, reads its
  // own HBM channel, with `by`'s L2 delays; its L2 slice is not looked up or counted.
  sim::Tick follow_at(const MemRequest& r, sim::Tick at, const SampledLoad& by);
  // With params().worker_thread: waits until the second thread has timed every warp access
  // issued (their completions are then scheduled). Every member that reaches the crossbar, the
  // L2 or HBM calls it; the stats registry does before it reads.
  void drain() {
    if (worker_ != nullptr) drain_worker();  // inline: TMA lines call it once each
  }
  bool has_worker() const { return worker_ != nullptr; }
  // Set sampling: 1 if every line is timed, else N (a line is timed when sampled()).
  std::uint32_t set_sampling() const { return params_.set_sampling; }
  // Whether the L2 set that holds `addr` is one of the sampled ones.
  bool sampled(Addr addr) const {
    return set_index_->in_sampled_set(map_.line_of(addr), params_.set_sampling);
  }
  bool transactions() const { return transactions_; }
  // With the transaction-level timing: applies the L2 fills due by now (L2Slice::settle), so
  // the L2's counts include them; the chip calls it as each kernel ends, `xpusim run` when a
  // run stops. No effect on timing.
  void settle() {
    if (!transactions_) return;
    drain();
    for (std::uint32_t s = 0; s < l2_->slices(); ++s)
      l2_->slice(s).settle(now());
  }
  // For speed only: with the transaction-level timing, starts loading the host memory a load
  // of the line at `addr` will look up, so that the lines of one warp access overlap their
  // host cache misses.
  void prefetch_load(Addr addr) const {
    if (!transactions_ || worker_ != nullptr) return;  // the worker prefetches its own
    const std::uint64_t line = map_.line_of(addr);
    l2_->slice_of_line(line).prefetch_transaction(line);
  }
  // The same for the L1 set an SM's access of `addr` looks up first (any timing).
  void prefetch_l1(std::uint32_t sm, Addr addr) const {
    if (sm < l1_.size()) l1_[sm]->tags().prefetch(map_.line_of(addr));
  }
  // Pins / unpins the line of `addr` in `sm`'s L1 (L1Cache::pin), after the second host
  // thread, if any, has timed the accesses issued before (it fills the L1s).
  bool pin_l1(std::uint32_t sm, Addr addr) {
    drain();
    return l1_[sm]->pin(map_.line_of(addr));
  }
  void unpin_l1(std::uint32_t sm, Addr addr) {
    drain();
    l1_[sm]->unpin(map_.line_of(addr));
  }
  // The L1 capacity of one SM after a shared-memory carve-out change; flushes that L1.
  void set_l1_capacity(std::uint32_t sm, std::uint64_t bytes) { l1_[sm]->resize(bytes); }

  std::uint32_t sms() const { return static_cast<std::uint32_t>(l1_.size()); }
  L1Cache& l1(std::uint32_t sm) { return *l1_[sm]; }
  Crossbar& crossbar() {
    drain();
    return *xbar_;
  }
  L2Cache& l2() {
    drain();
    return *l2_;
  }
  Hbm& hbm() {
    drain();
    return *hbm_;
  }
  DsmemNetwork& dsmem() { return *dsmem_; }
  const PhysicalAddressMap& address_map() const { return map_; }
  sim::Clock& sm_clock() { return sm_clock_; }
  sim::Clock& l2_clock() { return l2_clock_; }
  const MemoryParams& params() const { return params_; }

 private:
  // A load or store in flight: its own event at each step and the L2 slice's reply target,
  // recycled through a pool (memory_system.cc), so a request allocates nothing.
  class Request;
  Request& new_request();
  // load_lines / store_lines: the access's one request, reporting to `client` with `tag`.
  Request& lines_request(std::uint32_t sm, std::span<const LineRequest> lines,
                         RequestClient& client, std::uint64_t tag, bool store);
  // Transaction-level timing: `sectors` of `line` read from L2 by `sm`, sent at `at`; the
  // tick the data is usable at the SM (the L1's latency included). No event.
  sim::Tick read_through_l2(std::uint32_t sm, std::uint64_t line, std::uint32_t sectors,
                            sim::Tick at, std::uint32_t weight = 1,
                            SampledLoad* sampled = nullptr) {
    return read_through_l2(sm_clock_, sm, line, sectors, at, weight, sampled);
  }
  // The same converting to SM cycles with `sm_clock` (the worker's own copy: a Clock keeps its
  // last conversion).
  sim::Tick read_through_l2(const sim::Clock& sm_clock, std::uint32_t sm, std::uint64_t line,
                            std::uint32_t sectors, sim::Tick at, std::uint32_t weight,
                            SampledLoad* sampled);
  // A line of a warp access beyond the L1: its sectors (a load: those the L1 misses and
  // takes back; a store: those written), its L2 slice and its set there, and the tick its
  // request reaches the slice, which the simulation's thread works out so that the memory
  // worker, the busier one, does not.
  struct LineFill {
    std::uint64_t line = 0;
    std::uint32_t sectors = 0;
    std::uint32_t slice = 0;
    std::uint64_t set = 0;
    sim::Tick arrival = 0;
  };
  // Fills in `f`'s line, sectors, slice and set (what the simulation's thread works out for a
  // warp access: the worker's prefetch hints need the slice and set).
  void route_line(LineFill& f, std::uint64_t line, std::uint32_t sectors) const;
  // Sends `f`'s request of `bytes` from `sm` at `at`: books its slice's request port and sets
  // f.arrival. Request ports are booked in issue order, so their bookings come in the order
  // one thread's line-by-line walk makes them: a warp access's lines by the worker as it times
  // the access (the jobs come in issue order), anything else by the simulation's thread after
  // drain(). No other state depends on them.
  void send_line(LineFill& f, std::uint32_t sm, std::uint64_t bytes, sim::Tick at);
  // route_line, then send_line.
  void send_line(LineFill& f, std::uint32_t sm, std::uint64_t line, std::uint32_t sectors,
                 std::uint64_t bytes, sim::Tick at);
  // send_line for each of a warp access's lines (a store's requests carry its data).
  void send_lines(std::span<LineFill> fills, std::uint32_t sm, bool store, sim::Tick at);
  // The same as read_through_l2 for a line sent with send_line.
  sim::Tick read_through_slice(const sim::Clock& sm_clock, const LineFill& f, std::uint32_t weight,
                               SampledLoad* sampled);
  // load_lines / store_lines' bookings beyond the L1, from `at`: the tick the last line is
  // done (no event).
  sim::Tick time_load_lines(const sim::Clock& sm_clock, std::span<const LineFill> misses,
                            std::uint32_t l1_hits, sim::Tick at);
  sim::Tick time_store_lines(std::span<const LineFill> lines, sim::Tick at);
  // MemoryWorker::Handler (on the worker thread: work, prefetch).
  sim::Tick work(const MemoryWorker::Job& j) override;
  void deliver(const MemoryWorker::Job& j) override;
  void prefetch(const MemoryWorker::Job& j, unsigned ahead) const override;
  void prefetch_deliver(const MemoryWorker::Job& j) const override;
  void start_load(Request& q, const MemRequest& r, bool cache_in_l1);
  void start_store(Request& q, const MemRequest& r);

  // The sectors a request covers, checked to lie in one line.
  std::uint32_t sectors_of(const MemRequest& r) const;
  std::uint32_t sector_bytes(std::uint32_t sectors) const {
    return static_cast<std::uint32_t>(__builtin_popcount(sectors)) * params_.map.sector_bytes;
  }

  MemoryParams params_;
  bool transactions_;  // params_.timing == kTransactions
  sim::Clock sm_clock_;
  sim::Clock l2_clock_;
  // A response that left the crossbar at L2 edge `l2_cycle`, through the L1's hit latency:
  // the tick it is back in the SM. With one frequency the edges coincide (no conversion).
  sim::Tick back_at_sm(const sim::Clock& sm_clock, sim::Cycles l2_cycle) const {
    if (sm_clock.frequency_hz() == l2_clock_.frequency_hz())
      return sm_clock.edge(l2_cycle + params_.l1.hit_latency_cycles);
    return cycles_after(sm_clock, l2_clock_.edge(l2_cycle), params_.l1.hit_latency_cycles);
  }
  PhysicalAddressMap map_;
  std::unique_ptr<Component> l1_group_;
  std::vector<std::unique_ptr<L1Cache>> l1_;
  std::unique_ptr<Hbm> hbm_;
  std::unique_ptr<L2Cache> l2_;
  // Slice 0's tags: every slice has the same sets and index, so sampled() and send_line() ask
  // one object, which stays in the host's cache, rather than the line's own slice (and the
  // simulation's thread reads only its set count, never what the worker changes).
  const SectorCache* set_index_ = nullptr;
  std::unique_ptr<Crossbar> xbar_;
  std::unique_ptr<DsmemNetwork> dsmem_;
  std::vector<std::unique_ptr<Request>> request_pool_;
  std::vector<Request*> request_free_;
  // Tracing (only when the tracer takes this component): a request that leaves its L1 is
  // four zero-length slices — sent and back on the SM's L1 track, arrived and replied on its
  // L2 slice's track — joined by a flow arrow each way (requests overlap, so slices spanning
  // them would not nest on one track).
  bool tracing_ = false;
  std::uint64_t next_flow_ = 0;
  std::vector<sim::TrackId> l1_tracks_, slice_tracks_;  // made on first use
  sim::TrackId l1_track(std::uint32_t sm);
  sim::TrackId slice_track(std::uint32_t slice);
  sim::Counter& loads_;
  sim::Counter& stores_;
  sim::Average& load_latency_;
  // With params_.worker_thread (docs/memory-hierarchy.md, "A second host thread").
  std::unique_ptr<MemoryWorker> worker_;
  sim::Clock worker_sm_clock_;  // the SM clock's conversions on the worker thread
  sim::Tick lookahead_ = 0;     // no warp access that reaches the crossbar is done sooner
  // With a worker, the load latencies sampled on the simulation's thread (the worker samples
  // load_latency_ meanwhile), added to load_latency_ by drain(). Sums of whole cycles are
  // exact in a double, so the merged stat is the same whatever the order of the samples.
  sim::Samples sm_side_latencies_;
  void sample_load_latency(double cycles, std::uint64_t weight = 1) {
    if (worker_ != nullptr) {
      sm_side_latencies_.add(cycles, weight);
    } else {
      load_latency_.sample(cycles, weight);
    }
  }
  void drain_worker();
  enum JobKind : std::uint8_t { kLoadJob = 1, kStoreJob = 2 };
};

}  // namespace xpusim::mem
