// Network's private records (network.h): pooled packets, messages and credits linked into
// intrusive FIFOs by index, so the datapath allocates nothing per packet.
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
  sim::Tick t = 0;  // while on a link: when it is in the receiver's input queue
  std::uint32_t next = kNil;
  std::uint32_t msg = 0;
  std::uint32_t dst = 0;
  std::uint32_t bytes = 0;  // payload
  std::uint8_t vc = 0;      // VC of the queue it is in (or heads to, on a link)
  std::uint8_t out = 0;     // output port at the current chip
  std::uint8_t dim = kNoDim, dir = 0, crossed = 0;  // dimension-order state
  std::uint8_t hops = 0;
  std::uint8_t attempts = 1;  // sends on the last link (> 1 after bit-error retries)
};

struct Network::Message {
  std::uint32_t src = 0, dst = 0;
  std::uint64_t bytes_left = 0;       // not yet cut into packets
  std::uint64_t packets_left = 0;     // not yet cut (a 0-byte message is one header packet)
  std::uint64_t packets_pending = 0;  // cut, not yet consumed
  std::uint64_t tag = 0;
  MessageSink* sink = nullptr;
  std::uint32_t next = kNil;  // backlog FIFO of its first-hop port
};

struct Credit {
  sim::Tick t = 0;  // arrives at the sender
  std::uint32_t next = kNil;
  std::uint32_t bytes = 0;
  std::uint8_t vc = 0;
};

struct Network::Output {
  bool used = false;
  bool wraps = false;      // a wrap-around link: the dateline of its ring
  std::uint32_t peer = 0;  // receiver's chip x P + port
  sim::Tick ser_full = 0;  // serialization of a maximum packet (the common case, no division)
  sim::Tick latency = 0;   // one-way
  std::uint64_t bandwidth = 0;
  double bit_error_rate = 0.0;
  double bits_to_error = 0.0;
  sim::Tick busy_until = 0;
  std::array<std::int64_t, kMaxVcs> credits{};
  std::uint32_t fl_head = kNil, fl_tail = kNil;  // packets on the link
  std::uint32_t cr_head = kNil, cr_tail = kNil;  // credits coming back
  std::uint32_t bl_head = kNil, bl_tail = kNil;  // messages waiting to be cut (source side)
  std::vector<std::uint32_t> requests;           // queues whose head wants this port, oldest first
  bool stalled = false;
  sim::Tick stall_start = 0;
  OutputStats stats;
};

struct Network::InQueue {
  std::uint32_t head = kNil, tail = kNil;
  sim::Tick last = 0;  // last occupancy change, for the time-weighted mean
};

class Network::ArrivalEvent final : public sim::Event {
 public:
  ArrivalEvent(Network& n, std::uint32_t o) : net_(n), o_(o) {}

 protected:
  void process() override { net_.on_arrival(o_); }

 private:
  Network& net_;
  std::uint32_t o_;
};

class Network::WakeEvent final : public sim::Event {
 public:
  WakeEvent(Network& n, std::uint32_t o) : net_(n), o_(o) {}

 protected:
  void process() override { net_.try_send(o_); }

 private:
  Network& net_;
  std::uint32_t o_;
};

}  // namespace xpusim::fabric
