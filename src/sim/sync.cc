#include "sim/sync.h"

#include "sim/result.h"

namespace xpusim::sim {

WaitList::~WaitList() {
  for (WaitNode* n = head_; n != nullptr;) {
    WaitNode* next = n->next_;
    n->list_ = nullptr;
    n->prev_ = n->next_ = nullptr;
    n = next;
  }
}

void WaitList::push_back(WaitNode& n) {
  XPUSIM_CHECK(n.list_ == nullptr, "waiter already parked");
  n.list_ = this;
  n.prev_ = tail_;
  n.next_ = nullptr;
  if (tail_ != nullptr) {
    tail_->next_ = &n;
  } else {
    head_ = &n;
  }
  tail_ = &n;
  ++size_;
}

WaitNode* WaitList::pop_front() {
  WaitNode* n = head_;
  if (n != nullptr) remove(*n);
  return n;
}

void WaitList::remove(WaitNode& n) {
  XPUSIM_CHECK(n.list_ == this, "waiter not in this list");
  (n.prev_ != nullptr ? n.prev_->next_ : head_) = n.next_;
  (n.next_ != nullptr ? n.next_->prev_ : tail_) = n.prev_;
  n.prev_ = n.next_ = nullptr;
  n.list_ = nullptr;
  --size_;
}

bool Signal::notify_one() {
  WaitNode* n = waiters_.pop_front();
  if (n == nullptr) return false;
  queue_.schedule(*n, queue_.now());
  return true;
}

std::size_t Signal::notify_all() {
  std::size_t woken = 0;
  while (WaitNode* n = waiters_.pop_front()) {
    queue_.schedule(*n, queue_.now());
    ++woken;
  }
  return woken;
}

void Trigger::fire() {
  fired_ = true;
  while (WaitNode* n = waiters_.pop_front())
    queue_.schedule(*n, queue_.now());
}

bool Semaphore::try_acquire(std::uint64_t n) {
  if (!waiters_.empty() || available_ < n) return false;
  available_ -= n;
  return true;
}

void Semaphore::release(std::uint64_t n) {
  available_ += n;
  while (!waiters_.empty()) {
    auto* head = static_cast<Awaiter*>(waiters_.front());
    if (head->n_ > available_) break;
    available_ -= head->n_;
    waiters_.pop_front();
    queue_.schedule(*head, queue_.now());
  }
}

}  // namespace xpusim::sim
