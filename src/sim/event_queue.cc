#include "sim/event_queue.h"

#include <algorithm>

#include "sim/prefetch.h"

namespace xpusim::sim {

namespace {
// How many events ahead run() prefetches (in a large model, a host memory latency is about
// one event's work; farther ahead measured no better on docs/performance.md's streaming run),
// and from how many pending events on: a smaller model sits in the host's caches, where the
// hints would cost ~17 instructions an event for nothing.
constexpr std::size_t kObjectAhead = 6;
constexpr std::size_t kStateAhead = 3;
constexpr std::size_t kPrefetchMinPending = 4096;
}  // namespace

Event::~Event() {
  if (scheduled()) queue_->deschedule(*this);
}

class EventQueue::PostedEvent final : public Event {
 public:
  explicit PostedEvent(EventQueue& owner) : owner_(owner) {}
  std::function<void()> fn;

 protected:
  void process() override {
    // Return to the pool first: the callback may post again and reuse this object.
    auto f = std::move(fn);
    fn = nullptr;
    owner_.posted_free_.push_back(this);
    f();
  }

 private:
  EventQueue& owner_;
};

EventQueue::EventQueue() = default;

EventQueue::~EventQueue() {
  // Detach events that outlive the queue so their destructors do not touch it.
  pending_.for_each([](const PendingEntry& e) {
    e.event->order_ = 0;
    e.event->queue_ = nullptr;
  });
}

void EventQueue::reschedule(Event& ev, Tick when, Priority prio) {
  if (ev.scheduled()) deschedule(ev);
  schedule(ev, when, prio);
}

void EventQueue::deschedule(Event& ev) {
  XPUSIM_CHECK(ev.scheduled() && ev.queue_ == this, "descheduling an event that is not pending");
  const bool removed = pending_.remove(ev.when_, ev.order_);
  XPUSIM_CHECK(removed, "pending event missing from the queue");
  ev.order_ = 0;
}

void EventQueue::post(Tick when, std::function<void()> fn, Priority prio) {
  PostedEvent* ev;
  if (posted_free_.empty()) {
    posted_pool_.push_back(std::make_unique<PostedEvent>(*this));
    ev = posted_pool_.back().get();
  } else {
    ev = posted_free_.back();
    posted_free_.pop_back();
  }
  ev->fn = std::move(fn);
  schedule(*ev, when, prio);
}

void EventQueue::fire(const PendingEntry& e) {
  e.event->order_ = 0;
  now_ = e.tick;
  ++processed_;
  e.event->process();
}

// A large model's events and the state they touch are scattered over megabytes (requests,
// warps, cache sets), so each is a host cache miss when it fires. Start loading them ahead: an
// event's object kObjectAhead places before it fires, then (the object now loaded) what it will
// touch, through its prefetch(), kStateAhead places before.
void EventQueue::prefetch_ahead() const {
  if (const Event* far = pending_.upcoming(kObjectAhead)) {
    prefetch(far);
    prefetch(reinterpret_cast<const char*>(far) + 64);
  }
  if (const Event* near = pending_.upcoming(kStateAhead)) near->prefetch();
}

StopReason EventQueue::run(Tick limit) {
  stop_requested_ = false;
  while (true) {
    const Tick next = pending_.empty() ? kMaxTick : pending_.top().tick;
    if (gated(next)) {
      gate_until_ = open_gates(next);
      continue;
    }
    if (pending_.empty()) break;
    if (next > limit) {
      now_ = limit;
      open_gates();  // nothing left in flight on another thread between runs
      return StopReason::kTickLimit;
    }
    fire(pending_.pop_top());
    // After firing, where the queue is reloaded anyway: the loop stays lean for small models.
    if (pending_.size() >= kPrefetchMinPending) prefetch_ahead();
    if (stop_requested_) {
      stop_requested_ = false;
      open_gates();
      return StopReason::kStopped;
    }
  }
  return StopReason::kDrained;
}

Tick EventQueue::open_gates(Tick next) {
  Tick until = kMaxTick;
  for (Gate* g : gates_)
    until = std::min(until, g->open(next));
  return until;
}

bool EventQueue::step() {
  while (gated(pending_.empty() ? kMaxTick : pending_.top().tick))
    gate_until_ = open_gates(pending_.empty() ? kMaxTick : pending_.top().tick);
  if (pending_.empty()) return false;
  fire(pending_.pop_top());
  return true;
}

}  // namespace xpusim::sim
