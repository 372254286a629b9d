// Component: a node of the hardware tree with a hierarchical name (`chip0.gpc3.sm17`).
// It owns its stats (registered under its path), its RNG stream and its trace track.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sim/rng.h"
#include "sim/simulation.h"
#include "sim/stats.h"
#include "sim/trace.h"

namespace xpusim::sim {

class Component {
 public:
  // A root component (e.g. `chip0`).
  Component(Simulation& sim, std::string_view name);
  // A child; `name` is one path segment: letters, digits and '_' only.
  Component(Component& parent, std::string_view name);
  virtual ~Component();
  Component(const Component&) = delete;
  Component& operator=(const Component&) = delete;

  const std::string& name() const { return name_; }
  const std::string& path() const { return path_; }
  Component* parent() const { return parent_; }
  const std::vector<Component*>& children() const { return children_; }

  Simulation& sim() const { return sim_; }
  EventQueue& events() const { return sim_.events(); }
  Tick now() const { return sim_.now(); }

  // This component's random stream: derived from the seed and the path only, so adding a
  // component elsewhere never changes another component's numbers.
  Rng& rng();
  // This component's trace track (kNoTrack when tracing is off or filtered out).
  TrackId trace_track();

  // Stats owned by this component, registered as `<path>.<name>`.
  Counter& add_counter(std::string name, std::string unit, std::string description);
  Scalar& add_scalar(std::string name, std::string unit, std::string description);
  Average& add_average(std::string name, std::string unit, std::string description);
  Histogram& add_histogram(std::string name, std::string unit, std::string description, double lo,
                           double hi, std::size_t buckets);
  TimeSeries& add_time_series(std::string name, std::string unit, std::string description,
                              Tick interval);
  BoundedSeries& add_series(std::string name, std::string unit, std::string description,
                            SeriesKind kind = SeriesKind::kSum);
  Formula& add_formula(std::string name, std::string unit, std::string description,
                       std::function<double()> fn);

 private:
  template <class S, class... Args>
  S& own(Args&&... args);
  // Stats live side by side in blocks of this component's own (an event bumps a few of them:
  // one host cache line rather than one each); destroyed in place, the blocks freed after.
  struct DestroyStat {
    void operator()(Stat* s) const { s->~Stat(); }
  };
  void* stat_storage(std::size_t bytes, std::size_t align);

  Simulation& sim_;
  Component* parent_ = nullptr;
  std::string name_;
  std::string path_;
  std::vector<Component*> children_;
  std::vector<std::unique_ptr<std::byte[]>> stat_blocks_;
  std::size_t stat_block_used_ = 0;
  std::vector<std::unique_ptr<Stat, DestroyStat>> stats_;  // after the blocks: destroyed first
  std::unique_ptr<Rng> rng_;
  TrackId track_ = kNoTrack;
  bool track_requested_ = false;
};

}  // namespace xpusim::sim
