// Simulation: the context object every component hangs off (STYLE.md item 5, no globals):
// the event queue, the stats registry, the tracer, the seed, and the root processes.
// Two Simulations in one process are fully independent.
#pragma once

#include <cstdint>
#include <exception>
#include <list>
#include <memory>
#include <string>

#include "sim/event_queue.h"
#include "sim/stats.h"
#include "sim/sync.h"
#include "sim/task.h"
#include "sim/timer.h"
#include "sim/trace.h"

namespace xpusim::sim {

class Simulation;

// A spawned root task. Owned jointly by the Simulation (while it runs) and its handles.
class ProcessState {
 public:
  ProcessState(Simulation& sim, std::string name);
  const std::string& name() const { return name_; }
  bool done() const { return done_; }
  const std::exception_ptr& error() const { return error_; }

 private:
  friend class Simulation;
  friend class ProcessHandle;
  friend void process_finished(ProcessState&, std::exception_ptr) noexcept;

  class Starter final : public Event {
   public:
    std::coroutine_handle<> handle;

   protected:
    void process() override { handle.resume(); }
  };

  Simulation& sim_;
  std::string name_;
  std::coroutine_handle<> handle_;  // valid while the frame is alive
  Starter starter_;
  Trigger finished_;
  std::exception_ptr error_;
  bool done_ = false;
  std::list<std::shared_ptr<ProcessState>>::iterator live_pos_;
};

class ProcessHandle {
 public:
  ProcessHandle() = default;
  explicit ProcessHandle(std::shared_ptr<ProcessState> s) : state_(std::move(s)) {}
  bool valid() const { return state_ != nullptr; }
  bool done() const { return state_->done(); }
  const std::string& name() const { return state_->name(); }
  // Awaitable: resumes once the process has returned (at once if it already has).
  Trigger::Awaiter join();

 private:
  std::shared_ptr<ProcessState> state_;
};

class Simulation {
 public:
  explicit Simulation(std::uint64_t seed = 1);
  ~Simulation();
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  EventQueue& events() { return queue_; }
  StatsRegistry& stats() { return stats_; }
  Tracer& tracer() { return tracer_; }
  std::uint64_t seed() const { return seed_; }
  Tick now() const { return queue_.now(); }

  // Takes the task over; it starts at the current tick, after the events already queued.
  ProcessHandle spawn(Task<> task, std::string name);
  // Runs until the queue drains, `limit` is reached, or stop(). If a process threw, the run
  // stops at that point and the first such exception is rethrown here.
  StopReason run(Tick limit = kMaxTick);
  void stop() { queue_.stop(); }

  WakeAt delay(Tick d) { return WakeAt(queue_, queue_.now() + d); }
  WakeAt at(Tick t) { return WakeAt(queue_, t); }

  // Processes spawned and not yet returned (e.g. blocked forever on a barrier).
  std::size_t live_processes() const { return live_.size(); }
  std::vector<std::string> live_process_names() const;
  // Destroys every suspended process frame (the destructor does this too).
  void shutdown();

 private:
  friend void process_finished(ProcessState&, std::exception_ptr) noexcept;

  EventQueue queue_;
  StatsRegistry stats_;
  Tracer tracer_;
  std::uint64_t seed_;
  std::list<std::shared_ptr<ProcessState>> live_;
  std::exception_ptr first_error_;
};

}  // namespace xpusim::sim
