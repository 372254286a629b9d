// BandwidthCalendar: a link's bandwidth as a calendar of fixed windows, for the
// transaction-level memory timing (docs/memory-hierarchy.md). A Channel serializes bookings in
// the order they are made, which is right when they are made at the tick they happen. A
// transaction-level model books a whole path when the request is issued, so a response that
// leaves in 600 cycles is booked before one that leaves in 100; on a Channel the second would
// wait behind the first. Here time is cut into windows of `window_cycles`; each window keeps
// the cycle its last booking ends. A booking queues behind the bookings of its start cycle's
// window and spills into the next windows when that one is full, so bookings in different
// windows never wait for each other, whatever order they are made in.
//
// Bookings made in time order end exactly where a Channel's would (start at max(from, busy),
// then ceil(bytes / bytes_per_cycle) cycles). Out of order, a booking waits at most for the
// others of its own window.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/fast_div.h"
#include "sim/tick.h"

namespace xpusim::sim {

class BandwidthCalendar {
 public:
  // `window_cycles` is rounded up to a power of two, and `windows`, how many are kept, too. A
  // booking more than about half of them behind the newest one starts in the oldest kept.
  BandwidthCalendar(std::uint64_t bytes_per_cycle, Cycles window_cycles,
                    std::size_t windows = 1024);

  // Books `bytes` that may start passing at cycle `from`; returns the cycle their last byte
  // has passed (the cycle after it, as Channel's busy_until).
  Cycles book(Cycles from, std::uint64_t bytes);

  std::uint64_t bytes_booked() const { return bytes_booked_; }
  // Cycles the link spent passing bytes (bytes / bandwidth, rounded up per booking).
  Cycles busy_cycles() const { return busy_cycles_; }
  // Bookings that asked for a window already dropped (started in the oldest window kept).
  std::uint64_t late_bookings() const { return late_; }

 private:
  void slide_to(std::uint64_t window);
  void note_full(std::uint64_t from, std::uint64_t to);

  std::uint64_t bytes_per_cycle_;
  FastDiv per_cycle_;  // divides by bytes_per_cycle_ (a multiply, not a divide, per booking)
  Cycles window_cycles_;
  unsigned window_shift_;  // log2(window_cycles_)
  // Per window, a ring: where in the window its last booking ends (0 .. window_cycles_). Two
  // bytes, not a cycle number: the windows around "now" are what every booking touches, and a
  // quarter of the host cache lines miss a quarter as often.
  std::vector<std::uint16_t> tail_;
  std::uint64_t mask_;
  std::uint64_t base_ = 0;  // the oldest window kept
  // A run of full windows [full_from_, full_to_) (empty when equal): a booking starting in it
  // jumps to its end instead of walking a backlog window by window (the same result: a full
  // window passes nothing more). Windows only fill, so the run stays true until slid out.
  std::uint64_t full_from_ = 0, full_to_ = 0;
  std::uint64_t bytes_booked_ = 0;
  Cycles busy_cycles_ = 0;
  std::uint64_t late_ = 0;
};

}  // namespace xpusim::sim
