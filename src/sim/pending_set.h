// PendingSet: the ordered set of pending event entries behind EventQueue — a calendar queue.
//
// Removal is eager: an entry's tick says where it is (the current bucket: binary search; a
// window bucket: a short scan; the far heap: a scan, but the far heap only holds outliers
// beyond about four mean delays), so no stale entries are left behind.
//
// Entries whose tick falls in the window [cur, cur + kBuckets) of 2^shift-tick buckets sit
// unsorted in their bucket (an append); only the bucket being drained is sorted, once, when
// the window reaches it. Entries beyond the window wait in a 4-ary heap and move into
// buckets as the window advances. A bitmap finds the next non-empty bucket. The bucket width
// follows the observed scheduling delays (rebuilt when it is off by 4x or more), so a bucket
// holds a few entries whatever the time scale. Pop and push are O(1) amortized for the usual
// "hold" workloads, against O(log n) for a heap (docs/performance.md has the figures).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "sim/prefetch.h"
#include "sim/tick.h"

namespace xpusim::sim {

class Event;

struct PendingEntry {
  Tick tick;
  std::uint64_t order;  // priority and insertion sequence; unique per entry
  Event* event;

  __extension__ using Key = unsigned __int128;
  Key key() const { return (static_cast<Key>(tick) << 64) | order; }
  friend bool operator<(const PendingEntry& a, const PendingEntry& b) { return a.key() < b.key(); }
  friend bool operator>(const PendingEntry& a, const PendingEntry& b) { return b < a; }
};

class PendingSet {
 public:
  static constexpr std::size_t kBuckets = 1024;

  PendingSet();

  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }

  // `now` is the current time (no entry is earlier); the delay from `since` (now, or the
  // tick an entry's order was reserved at: EventQueue::schedule_reserved) feeds the
  // bucket-width estimate. Inline: every schedule comes through here (docs/performance.md,
  // "Fabric").
  //
  // The entry's fields come apart, in registers, and are stored one by one: an entry built on
  // the caller's stack and copied whole into its bucket was read back with a 16-byte load over
  // two 8-byte stores, a store-forwarding stall on every schedule (docs/performance.md,
  // "Host techniques").
  void push(Tick tick, std::uint64_t order, Event* event, Tick now, Tick since) {
    ++size_;
    const Tick delay = tick - since;
    const Tick clamped = delay < kDelayClamp ? delay : kDelayClamp;
    delay_sum_ += clamped;
    delay_max_ = clamped > delay_max_ ? clamped : delay_max_;
    place(tick, order, event);
    if (++delay_count_ == kAdaptEvery) adapt(now);
  }
  void push(const PendingEntry& e, Tick now, Tick since) {
    push(e.tick, e.order, e.event, now, since);
  }
  void push(const PendingEntry& e, Tick now) { push(e, now, now); }
  // The smallest entry. Must not be called when empty.
  const PendingEntry& top() {
    if (head_ == current_.size()) advance();
    return current_[head_];
  }
  void pop() {
    top();
    ++head_;
    --size_;
  }
  // top() and pop() in one step.
  PendingEntry pop_top() {
    if (head_ == current_.size()) advance();
    --size_;
    return current_[head_++];
  }
  // The event k places behind the next one to fire (0: that one), else null: a hint for
  // prefetching, never for ordering. Past the bucket being drained it is an entry of the next
  // occupied bucket in its unsorted order: those fire next, in some order, and without them
  // the last events of every bucket (about a third here) were never prefetched.
  Event* upcoming(std::size_t k) const {
    if (head_ + k < current_.size()) return current_[head_ + k].event;
    const std::size_t j = head_ + k - current_.size();
    return following_ != nullptr && j < following_->size() ? (*following_)[j].event : nullptr;
  }

  // For speed only: starts loading the end of the bucket an entry at `t` would be appended
  // to (the common case of place(); the bucket's header is read now, the end prefetched).
  void prefetch_place(Tick t) const {
    const std::uint64_t idx = t >> shift_;
    if (idx > cur_ && idx - cur_ < kBuckets) {
      const std::vector<PendingEntry>& b = buckets_[idx & (kBuckets - 1)];
      sim::prefetch(b.data() + b.size());
    }
  }
  // Removes the entry with this tick and order; false if there is none.
  bool remove(Tick tick, std::uint64_t order);
  // Calls f(entry) for every entry, in no particular order.
  template <class F>
  void for_each(F&& f) const {
    for (std::size_t i = head_; i < current_.size(); ++i)
      f(current_[i]);
    for (const auto& b : buckets_) {
      for (const PendingEntry& e : b)
        f(e);
    }
    for (const PendingEntry& e : far_)
      f(e);
  }

  unsigned bucket_shift() const { return shift_; }
  std::uint64_t rebuilds() const { return rebuilds_; }

 private:
  static constexpr std::size_t kWords = kBuckets / 64;
  static constexpr std::uint64_t kAdaptEvery = 8192;

  // Delays beyond this are clamped in the width estimate (they go to the far heap anyway).
  static constexpr Tick kDelayClamp = Tick{1} << 40;

  void place(Tick tick, std::uint64_t order, Event* event) {
    const std::uint64_t idx = tick >> shift_;
    if (idx > cur_ && idx - cur_ < kBuckets) {  // the common case: an append to a bucket
      const std::uint64_t p = idx & (kBuckets - 1);
      buckets_[p].push_back(PendingEntry{tick, order, event});  // inline: stores from registers
      occupied_[p >> 6] |= std::uint64_t{1} << (p & 63);
    } else {
      place_slow(tick, order, event);
    }
  }
  // The bucket being drained, or the far heap.
  void place_slow(Tick tick, std::uint64_t order, Event* event);
  void insert_current(Tick tick, std::uint64_t order, Event* event);
  // Moves the window to the next non-empty bucket and sorts it into current_.
  void advance();
  // Next occupied bucket index after cur_ inside the window, or 0 if none.
  std::uint64_t next_occupied() const;
  void pull_far();
  void far_push(const PendingEntry& e);
  void sift_up(std::size_t i, PendingEntry e);
  void far_pop();
  void far_remove_at(std::size_t i);
  void adapt(Tick now);
  void rebuild(unsigned shift, Tick now);

  unsigned shift_ = 10;                // bucket width 2^shift ticks
  std::uint64_t cur_ = 0;              // absolute index of the bucket being drained
  std::vector<PendingEntry> current_;  // sorted from head_ on
  // The next occupied bucket when the drained one was taken (null if none): upcoming()'s.
  const std::vector<PendingEntry>* following_ = nullptr;
  std::size_t head_ = 0;
  std::array<std::vector<PendingEntry>, kBuckets> buckets_;
  std::array<std::uint64_t, kWords> occupied_{};
  std::vector<PendingEntry> far_;  // 4-ary min-heap
  std::size_t size_ = 0;

  std::uint64_t delay_sum_ = 0;
  std::uint64_t delay_count_ = 0;
  std::uint64_t delay_max_ = 0;
  std::uint64_t rebuilds_ = 0;
};

}  // namespace xpusim::sim
