#include "sim/event_queue.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace xpusim::sim {
namespace {

class Recorder final : public Event {
 public:
  Recorder(std::vector<std::string>& log, std::string name) : log_(log), name_(std::move(name)) {}

 protected:
  void process() override { log_.push_back(name_); }

 private:
  std::vector<std::string>& log_;
  std::string name_;
};

TEST(EventQueue, OrdersByTickThenPriorityThenInsertion) {
  EventQueue q;
  std::vector<std::string> log;
  Recorder a(log, "a"), b(log, "b"), c(log, "c"), d(log, "d"), e(log, "e");
  q.schedule(a, 20);
  q.schedule(b, 10, kPriorityLast);
  q.schedule(c, 10);
  q.schedule(d, 10, kPriorityFirst);
  q.schedule(e, 10);  // same tick and priority as c, inserted later
  EXPECT_EQ(q.run(), StopReason::kDrained);
  EXPECT_EQ(log, (std::vector<std::string>{"d", "c", "e", "b", "a"}));
  EXPECT_EQ(q.now(), 20u);
  EXPECT_EQ(q.processed(), 5u);
}

TEST(EventQueue, DescheduledEventNeverFires) {
  EventQueue q;
  std::vector<std::string> log;
  Recorder a(log, "a"), b(log, "b");
  q.schedule(a, 5);
  q.schedule(b, 6);
  q.deschedule(a);
  EXPECT_FALSE(a.scheduled());
  EXPECT_EQ(q.pending(), 1u);
  q.run();
  EXPECT_EQ(log, std::vector<std::string>{"b"});
}

TEST(EventQueue, RescheduleMovesTheEvent) {
  EventQueue q;
  std::vector<std::string> log;
  Recorder a(log, "a"), b(log, "b");
  q.schedule(a, 5);
  q.schedule(b, 7);
  q.reschedule(a, 9);
  q.run();
  EXPECT_EQ(log, (std::vector<std::string>{"b", "a"}));
  EXPECT_EQ(q.now(), 9u);
}

TEST(EventQueue, DestroyingAPendingEventCancelsIt) {
  EventQueue q;
  std::vector<std::string> log;
  {
    Recorder gone(log, "gone");
    q.schedule(gone, 3);
  }
  EXPECT_TRUE(q.empty());
  q.run();
  EXPECT_TRUE(log.empty());
}

TEST(EventQueue, RunStopsAtTickLimitAndAdvancesTime) {
  EventQueue q;
  std::vector<std::string> log;
  Recorder a(log, "a"), b(log, "b");
  q.schedule(a, 10);
  q.schedule(b, 30);
  EXPECT_EQ(q.run(20), StopReason::kTickLimit);
  EXPECT_EQ(log, std::vector<std::string>{"a"});
  EXPECT_EQ(q.now(), 20u);
  EXPECT_EQ(q.run(), StopReason::kDrained);
  EXPECT_EQ(log.back(), "b");
}

TEST(EventQueue, StopFromInsideAnEvent) {
  EventQueue q;
  int fired = 0;
  q.post(1, [&] {
    ++fired;
    q.stop();
  });
  q.post(2, [&] { ++fired; });
  EXPECT_EQ(q.run(), StopReason::kStopped);
  EXPECT_EQ(fired, 1);
  EXPECT_EQ(q.run(), StopReason::kDrained);
  EXPECT_EQ(fired, 2);
}

TEST(EventQueue, PostedCallbacksMayPostAgain) {
  EventQueue q;
  std::vector<Tick> at;
  std::function<void()> again = [&] {
    at.push_back(q.now());
    if (at.size() < 4) q.post(q.now() + 5, again);
  };
  q.post(0, again);
  q.run();
  EXPECT_EQ(at, (std::vector<Tick>{0, 5, 10, 15}));
}

TEST(EventQueue, SchedulingInThePastDies) {
  EXPECT_DEATH(
      {
        EventQueue q;
        q.post(10, [] {});
        q.run();
        q.post(5, [] {});
      },
      "in the past");
}

// The heap against a naive reference: a random mix of schedules and cancels must come out
// in exactly the (tick, priority, sequence) order a sorted list gives.
TEST(EventQueue, MatchesSortedReferenceUnderRandomLoad) {
  struct Ref {
    Tick tick;
    int prio;
    int seq;
  };
  std::mt19937_64 gen(42);
  EventQueue q;
  std::vector<int> order;
  std::vector<std::unique_ptr<CallbackEvent>> events;
  std::vector<Ref> ref;
  std::vector<bool> canceled;
  for (int i = 0; i < 2000; ++i) {
    const Tick t = gen() % 500;
    const int prio = static_cast<int>(gen() % 3) - 1;
    events.push_back(std::make_unique<CallbackEvent>([&order, i] { order.push_back(i); }));
    q.schedule(*events.back(), t, static_cast<Priority>(prio));
    ref.push_back({t, prio, i});
    canceled.push_back(false);
  }
  for (int i = 0; i < 2000; i += 7) {
    q.deschedule(*events[i]);
    canceled[i] = true;
  }
  q.run();
  std::vector<Ref> sorted;
  for (const Ref& r : ref) {
    if (!canceled[r.seq]) sorted.push_back(r);
  }
  std::stable_sort(sorted.begin(), sorted.end(), [](const Ref& a, const Ref& b) {
    return a.tick != b.tick ? a.tick < b.tick : a.prio < b.prio;
  });
  ASSERT_EQ(order.size(), sorted.size());
  for (std::size_t i = 0; i < sorted.size(); ++i)
    EXPECT_EQ(order[i], sorted[i].seq) << i;
}

// An event whose order is taken when it is issued and that is scheduled later fires among
// the others as if it had been scheduled then (what the memory worker's completions rely on).
TEST(EventQueue, AReservedOrderFiresAsIfScheduledWhenReserved) {
  EventQueue q;
  std::vector<std::string> log;
  Recorder a(log, "a"), b(log, "b"), c(log, "c");
  q.schedule(a, 10);
  const std::uint64_t order = q.reserve_order();
  q.schedule(c, 10);
  q.schedule_reserved(b, 10, order);
  q.run();
  EXPECT_EQ(log, (std::vector<std::string>{"a", "b", "c"}));
}

// A gate that, when opened, schedules what it holds (as a second thread's results would be).
class HeldEvents final : public Gate {
 public:
  explicit HeldEvents(EventQueue& q) : q_(q) { q_.add_gate(*this); }
  ~HeldEvents() { q_.remove_gate(*this); }
  // `e` will fire at `when`, in the order reserved now; nothing is known before `bound`.
  void hold(Event& e, Tick when, Tick bound) {
    held_.push_back({&e, when, q_.reserve_order()});
    bounds_.push_back(bound);
    q_.narrow_gate(bound);
  }
  Tick open(Tick next) override {
    opened_at.push_back(next);
    for (const Held& h : held_)
      q_.schedule_reserved(*h.event, h.when, h.order);
    held_.clear();
    bounds_.clear();
    return kMaxTick;
  }
  std::vector<Tick> opened_at;

 private:
  struct Held {
    Event* event;
    Tick when;
    std::uint64_t order;
  };
  EventQueue& q_;
  std::vector<Held> held_;
  std::vector<Tick> bounds_;
};

TEST(EventQueue, AGateOpensBeforeTheFirstEventAtOrAfterItsBound) {
  EventQueue q;
  HeldEvents gate(q);
  std::vector<std::string> log;
  Recorder early(log, "early"), at_bound(log, "at_bound"), held(log, "held"), late(log, "late");
  q.schedule(early, 5);
  q.schedule(at_bound, 10);
  gate.hold(held, 10, 10);  // reserved after at_bound: fires after it
  q.schedule(late, 10);     // and before this one
  q.run();
  EXPECT_EQ(log, (std::vector<std::string>{"early", "at_bound", "held", "late"}));
  EXPECT_EQ(gate.opened_at, std::vector<Tick>{10});
}

TEST(EventQueue, AnEmptyQueueWaitsForItsGatesBeforeItDrains) {
  EventQueue q;
  HeldEvents gate(q);
  std::vector<std::string> log;
  Recorder held(log, "held");
  gate.hold(held, 7, 3);
  EXPECT_EQ(q.run(), StopReason::kDrained);
  EXPECT_EQ(log, std::vector<std::string>{"held"});
  EXPECT_EQ(gate.opened_at, std::vector<Tick>{kMaxTick});
  EXPECT_EQ(q.now(), 7u);
  // step() asks the gate as run() does.
  Recorder again(log, "again");
  gate.hold(again, 9, 8);
  EXPECT_TRUE(q.step());
  EXPECT_EQ(log.back(), "again");
  EXPECT_FALSE(q.step());
}

TEST(EventQueue, RunDeliversWhatItsGatesHoldWhenItStopsAtALimit) {
  EventQueue q;
  HeldEvents gate(q);
  std::vector<std::string> log;
  Recorder held(log, "held"), later(log, "later");
  q.schedule(later, 100);
  gate.hold(held, 160, 150);  // beyond the next event: run() has no need to open it
  EXPECT_EQ(q.run(20), StopReason::kTickLimit);
  EXPECT_TRUE(log.empty());
  EXPECT_EQ(q.pending(), 2u) << "the held event is scheduled, nothing is left behind the gate";
  q.run();
  EXPECT_EQ(log, (std::vector<std::string>{"later", "held"}));
}

}  // namespace
}  // namespace xpusim::sim
