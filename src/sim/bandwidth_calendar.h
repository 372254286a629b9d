// BandwidthCalendar: a link's bandwidth as a bitmap of busy slots, for the transaction-level
// memory timing (docs/memory-hierarchy.md). A Channel serializes bookings in the order they
// are made, which is right when they are made at the tick they happen. A transaction-level
// model books a whole path when the request is issued, so a response that leaves in 600
// cycles is booked before one that leaves in 100; on a Channel the second would wait behind
// the first. Here each cycle is a slot that passes `bytes_per_cycle` bytes; a booking takes
// the first ceil(bytes / bytes_per_cycle) free slots from its start on, whatever order the
// bookings are made in: an early booking made late fills the cycles the link had left idle.
//
// Bookings made in time order end exactly where a Channel's would (start at max(from, busy),
// then ceil(bytes / bytes_per_cycle) cycles).
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "sim/fast_div.h"
#include "sim/tick.h"

namespace xpusim::sim {

// One object is two host cache lines, the first holding all that a booking reads and most
// of what it writes; the ring and its summary are one allocation.
class alignas(64) BandwidthCalendar {
 public:
  // `slots`, how many cycles are kept, is rounded up to a power of two of at least 4096 (64
  // words, a whole word of the summary bitmap). A booking more than half of them behind the
  // newest one starts at the oldest kept (counted in late_bookings()).
  explicit BandwidthCalendar(std::uint64_t bytes_per_cycle, std::size_t slots = 16384);
  BandwidthCalendar(const BandwidthCalendar& o);
  BandwidthCalendar& operator=(const BandwidthCalendar& o);
  BandwidthCalendar(BandwidthCalendar&&) noexcept = default;
  BandwidthCalendar& operator=(BandwidthCalendar&&) noexcept = default;

  // Books `bytes` that may start passing at cycle `from`; returns the cycle their last byte
  // has passed (the cycle after it, as Channel's busy_until). Inline for the usual case, a
  // booking that fits the first free run of its start's word (a crossbar port's one or two
  // cycles): what book_slow() takes then, without its call and loop.
  Cycles book(Cycles from, std::uint64_t bytes) {
    const Cycles cycles = per_cycle_.div(bytes + per_cycle_.divisor() - 1);
    const std::uint64_t w = from / 64;
    if (cycles == 0 || cycles > 64 || from < base_ * 64 || w >= base_ + ring_words())
      return book_slow(from, bytes);
    std::uint64_t& word = words_[w & mask_];
    const std::uint64_t free = ~word & (kFull << (from % 64));
    if (free == 0) return book_slow(from, bytes);
    const auto at = static_cast<unsigned>(std::countr_zero(free));
    if (static_cast<Cycles>(std::countr_one(free >> at)) < cycles) return book_slow(from, bytes);
    word |= (cycles == 64 ? kFull : (std::uint64_t{1} << cycles) - 1) << at;
    if (word == kFull) full()[(w & mask_) / 64] |= std::uint64_t{1} << ((w & mask_) % 64);
    bytes_booked_ += bytes;
    busy_cycles_ += cycles;
    const Cycles end = w * 64 + at + cycles;
    took(from, end);
    return end;
  }
  // Books `bytes` x `weight` from `from`, for a request that stands for `weight` like it on
  // links beside this one (set sampling, docs/memory-hierarchy.md); returns when its own
  // `bytes` would have passed, as if they went first: the whole booking's end less the
  // others' cycles, and no earlier than `from` plus its own.
  Cycles book_first(Cycles from, std::uint64_t bytes, std::uint64_t weight) {
    const Cycles end = book(from, bytes * weight);
    if (weight <= 1) return end;
    const std::uint64_t per = per_cycle_.divisor();
    const Cycles own = per_cycle_.div(bytes + per - 1);
    const Cycles others = per_cycle_.div(bytes * weight + per - 1) - own;
    return std::max(end - others, from + own);
  }

  // `count` bookings of one cycle each (at most bytes_per_cycle bytes), made in order from
  // starts spread evenly from `first` to `last` (start i = first + (last - first) x i /
  // (count - 1); a single one starts at `last`); returns the latest end. The same as that
  // many book() calls (an SM's data stage takes a TMA box's wavefronts so), without a divide
  // and a search per booking.
  Cycles book_spread(Cycles first, Cycles last, std::uint32_t count, std::uint64_t bytes);

  std::uint64_t bytes_booked() const { return bytes_booked_; }
  // Cycles the link spent passing bytes (bytes / bandwidth, rounded up per booking).
  Cycles busy_cycles() const { return busy_cycles_; }
  // Bookings that asked for a slot already dropped (started at the oldest kept).
  std::uint64_t late_bookings() const { return late_; }

 private:
  static constexpr std::uint64_t kFull = ~std::uint64_t{0};

  Cycles book_slow(Cycles from, std::uint64_t bytes);  // any booking
  // After a booking that took the first free cycles from `from` (kept) up to `end`: every
  // cycle of [from, end) is busy, so the solid run behind the frontier grows or moves.
  void took(Cycles from, Cycles end) {
    if (end > frontier_) {
      solid_from_ = from <= frontier_ ? std::min(solid_from_, from) : from;
      frontier_ = end;
    } else if (from < solid_from_ && end >= solid_from_) {
      solid_from_ = from;
    }
  }
  // Marks [from, to) busy, every cycle of it free and kept before.
  void fill(Cycles from, Cycles to);
  // The general search: takes the first `cycles` free cycles from `from` (kept), sliding the
  // ring when they go past it; returns the cycle after the last.
  Cycles walk(Cycles from, Cycles cycles);
  void slide_to(std::uint64_t word);
  void clear(std::uint64_t from, std::uint64_t to);  // ring words [from, to), summary bits too
  // The first word from `w` on that is not full (past the ring's end if none is).
  std::uint64_t first_open_word(std::uint64_t w) const;
  // The first word after `w` that is not full, looking at the next one first.
  std::uint64_t next_word(std::uint64_t w) const;
  std::size_t ring_words() const { return mask_ + 1; }
  std::size_t all_words() const { return ring_words() + ring_words() / 64; }  // and the summary
  // The summary: a bit per word of the ring, set while it is full, after the ring's words.
  std::uint64_t* full() const { return words_.get() + ring_words(); }

  // A ring of words, one bit a cycle (1: busy), then the summary, whose bits let a booking
  // behind a backlog find the first word with a free cycle 64 words at a time. 16 384 cycles
  // are 2 KiB: the words around "now" that every booking touches sit in a few host lines.
  std::unique_ptr<std::uint64_t[]> words_;
  std::uint64_t mask_;      // words in the ring - 1
  std::uint64_t base_ = 0;  // the oldest word kept
  // Every cycle from frontier_ on is free, every cycle of [solid_from_, frontier_) busy: a
  // booking from inside that run (a link with a backlog, booked about in time order) starts
  // at the frontier without a search.
  Cycles frontier_ = 0;
  Cycles solid_from_ = 0;
  FastDiv per_cycle_;  // divides by the bytes per cycle (a multiply per booking)
  std::uint64_t bytes_booked_ = 0;
  Cycles busy_cycles_ = 0;
  std::uint64_t late_ = 0;
};

}  // namespace xpusim::sim
