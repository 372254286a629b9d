// WakeAt: the awaitable behind every delay. It is itself the Event, living in the waiting
// coroutine's frame, so a delay costs no allocation; destroying the frame cancels it.
#pragma once

#include <coroutine>

#include "sim/event_queue.h"

namespace xpusim::sim {

class WakeAt final : public Event {
 public:
  WakeAt(EventQueue& queue, Tick at, Priority prio = kPriorityDefault)
      : queue_(queue), at_(at), prio_(prio) {}

  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> h) {
    handle_ = h;
    queue_.schedule(*this, at_, prio_);
  }
  void await_resume() const noexcept {}

 protected:
  void process() override { handle_.resume(); }

 private:
  EventQueue& queue_;
  Tick at_;
  Priority prio_;
  std::coroutine_handle<> handle_;
};

}  // namespace xpusim::sim
