#include "sim/bandwidth_calendar.h"

#include <algorithm>
#include <bit>

#include "sim/result.h"

namespace xpusim::sim {

BandwidthCalendar::BandwidthCalendar(std::uint64_t bytes_per_cycle, Cycles window_cycles,
                                     std::size_t windows)
    : bytes_per_cycle_(bytes_per_cycle),
      per_cycle_(std::max<std::uint64_t>(bytes_per_cycle, 1)),
      window_cycles_(std::bit_ceil(std::max<Cycles>(window_cycles, 1))),
      window_shift_(static_cast<unsigned>(std::countr_zero(window_cycles_))),
      tail_(std::bit_ceil(std::max<std::size_t>(windows, 2)), 0),
      mask_(tail_.size() - 1) {
  XPUSIM_CHECK(bytes_per_cycle > 0 && window_cycles > 0 && window_cycles_ <= 0x8000,
               "a bandwidth calendar needs a positive bandwidth and a window of 1..32768 cycles");
}

void BandwidthCalendar::slide_to(std::uint64_t window) {
  // Keep half the ring behind the newest window for bookings that come late.
  const std::uint64_t base = window - tail_.size() / 2;
  if (base - base_ >= tail_.size()) {
    std::fill(tail_.begin(), tail_.end(), 0);
  } else {
    for (std::uint64_t w = base_; w < base; ++w)
      tail_[w & mask_] = 0;
  }
  base_ = base;
  full_from_ = std::max(full_from_, base_);
  if (full_from_ >= full_to_) full_from_ = full_to_ = 0;
}

void BandwidthCalendar::note_full(std::uint64_t from, std::uint64_t to) {
  from = std::max(from, base_);  // windows slid out while this booking walked are empty
  if (from >= to) return;
  if (from <= full_to_ && to >= full_from_ && full_from_ != full_to_) {
    full_from_ = std::min(full_from_, from);
    full_to_ = std::max(full_to_, to);
  } else if (to - from >= full_to_ - full_from_) {
    full_from_ = from;  // keep the longer run: it is the backlog bookings keep hitting
    full_to_ = to;
  }
}

Cycles BandwidthCalendar::book(Cycles from, std::uint64_t bytes) {
  bytes_booked_ += bytes;
  busy_cycles_ += per_cycle_.div(bytes + bytes_per_cycle_ - 1);
  std::uint64_t w = from >> window_shift_;
  if (w < base_) {
    ++late_;
    w = base_;
    from = w * window_cycles_;
  }
  if (w >= full_from_ && w < full_to_) {
    w = full_to_;
    from = std::max(from, w * window_cycles_);
  }
  const std::uint64_t first = w;
  // Each window keeps the cycle its last booking ends: inside a window bookings queue in the
  // order they are made (exactly a Channel's rule when that order is time order); a full
  // window passes the rest of the bytes to the next.
  Cycles start = from;
  std::uint64_t left = bytes;
  for (;; ++w) {
    if (w >= base_ + tail_.size()) slide_to(w);
    std::uint16_t& tail = tail_[w & mask_];
    const Cycles window_start = w * window_cycles_;
    const Cycles window_end = window_start + window_cycles_;
    start = std::max(start, window_start + tail);
    if (start < window_end) {
      const Cycles need = per_cycle_.div(left + bytes_per_cycle_ - 1);
      if (start + need <= window_end) {
        tail = static_cast<std::uint16_t>(start + need - window_start);
        note_full(first, start + need == window_end ? w + 1 : w);
        return start + need;
      }
      left -= (window_end - start) * bytes_per_cycle_;
      tail = static_cast<std::uint16_t>(window_cycles_);
    }
    start = window_end;
  }
}

}  // namespace xpusim::sim
