// The fabric's datapath (network.h): packets arriving into input queues, output arbitration
// under credits, link serialization with bit-error retries, credit return, injection.
#include <cmath>

#include "fabric/network.h"
#include "fabric/network_internal.h"

namespace xpusim::fabric {

std::uint64_t Network::footprint(std::uint64_t payload) const {
  return mem_.front()->footprint(payload + header_);
}

sim::Tick Network::serialization(const Output& out, std::uint64_t wire_bytes) const {
  if (wire_bytes == max_packet_ + header_ && out.ser_full) return out.ser_full;
  return (wire_bytes * 1'000'000'000'000ULL + out.bandwidth - 1) / out.bandwidth;
}

std::uint32_t Network::alloc_packet() {
  if (free_packets_.empty()) {
    packets_.emplace_back();
    return static_cast<std::uint32_t>(packets_.size() - 1);
  }
  const std::uint32_t k = free_packets_.back();
  free_packets_.pop_back();
  packets_[k] = Packet{};
  return k;
}

void Network::free_packet(std::uint32_t k) {
  free_packets_.push_back(k);
}

void Network::schedule_wake(std::uint32_t o, sim::Tick t) {
  WakeEvent& w = *wake_ev_[o];
  if (!w.scheduled()) {
    events_.schedule(w, t);
  } else if (w.when() > t) {
    events_.reschedule(w, t);
  }
}

void Network::note_used(std::uint32_t q, std::uint64_t before) {
  if (q >= qstats_.size()) return;  // outbound queues keep no occupancy stats
  InQueue& iq = inq_[q];
  QueueStats& qs = qstats_[q];
  const sim::Tick now = events_.now();
  qs.used_integral += static_cast<double>(before) * static_cast<double>(now - iq.last);
  iq.last = now;
  const std::uint32_t chip = q / (P_ * V_);
  const std::uint64_t used = mem_[chip]->used(q % (P_ * V_));
  if (used > qs.max_used) qs.max_used = used;
}

void Network::on_arrival(std::uint32_t o) {
  Output& out = out_[o];
  const sim::Tick now = events_.now();
  const std::uint32_t chip = out.peer / P_;
  BufferMemory& mem = *mem_[chip];
  while (out.fl_head != kNil && packets_[out.fl_head].t <= now) {
    const std::uint32_t k = out.fl_head;
    Packet& pk = packets_[k];
    out.fl_head = pk.next;
    if (out.fl_head == kNil) out.fl_tail = kNil;
    pk.next = kNil;
    ++packet_hops_;
    const std::uint32_t q = out.peer * V_ + pk.vc;
    const std::uint32_t mq = q % (P_ * V_);
    const std::uint64_t before = mem.used(mq);
    mem.push(mq, footprint(pk.bytes));  // the sender held the credits: never overflows
    note_used(q, before);
    qstats_[q].received += pk.attempts;  // seed4 ¶62: retries inflate the counts
    InQueue& iq = inq_[q];
    if (iq.head == kNil) {
      iq.head = iq.tail = k;
      head_changed(q);
    } else {
      packets_[iq.tail].next = k;
      iq.tail = k;
    }
  }
  if (out.fl_head != kNil) events_.schedule(*arrival_ev_[o], packets_[out.fl_head].t);
}

void Network::consume(std::uint32_t chip, std::uint32_t k) {
  // Through the port-to-inbound queue; the local consumer (HBM writes) keeps up with a link.
  BufferMemory& mem = *mem_[chip];
  const std::uint32_t in = mem.inbound_queue();
  const std::uint64_t fp = footprint(packets_[k].bytes);
  mem.push(in, fp);
  mem.pop(in, fp);
  const std::uint32_t id = packets_[k].msg;
  free_packet(k);
  Message& m = messages_[id];
  if (--m.packets_pending != 0 || m.packets_left != 0) return;
  ++messages_delivered_;
  --messages_live_;
  MessageSink* sink = m.sink;
  const std::uint32_t src = m.src, dst = m.dst;
  const std::uint64_t tag = m.tag;
  free_messages_.push_back(id);
  if (sink) sink->delivered(id, src, dst, tag);
}

void Network::head_changed(std::uint32_t q) {
  const std::uint32_t port_queues = N_ * P_ * V_;
  if (q >= port_queues) {  // an outbound queue: the route was set when the packet was cut
    const std::uint32_t o = q - port_queues;
    out_[o].requests.push_back(q);
    try_send(o);
    return;
  }
  const std::uint32_t chip = q / (P_ * V_);
  const std::uint32_t mq = q % (P_ * V_);
  BufferMemory& mem = *mem_[chip];
  InQueue& iq = inq_[q];
  while (iq.head != kNil) {
    const std::uint32_t k = iq.head;
    Packet& pk = packets_[k];
    if (pk.dst != chip) {
      const bool ok = route(chip, pk);
      XPUSIM_CHECK(ok, "a packet in flight lost its route (routes are checked at send)");
      const std::uint32_t o = chip * P_ + pk.out;
      out_[o].requests.push_back(q);
      try_send(o);
      return;
    }
    iq.head = pk.next;
    if (iq.head == kNil) iq.tail = kNil;
    const std::uint64_t fp = footprint(pk.bytes);
    const std::uint64_t before = mem.used(mq);
    mem.pop(mq, fp);
    note_used(q, before);
    return_credit(chip, mq / V_, mq % V_, fp);
    consume(chip, k);  // may send new messages: no Packet& is held past here
  }
}

void Network::return_credit(std::uint32_t chip, std::uint32_t p, std::uint32_t vc,
                            std::uint64_t bytes) {
  const PortInfo& pi = topo_.port(chip, p);
  const std::uint32_t o = pi.peer_chip * P_ + pi.peer_port;
  Output& up = out_[o];
  std::uint32_t c;
  if (free_credits_.empty()) {
    credit_pool_.emplace_back();
    c = static_cast<std::uint32_t>(credit_pool_.size() - 1);
  } else {
    c = free_credits_.back();
    free_credits_.pop_back();
  }
  // A credit message on the reverse channel: it arrives one link latency later.
  credit_pool_[c] = Credit{events_.now() + up.latency, kNil, static_cast<std::uint32_t>(bytes),
                           static_cast<std::uint8_t>(vc)};
  if (up.cr_tail == kNil) {
    up.cr_head = up.cr_tail = c;
  } else {
    credit_pool_[up.cr_tail].next = c;
    up.cr_tail = c;
  }
  // A stalled sender wakes when credits land; a busy one absorbs them when it is free.
  if (up.stalled) schedule_wake(o, credit_pool_[c].t);
}

void Network::try_send(std::uint32_t o) {
  Output& out = out_[o];
  if (out.requests.empty()) return;
  const sim::Tick now = events_.now();
  if (out.busy_until > now) {
    schedule_wake(o, out.busy_until);
    return;
  }
  while (out.cr_head != kNil && credit_pool_[out.cr_head].t <= now) {
    const Credit& c = credit_pool_[out.cr_head];
    out.credits[c.vc] += c.bytes;
    free_credits_.push_back(out.cr_head);
    out.cr_head = c.next;
    if (out.cr_head == kNil) out.cr_tail = kNil;
  }
  const std::size_t n = out.requests.size();
  for (std::size_t i = 0; i < n; ++i) {
    const Packet& pk = packets_[inq_[out.requests[i]].head];
    if (out.credits[pk.vc] >= static_cast<std::int64_t>(footprint(pk.bytes))) {
      if (out.stalled) {
        out.stats.stall_ps += now - out.stall_start;
        out.stalled = false;
      }
      transmit(o, static_cast<std::uint32_t>(i));
      return;
    }
  }
  // Every waiting packet lacks credits: the sender stalls until credits come back.
  if (!out.stalled) {
    out.stalled = true;
    out.stall_start = now;
  }
  if (out.cr_head != kNil) schedule_wake(o, credit_pool_[out.cr_head].t);
}

void Network::transmit(std::uint32_t o, std::uint32_t req_index) {
  Output& out = out_[o];
  const sim::Tick now = events_.now();
  const std::uint32_t q = out.requests[req_index];
  out.requests.erase(out.requests.begin() + req_index);
  const std::uint32_t port_queues = N_ * P_ * V_;
  const std::uint32_t chip = o / P_;
  BufferMemory& mem = *mem_[chip];
  InQueue& iq = inq_[q];
  const std::uint32_t k = iq.head;
  Packet& pk = packets_[k];
  iq.head = pk.next;
  if (iq.head == kNil) iq.tail = kNil;
  pk.next = kNil;
  const std::uint64_t fp = footprint(pk.bytes);
  const std::uint32_t mq = q < port_queues ? q % (P_ * V_) : mem.outbound_queue(o % P_);
  const std::uint64_t before = mem.used(mq);
  mem.pop(mq, fp);
  note_used(q, before);

  // Serialization, plus go-back-N replays for bit errors: the error position is drawn once per
  // error (exponential bits-to-error), so an error-free packet costs no random draw.
  const std::uint64_t wire = pk.bytes + header_;
  const sim::Tick ser = serialization(out, wire);
  sim::Tick busy = ser;
  std::uint32_t attempts = 1;
  if (out.bit_error_rate > 0.0) {
    const double bits = 8.0 * static_cast<double>(wire);
    while (out.bits_to_error < bits) {
      ++attempts;
      busy += ser + 2 * out.latency;  // NAK round trip, then the replay
      out.bits_to_error = -std::log1p(-link_rng_[o].uniform_real()) / out.bit_error_rate;
    }
    out.bits_to_error -= bits;
  }
  out.busy_until = now + busy;
  out.stats.busy_ps += ser * attempts;
  out.stats.packets += 1;
  out.stats.bytes += pk.bytes;
  out.stats.retries += attempts - 1;
  out.credits[pk.vc] -= static_cast<std::int64_t>(fp);
  pk.attempts = static_cast<std::uint8_t>(std::min<std::uint32_t>(attempts, 255));
  pk.hops += 1;
  pk.t = now + busy + out.latency + router_ps_;
  if (out.fl_tail == kNil) {
    out.fl_head = out.fl_tail = k;
    events_.schedule(*arrival_ev_[o], pk.t);
  } else {
    packets_[out.fl_tail].next = k;
    out.fl_tail = k;
  }
  if (!out.requests.empty()) schedule_wake(o, out.busy_until);

  if (q < port_queues) {
    return_credit(chip, mq / V_, mq % V_, fp);
    if (iq.head != kNil) head_changed(q);
  } else {
    if (iq.head != kNil) head_changed(q);
    refill_outbound(chip, o % P_);
  }
}

void Network::refill_outbound(std::uint32_t chip, std::uint32_t p) {
  if (paused_) return;
  const std::uint32_t o = chip * P_ + p;
  BufferMemory& mem = *mem_[chip];
  const std::uint32_t mq = mem.outbound_queue(p);
  const std::uint32_t q = N_ * P_ * V_ + o;
  while (out_[o].bl_head != kNil) {
    const std::uint32_t id = out_[o].bl_head;
    const std::uint64_t size = std::min(messages_[id].bytes_left, max_packet_);
    const std::uint64_t fp = footprint(size);
    if (mem.free(mq) < fp) return;
    const std::uint32_t k = alloc_packet();
    Message& m = messages_[id];
    Packet& pk = packets_[k];
    pk.msg = id;
    pk.dst = m.dst;
    pk.bytes = static_cast<std::uint32_t>(size);
    const bool ok = route(chip, pk);
    XPUSIM_CHECK(ok && pk.out == p, "a message's packets must leave by its first-hop port");
    m.bytes_left -= size;
    m.packets_left -= 1;
    m.packets_pending += 1;
    ++packets_injected_;
    if (m.packets_left == 0) {
      out_[o].bl_head = m.next;
      if (out_[o].bl_head == kNil) out_[o].bl_tail = kNil;
    }
    mem.push(mq, fp);
    InQueue& iq = inq_[q];
    if (iq.head == kNil) {
      iq.head = iq.tail = k;
      head_changed(q);
    } else {
      packets_[iq.tail].next = k;
      iq.tail = k;
    }
  }
}

}  // namespace xpusim::fabric
