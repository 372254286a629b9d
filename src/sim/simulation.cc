#include "sim/simulation.h"

namespace xpusim::sim {

ProcessState::ProcessState(Simulation& sim, std::string name)
    : sim_(sim), name_(std::move(name)), finished_(sim.events()) {}

Trigger::Awaiter ProcessHandle::join() {
  return state_->finished_.wait();
}

void process_finished(ProcessState& state, std::exception_ptr error) noexcept {
  // Keep the state alive while it leaves the live list (which may hold the last reference).
  std::shared_ptr<ProcessState> keep = *state.live_pos_;
  Simulation& sim = state.sim_;
  sim.live_.erase(state.live_pos_);
  state.handle_ = {};
  state.done_ = true;
  state.error_ = error;
  if (error && !sim.first_error_) {
    sim.first_error_ = error;
    sim.queue_.stop();
  }
  state.finished_.fire();
}

Simulation::Simulation(std::uint64_t seed) : seed_(seed) {}

Simulation::~Simulation() {
  shutdown();
}

ProcessHandle Simulation::spawn(Task<> task, std::string name) {
  XPUSIM_CHECK(task.valid(), "spawning an empty task");
  auto state = std::make_shared<ProcessState>(*this, std::move(name));
  auto handle = task.release();
  handle.promise().process = state.get();
  state->handle_ = handle;
  state->starter_.handle = handle;
  live_.push_back(state);
  state->live_pos_ = std::prev(live_.end());
  queue_.schedule(state->starter_, queue_.now());
  return ProcessHandle(std::move(state));
}

StopReason Simulation::run(Tick limit) {
  const StopReason reason = queue_.run(limit);
  if (first_error_) std::rethrow_exception(std::exchange(first_error_, nullptr));
  return reason;
}

std::vector<std::string> Simulation::live_process_names() const {
  std::vector<std::string> names;
  names.reserve(live_.size());
  for (const auto& p : live_)
    names.push_back(p->name());
  return names;
}

void Simulation::shutdown() {
  // Newest first: a later process may wait on an earlier one, never the other way round.
  while (!live_.empty()) {
    std::shared_ptr<ProcessState> p = live_.back();
    live_.pop_back();
    if (p->starter_.scheduled()) queue_.deschedule(p->starter_);
    auto h = std::exchange(p->handle_, {});
    if (h) h.destroy();
  }
}

}  // namespace xpusim::sim
