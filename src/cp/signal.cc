#include "cp/signal.h"

#include <utility>

namespace xpusim::cp {

bool Signal::holds(SignalCondition condition, Value value, Value compare) {
  switch (condition) {
    case SignalCondition::kEq:
      return value == compare;
    case SignalCondition::kNe:
      return value != compare;
    case SignalCondition::kLt:
      return value < compare;
    case SignalCondition::kGte:
      return value >= compare;
  }
  return false;
}

void Signal::store_release(Value v) {
  value_ = v;
  ++stores_;
  // Take the satisfied waiters out before running any: a callback may store again or register
  // new waiters, and must see a consistent list.
  std::vector<Waiter> ready;
  std::vector<Waiter> still;
  for (Waiter& w : waiters_) {
    (holds(w.condition, v, w.compare) ? ready : still).push_back(std::move(w));
  }
  waiters_ = std::move(still);
  std::vector<Callback> any = std::move(next_store_);
  next_store_.clear();
  for (Waiter& w : ready)
    w.cb(v);
  for (Callback& cb : any)
    cb(v);
}

void Signal::when(SignalCondition condition, Value compare, Callback cb) {
  if (holds(condition, value_, compare)) {
    cb(value_);
    return;
  }
  waiters_.push_back(Waiter{condition, compare, std::move(cb)});
}

}  // namespace xpusim::cp
