// InFlight: the completion ticks of a TMA unit's lines in flight, for its outstanding limit
// (issue_box): add a tick, see and remove the earliest. Kept ascending from `head`: a line
// mostly lands after those issued before it (a hit after misses is the exception), so an
// insert moves a few entries from the back of one warm array. A heap's sift costs more (its
// branches mispredict), and a radix heap, with about a quarter fewer instructions here, spread its
// buckets over the host's caches and ran no faster (docs/performance.md, fifteenth session).
#pragma once

#include <algorithm>
#include <cstddef>
#include <span>
#include <vector>

#include "sim/tick.h"

namespace xpusim::tma {

class InFlight {
 public:
  bool empty() const { return head_ == ticks_.size(); }
  std::size_t size() const { return ticks_.size() - head_; }
  // The earliest tick (not empty()).
  sim::Tick front() const { return ticks_[head_]; }
  void pop() {
    if (++head_ == ticks_.size()) {
      ticks_.clear();
      head_ = 0;
    }
  }
  void push(sim::Tick t) {
    if (head_ >= 1024 && head_ * 2 >= ticks_.size()) {
      ticks_.erase(ticks_.begin(), ticks_.begin() + static_cast<std::ptrdiff_t>(head_));
      head_ = 0;
    }
    std::size_t at = ticks_.size();
    ticks_.push_back(t);
    for (; at > head_ && ticks_[at - 1] > t; --at)
      ticks_[at] = ticks_[at - 1];
    ticks_[at] = t;
  }
  // Adds every tick of `batch` (sorted here) in one pass from the back: an entry later than the
  // batch's earliest moves once, not once per tick. A set-sampled group's lines land close
  // together, often before misses issued earlier. (Binary searches with block moves ran
  // slower: the array is cold when a box comes, and the searches' loads are serial.)
  void push(std::span<sim::Tick> batch) {
    if (batch.empty()) return;
    std::sort(batch.begin(), batch.end());
    if (head_ >= 1024 && head_ * 2 >= ticks_.size()) {
      ticks_.erase(ticks_.begin(), ticks_.begin() + static_cast<std::ptrdiff_t>(head_));
      head_ = 0;
    }
    const std::size_t old = ticks_.size();
    ticks_.resize(old + batch.size());
    sim::Tick* const t = ticks_.data();
    const std::size_t head = head_;
    std::size_t from = old, to = ticks_.size(), b = batch.size();
    while (b > 0) {
      if (from > head && t[from - 1] > batch[b - 1]) {
        t[--to] = t[--from];
      } else {
        t[--to] = batch[--b];
      }
    }
  }

 private:
  std::vector<sim::Tick> ticks_;
  std::size_t head_ = 0;
};

}  // namespace xpusim::tma
