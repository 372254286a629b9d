// EventQueue: the discrete-event core. Events are ordered by (tick, priority, insertion
// sequence), so two runs of the same model process events in the same order (determinism).
//
// Events are intrusive: the owner (a component, or a coroutine awaiter living in a coroutine
// frame) holds the Event object and the queue never allocates per schedule. The pending set
// (a calendar queue, pending_set.h) stores small {tick, order, Event*} entries; canceling
// removes the entry at once, so a destroyed event is never referenced.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "sim/pending_set.h"
#include "sim/result.h"
#include "sim/tick.h"

namespace xpusim::sim {

class EventQueue;

// Lower value runs first among events at the same tick.
using Priority = std::int8_t;
inline constexpr Priority kPriorityFirst = -100;  // e.g. clock-edge bookkeeping
inline constexpr Priority kPriorityDefault = 0;
inline constexpr Priority kPriorityLast = 100;  // e.g. stat sampling after all work of a tick

class Event {
 public:
  Event() = default;
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  virtual ~Event();

  bool scheduled() const { return order_ != 0; }
  // Tick of the pending (or last) occurrence.
  Tick when() const { return when_; }

 protected:
  virtual void process() = 0;
  // For speed only: start loading (sim::prefetch) the host memory process() will touch (a
  // cache set, a table slot). The queue calls it a few events before this one fires, once the
  // order is known; it must not change any state. The default does nothing.
  virtual void prefetch() const {}

 private:
  friend class EventQueue;
  EventQueue* queue_ = nullptr;
  Tick when_ = 0;
  std::uint64_t order_ = 0;  // the pending entry's order; 0 when not scheduled
};

// An event that calls a std::function; for owners that prefer a lambda to a subclass.
class CallbackEvent final : public Event {
 public:
  explicit CallbackEvent(std::function<void()> fn) : fn_(std::move(fn)) {}

 protected:
  void process() override { fn_(); }

 private:
  std::function<void()> fn_;
};

// Why run() returned.
enum class StopReason { kDrained, kTickLimit, kStopped };

// A source of events being computed elsewhere (another host thread) that the queue must wait
// for: run() and step() fire an event at or after gate_until() only once open() has delivered
// (scheduled) every event that could fall before it. See mem/memory_worker.h.
class Gate {
 public:
  // Schedules what is ready, waiting for what could fall at or before `next`; returns the tick
  // from which the queue must ask again (kMaxTick: nothing outstanding).
  virtual Tick open(Tick next) = 0;

 protected:
  ~Gate() = default;
};

class EventQueue {
 public:
  EventQueue();
  ~EventQueue();
  EventQueue(const EventQueue&) = delete;
  EventQueue& operator=(const EventQueue&) = delete;

  Tick now() const { return now_; }

  // `when` must not be in the past; an event must not already be scheduled. Inline: every
  // model schedules through here.
  void schedule(Event& ev, Tick when, Priority prio = kPriorityDefault) {
    schedule_reserved(ev, when, reserve_order(prio));
  }
  // The order schedule() would give an event now, taken now for an event scheduled later
  // (schedule_reserved): it fires as if it had been scheduled at this point.
  std::uint64_t reserve_order(Priority prio = kPriorityDefault) {
    return (static_cast<std::uint64_t>(static_cast<std::uint8_t>(prio + 128)) << kSequenceBits) |
           (sequence_++ & kSequenceMask);
  }
  // `reserved_at` (no later than now): when the order was taken, which the pending set's
  // bucket-width estimate counts the delay from, as if the event had been scheduled then.
  void schedule_reserved(Event& ev, Tick when, std::uint64_t order, Tick reserved_at) {
    XPUSIM_CHECK(!ev.scheduled(), "event scheduled twice");
    XPUSIM_CHECK(when >= now_, "event scheduled in the past");
    ev.queue_ = this;
    ev.when_ = when;
    ev.order_ = order;
    pending_.push(when, order, &ev, now_, std::min(reserved_at, now_));
  }
  // For speed only: starts loading where an event scheduled at `when` will be placed.
  void prefetch_schedule(Tick when) const { pending_.prefetch_place(when); }
  void schedule_reserved(Event& ev, Tick when, std::uint64_t order) {
    schedule_reserved(ev, when, order, now_);
  }
  // Gates (a second host thread's results, see Gate): add_gate before the gate's first
  // narrow_gate, remove_gate before it is destroyed. narrow_gate: something outstanding may
  // fall at `t`.
  void add_gate(Gate& g) { gates_.push_back(&g); }
  void remove_gate(Gate& g) {
    std::erase(gates_, &g);
    if (gates_.empty()) gate_until_ = kMaxTick;
  }
  void narrow_gate(Tick t) { gate_until_ = std::min(gate_until_, t); }
  // Delivers everything the gates have outstanding.
  void open_gates() {
    if (gate_until_ != kMaxTick) gate_until_ = open_gates(kMaxTick);
  }
  void reschedule(Event& ev, Tick when, Priority prio = kPriorityDefault);
  void deschedule(Event& ev);

  // Fire-and-forget callback at `when` (pooled; not cancelable).
  void post(Tick when, std::function<void()> fn, Priority prio = kPriorityDefault);

  // Processes events in order until none is left, the next one is after `limit`, or stop()
  // is called. On kTickLimit, now() advances to `limit`.
  StopReason run(Tick limit = kMaxTick);
  // Processes exactly one event if any; returns false when empty.
  bool step();
  // Asks run() to return after the event being processed.
  void stop() { stop_requested_ = true; }

  std::size_t pending() const { return pending_.size(); }
  std::uint64_t processed() const { return processed_; }
  bool empty() const { return pending_.empty(); }

 private:
  class PostedEvent;
  static constexpr std::uint64_t kSequenceBits = 56;
  static constexpr std::uint64_t kSequenceMask = (std::uint64_t{1} << kSequenceBits) - 1;

  void fire(const PendingEntry& e);
  void prefetch_ahead() const;  // run()'s prefetch hints for the events about to fire

  PendingSet pending_;
  std::vector<std::unique_ptr<PostedEvent>> posted_pool_;
  std::vector<PostedEvent*> posted_free_;
  Tick now_ = 0;
  std::uint64_t sequence_ = 1;  // order 0 means "not scheduled"
  std::uint64_t processed_ = 0;
  bool stop_requested_ = false;
  std::vector<Gate*> gates_;
  Tick gate_until_ = kMaxTick;  // the earliest tick a gate may still deliver an event at
  Tick open_gates(Tick next);
  // Whether the gate must be opened before an event at `next` fires (kMaxTick: none left).
  bool gated(Tick next) const { return gate_until_ != kMaxTick && next >= gate_until_; }
};

}  // namespace xpusim::sim
