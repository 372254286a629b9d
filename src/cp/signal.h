// Signal: an HSA-style signal (HSA System Architecture spec, "Signals"): a 64-bit signed value
// that producers store/add to and consumers load or wait on. Used for the queue doorbell and for
// completion signals.
//
// Modelling choice: the value is a host-side object, not bytes in GlobalMemory. HSA makes the
// signal an opaque handle whose storage is implementation-defined, and the simulator has one
// thread, so a plain value with acquire/release spelled in the names is exact. Instead of
// blocking waits the signal offers a waiter hook: a callback run once when a condition first
// holds after a store (or at registration when it already holds), which an event-driven packet
// processor can use to schedule itself.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

namespace xpusim::cp {

// HSA wait conditions (hsa_signal_condition_t).
enum class SignalCondition { kEq, kNe, kLt, kGte };

class Signal {
 public:
  using Value = std::int64_t;
  using Callback = std::function<void(Value)>;

  explicit Signal(Value initial = 0) : value_(initial) {}

  Value load_acquire() const { return value_; }
  void store_release(Value v);
  // Completion signals are decremented by the agent (HSA: dispatch completion subtracts 1).
  void add_release(Value delta) { store_release(value_ + delta); }
  void subtract_release(Value delta) { store_release(value_ - delta); }

  // Runs `cb(value)` once, the first time `condition(value, compare)` holds: now if it already
  // does, else after the store that makes it true. Waiters fire in registration order.
  void when(SignalCondition condition, Value compare, Callback cb);
  // Runs `cb(value)` once, at the next store whatever its value (a doorbell rung with the same
  // index it already holds still wakes a packet processor).
  void on_next_store(Callback cb) { next_store_.push_back(std::move(cb)); }
  std::size_t waiters() const { return waiters_.size() + next_store_.size(); }
  // Number of stores so far (a doorbell's ring count).
  std::uint64_t stores() const { return stores_; }

  static bool holds(SignalCondition condition, Value value, Value compare);

 private:
  struct Waiter {
    SignalCondition condition;
    Value compare;
    Callback cb;
  };
  Value value_;
  std::uint64_t stores_ = 0;
  std::vector<Waiter> waiters_;
  std::vector<Callback> next_store_;
};

}  // namespace xpusim::cp
