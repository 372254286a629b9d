// Synchronisation awaitables for coroutine tasks:
//   Signal    — condition-variable style: wait(); notify_one() / notify_all().
//   Trigger   — a latch: once fired, every present and future wait() passes until reset().
//   Semaphore — counting resource with FIFO grants: acquire(n) / try_acquire(n) / release(n).
// Woken waiters resume through the event queue at the current tick (never re-entrantly from
// inside notify/release), in the order they were woken, so runs stay deterministic.
// Every waiter node lives in the waiting coroutine's frame: no allocation per wait.
#pragma once

#include <coroutine>
#include <cstddef>
#include <cstdint>

#include "sim/event_queue.h"

namespace xpusim::sim {

class WaitList;

// A suspended coroutine parked in a WaitList, later scheduled as an Event to resume it.
class WaitNode : public Event {
 public:
  ~WaitNode() override;

 protected:
  void process() override { handle_.resume(); }
  std::coroutine_handle<> handle_;

 private:
  friend class WaitList;
  WaitNode* prev_ = nullptr;
  WaitNode* next_ = nullptr;
  WaitList* list_ = nullptr;
};

// Intrusive FIFO of WaitNodes. Destroying the list detaches its nodes (and vice versa), so
// either side may go first at teardown.
class WaitList {
 public:
  WaitList() = default;
  WaitList(const WaitList&) = delete;
  WaitList& operator=(const WaitList&) = delete;
  ~WaitList();

  void push_back(WaitNode& n);
  WaitNode* front() const { return head_; }
  WaitNode* pop_front();
  void remove(WaitNode& n);
  bool empty() const { return head_ == nullptr; }
  std::size_t size() const { return size_; }

 private:
  WaitNode* head_ = nullptr;
  WaitNode* tail_ = nullptr;
  std::size_t size_ = 0;
};

inline WaitNode::~WaitNode() {
  if (list_ != nullptr) list_->remove(*this);
}

class Signal {
 public:
  explicit Signal(EventQueue& queue) : queue_(queue) {}

  class Awaiter final : public WaitNode {
   public:
    explicit Awaiter(Signal& s) : signal_(s) {}
    bool await_ready() const noexcept { return false; }
    void await_suspend(std::coroutine_handle<> h) {
      handle_ = h;
      signal_.waiters_.push_back(*this);
    }
    void await_resume() const noexcept {}

   private:
    Signal& signal_;
  };

  Awaiter wait() { return Awaiter(*this); }
  // Wakes the longest waiter; returns false when nobody waited (the notification is lost,
  // as with a condition variable).
  bool notify_one();
  std::size_t notify_all();
  std::size_t waiting() const { return waiters_.size(); }

 private:
  EventQueue& queue_;
  WaitList waiters_;
};

class Trigger {
 public:
  explicit Trigger(EventQueue& queue) : queue_(queue) {}

  class Awaiter final : public WaitNode {
   public:
    explicit Awaiter(Trigger& t) : trigger_(t) {}
    bool await_ready() const noexcept { return trigger_.fired_; }
    void await_suspend(std::coroutine_handle<> h) {
      handle_ = h;
      trigger_.waiters_.push_back(*this);
    }
    void await_resume() const noexcept {}

   private:
    Trigger& trigger_;
  };

  Awaiter wait() { return Awaiter(*this); }
  void fire();
  void reset() { fired_ = false; }
  bool fired() const { return fired_; }
  std::size_t waiting() const { return waiters_.size(); }

 private:
  EventQueue& queue_;
  WaitList waiters_;
  bool fired_ = false;
};

class Semaphore {
 public:
  Semaphore(EventQueue& queue, std::uint64_t initial) : queue_(queue), available_(initial) {}

  class Awaiter final : public WaitNode {
   public:
    Awaiter(Semaphore& s, std::uint64_t n) : sem_(s), n_(n) {}
    // FIFO: a request never overtakes one already waiting, even if it would fit.
    bool await_ready() noexcept {
      if (!sem_.waiters_.empty() || sem_.available_ < n_) return false;
      sem_.available_ -= n_;
      return true;
    }
    void await_suspend(std::coroutine_handle<> h) {
      handle_ = h;
      sem_.waiters_.push_back(*this);
    }
    void await_resume() const noexcept {}

   private:
    friend class Semaphore;
    Semaphore& sem_;
    std::uint64_t n_;
  };

  Awaiter acquire(std::uint64_t n = 1) { return Awaiter(*this, n); }
  bool try_acquire(std::uint64_t n = 1);
  // Returns units and grants them to waiters in FIFO order while the head request fits.
  void release(std::uint64_t n = 1);
  std::uint64_t available() const { return available_; }
  std::size_t waiting() const { return waiters_.size(); }

 private:
  EventQueue& queue_;
  WaitList waiters_;
  std::uint64_t available_;
};

}  // namespace xpusim::sim
