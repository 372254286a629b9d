// The shared buffer memory of one chip (seed4 ¶44-¶47): every queue of the router lives in one
// RAM as a [start, stop) address range programmed through a register API; FIFO pointers move
// inside the range and wrap at stop. Queues:
//   outbound(p)   - outbound-to-port, packets generated here and leaving by port p
//   inbound       - port-to-inbound, packets consumed here
//   port(p, vc)   - the receive queue of port p's VC (port-to-port and port-to-inbound
//                   traffic both wait here; its free space is the credit its upstream holds)
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fabric/allocation.h"
#include "sim/result.h"

namespace xpusim::fabric {

struct QueueRange {
  std::uint64_t start = 0;  // byte address in the buffer memory
  std::uint64_t stop = 0;   // exclusive; start == stop is an empty (zero-size) queue
};

class BufferMemory {
 public:
  // `bytes` of RAM, allocation `unit` bytes, `ports` ports of `vcs` VCs each. All queues start
  // with zero size at address 0.
  BufferMemory(std::uint64_t bytes, std::uint64_t unit, std::uint32_t ports, std::uint32_t vcs);

  std::uint64_t bytes() const { return bytes_; }
  std::uint64_t unit() const { return unit_; }
  std::uint32_t ports() const { return ports_; }
  std::uint32_t vcs() const { return vcs_; }

  // Queue ids: port queues 0 .. ports*vcs-1 (p*vcs+vc), then outbound 0..ports-1, then inbound.
  std::uint32_t port_queue(std::uint32_t p, std::uint32_t vc) const { return p * vcs_ + vc; }
  std::uint32_t outbound_queue(std::uint32_t p) const { return ports_ * vcs_ + p; }
  std::uint32_t inbound_queue() const { return ports_ * vcs_ + ports_; }
  std::uint32_t queues() const { return ports_ * vcs_ + ports_ + 1; }
  std::string queue_name(std::uint32_t q) const;  // "port3.vc1", "outbound2", "inbound"

  // --- register API (the driver / host view, seed4 ¶6, ¶47) ---
  // Writes one queue's start/stop registers. Errors (nothing changes): stop < start, bounds
  // not unit-aligned, range outside [0, bytes), overlap with another non-empty queue's range,
  // or the queue holds data (re-allocation is only legal when drained, ¶63).
  Status program(std::uint32_t queue, QueueRange range);
  // Lays the whole memory out contiguously: outbound queues (outbound_bytes each for ports
  // with port_bytes > 0), then the inbound queue, then the port queues in (port, vc) order from
  // `a`. Errors: the layout exceeds the memory, any queue not empty. All-or-nothing.
  Status program_layout(const Allocation& a, std::uint64_t outbound_bytes,
                        std::uint64_t inbound_bytes);
  QueueRange range(std::uint32_t q) const { return q_[q].range; }
  std::uint64_t capacity(std::uint32_t q) const { return q_[q].range.stop - q_[q].range.start; }

  // --- the FIFO datapath ---
  // Bytes a packet of `bytes` occupies: rounded up to the unit.
  std::uint64_t footprint(std::uint64_t bytes) const {
    if ((unit_ & (unit_ - 1)) == 0) return (bytes + unit_ - 1) & ~(unit_ - 1);
    return (bytes + unit_ - 1) / unit_ * unit_;
  }
  std::uint64_t used(std::uint32_t q) const { return q_[q].used; }
  std::uint64_t free(std::uint32_t q) const { return capacity(q) - q_[q].used; }
  // Appends `bytes` (rounded up to the unit) at the tail; returns the address written. The
  // caller checked free() (credits): an overflow is an internal error (XPUSIM_CHECK), never
  // silent.
  std::uint64_t push(std::uint32_t q, std::uint64_t bytes) {
    XPUSIM_CHECK(q < q_.size(), "queue id out of range");
    return push_fp(q, footprint(bytes));
  }
  // Removes `bytes` (a packet's size, rounded up likewise) from the head; returns the head
  // address it read.
  std::uint64_t pop(std::uint32_t q, std::uint64_t bytes) {
    XPUSIM_CHECK(q < q_.size(), "queue id out of range");
    return pop_fp(q, footprint(bytes));
  }
  // The router's datapath: the same with `fp` already a footprint (a unit multiple) and q one
  // of the router's own queue ids, so nothing is rounded or range-checked again per packet.
  std::uint64_t push_fp(std::uint32_t q, std::uint64_t fp) {
    Queue& s = q_[q];
    const std::uint64_t cap = s.range.stop - s.range.start;
    // seed4 ¶37: a sender never sends more than its credits, so this is a model bug.
    XPUSIM_CHECK(fp <= cap - s.used, "push overflows the queue (credit accounting bug)");
    const std::uint64_t at = s.tail;
    s.tail = advance(s, s.tail, fp, cap);
    s.used += fp;
    return at;
  }
  std::uint64_t pop_fp(std::uint32_t q, std::uint64_t fp) {
    Queue& s = q_[q];
    XPUSIM_CHECK(fp <= s.used, "pop underflows the queue");
    const std::uint64_t at = s.head;
    s.head = advance(s, s.head, fp, s.range.stop - s.range.start);
    s.used -= fp;
    return at;
  }
  // A packet written and read back at once (consumed on arrival): push_fp then pop_fp, which
  // leave the occupancy as it was and move both pointers by fp.
  void pass_fp(std::uint32_t q, std::uint64_t fp) {
    Queue& s = q_[q];
    const std::uint64_t cap = s.range.stop - s.range.start;
    XPUSIM_CHECK(fp <= cap - s.used, "push overflows the queue (credit accounting bug)");
    s.tail = advance(s, s.tail, fp, cap);
    s.head = advance(s, s.head, fp, cap);
  }
  std::uint64_t head(std::uint32_t q) const { return q_[q].head; }
  std::uint64_t tail(std::uint32_t q) const { return q_[q].tail; }
  bool drained() const;  // every queue empty

 private:
  struct Queue {
    QueueRange range;
    std::uint64_t head = 0, tail = 0, used = 0;
  };
  // A FIFO pointer moved by fp <= cap inside [start, stop), wrapping at stop (seed4 ¶46-¶47):
  // one conditional subtraction is the modulo (no division per packet).
  // (fp == 0 on a zero-size queue: off = 0 >= cap = 0 subtracts nothing.)
  static std::uint64_t advance(const Queue& s, std::uint64_t ptr, std::uint64_t fp,
                               std::uint64_t cap) {
    std::uint64_t off = ptr - s.range.start + fp;
    if (off >= cap) off -= cap;
    return s.range.start + off;
  }

  std::uint64_t bytes_, unit_;
  std::uint32_t ports_, vcs_;
  std::vector<Queue> q_;
};

}  // namespace xpusim::fabric
