#include "sim/event_queue.h"

#include <algorithm>

namespace xpusim::sim {

namespace {
constexpr std::uint64_t kSequenceBits = 56;
constexpr std::uint64_t kSequenceMask = (std::uint64_t{1} << kSequenceBits) - 1;
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

EventQueue::EventQueue() {
  slots_.reserve(1024);
}

EventQueue::~EventQueue() {
  // Detach events that outlive the queue so their destructors do not touch it.
  for (Event* ev : slots_) {
    if (ev != nullptr) {
      ev->slot_ = Event::kNoSlot;
      ev->queue_ = nullptr;
    }
  }
}

std::uint32_t EventQueue::acquire_slot(Event* ev) {
  if (!free_slots_.empty()) {
    std::uint32_t s = free_slots_.back();
    free_slots_.pop_back();
    slots_[s] = ev;
    return s;
  }
  XPUSIM_CHECK(slots_.size() < Event::kNoSlot, "too many pending events");
  slots_.push_back(ev);
  return static_cast<std::uint32_t>(slots_.size() - 1);
}

void EventQueue::schedule(Event& ev, Tick when, Priority prio) {
  XPUSIM_CHECK(!ev.scheduled(), "event scheduled twice");
  XPUSIM_CHECK(when >= now_, "event scheduled in the past");
  ev.queue_ = this;
  ev.when_ = when;
  ev.slot_ = acquire_slot(&ev);
  const std::uint64_t order =
      (static_cast<std::uint64_t>(static_cast<std::uint8_t>(prio + 128)) << kSequenceBits) |
      (sequence_++ & kSequenceMask);
  pending_.push(PendingEntry{when, order, ev.slot_}, now_);
  ++live_;
}

void EventQueue::reschedule(Event& ev, Tick when, Priority prio) {
  if (ev.scheduled()) deschedule(ev);
  schedule(ev, when, prio);
}

void EventQueue::deschedule(Event& ev) {
  XPUSIM_CHECK(ev.scheduled() && ev.queue_ == this, "descheduling an event that is not pending");
  // The pending entry stays; it is skipped and its slot freed when it reaches the top.
  slots_[ev.slot_] = nullptr;
  ev.slot_ = Event::kNoSlot;
  --live_;
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

bool EventQueue::skip_canceled() {
  while (!pending_.empty() && slots_[pending_.top().slot] == nullptr) {
    free_slots_.push_back(pending_.top().slot);
    pending_.pop();
  }
  return !pending_.empty();
}

void EventQueue::fire_top() {
  const PendingEntry e = pending_.top();
  pending_.pop();
  Event* ev = slots_[e.slot];
  slots_[e.slot] = nullptr;
  free_slots_.push_back(e.slot);
  ev->slot_ = Event::kNoSlot;
  --live_;
  now_ = e.tick;
  ++processed_;
  ev->process();
}

StopReason EventQueue::run(Tick limit) {
  stop_requested_ = false;
  for (;;) {
    if (!skip_canceled()) return StopReason::kDrained;
    if (pending_.top().tick > limit) {
      now_ = limit;
      return StopReason::kTickLimit;
    }
    fire_top();
    if (stop_requested_) {
      stop_requested_ = false;
      return StopReason::kStopped;
    }
  }
}

bool EventQueue::step() {
  if (!skip_canceled()) return false;
  fire_top();
  return true;
}

}  // namespace xpusim::sim
