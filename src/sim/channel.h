// Channel<T>: a point-to-point link with latency, bandwidth and optional capacity
// (STYLE.md item 6). A message of B bytes occupies the link for ceil(B / bytes_per_cycle)
// cycles starting at the first clock edge at which the link is free; it is delivered
// `latency` cycles after its last byte left. Back-to-back sends queue behind each other.
//
//   send(msg, bytes)     awaitable; resumes when the last byte has left the sender.
//   try_send(msg, bytes) refused (false) when `capacity` messages are in flight or unread.
//   receive()            awaitable; returns the oldest delivered message.
//   reserve(bytes)       timing only (no payload): books the link, returns the arrival tick.
//   reserve_many(n, b)   the same for n messages of b bytes in a row (the last arrival).
#pragma once

#include <coroutine>
#include <cstdint>
#include <deque>
#include <limits>
#include <optional>
#include <utility>

#include "sim/clock.h"
#include "sim/sync.h"

namespace xpusim::sim {

struct ChannelParams {
  Cycles latency = 0;
  std::uint64_t bytes_per_cycle = 1;
  // Messages that may be in flight or delivered-but-unread at once.
  std::size_t capacity = std::numeric_limits<std::size_t>::max();
};

template <class T>
class Channel {
 public:
  Channel(Clock& clock, ChannelParams params)
      : clock_(clock), params_(params), delivery_(*this), senders_(), receivers_() {
    XPUSIM_CHECK(params.bytes_per_cycle > 0, "channel bandwidth must be positive");
    XPUSIM_CHECK(params.capacity > 0, "channel capacity must be positive");
  }
  Channel(const Channel&) = delete;
  Channel& operator=(const Channel&) = delete;

  Cycles serialization_cycles(std::uint64_t bytes) const {
    return (bytes + params_.bytes_per_cycle - 1) / params_.bytes_per_cycle;
  }

  Tick reserve(std::uint64_t bytes) { return reserve_many(1, bytes); }
  // `count` messages of `bytes` each, back to back: exactly what `count` calls of
  // reserve(bytes) in a row book (each starts where the previous one ended), returning the
  // last arrival, for the cost of one.
  Tick reserve_many(std::uint64_t count, std::uint64_t bytes) {
    const Cycles start = std::max(clock_.next_cycle(), busy_until_);
    account(start, count, bytes);
    return clock_.edge(busy_until_ + params_.latency);
  }

  bool try_send(T msg, std::uint64_t bytes) {
    if (!senders_.empty() || occupancy() >= params_.capacity) {
      ++refused_;
      return false;
    }
    enqueue(std::move(msg), bytes);
    return true;
  }

  class SendAwaiter final : public WaitNode {
   public:
    SendAwaiter(Channel& ch, T msg, std::uint64_t bytes)
        : ch_(ch), msg_(std::move(msg)), bytes_(bytes) {}
    bool await_ready() {
      if (!ch_.senders_.empty() || ch_.occupancy() >= ch_.params_.capacity) return false;
      tail_ = ch_.enqueue(std::move(msg_), bytes_);
      return tail_ == ch_.clock_.queue().now();
    }
    void await_suspend(std::coroutine_handle<> h) {
      handle_ = h;
      if (tail_ == kNoTick) {
        ch_.senders_.push_back(*this);  // blocked on capacity: admitted by a receive
      } else {
        ch_.clock_.queue().schedule(*this, tail_);
      }
    }
    void await_resume() const noexcept {}

   protected:
    void process() override {
      if (tail_ == kNoTick) {  // just admitted into the slot reserved for it: now serialize
        --ch_.reserved_;
        tail_ = ch_.enqueue(std::move(msg_), bytes_);
        if (tail_ > ch_.clock_.queue().now()) {
          ch_.clock_.queue().schedule(*this, tail_);
          return;
        }
      }
      handle_.resume();
    }

   private:
    static constexpr Tick kNoTick = kMaxTick;
    Channel& ch_;
    T msg_;
    std::uint64_t bytes_;
    Tick tail_ = kNoTick;
  };

  class ReceiveAwaiter final : public WaitNode {
   public:
    explicit ReceiveAwaiter(Channel& ch) : ch_(ch) {}
    bool await_ready() {
      if (!ch_.receivers_.empty() || ch_.delivered_.empty()) return false;
      value_.emplace(ch_.take());
      return true;
    }
    void await_suspend(std::coroutine_handle<> h) {
      handle_ = h;
      ch_.receivers_.push_back(*this);
    }
    T await_resume() { return std::move(*value_); }

   private:
    friend class Channel;
    Channel& ch_;
    std::optional<T> value_;
  };

  SendAwaiter send(T msg, std::uint64_t bytes) { return SendAwaiter(*this, std::move(msg), bytes); }
  ReceiveAwaiter receive() { return ReceiveAwaiter(*this); }
  std::optional<T> try_receive() {
    if (delivered_.empty()) return std::nullopt;
    return take();
  }

  // Messages in flight plus delivered-but-unread (what `capacity` bounds).
  std::size_t occupancy() const { return in_flight_.size() + delivered_.size() + reserved_; }
  std::size_t in_flight() const { return in_flight_.size(); }
  std::size_t delivered() const { return delivered_.size(); }
  // First cycle at which the link is free again.
  Cycles busy_until() const { return busy_until_; }
  std::uint64_t messages_sent() const { return messages_; }
  std::uint64_t bytes_sent() const { return bytes_; }
  Cycles busy_cycles() const { return busy_cycles_; }
  std::uint64_t refused() const { return refused_; }
  const ChannelParams& params() const { return params_; }

 private:
  // Books the link for `bytes`; returns {tick the tail leaves, tick it arrives}.
  std::pair<Tick, Tick> book(std::uint64_t bytes) {
    account(std::max(clock_.next_cycle(), busy_until_), 1, bytes);
    return {clock_.edge(busy_until_), clock_.edge(busy_until_ + params_.latency)};
  }
  // The link is busy from `start` for `count` messages of `bytes` each.
  void account(Cycles start, std::uint64_t count, std::uint64_t bytes) {
    const Cycles ser = count * serialization_cycles(bytes);
    busy_until_ = start + ser;
    busy_cycles_ += ser;
    messages_ += count;
    bytes_ += count * bytes;
  }

  Tick enqueue(T msg, std::uint64_t bytes) {
    const auto [tail, arrival] = book(bytes);
    in_flight_.emplace_back(arrival, std::move(msg));
    if (!delivery_.scheduled()) clock_.queue().schedule(delivery_, in_flight_.front().first);
    return tail;
  }

  T take() {
    T v = std::move(delivered_.front());
    delivered_.pop_front();
    admit_sender();
    return v;
  }

  // A slot has freed: reserve it for the longest-blocked sender, which resumes this tick.
  void admit_sender() {
    if (WaitNode* s = senders_.pop_front()) {
      ++reserved_;
      clock_.queue().schedule(*s, clock_.queue().now());
    }
  }

  // Arrivals are in FIFO order (start times and latency are monotonic), so one event
  // suffices: it always waits for the head of the in-flight queue.
  class Delivery final : public Event {
   public:
    explicit Delivery(Channel& ch) : ch_(ch) {}

   protected:
    void process() override { ch_.deliver(); }

   private:
    Channel& ch_;
  };

  void deliver() {
    const Tick now = clock_.queue().now();
    while (!in_flight_.empty() && in_flight_.front().first <= now) {
      T msg = std::move(in_flight_.front().second);
      in_flight_.pop_front();
      if (auto* r = static_cast<ReceiveAwaiter*>(receivers_.pop_front())) {
        r->value_.emplace(std::move(msg));
        clock_.queue().schedule(*r, now);
        admit_sender();
      } else {
        delivered_.push_back(std::move(msg));
      }
    }
    if (!in_flight_.empty()) clock_.queue().schedule(delivery_, in_flight_.front().first);
  }

  Clock& clock_;
  ChannelParams params_;
  Delivery delivery_;
  WaitList senders_;
  WaitList receivers_;
  std::deque<std::pair<Tick, T>> in_flight_;
  std::deque<T> delivered_;
  Cycles busy_until_ = 0;
  Cycles busy_cycles_ = 0;
  std::uint64_t messages_ = 0;
  std::uint64_t bytes_ = 0;
  std::uint64_t refused_ = 0;
  std::size_t reserved_ = 0;
};

}  // namespace xpusim::sim
