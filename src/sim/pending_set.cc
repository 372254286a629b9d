#include "sim/pending_set.h"

#include <algorithm>
#include <bit>

namespace xpusim::sim {

namespace {
constexpr std::uint64_t kMask = PendingSet::kBuckets - 1;
}  // namespace

PendingSet::PendingSet() {
  current_.reserve(256);
}

void PendingSet::place_slow(Tick tick, std::uint64_t order, Event* event) {
  if ((tick >> shift_) <= cur_) {
    insert_current(tick, order, event);
  } else {
    far_push(PendingEntry{tick, order, event});
  }
}

void PendingSet::insert_current(Tick tick, std::uint64_t order, Event* event) {
  // Drop the consumed prefix now and then, so a long stay in one bucket stays bounded.
  if (head_ >= 4096 && 2 * head_ >= current_.size()) {
    current_.erase(current_.begin(), current_.begin() + static_cast<std::ptrdiff_t>(head_));
    head_ = 0;
  }
  const PendingEntry::Key key = (static_cast<PendingEntry::Key>(tick) << 64) | order;
  if (head_ == current_.size() || !(key < current_.back().key())) {
    // The common case: it sorts last. (Appended empty, then its fields stored: a push_back
    // of the entry was compiled as a call taking it through memory, read back whole.)
    PendingEntry& e = current_.emplace_back();
    e.tick = tick;
    e.order = order;
    e.event = event;
    return;
  }
  const auto at =
      std::upper_bound(current_.begin() + static_cast<std::ptrdiff_t>(head_), current_.end(), key,
                       [](PendingEntry::Key k, const PendingEntry& e) { return k < e.key(); });
  const auto i = at - current_.begin();
  current_.push_back(PendingEntry{});
  std::move_backward(current_.begin() + i, current_.end() - 1, current_.end());
  PendingEntry& e = current_[static_cast<std::size_t>(i)];
  e.tick = tick;
  e.order = order;
  e.event = event;
}

std::uint64_t PendingSet::next_occupied() const {
  const std::uint64_t start = cur_ + 1;
  std::uint64_t scanned = 0;
  while (scanned < kBuckets - 1) {
    const std::uint64_t p = (start + scanned) & kMask;
    const std::uint64_t bit = p & 63;
    const std::uint64_t word = occupied_[p >> 6] >> bit;
    if (word != 0) {
      const std::uint64_t off = static_cast<std::uint64_t>(std::countr_zero(word));
      return scanned + off < kBuckets - 1 ? start + scanned + off : 0;
    }
    scanned += 64 - bit;
  }
  return 0;
}

void PendingSet::advance() {
  current_.clear();
  head_ = 0;
  const std::uint64_t next = next_occupied();
  // Nothing left in the window: jump straight to the earliest far entry.
  cur_ = next != 0 ? next : far_.front().tick >> shift_;
  const std::uint64_t p = cur_ & kMask;
  current_.swap(buckets_[p]);  // hands the bucket our (empty, reserved) vector back
  occupied_[p >> 6] &= ~(std::uint64_t{1} << (p & 63));
  pull_far();
  std::sort(current_.begin(), current_.end());
  const std::uint64_t after = next_occupied();
  following_ = after != 0 ? &buckets_[after & kMask] : nullptr;
}

void PendingSet::pull_far() {
  while (!far_.empty() && (far_.front().tick >> shift_) - cur_ < kBuckets) {
    const PendingEntry e = far_.front();
    far_pop();
    if ((e.tick >> shift_) == cur_) {
      current_.push_back(e);  // sorted by the caller
    } else {
      place(e.tick, e.order, e.event);
    }
  }
}

void PendingSet::far_push(const PendingEntry& e) {
  far_.push_back(e);
  sift_up(far_.size() - 1, e);
}

void PendingSet::sift_up(std::size_t i, PendingEntry e) {
  while (i > 0) {
    const std::size_t parent = (i - 1) / 4;
    if (!(e < far_[parent])) break;
    far_[i] = far_[parent];
    i = parent;
  }
  far_[i] = e;
}

void PendingSet::far_pop() {
  far_remove_at(0);
}

void PendingSet::far_remove_at(std::size_t i) {
  const PendingEntry last = far_.back();
  far_.pop_back();
  const std::size_t n = far_.size();
  if (i == n) return;
  // Floyd: walk the hole to a leaf along the smallest children, then sift `last` up (which
  // also covers removal from the middle, where `last` may belong above the hole).
  PendingEntry* h = far_.data();
  for (;;) {
    const std::size_t f = 4 * i + 1;
    std::size_t best;
    if (f + 3 < n) {
      const std::size_t a = h[f + 1] < h[f] ? f + 1 : f;
      const std::size_t b = h[f + 3] < h[f + 2] ? f + 3 : f + 2;
      best = h[b] < h[a] ? b : a;
    } else if (f < n) {
      best = f;
      for (std::size_t c = f + 1; c < n; ++c) {
        if (h[c] < h[best]) best = c;
      }
    } else {
      break;
    }
    h[i] = h[best];
    i = best;
  }
  sift_up(i, last);
}

bool PendingSet::remove(Tick tick, std::uint64_t order) {
  const std::uint64_t idx = tick >> shift_;
  const PendingEntry probe{tick, order, nullptr};
  if (idx <= cur_) {
    const auto first = current_.begin() + static_cast<std::ptrdiff_t>(head_);
    const auto it = std::lower_bound(first, current_.end(), probe);
    if (it == current_.end() || it->order != order || it->tick != tick) return false;
    current_.erase(it);
  } else if (idx - cur_ < kBuckets) {
    const std::uint64_t p = idx & kMask;
    auto& b = buckets_[p];
    const auto it =
        std::find_if(b.begin(), b.end(), [&](const PendingEntry& e) { return e.order == order; });
    if (it == b.end()) return false;
    *it = b.back();
    b.pop_back();
    if (b.empty()) occupied_[p >> 6] &= ~(std::uint64_t{1} << (p & 63));
  } else {
    const auto it = std::find_if(far_.begin(), far_.end(),
                                 [&](const PendingEntry& e) { return e.order == order; });
    if (it == far_.end()) return false;
    far_remove_at(static_cast<std::size_t>(it - far_.begin()));
  }
  --size_;
  return true;
}

void PendingSet::adapt(Tick now) {
  // A window of at least four mean delays keeps most entries out of the far heap, and
  // about four entries per bucket amortizes the per-bucket work (scan, sort) without making
  // the sorts long. Pending entries spread over roughly two mean delays.
  // The window also covers the longest delay of the sample, up to 16 means: a long tail (HBM
  // completions queued behind a burst) would otherwise live in the far heap.
  const std::uint64_t mean = delay_sum_ / delay_count_;
  const std::uint64_t longest = std::min(delay_max_, 16 * mean);
  delay_sum_ = 0;
  delay_count_ = 0;
  delay_max_ = 0;
  const std::uint64_t n = std::max<std::uint64_t>(size_, 1);
  const std::uint64_t width =
      std::max<std::uint64_t>({4 * mean / kBuckets, longest / kBuckets, 8 * mean / n, 1});
  const auto shift = static_cast<unsigned>(std::bit_width(width) - 1);
  // Hysteresis: rebuild only for a 4x change. A narrower window sends the longer delays to the
  // far heap, a wider one only makes buckets fuller, so a shrink stops one step short: an
  // estimate near a step's edge (the mix of delays in one sample varies) then settles on the
  // wider side.
  if (shift >= shift_ + 2) {
    rebuild(shift, now);
  } else if (shift + 2 <= shift_) {
    rebuild(shift + 1, now);
  }
}

void PendingSet::rebuild(unsigned shift, Tick now) {
  following_ = nullptr;  // the buckets are refilled: found again at the next advance()
  std::vector<PendingEntry> all(current_.begin() + static_cast<std::ptrdiff_t>(head_),
                                current_.end());
  for (auto& b : buckets_) {
    all.insert(all.end(), b.begin(), b.end());
    b.clear();
  }
  all.insert(all.end(), far_.begin(), far_.end());
  far_.clear();
  current_.clear();
  occupied_.fill(0);
  head_ = 0;
  shift_ = shift;
  cur_ = now >> shift_;
  for (const PendingEntry& e : all) {
    if ((e.tick >> shift_) == cur_) {
      current_.push_back(e);
    } else {
      place(e.tick, e.order, e.event);
    }
  }
  std::sort(current_.begin(), current_.end());
  ++rebuilds_;
}

}  // namespace xpusim::sim
