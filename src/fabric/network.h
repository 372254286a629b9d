// Network: the routers, links and credit flow control of a pod (seed4 ¶36-¶37, Fig. 2).
//
// Each chip is an input-queued router whose queues live in its BufferMemory. A packet that
// arrives on port p, VC v waits in queue port(p, v); the head of every queue asks its output
// port; an output sends the oldest request whose VC it holds credits for. A sender never
// exceeds its credits (the free space of the downstream queue), so nothing is dropped or
// overwritten; freed space returns to the upstream sender as a credit message on the reverse
// channel one link latency later. Locally generated packets wait in outbound(p) queues,
// packets for this chip pass the inbound queue and are consumed at once.
//
// Routing: dimension order (x, y, z) on grids, the direction around a ring chosen once per
// dimension (shorter, or the healthy one around failed links); the dateline VC scheme makes
// tori deadlock-free (VC 0 until the wrap-around link, VC 1 after; reset per dimension).
// Explicit topologies: shortest path, VC = hop index (needs vcs > diameter - 1).
//
// Events are per link, not per packet: one arrival event per link direction (packets in
// flight are a FIFO, the link latency is fixed) and one wake event per output (free again, or
// credits back). A packet that will be consumed on arrival into an empty queue has its arrival
// done when it is sent, with the arrival's times (router.cc, arrive_consumed). Packets and
// messages are pooled records in intrusive lists, credits and packets on a link per-output time
// rings: no allocation per packet (docs/performance.md, "Fabric").
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "fabric/buffer_memory.h"
#include "fabric/policy.h"
#include "fabric/topology.h"
#include "sim/event_queue.h"
#include "sim/result.h"
#include "sim/rng.h"
#include "sim/tick.h"

namespace xpusim::fabric {

using MessageId = std::uint32_t;

// Told when the last byte of a message has been consumed at its destination.
class MessageSink {
 public:
  virtual ~MessageSink() = default;
  virtual void delivered(MessageId id, std::uint32_t src, std::uint32_t dst, std::uint64_t tag) = 0;
};

struct NetworkOptions {
  std::string policy;              // allocation policy; empty = the pod's buffer.policy
  std::uint64_t buffer_bytes = 0;  // 0 = the pod's buffer.bytes
  RttSource rtt_source = RttSource::kTable;
  std::uint64_t seed = 1;
};

// Per output port (one direction of a link), accumulated since the last clear_stats().
struct OutputStats {
  std::uint64_t packets = 0, bytes = 0, retries = 0;
  sim::Tick busy_ps = 0;   // serializing (including retried attempts)
  sim::Tick stall_ps = 0;  // packets waiting, link free, no credits for any of them
};

struct QueueStats {
  std::uint64_t received = 0;  // seed4 ¶57 counter: packets received (retries included)
  std::uint64_t max_used = 0;  // bytes
  double used_integral = 0.0;  // byte x ps, for the time-weighted mean
};

// The report's aggregates: over used link directions (utilization, stall at zero credits) and
// their (port, VC) queues (time-weighted mean and max bytes); the figures stats_json lists per
// link and queue, without building it (about 2 KB of JSON per used port).
struct NetworkSummary {
  double util_min = 0, util_mean = 0, util_max = 0;
  double stall_ns_total = 0, stall_ns_max = 0;
  double queue_mean_bytes = 0, queue_max_bytes = 0;
};

struct Request;  // network_internal.h

class Network {
 public:
  static Result<std::unique_ptr<Network>> create(sim::EventQueue& events, const Topology& topo,
                                                 const NetworkOptions& opts);
  ~Network();
  Network(const Network&) = delete;
  Network& operator=(const Network&) = delete;

  const Topology& topology() const { return topo_; }
  std::uint32_t vcs() const { return vcs_; }
  sim::Tick now() const { return events_.now(); }

  // Queues a message; its packets enter the outbound queue of the first hop as space allows.
  // Errors: an inactive end, src == dst, or no route (e.g. failures break every direction).
  Result<MessageId> send(std::uint32_t src, std::uint32_t dst, std::uint64_t bytes,
                         std::uint64_t tag, MessageSink* sink);
  // Hops a packet takes from src to dst (the route the network would use); error if none.
  Result<std::uint32_t> hops(std::uint32_t src, std::uint32_t dst) const;

  // --- allocation and the register path ---
  const BufferMemory& buffer(std::uint32_t chip) const { return mem_[chip]; }
  // The RTT each port's allocation used (table or measured) and its bandwidth-delay product.
  sim::Tick port_rtt(std::uint32_t chip, std::uint32_t p) const { return rtt_[chip * P_ + p]; }
  std::uint64_t port_bdp(std::uint32_t chip, std::uint32_t p) const;
  std::string_view policy_name() const { return policy_->name(); }
  // The allocation inputs of one chip as the policy sees them (current counters included).
  AllocationInput allocation_input(std::uint32_t chip) const;
  // Reprograms every chip's queues with `policy` from the current counters. Only legal when
  // drained (no packet or credit anywhere in the fabric); errors otherwise or when the policy
  // fails for any chip (then nothing changes). Credits are reset to the new sizes.
  Status reallocate(const AllocationPolicy& policy);
  Status reallocate(std::string_view policy_name);
  bool drained() const;

  // Injection pause for in-run re-allocation (seed4 ¶63): outbound queues take no new packets
  // from the sources while paused; everything already in the fabric keeps moving.
  void pause_injection(bool paused);
  bool injection_paused() const { return paused_; }

  // --- counters and stats ---
  const OutputStats& output_stats(std::uint32_t chip, std::uint32_t p) const;
  const QueueStats& queue_stats(std::uint32_t chip, std::uint32_t p, std::uint32_t vc) const;
  std::uint64_t received(std::uint32_t chip, std::uint32_t p, std::uint32_t vc) const {
    return queue_stats(chip, p, vc).received;
  }
  void clear_counters();  // the ¶57 received counters only
  void clear_stats();     // everything, and restart the occupancy clocks
  std::uint64_t packets_injected() const { return packets_injected_; }
  std::uint64_t packet_hops() const { return packet_hops_; }
  std::uint64_t messages_delivered() const { return messages_delivered_; }
  std::uint64_t messages_pending() const { return messages_live_; }
  // Link-level retry gives up after the pod's router.max_replays replays of one packet: the
  // link is declared failed when the last replay's NAK is back, and the run stops there
  // (EventQueue::stop). "" while every link is up; else one line naming the link.
  const std::string& link_failure() const { return failure_; }
  // Bytes in one queue now.
  std::uint64_t queue_used(std::uint32_t chip, std::uint32_t p, std::uint32_t vc) const {
    return mem_[chip].used(mem_[chip].port_queue(p, vc));
  }
  // Summary + per-link + per-queue JSON (the --stats file's "fabric" section); `elapsed` is
  // the interval the utilization and mean occupancy are over.
  nlohmann::json stats_json(sim::Tick elapsed) const;
  NetworkSummary summary(sim::Tick elapsed) const;
  // Queue q's byte-picoseconds of use up to `now` (for its time-weighted mean).
  double queue_integral(std::uint32_t q, sim::Tick now) const;
  // Host memory of a network on `topo`, before building it (FabricJob's memory check).
  static std::uint64_t host_bytes(const Topology& topo);

 private:
  struct Packet;
  struct Message;
  struct Output;
  struct InQueue;
  class ArrivalEvent;
  class WakeEvent;

  Network(sim::EventQueue& events, const Topology& topo, const NetworkOptions& opts);
  Status init(const NetworkOptions& opts);
  Status program_all(const AllocationPolicy& policy);

  // Routing: fills the packet's next out port and VC (and its per-dimension state).
  bool route(std::uint32_t chip, Packet& k) const;
  bool healthy_path(std::uint32_t chip, std::uint32_t d, std::uint32_t dir,
                    std::uint32_t target) const;

  void on_arrival(std::uint32_t o);
  // The datapath. Helpers marked always_inline are defined and used only in router.cc: forced
  // into the hop path they save about 12 % of its instructions (call overhead;
  // docs/performance.md).
  void head_changed(std::uint32_t q);  // q: input queue id (port queue or outbound)
  void try_send(std::uint32_t o);      // the wake event: arbitrate unless busy or idle
  // Queue head r asks output o: arbitrate now if the link is free, else wake when it is.
  [[gnu::always_inline]] inline void request(std::uint32_t o, const Request& r);
  void arbitrate(std::uint32_t o);  // o is free: send the oldest request its credits cover
  void transmit(std::uint32_t o, std::uint32_t req_index);
  // A credit of `bytes` for VC `vc` freed at `at` back to sender o (one latency later).
  [[gnu::always_inline]] inline void return_credit(std::uint32_t o, std::uint32_t vc,
                                                   std::uint64_t bytes, sim::Tick at);
  // The arrival of packet k (footprint fp) on output o at time t, done at send time: only for a
  // packet consumed at once on arrival (router.cc has the conditions).
  [[gnu::always_inline]] inline void arrive_consumed(std::uint32_t o, std::uint32_t k,
                                                     std::uint64_t fp, sim::Tick t);
  void refill_outbound(std::uint32_t chip, std::uint32_t p);
  // Packet pkt (footprint fp) leaves through chip's inbound queue; frees it, may finish its
  // message.
  [[gnu::always_inline]] inline void consume(std::uint32_t chip, std::uint32_t pkt,
                                             std::uint64_t fp);
  [[gnu::always_inline]] inline void note_used(std::uint32_t q, std::uint64_t before,
                                               std::uint64_t after, sim::Tick at);
  [[gnu::always_inline]] inline void schedule_wake(std::uint32_t o, sim::Tick t);
  // Output o's packet of `wire` bytes used up its replays; `at`: when the last NAK is back.
  void fail_link(std::uint32_t o, std::uint64_t wire, sim::Tick at);
  // A stalled output's wake: when the credits on their way back first let a waiting packet go.
  void wake_when_ready(std::uint32_t o);
  // Bytes a packet of `payload` occupies in a queue: with its header, rounded up to the unit.
  std::uint64_t footprint(std::uint64_t payload) const {
    const std::uint64_t b = payload + header_ + unit_ - 1;
    return unit_pow2_ ? b & ~(unit_ - 1) : b / unit_ * unit_;
  }
  sim::Tick serialization(const Output& out, std::uint64_t wire_bytes) const;
  [[gnu::always_inline]] inline std::uint32_t alloc_packet();
  [[gnu::always_inline]] inline void free_packet(std::uint32_t k);

  sim::EventQueue& events_;
  sim::CallbackEvent failure_event_;  // a link failure takes effect
  std::string failure_, pending_failure_;
  const Topology& topo_;
  std::unique_ptr<AllocationPolicy> policy_;
  std::uint32_t P_ = 0, V_ = 0, N_ = 0, vcs_ = 0;
  sim::Tick router_ps_ = 0;
  std::uint32_t max_replays_ = 4;
  std::uint64_t max_packet_ = 0, header_ = 0, outbound_bytes_ = 0, inbound_bytes_ = 0;
  std::uint64_t buffer_bytes_ = 0;
  std::uint64_t unit_ = 1;
  bool unit_pow2_ = true;
  std::uint32_t pv_ = 0, port_queues_ = 0;  // P x V; N x P x V (the first outbound queue id)
  // Routing constants, copied from the topology (read every hop).
  bool grid_ = true;
  std::uint32_t rank_ = 0, classes_ = 1;
  std::array<std::uint32_t, 3> dims_{};
  std::array<bool, 3> wraps_{};
  static constexpr std::uint8_t kPortUsed = 1, kPortWraps = 2;
  std::vector<std::uint8_t> port_flags_;  // chip x port: used, wraps (dense, for route())
  bool paused_ = false;
  bool holes_ = false;  // an unused link or inactive chip: routes must check their path

  std::vector<BufferMemory> mem_;  // per chip
  std::unique_ptr<Output[]> out_;  // chip x port (fixed: outputs hold their events)
  std::size_t outputs_ = 0;
  std::vector<InQueue> inq_;    // (chip x port) x vc, then outbound; with their stats
  std::vector<sim::Tick> rtt_;  // chip x port
  // Per chip; 16 bits: a dimension has up to 65 536 chips (8 bits cut every ring above 256).
  std::vector<std::array<std::uint16_t, 3>> coord_;
  std::vector<std::uint8_t> next_hop_;  // explicit: chip x chip -> port
  std::vector<Packet> packets_;
  std::vector<std::uint32_t> free_packets_;
  std::vector<Message> messages_;
  std::vector<std::uint32_t> free_messages_;
  std::vector<sim::Rng> link_rng_;  // per output, for bit errors
  std::uint64_t packets_injected_ = 0, packet_hops_ = 0, messages_delivered_ = 0;
  std::uint64_t messages_live_ = 0;
  sim::Tick stats_since_ = 0;
};

}  // namespace xpusim::fabric
