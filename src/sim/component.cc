#include "sim/component.h"

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <new>

namespace xpusim::sim {

namespace {
void check_segment(std::string_view name) {
  const bool ok = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
  });
  XPUSIM_CHECK(ok, "component names are one path segment of [A-Za-z0-9_]");
}
}  // namespace

Component::Component(Simulation& sim, std::string_view name) : sim_(sim), name_(name), path_(name) {
  check_segment(name);
}

Component::Component(Component& parent, std::string_view name)
    : sim_(parent.sim_), parent_(&parent), name_(name), path_(parent.path_ + "." + name_) {
  check_segment(name);
  for (const Component* c : parent.children_) {
    XPUSIM_CHECK(c->name_ != name_, "two children of one component share a name");
  }
  parent.children_.push_back(this);
}

Component::~Component() {
  if (parent_ != nullptr) std::erase(parent_->children_, this);
  for (Component* c : children_)
    c->parent_ = nullptr;
}

Rng& Component::rng() {
  if (!rng_) rng_ = std::make_unique<Rng>(Rng::for_stream(sim_.seed(), path_));
  return *rng_;
}

TrackId Component::trace_track() {
  if (!track_requested_) {
    track_ = sim_.tracer().track(path_);
    track_requested_ = true;
  }
  return track_;
}

void* Component::stat_storage(std::size_t bytes, std::size_t align) {
  constexpr std::size_t kBlock = 1024;
  std::size_t at = (stat_block_used_ + align - 1) / align * align;
  if (stat_blocks_.empty() || at + bytes > kBlock) {
    // Block storage from new[] is aligned for any object (max_align_t).
    stat_blocks_.push_back(std::make_unique<std::byte[]>(std::max(kBlock, bytes)));
    at = 0;
  }
  stat_block_used_ = at + bytes;
  return stat_blocks_.back().get() + at;
}

template <class S, class... Args>
S& Component::own(Args&&... args) {
  static_assert(alignof(S) <= alignof(std::max_align_t));
  void* at = stat_storage(sizeof(S), alignof(S));
  // A throwing constructor leaves the storage unused (it is the block's, freed with it).
  S* stat = new (at) S(sim_.stats(), path_, std::forward<Args>(args)...);
  stats_.emplace_back(stat);
  return *stat;
}

Counter& Component::add_counter(std::string name, std::string unit, std::string description) {
  return own<Counter>(std::move(name), std::move(unit), std::move(description));
}
Scalar& Component::add_scalar(std::string name, std::string unit, std::string description) {
  return own<Scalar>(std::move(name), std::move(unit), std::move(description));
}
Average& Component::add_average(std::string name, std::string unit, std::string description) {
  return own<Average>(std::move(name), std::move(unit), std::move(description));
}
Histogram& Component::add_histogram(std::string name, std::string unit, std::string description,
                                    double lo, double hi, std::size_t buckets) {
  return own<Histogram>(std::move(name), std::move(unit), std::move(description), lo, hi, buckets);
}
TimeSeries& Component::add_time_series(std::string name, std::string unit, std::string description,
                                       Tick interval) {
  return own<TimeSeries>(std::move(name), std::move(unit), std::move(description), interval);
}
BoundedSeries& Component::add_series(std::string name, std::string unit, std::string description,
                                     SeriesKind kind) {
  return own<BoundedSeries>(std::move(name), std::move(unit), std::move(description), kind);
}
Formula& Component::add_formula(std::string name, std::string unit, std::string description,
                                std::function<double()> fn) {
  return own<Formula>(std::move(name), std::move(unit), std::move(description), std::move(fn));
}

}  // namespace xpusim::sim
