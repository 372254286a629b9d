// TmaUnit: the timing pipeline of one TMA unit (seed0 §2–3; docs/tma-unit.md). It serves one
// SM or several through a round-robin arbiter (seed0 ¶50) and times what the golden model
// (copy_engine.h) computes:
//
//   request queue (per SM served, `queue_depth`)
//     → descriptor cache, tagged by the descriptor's global address, LRU; on a miss the 128 B
//       descriptor is read through L2; the next queued request's descriptor is fetched ahead
//       while the current one is set up (look-ahead, seed0 ¶74, ¶87). An invalidate
//       operation drops an entry; a hit whose bytes were rewritten in memory since is a miss
//       (counted as stale), so a stale descriptor is never used
//     → setup (`setup_cycles`): the client validates the request and applies its functional
//       effect (TmaClient::plan); a bad request is dropped with its error (seed0 ¶88)
//     → request generator: ≤ 128 B global requests, `requests_per_cycle`, at most
//       `max_outstanding` in flight
//     → responses: loads land in the issuing SM's shared memory, or cross the SM-to-SM network
//       to every other CTA of a multicast (one global read, seed0 §3.7) and are acknowledged
//       back; each landing credits complete_tx bytes on the destination's barrier
//       (TmaClient::landed). Stores and reductions read shared memory and write L2
//       (TmaClient::source_read when the last request left, finished when all are acknowledged).
//
// Setup of the next request overlaps generation of the current one (two plans may wait for
// the generator). Nothing ticks while the unit is idle.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "kernel/tma_op.h"
#include "mem/dsmem_network.h"
#include "mem/global_memory.h"
#include "mem/memory_system.h"
#include "sim/component.h"
#include "sim/event_queue.h"
#include "sim/result.h"
#include "sim/stats.h"
#include "tma/copy_engine.h"
#include "tma/in_flight.h"
#include "tma/tensor_map.h"

namespace xpusim::tma {

// A load multicasts to at most the 16 CTAs its 16-bit mask names (PTX .multicast::cluster).
inline constexpr std::uint32_t kMaxDestinations = 16;

struct TmaParams {
  std::uint32_t queue_depth = 16;  // requests waiting, per SM served
  std::uint32_t descriptor_cache_entries = 16;
  bool descriptor_lookahead = true;
  std::uint32_t setup_cycles = 8;        // per operation: validation and address setup
  std::uint32_t requests_per_cycle = 1;  // ≤ 128 B global requests generated per SM cycle
  std::uint32_t max_outstanding = 256;   // global requests in flight
  // seed0 ¶85-86: separate queues for tensor and non-tensor requests, each `queue_depth`
  // deep, picked by type in turn; a tensor request waiting for its descriptor steps aside
  // (one at a time, so tensor requests keep their order) and non-tensor ones go past it.
  // false: one FIFO per SM, where everything waits behind a descriptor fetch.
  bool split_queues = false;
};

class TmaUnit;

// A fetched descriptor as the unit keeps it: the decoded map, and for tile mode the map
// checked and planned once for every request through it (PreparedTileMap).
struct CachedDescriptor {
  TensorMap map{};
  std::optional<PreparedTileMap> tiled{};
};

// One operation as queued: what the warp asked for, who asked (the client's tag), and the SM
// whose crossbar port and shared memory the operation uses.
struct TmaJob {
  kernel::TmaOp op{};
  std::uint32_t sm = 0;
  std::uint64_t tag = 0;
};

// What setup decided: the golden model's report and where the bytes go.
struct TmaPlan {
  enum class Flow : std::uint8_t {
    kLoad,        // global -> shared of each destination (tile, im2col, bulk)
    kStore,       // shared -> global (tile store, reduction, bulk store)
    kPrefetch,    // global -> L2 only
    kToCluster,   // shared -> another CTA's shared (bulk), report.bytes_per_destination bytes
    kGlobalCopy,  // global -> global (bulk): the first `reads` requests read, the rest write;
                  // write k issues once k + 1 reads are back (the data it carries)
    kNone,        // nothing moves (descriptor prefetch)
  };
  Flow flow = Flow::kNone;
  std::uint32_t reads = 0;  // kGlobalCopy
  CopyReport report{};
  // Loads and kToCluster: the SM of each destination CTA, in destination order.
  std::vector<std::uint32_t> destination_sms{};
};

// The SM side: implemented by the SM model (src/core), which owns shared memory and barriers.
class TmaClient {
 public:
  // Setup: validates the operation against its descriptor (null for descriptor-less ones)
  // and, in functional mode, applies its data effect. An error drops the request.
  virtual Result<TmaPlan> plan(const TmaJob& job, const CachedDescriptor* descriptor) = 0;
  virtual void dropped(const TmaJob& job, const Error& error) = 0;
  // `bytes` landed in destination `d`'s shared memory: complete_tx them on its barrier. They
  // landed one line at a time from tick `since` to now (`since` is now for one line).
  virtual void landed(const TmaJob& job, std::uint32_t d, std::uint32_t bytes, sim::Tick since) = 0;
  // A store's or reduction's last request has read its shared-memory source.
  virtual void source_read(const TmaJob& job) = 0;
  // The operation is over (writes acknowledged, prefetches done, loads landed everywhere).
  virtual void finished(const TmaJob& job) = 0;
  // The SM's request queue has room again (after submit() refused).
  virtual void queue_space() = 0;

 protected:
  ~TmaClient() = default;
};

class TmaUnit : public sim::Component, private mem::RequestClient, private mem::PushClient {
 public:
  // `sms`: the SMs served (their ids); each gets its own queue and registers its client.
  TmaUnit(sim::Component& parent, std::string_view name, const TmaParams& params,
          mem::MemorySystem& memory, const mem::GlobalMemory& global,
          std::vector<std::uint32_t> sms);
  ~TmaUnit() override;

  void attach(std::uint32_t sm, TmaClient& client);
  // Queues an operation; false (nothing queued) when the SM's queue is full: the client
  // retries on queue_space().
  bool submit(const TmaJob& job);
  bool idle() const { return active_ == 0; }
  const TmaParams& params() const { return params_; }
  std::uint32_t queued(std::uint32_t sm) const;

 private:
  struct Port;    // one served SM: its queue and client
  struct Active;  // an operation past setup
  struct Descriptor;
  class Stage;   // a pipeline event calling back into the unit
  void front();  // the queue → descriptor → setup stage
  void setup_done();
  void generate();  // the request generator, one cycle's worth
  void request_done(std::uint64_t tag) override;
  // A multicast or shared-to-cluster piece.
  void push_arrived(std::uint64_t tag, sim::Tick acked_at) override;
  void push_acked(std::uint64_t tag) override;
  // Retires `a` if everything it sent has landed and been acknowledged: now, or at the tick
  // its last multicast acknowledgement reaches the unit.
  void maybe_retire(Active& a);
  class OpEvent;
  // Transaction-level memory timing (docs/tma-unit.md): a load's whole box is issued at once,
  // line by line at the generator's rate and outstanding limit but at future ticks, each line
  // timed whole (MemorySystem::load_at, DsmemNetwork::push_cycles_at); each destination is
  // credited the box at its last line's tick, by one event.
  void issue_box(Active& a);
  // Set sampling (docs/memory-hierarchy.md): the indices of `a`'s lines from its next one
  // that lie in sampled L2 sets, into `out`.
  void collect_sampled(const Active& a, std::vector<std::uint32_t>& out) const;
  // How many lines line `i` of `lines` is timed for: 1 with `sampled` empty (every line
  // timed), else 0 for a line that is not sampled, and for the sampled one (`next` moves on)
  // itself and the lines up to the next sampled one (the first one also those before it).
  static std::uint32_t sampled_weight(std::span<const std::uint32_t> sampled, std::size_t& next,
                                      std::uint64_t i, std::uint64_t lines);
  void land_boxes(Active& a);
  // Operations issue_box placed whose last line issues at or after `cycle`, which count as
  // still in the generator (at most two set up ahead of it).
  std::size_t issuing_after(std::uint64_t cycle);
  void land(Active& a, std::uint32_t d, std::uint32_t bytes);
  void response(Active& a, std::uint32_t bytes);
  void retire(Active& a);
  TmaClient& client_of(const Active& a);
  std::shared_ptr<Descriptor> lookup(std::uint64_t address);
  // Whether a fetched descriptor's bytes are still those in memory.
  bool matches_memory(Descriptor& d) const;
  std::shared_ptr<Descriptor> fetch(std::uint64_t address, std::uint32_t sm);
  void descriptor_arrived(std::uint64_t address);
  // The next request to take: its port and queue (split queues: by type in turn; none from
  // the tensor queues while one tensor request is parked).
  // `bulk`: the port's non-tensor queue was picked.
  Port* pick(bool& bulk);
  const TmaJob* peek_next() const;
  // The queue a request waits in.
  bool tensor_queue(const TmaJob& job) const;
  void activity(int delta);
  std::uint64_t cycle_now() const;
  void schedule(Stage& s, std::uint64_t cycle);
  Active& new_active();

  TmaParams params_;
  mem::MemorySystem& memory_;
  const mem::GlobalMemory& global_;
  const sim::Clock& clock_;
  std::vector<std::unique_ptr<Port>> ports_;
  std::uint32_t rr_ = 0;  // round-robin pointer over ports_
  // Shared so that the operation in setup keeps its descriptor when a look-ahead fetch
  // evicts it from the cache.
  std::vector<std::shared_ptr<Descriptor>> descriptors_;
  std::shared_ptr<Descriptor> current_descriptor_;
  std::uint64_t lru_clock_ = 0;
  // The front end: the operation in setup (or waiting for its descriptor).
  std::optional<TmaJob> current_;
  std::uint32_t current_port_ = 0;
  sim::Tick current_submitted_ = 0;
  bool waiting_descriptor_ = false;
  // Split queues: the tensor request that stepped aside to wait for its descriptor.
  struct Parked {
    TmaJob job;
    std::uint32_t port = 0;
    sim::Tick submitted = 0;
    std::shared_ptr<Descriptor> descriptor;
    std::uint64_t since = 0;
  };
  std::optional<Parked> parked_;
  bool pick_tensor_ = true;  // split queues: the type picked first next time
  std::uint64_t wait_since_ = 0;
  std::unique_ptr<Stage> front_stage_, setup_stage_, gen_stage_;
  std::deque<Active*> plans_;  // set up, waiting for (or in) the generator
  std::uint32_t outstanding_ = 0;
  std::vector<std::unique_ptr<Active>> pool_;
  // One of each per pool_ entry: its retirement and its box landings.
  std::vector<std::unique_ptr<OpEvent>> retire_events_, landing_events_;
  // issue_box's generator: the first cycle the next line may issue, the lines issued in the
  // current cycle, the lines in flight and each placed operation's last issue cycle (in
  // order).
  bool boxes_ = false;  // the memory system's timing is kTransactions
  std::uint64_t next_issue_ = 0;
  std::uint64_t rate_cycle_ = ~std::uint64_t{0};
  std::uint32_t rate_count_ = 0;
  InFlight in_flight_;  // the completion ticks of the lines in flight
  // issue_box with set sampling: the indices of the box's sampled lines, and the current
  // group's lines with their issue ticks.
  std::vector<std::uint32_t> sampled_;
  std::vector<std::pair<GlobalRequest, sim::Tick>> group_lines_;
  std::deque<std::uint64_t> issuing_until_;
  std::vector<Active*> free_;
  std::uint32_t active_ = 0;  // operations queued or in flight
  std::uint64_t busy_since_ = 0;

  sim::Counter& operations_;
  sim::Counter& global_requests_;
  sim::Counter& bytes_read_;
  sim::Counter& bytes_written_;
  sim::Counter& dsmem_bytes_;
  sim::Counter& descriptor_hits_;
  sim::Counter& descriptor_misses_;
  sim::Counter& lookahead_fetches_;
  sim::Counter& descriptor_wait_;
  sim::Counter& descriptor_invalidations_;
  sim::Counter& descriptor_stale_;
  sim::Counter& dropped_;
  sim::Counter& queue_full_;
  sim::Counter& busy_cycles_;
  sim::Average& queue_occupancy_;
  sim::Histogram& latency_;
};

}  // namespace xpusim::tma
