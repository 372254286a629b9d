// The global memory requests of one TMA operation (seed0 ¶89: ≤128 B, never across a 128 B
// line, in issue order), stored run-length coded: requests of one size at a constant step
// are one run. A 16 KiB box of 128 B rows is then one run, not 128 entries, whether its rows
// are adjacent (a step of 128 B) or a tensor's rows apart (the row pitch), which keeps the
// golden copy near memcpy speed and a box's list without an allocation; iterating still
// yields one GlobalRequest per request.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <span>
#include <vector>

#include "mem/global_memory.h"

namespace xpusim::tma {

inline constexpr std::uint32_t kLineBytes = 128;

// One request to the memory system: inside one 128 B line, at most 128 B.
struct GlobalRequest {
  mem::Addr address = 0;
  std::uint32_t bytes = 0;
  friend bool operator==(const GlobalRequest&, const GlobalRequest&) = default;
};

class RequestList {
 public:
  // `count` requests of `bytes` each at address + i * step (step 0 for a single one). A
  // request joins the last run when it has the run's size and continues its steps (the
  // second request of a run sets the step; steps go forward), so equal sequences have equal
  // runs.
  struct Run {
    mem::Addr address = 0;
    std::uint32_t bytes = 0;
    std::uint32_t count = 0;
    std::uint64_t step = 0;
    friend bool operator==(const Run&, const Run&) = default;
  };

  class Iterator {
   public:
    using value_type = GlobalRequest;
    using difference_type = std::ptrdiff_t;
    using reference = GlobalRequest;
    using iterator_category = std::input_iterator_tag;

    Iterator() = default;
    Iterator(const Run* run, std::uint32_t i) : run_(run), i_(i) {}
    GlobalRequest operator*() const {
      return {.address = run_->address + std::uint64_t{i_} * run_->step, .bytes = run_->bytes};
    }
    Iterator& operator++() {
      if (++i_ == run_->count) ++run_, i_ = 0;
      return *this;
    }
    Iterator operator++(int) {
      Iterator old = *this;
      ++*this;
      return old;
    }
    friend bool operator==(const Iterator&, const Iterator&) = default;

   private:
    const Run* run_ = nullptr;
    std::uint32_t i_ = 0;
  };

  // Appends the ≤128 B, line-bounded requests covering [addr, addr + bytes): a head piece up
  // to the first line boundary, whole lines, a tail piece.
  void append(mem::Addr addr, std::uint64_t bytes) {
    if (bytes == 0) return;
    const std::uint64_t head = std::min<std::uint64_t>(kLineBytes - addr % kLineBytes, bytes);
    if (head < kLineBytes) push(addr, static_cast<std::uint32_t>(head));
    const mem::Addr first = head < kLineBytes ? addr + head : addr;
    const std::uint64_t rest = bytes - (head < kLineBytes ? head : 0);
    if (const std::uint64_t lines = rest / kLineBytes; lines > 0) lines_at(first, lines);
    if (const std::uint64_t tail = rest % kLineBytes; tail != 0) {
      push(first + rest / kLineBytes * kLineBytes, static_cast<std::uint32_t>(tail));
    }
  }

  // `rows` ranges of `bytes` each, `step` bytes apart from `addr` (a box's rows): the same
  // as appending them one by one, with rows of one aligned line taken a run at a time.
  void append_rows(mem::Addr addr, std::uint64_t bytes, std::uint64_t rows, std::uint64_t step) {
    if (bytes != kLineBytes || addr % kLineBytes != 0 || step == 0 || step % kLineBytes != 0) {
      for (std::uint64_t r = 0; r < rows; ++r)
        append(addr + r * step, bytes);
      return;
    }
    lines_at(addr, rows, step);
  }

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  std::span<const Run> runs() const { return {data(), runs_}; }
  Iterator begin() const { return {data(), 0}; }
  Iterator end() const { return {data() + runs_, 0}; }
  GlobalRequest front() const { return *begin(); }
  GlobalRequest operator[](std::size_t i) const;  // O(runs)
  std::vector<GlobalRequest> to_vector() const { return {begin(), end()}; }
  void clear() { heap_.clear(), runs_ = 0, size_ = 0; }

  friend bool operator==(const RequestList& a, const RequestList& b) {
    return std::ranges::equal(a.runs(), b.runs());
  }
  friend bool operator==(const RequestList& a, std::span<const GlobalRequest> b) {
    return a.size() == b.size() && std::equal(b.begin(), b.end(), a.begin());
  }

 private:
  static constexpr std::uint64_t kMaxCount = UINT32_MAX;

  // n whole lines from `a` (line-aligned), `step` apart: as n single requests, but a run of
  // lines at that step takes them all at once.
  void lines_at(mem::Addr a, std::uint64_t n, std::uint64_t step = kLineBytes) {
    while (n > 0) {
      if (runs_ > 0) {
        Run& last = data()[runs_ - 1];
        if (last.bytes == kLineBytes && last.count >= 2 && last.step == step &&
            last.address + std::uint64_t{last.count} * step == a) {
          const std::uint64_t take = std::min(n, kMaxCount - last.count);
          last.count += static_cast<std::uint32_t>(take), size_ += take;
          a += take * step, n -= take;
          if (n == 0) return;
        }
      }
      push(a, kLineBytes);
      a += step, --n;
    }
  }
  // One request: the last run's next, or a new run.
  void push(mem::Addr a, std::uint32_t bytes) {
    if (runs_ > 0) {
      Run& last = data()[runs_ - 1];
      if (last.bytes == bytes && last.count < kMaxCount) {
        if (last.count == 1 && a > last.address) {
          last.step = a - last.address, last.count = 2, ++size_;
          return;
        }
        if (last.count >= 2 && a == last.address + std::uint64_t{last.count} * last.step) {
          ++last.count, ++size_;
          return;
        }
      }
    }
    const Run r{.address = a, .bytes = bytes, .count = 1};
    if (heap_.empty() && runs_ < inline_.size()) {
      inline_[runs_] = r;
    } else {
      if (heap_.empty()) heap_.assign(inline_.begin(), inline_.begin() + runs_);
      heap_.push_back(r);
    }
    ++runs_, ++size_;
  }
  // The first runs live inline: most boxes are one to three runs, and a heap allocation per
  // TMA request would cost more than the copy of a small box.
  Run* data() { return heap_.empty() ? inline_.data() : heap_.data(); }
  const Run* data() const { return heap_.empty() ? inline_.data() : heap_.data(); }

  std::array<Run, 3> inline_{};
  std::vector<Run> heap_;  // all runs, once there are more than fit inline
  std::size_t runs_ = 0;
  std::size_t size_ = 0;
};

}  // namespace xpusim::tma
