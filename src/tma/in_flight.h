// InFlight: the completion ticks of a TMA unit's lines in flight, for its outstanding limit
// (issue_box). Lines are added as they are timed; before a line (or a set-sampled group) is
// let in, make_room removes those back by then and, while too many remain, waits for the
// earliest.
//
// Landed lines are dropped only when the limit could bind: while the kept ticks, landed ones
// included, leave room, no line would wait, so nothing needs to be known about them, and a
// line costs an append. When the limit could bind, the landed ticks are dropped (a pass over
// those added since the last sort), and only if it still binds are the added ones sorted and
// merged into the sorted rest. With set sampling the pass comes about once in fifteen groups
// and the sort for 1 % of them (the 8192³ GEMM); keeping every tick sorted cost an insertion
// per line into a cold array, a twentieth of that run, and sorting at every pass a tenth.
// Where the limit binds at every line, this is that insertion again. A heap's sift and a
// radix heap cost more (docs/performance.md).
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "sim/tick.h"

namespace xpusim::tma {

class InFlight {
 public:
  // Ticks kept: the lines in flight and landed ones not yet dropped.
  std::size_t kept() const { return ticks_.size() - head_; }
  void push(sim::Tick t) { ticks_.push_back(t); }
  // Makes room at tick `t` for `slots` more lines under `max` in flight: the lines back by `t`
  // leave; then, while more than max - slots remain, the earliest leaves once `wait(its
  // tick)` has moved the caller's clock there. The same waits, in the same order, as a
  // sorted set from which every admission first removes what is back.
  template <class Wait>
  void make_room(sim::Tick t, std::size_t slots, std::size_t max, Wait&& wait) {
    if (kept() + slots <= max) return;
    drop_back_by(t);
    if (kept() + slots > max) {
      sort_all();
      const std::size_t n = ticks_.size();
      while (head_ < n && n - head_ + slots > max)
        wait(ticks_[head_++]);
    }
    if (head_ == ticks_.size()) {
      ticks_.clear();
      head_ = sorted_ = 0;
    } else if (head_ >= 1024 && head_ * 2 >= ticks_.size()) {
      ticks_.erase(ticks_.begin(), ticks_.begin() + static_cast<std::ptrdiff_t>(head_));
      sorted_ -= head_;
      head_ = 0;
    }
  }

 private:
  // Drops the ticks at or before `t`: the sorted ones by a search, the added ones by a pass
  // without branches (which tick has landed is as good as random).
  void drop_back_by(sim::Tick t) {
    sim::Tick* const at = ticks_.data();
    head_ = static_cast<std::size_t>(std::upper_bound(at + head_, at + sorted_, t) - at);
    std::size_t kept = sorted_;
    for (std::size_t i = sorted_; i < ticks_.size(); ++i) {
      const sim::Tick x = at[i];
      at[kept] = x;
      kept += x > t ? 1 : 0;
    }
    ticks_.resize(kept);
  }
  // Sorts the ticks added since the last call and merges them into the sorted ones from the
  // back: a sorted tick later than the new ones' earliest moves once.
  void sort_all() {
    const std::size_t n = ticks_.size();
    if (sorted_ == n) return;
    added_.assign(ticks_.begin() + static_cast<std::ptrdiff_t>(sorted_), ticks_.end());
    std::sort(added_.begin(), added_.end());
    sim::Tick* const t = ticks_.data();
    std::size_t from = sorted_, to = n, b = added_.size();
    while (b > 0) {
      if (from > head_ && t[from - 1] > added_[b - 1]) {
        t[--to] = t[--from];
      } else {
        t[--to] = added_[--b];
      }
    }
    sorted_ = n;
  }

  std::vector<sim::Tick> ticks_;  // [head_, sorted_) ascending, then the ticks added since
  std::size_t head_ = 0, sorted_ = 0;
  std::vector<sim::Tick> added_;  // sort_all's scratch
};

}  // namespace xpusim::tma
