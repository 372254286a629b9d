#include "sim/bandwidth_calendar.h"

#include <algorithm>
#include <bit>

#include "sim/result.h"

namespace xpusim::sim {

namespace {
// `n` one bits from bit `at` (n + at <= 64).
std::uint64_t ones(unsigned n, unsigned at) {
  return (n == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << n) - 1) << at;
}
}  // namespace

BandwidthCalendar::BandwidthCalendar(std::uint64_t bytes_per_cycle, std::size_t slots)
    : mask_(std::bit_ceil(std::max<std::size_t>(slots, 4096)) / 64 - 1),
      per_cycle_(std::max<std::uint64_t>(bytes_per_cycle, 1)) {
  XPUSIM_CHECK(bytes_per_cycle > 0, "a bandwidth calendar needs a positive bandwidth");
  words_ = std::make_unique<std::uint64_t[]>(all_words());  // zeroed: every cycle free
}

BandwidthCalendar::BandwidthCalendar(const BandwidthCalendar& o)
    : mask_(o.mask_),
      base_(o.base_),
      frontier_(o.frontier_),
      solid_from_(o.solid_from_),
      per_cycle_(o.per_cycle_),
      bytes_booked_(o.bytes_booked_),
      busy_cycles_(o.busy_cycles_),
      late_(o.late_) {
  words_ = std::make_unique<std::uint64_t[]>(all_words());
  std::copy(o.words_.get(), o.words_.get() + all_words(), words_.get());
}

BandwidthCalendar& BandwidthCalendar::operator=(const BandwidthCalendar& o) {
  if (this != &o) *this = BandwidthCalendar(o);
  return *this;
}

void BandwidthCalendar::slide_to(std::uint64_t word) {
  // Keep half the ring behind the newest word for bookings that come late.
  const std::uint64_t base = word - ring_words() / 2;
  const std::uint64_t dropped = base - base_;
  if (dropped >= ring_words()) {
    std::fill(words_.get(), words_.get() + all_words(), 0);
  } else {
    // The dropped words are one or two runs of the ring: cleared with their summary bits
    // 64 at a time (a slide drops hundreds of words).
    const std::uint64_t first = base_ & mask_;
    const std::uint64_t to_end = std::min(dropped, ring_words() - first);
    clear(first, first + to_end);
    clear(0, dropped - to_end);
  }
  base_ = base;
}

void BandwidthCalendar::clear(std::uint64_t from, std::uint64_t to) {
  std::fill(words_.get() + from, words_.get() + to, 0);
  for (std::uint64_t i = from; i < to;) {
    const auto at = static_cast<unsigned>(i % 64);
    const auto n = static_cast<unsigned>(std::min<std::uint64_t>(64 - at, to - i));
    full()[i / 64] &= ~ones(n, at);
    i += n;
  }
}

std::uint64_t BandwidthCalendar::first_open_word(std::uint64_t w) const {
  // The summary bitmap has a bit per word of the ring, set while the word is full.
  const std::uint64_t end = base_ + ring_words();
  while (w < end) {
    const std::uint64_t i = w & mask_;
    const std::uint64_t open = ~full()[i / 64] >> (i % 64);
    if (open != 0) return std::min(end, w + static_cast<std::uint64_t>(std::countr_zero(open)));
    w += 64 - i % 64;
  }
  // Past the ring (its bits there are older words'): the caller slides, and a new word is
  // empty.
  return end;
}

std::uint64_t BandwidthCalendar::next_word(std::uint64_t w) const {
  // The next word, unless it is full (a long booking on an idle stretch goes word by word
  // without searching the summary).
  const bool next_open = w + 1 < base_ + ring_words() && words_[(w + 1) & mask_] != kFull;
  return next_open ? w + 1 : first_open_word(w + 1);
}

void BandwidthCalendar::fill(Cycles from, Cycles to) {
  // Sets `bits` of word `w` and marks the word full in the summary if it now is.
  const auto set = [this](std::uint64_t w, std::uint64_t bits) {
    const std::uint64_t i = w & mask_;
    words_[i] |= bits;
    if (words_[i] == kFull) full()[i / 64] |= std::uint64_t{1} << (i % 64);
  };
  std::uint64_t w = from / 64;
  const std::uint64_t last = (to - 1) / 64;
  const std::uint64_t first_bits = kFull << (from % 64);
  const std::uint64_t last_bits = kFull >> (63 - (to - 1) % 64);
  if (w == last) return set(w, first_bits & last_bits);
  set(w, first_bits);
  while (++w < last)
    set(w, kFull);
  set(last, last_bits);
}

Cycles BandwidthCalendar::book_slow(Cycles from, std::uint64_t bytes) {
  bytes_booked_ += bytes;
  const Cycles cycles = per_cycle_.div(bytes + per_cycle_.divisor() - 1);
  busy_cycles_ += cycles;
  if (cycles == 0) return from;
  if (from < base_ * 64) {
    ++late_;
    from = base_ * 64;
  }
  if (from >= solid_from_) {
    // Busy from `from` to the frontier, free after it: the booking is the frontier's next
    // cycles, unless they leave the ring (the walk below slides it).
    const Cycles start = std::max(from, frontier_);
    const Cycles end = start + cycles;
    if (end <= (base_ + ring_words()) * 64) {
      fill(start, end);
      took(from, end);
      return end;
    }
  }
  const Cycles end = walk(from, cycles);
  took(from, end);
  return end;
}

Cycles BandwidthCalendar::walk(Cycles from, Cycles cycles) {
  std::uint64_t w = from / 64;
  std::uint64_t open = kFull << (from % 64);  // the cycles of word w the booking may take
  std::uint64_t need = cycles;
  for (;;) {
    if (w >= base_ + ring_words()) slide_to(w);
    const std::uint64_t i = w & mask_;
    std::uint64_t& word = words_[i];
    if ((word | ~open) == 0 && need >= 64) {  // an idle word the booking fills
      word = kFull;
      full()[i / 64] |= std::uint64_t{1} << (i % 64);
      need -= 64;
      if (need == 0) return w * 64 + 64;
      w = next_word(w);
      continue;
    }
    // Take the word's runs of free cycles, lowest first (usually one or two).
    for (std::uint64_t free = ~word & open; free != 0;) {
      const auto at = static_cast<unsigned>(std::countr_zero(free));
      const auto run = static_cast<unsigned>(std::countr_one(free >> at));
      const auto take = static_cast<unsigned>(std::min<std::uint64_t>(run, need));
      word |= ones(take, at);
      free &= ~ones(take, at);
      need -= take;
      if (need == 0) {
        if (word == kFull) full()[i / 64] |= std::uint64_t{1} << (i % 64);
        return w * 64 + at + take;
      }
    }
    if (word == kFull) full()[i / 64] |= std::uint64_t{1} << (i % 64);
    open = kFull;
    w = next_word(w);
  }
}

Cycles BandwidthCalendar::book_spread(Cycles first, Cycles last, std::uint32_t count,
                                      std::uint64_t bytes) {
  XPUSIM_CHECK(first <= last && bytes > 0 && bytes <= per_cycle_.divisor(),
               "book_spread takes one-cycle bookings whose starts do not go back");
  if (count == 0) return 0;
  if (count == 1) return book(last, bytes);
  // Start i = first + q i + floor(r i / d), kept without a divide per booking.
  const std::uint64_t d = count - 1, span = last - first;
  const std::uint64_t q = span / d, r = span % d;
  Cycles start = first, end = 0;
  std::uint64_t rem = 0;
  // Every cycle of [busy_from, busy_to) is busy: a booking takes the first free cycles from
  // its start, so those it passed over were busy. A later start inside it searches from its
  // end (the same cycle a search from the start finds), so a box landing behind a backlog
  // walks the backlog once, not once per wavefront.
  Cycles busy_from = 0, busy_to = 0;
  for (std::uint32_t i = 0; i < count; ++i) {
    // (A start behind the ring is booked as book() does: counted late, from the oldest kept.)
    const bool in_run = start >= busy_from && start < busy_to && start >= base_ * 64;
    const Cycles from = in_run ? busy_to : start;
    const Cycles kept_from = std::max(from, base_ * 64);
    // The common case: the word is kept and has a free cycle at or after `from`.
    const std::uint64_t w = from / 64;
    std::uint64_t* word =
        from >= base_ * 64 && w < base_ + ring_words() ? &words_[w & mask_] : nullptr;
    const std::uint64_t free = word != nullptr ? ~*word & (kFull << (from % 64)) : 0;
    Cycles taken_end;
    if (free != 0) {
      const auto at = static_cast<unsigned>(std::countr_zero(free));
      *word |= std::uint64_t{1} << at;
      if (*word == kFull) full()[(w & mask_) / 64] |= std::uint64_t{1} << ((w & mask_) % 64);
      bytes_booked_ += bytes;
      ++busy_cycles_;
      taken_end = w * 64 + at + 1;
      took(from, taken_end);
    } else {
      taken_end = book(from, bytes);
    }
    end = std::max(end, taken_end);
    // [kept_from, taken_end) is busy now: the known run grows, or this is the new one.
    if (!in_run) busy_from = kept_from;
    busy_to = taken_end;
    start += q;
    rem += r;
    if (rem >= d) {
      rem -= d;
      ++start;
    }
  }
  return end;
}

}  // namespace xpusim::sim
