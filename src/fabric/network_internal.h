// Network's private records (network.h): pooled packets and messages linked into intrusive
// FIFOs by index, per-output rings of credits in flight, so the datapath allocates nothing per
// packet. Field order follows use: what one hop touches sits together (docs/performance.md).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "fabric/network.h"
#include "sim/event_queue.h"

namespace xpusim::fabric {

inline constexpr std::uint32_t kNil = 0xFFFF'FFFF;
inline constexpr std::uint32_t kMaxVcs = 8;
inline constexpr std::uint8_t kNoDim = 0xFF;

struct Network::Packet {
  std::uint32_t next = kNil;
  std::uint32_t msg = 0;
  std::uint32_t dst = 0;
  std::uint32_t bytes = 0;  // payload
  std::uint8_t vc = 0;      // VC of the queue it is in (or heads to, on a link)
  std::uint8_t out = 0;     // output port at the current chip
  std::uint8_t dim = kNoDim, dir = 0, crossed = 0;  // dimension-order state
  std::uint8_t hops = 0;
  std::uint8_t attempts = 1;  // sends on the last link (> 1 after bit-error retries)
  std::uint8_t vc_base = 0;   // the message's VC pair on grids: 2 x (message id mod classes)
};

struct Network::Message {
  std::uint32_t src = 0, dst = 0;
  std::uint64_t bytes_left = 0;       // not yet cut into packets
  std::uint64_t packets_left = 0;     // not yet cut (a 0-byte message is one header packet)
  std::uint64_t packets_pending = 0;  // cut, not yet consumed
  std::uint64_t tag = 0;
  MessageSink* sink = nullptr;
  std::uint32_t next = kNil;  // backlog FIFO of its first-hop port
  Packet proto;               // its packets' state at the source, routed once (bytes aside)
};

// A queue head asking an output: the packet and what arbitration needs of it, so choosing
// reads no packet record.
struct Request {
  std::uint32_t q = 0;   // input queue id
  std::uint32_t k = 0;   // its head packet
  std::uint32_t fp = 0;  // the packet's footprint in the downstream queue
  std::uint32_t vc = 0;
};

// A credit message on the reverse channel: `bytes` of VC `vc` back at the sender at `t`.
struct CreditRec {
  sim::Tick t = 0;
  std::uint32_t bytes = 0;
  std::uint32_t vc = 0;
};

// A packet on a link: in the receiver's input queue at `t`.
struct Flight {
  sim::Tick t = 0;
  std::uint32_t k = 0;
};

// A FIFO of records with a `t` field, in a power-of-two ring that grows as needed; insert()
// keeps it sorted by t (from the back: the new record is nearly always the latest).
template <class T>
class TimeRing {
 public:
  bool empty() const { return n_ == 0; }
  std::uint32_t size() const { return n_; }
  const T& front() const { return v_[head_]; }
  const T& operator[](std::uint32_t i) const { return v_[(head_ + i) & mask()]; }
  const T& back() const { return v_[(head_ + n_ - 1) & mask()]; }
  void pop_front() {
    head_ = (head_ + 1) & mask();
    --n_;
  }
  void clear() { head_ = n_ = 0; }
  void push_back(const T& x) {
    if (n_ == v_.size()) grow();
    v_[(head_ + n_) & mask()] = x;
    ++n_;
  }
  [[gnu::always_inline]] void insert(const T& x) {
    if (n_ == v_.size()) grow();
    std::uint32_t i = n_;
    for (; i > 0 && v_[(head_ + i - 1) & mask()].t > x.t; --i)
      v_[(head_ + i) & mask()] = v_[(head_ + i - 1) & mask()];
    v_[(head_ + i) & mask()] = x;
    ++n_;
  }

 private:
  std::uint32_t mask() const { return static_cast<std::uint32_t>(v_.size() - 1); }
  [[gnu::noinline]] void grow() {
    std::vector<T> g(v_.empty() ? 8 : 2 * v_.size());
    for (std::uint32_t i = 0; i < n_; ++i)
      g[i] = v_[(head_ + i) & mask()];
    v_.swap(g);
    head_ = 0;
  }
  std::vector<T> v_;
  std::uint32_t head_ = 0, n_ = 0;
};

class Network::ArrivalEvent final : public sim::Event {
 public:
  void bind(Network* n, std::uint32_t o) { net_ = n, o_ = o; }

 protected:
  void process() override { net_->on_arrival(o_); }

 private:
  Network* net_ = nullptr;
  std::uint32_t o_ = 0;
};

class Network::WakeEvent final : public sim::Event {
 public:
  void bind(Network* n, std::uint32_t o) { net_ = n, o_ = o; }

 protected:
  void process() override { net_->try_send(o_); }

 private:
  Network* net_ = nullptr;
  std::uint32_t o_ = 0;
};

// One direction of a link: the sender's output port, its link and its credits. Not movable
// (its events sit in the event queue): the network holds outputs in a fixed array.
struct Network::Output {
  WakeEvent wake;  // free again, or credits back
  sim::Tick busy_until = 0;
  sim::Tick latency = 0;   // one-way
  sim::Tick ser_full = 0;  // serialization of a maximum packet (the common case, no division)
  std::uint32_t chip = 0, peer_chip = 0;  // this end's chip, the receiver's
  std::uint32_t peer = 0;                 // receiver's chip x P + port
  std::uint8_t port = 0, peer_port = 0;
  bool used = false;
  bool stalled = false;
  std::vector<Request> requests;  // queue heads wanting this port, oldest first
  TimeRing<Flight> fl;            // packets on the link, in arrival order
  TimeRing<CreditRec> cr;         // credits coming back, in arrival order
  std::array<std::int64_t, kMaxVcs> credits{};
  std::array<std::uint32_t, kMaxVcs> passing{};  // packets on the link to be forwarded, per VC
  ArrivalEvent arrival;                          // the first packet on the link lands
  sim::Tick stall_start = 0;
  std::uint32_t bl_head = kNil, bl_tail = kNil;  // messages waiting to be cut (source side)
  std::uint64_t bandwidth = 0;
  double bit_error_rate = 0.0;
  double bits_to_error = 0.0;
  OutputStats stats;
};

struct Network::InQueue {
  std::uint32_t head = kNil, tail = kNil;
  std::uint32_t chip = 0;
  std::uint32_t feeder = kNil;  // the output sending into it (credits go back there)
  std::uint32_t vc = 0;         // a port queue's VC
  sim::Tick last = 0;           // last occupancy change, for the time-weighted mean
  QueueStats stats;             // port queues only
};

}  // namespace xpusim::fabric
