#include "mem/memory_worker.h"

#include "sim/result.h"

namespace xpusim::mem {

namespace {
// Spins before sleeping: each side is usually only microseconds behind the other, and a futex
// round trip costs about as much as timing a few accesses.
constexpr int kSpins = 4096;

void relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Waits until `a` differs from `seen` (or `stop`, for the worker).
void wait_change(const std::atomic<std::uint64_t>& a, std::uint64_t seen) {
  for (int i = 0; i < kSpins; ++i) {
    if (a.load(std::memory_order_acquire) != seen) return;
    relax();
  }
  a.wait(seen, std::memory_order_acquire);
}
}  // namespace

MemoryWorker::MemoryWorker(sim::EventQueue& queue, Handler& handler)
    : queue_(queue), handler_(handler), ring_(kSlots), thread_([this] { run(); }) {
  queue_.add_gate(*this);
}

MemoryWorker::~MemoryWorker() {
  queue_.remove_gate(*this);
  submit(nullptr, /*at=*/0, /*bound=*/sim::kMaxTick, /*arg=*/0, kStop);
  thread_.join();
}

void MemoryWorker::run() {
  std::uint64_t done = 0;
  while (true) {
    std::uint64_t to = submitted_.load(std::memory_order_acquire);
    if (done == to) {
      wait_change(submitted_, to);
      continue;
    }
    for (; done < to; ++done) {
      // Near the end of what was there, look again: jobs submitted since get their prefetch
      // hints ahead of their turn (the submitted count's line is the other thread's, so not
      // at every job).
      if (done + kPrefetchAhead[0] >= to) to = submitted_.load(std::memory_order_acquire);
      Job& j = ring_[done & (kSlots - 1)];
      if (j.kind == kStop) return;
      for (const unsigned ahead : kPrefetchAhead) {
        if (done + ahead < to) handler_.prefetch(ring_[(done + ahead) & (kSlots - 1)], ahead);
      }
      j.result = handler_.work(j);
      done_.store(done + 1, std::memory_order_release);
    }
    done_.notify_one();
  }
}

void MemoryWorker::submit(void* subject, sim::Tick at, sim::Tick bound, std::uint32_t arg,
                          std::uint8_t kind) {
  while (submitted_.load(std::memory_order_relaxed) - delivered_ == kSlots) {
    if (!deliver_done()) wait_done();
  }
  const std::uint64_t n = submitted_.load(std::memory_order_relaxed);
  Job& j = ring_[n & (kSlots - 1)];
  j.subject = subject;
  j.at = at;
  j.bound = bound;
  j.result = 0;
  j.arg = arg;
  j.kind = kind;
  submitted_.store(n + 1, std::memory_order_release);
  submitted_.notify_one();
  queue_.narrow_gate(bound);
}

bool MemoryWorker::deliver_done() {
  const std::uint64_t done = done_.load(std::memory_order_acquire);
  if (delivered_ == done) return false;
  for (std::uint64_t k = delivered_; k < done && k < delivered_ + kDeliverAhead; ++k)
    handler_.prefetch_deliver(ring_[k & (kSlots - 1)]);
  for (; delivered_ < done; ++delivered_) {
    if (delivered_ + kDeliverAhead < done)
      handler_.prefetch_deliver(ring_[(delivered_ + kDeliverAhead) & (kSlots - 1)]);
    const Job& j = ring_[delivered_ & (kSlots - 1)];
    XPUSIM_CHECK(j.result >= j.bound, "a memory access completed before its lookahead bound");
    handler_.deliver(j);
  }
  return true;
}

// done_ only moves away from delivered_: a wait that starts after the worker moved it returns
// at once.
void MemoryWorker::wait_done() {
  wait_change(done_, delivered_);
}

sim::Tick MemoryWorker::open(sim::Tick next) {
  while (true) {
    deliver_done();
    if (delivered_ == submitted_.load(std::memory_order_relaxed)) return sim::kMaxTick;
    const Job& front = ring_[delivered_ & (kSlots - 1)];
    if (front.bound > next) return front.bound;
    wait_done();
  }
}

void MemoryWorker::drain() {
  while (delivered_ != submitted_.load(std::memory_order_relaxed)) {
    if (!deliver_done()) wait_done();
  }
}

}  // namespace xpusim::mem
