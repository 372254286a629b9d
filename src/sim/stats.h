// Stats registry (STYLE.md item 12): named stats in a tree that mirrors the hardware
// (`chip0.gpc3.sm17.tma.requests`), each with a unit and description, dumped as JSON.
// Asking for a stat that does not exist is an error, never a silent 0.
//
// A stat registers itself in its constructor and unregisters in its destructor, so it lives as a
// member of the component that owns it. Not thread-safe: one registry per simulated partition.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/result.h"
#include "sim/tick.h"

namespace xpusim::sim {

class StatsRegistry;

// The part of a stat that grows with the work simulated (counts and sums), copied out so that
// an interval can be repeated (StatsRegistry::repeat_interval): wave sampling stands the
// waves it skips in by the last steady one.
struct StatTally {
  std::vector<std::uint64_t> counts;
  std::vector<double> sums;
};

class Stat {
 public:
  Stat(StatsRegistry& reg, std::string owner_path, std::string name, std::string unit,
       std::string description);
  virtual ~Stat();
  Stat(const Stat&) = delete;
  Stat& operator=(const Stat&) = delete;

  const std::string& owner_path() const { return meta_->owner_path; }
  const std::string& name() const { return meta_->name; }
  std::string full_path() const;  // "owner.name", or "name" when the owner path is empty
  const std::string& unit() const { return meta_->unit; }
  const std::string& description() const { return meta_->description; }

  // At least {"value": .., "unit": .., "description": ..}.
  virtual nlohmann::json to_json() const = 0;
  virtual void reset() = 0;
  // Counters, averages and histograms tally; levels (Scalar), time series (tied to the
  // simulated timeline) and formulas (derived when dumped) keep nothing and are not repeated.
  virtual void tally(StatTally& /*out*/) const {}
  // Adds `times` x (to - from): what the stat gained between two tallies of its own.
  virtual void repeat(const StatTally& /*from*/, const StatTally& /*to*/, std::uint64_t /*times*/) {
  }

 protected:
  nlohmann::json base_json(nlohmann::json value) const;

 private:
  friend class StatsRegistry;
  // The names are read when stats are dumped, the values on every event: kept apart, a stat
  // is a few words, and a component's stats share host cache lines (Component::own).
  struct Meta {
    std::string owner_path, name, unit, description;
  };
  StatsRegistry* reg_;  // null once the registry is gone
  std::unique_ptr<const Meta> meta_;
};

// Monotonic event count.
class Counter : public Stat {
 public:
  using Stat::Stat;
  void inc(std::uint64_t n = 1) { value_ += n; }
  Counter& operator++() {
    ++value_;
    return *this;
  }
  Counter& operator+=(std::uint64_t n) {
    value_ += n;
    return *this;
  }
  std::uint64_t value() const { return value_; }
  nlohmann::json to_json() const override;
  void reset() override { value_ = 0; }
  void tally(StatTally& out) const override { out.counts.push_back(value_); }
  void repeat(const StatTally& from, const StatTally& to, std::uint64_t times) override;

 private:
  std::uint64_t value_ = 0;
};

// A level that is set or accumulated (bytes resident, energy).
class Scalar : public Stat {
 public:
  using Stat::Stat;
  void set(double v) { value_ = v; }
  void add(double v) { value_ += v; }
  double value() const { return value_; }
  nlohmann::json to_json() const override;
  void reset() override { value_ = 0.0; }

 private:
  double value_ = 0.0;
};

// Weighted samples' sum, count, min and max: what an Average keeps, and what a caller keeps
// apart to merge into one later (Average::merge: a second host thread's share, for one).
struct Samples {
  double sum = 0.0;
  std::uint64_t count = 0;
  double min = std::numeric_limits<double>::infinity();
  double max = -std::numeric_limits<double>::infinity();
  void add(double v, std::uint64_t weight = 1) {
    if (weight == 0) return;
    sum += v * static_cast<double>(weight);
    count += weight;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  void merge(const Samples& o) {
    sum += o.sum;
    count += o.count;
    if (o.min < min) min = o.min;
    if (o.max > max) max = o.max;
  }
};

// Weighted mean with min and max. With no samples, mean/min/max read as 0 (see "count").
class Average : public Stat {
 public:
  using Stat::Stat;
  void sample(double v, std::uint64_t weight = 1) { s_.add(v, weight); }
  void merge(const Samples& other) { s_.merge(other); }
  double mean() const { return s_.count ? s_.sum / static_cast<double>(s_.count) : 0.0; }
  std::uint64_t count() const { return s_.count; }
  double min() const { return s_.count ? s_.min : 0.0; }
  double max() const { return s_.count ? s_.max : 0.0; }
  nlohmann::json to_json() const override;
  void reset() override { s_ = Samples{}; }
  // The count and the sum repeat; min and max stay what the simulated samples gave.
  void tally(StatTally& out) const override;
  void repeat(const StatTally& from, const StatTally& to, std::uint64_t times) override;

 private:
  Samples s_;
};

// Linear buckets over [lo, hi) plus underflow (v < lo, and NaN) and overflow (v >= hi).
class Histogram : public Stat {
 public:
  Histogram(StatsRegistry& reg, std::string owner_path, std::string name, std::string unit,
            std::string description, double lo, double hi, std::size_t buckets);
  void sample(double v, std::uint64_t weight = 1) {
    total_ += weight;
    sum_ += v * static_cast<double>(weight);
    if (!(v >= lo_)) {
      underflow_ += weight;
    } else if (v >= hi_) {
      overflow_ += weight;
    } else {
      // (v - lo) * n / (hi - lo) rather than / width: exact for integer-aligned edges.
      auto i = static_cast<std::size_t>((v - lo_) * scale_);
      buckets_[i < buckets_.size() ? i : buckets_.size() - 1] += weight;
    }
  }
  double lo() const { return lo_; }
  double hi() const { return hi_; }
  double bucket_width() const { return (hi_ - lo_) / static_cast<double>(buckets_.size()); }
  const std::vector<std::uint64_t>& buckets() const { return buckets_; }
  std::uint64_t underflow() const { return underflow_; }
  std::uint64_t overflow() const { return overflow_; }
  std::uint64_t count() const { return total_; }  // all samples, under/overflow included
  double mean() const { return total_ ? sum_ / static_cast<double>(total_) : 0.0; }
  nlohmann::json to_json() const override;
  void reset() override;
  void tally(StatTally& out) const override;
  void repeat(const StatTally& from, const StatTally& to, std::uint64_t times) override;

 private:
  double lo_;
  double hi_;
  double scale_;  // buckets / (hi - lo)
  std::vector<std::uint64_t> buckets_;
  std::uint64_t underflow_ = 0;
  std::uint64_t overflow_ = 0;
  std::uint64_t total_ = 0;
  double sum_ = 0.0;
};

// Per-interval sums: add(now, v) accumulates into bucket now / interval, so no periodic event
// is needed. Intervals with no samples read as 0.
class TimeSeries : public Stat {
 public:
  // Guards against a stray huge tick allocating gigabytes; a longer series needs a coarser
  // interval.
  static constexpr std::size_t kMaxIntervals = std::size_t{1} << 24;

  TimeSeries(StatsRegistry& reg, std::string owner_path, std::string name, std::string unit,
             std::string description, Tick interval);
  void add(Tick now, double v) {
    const Tick i = now / interval_;
    if (i >= values_.size()) grow(i);
    values_[i] += v;
  }
  Tick interval() const { return interval_; }
  const std::vector<double>& values() const { return values_; }
  nlohmann::json to_json() const override;
  void reset() override { values_.clear(); }

 private:
  void grow(Tick index);
  Tick interval_;
  std::vector<double> values_;
};

// A whole run's shape in fixed memory, for plots (the HTML report): sums per interval over at
// most kIntervals intervals. When a sample lands past the last one, neighbouring pairs merge
// and the interval doubles, so a run of any length fits and the result depends only on the
// samples. Intervals are powers of two ticks: add() is a shift, cheap enough for an SM's issue.
enum class SeriesKind : std::uint8_t {
  kSum,    // per-interval sums of add() (bytes moved, instructions issued)
  kLevel,  // a level held over spans (add_level): dumped as per-interval time averages
};

class BoundedSeries : public Stat {
 public:
  static constexpr std::size_t kIntervals = 1024;
  static constexpr unsigned kFirstShift = 10;  // 1.024 ns to start with

  BoundedSeries(StatsRegistry& reg, std::string owner_path, std::string name, std::string unit,
                std::string description, SeriesKind kind);
  void add(Tick at, double v) {
    if ((at >> shift_) >= kIntervals) coarsen(at);
    const std::size_t i = static_cast<std::size_t>(at >> shift_);
    if (i >= values_.size()) values_.resize(i + 1, 0.0);
    values_[i] += v;
  }
  // `level` held over [from, to) (a kLevel series): each interval gains level x its overlap in
  // ticks, so dumped divided by the interval it reads as the level's time average.
  void add_level(Tick from, Tick to, double level);
  Tick interval() const { return Tick{1} << shift_; }
  // Per-interval sums (a level series: time integrals), index i covering [i, i+1) x interval.
  const std::vector<double>& values() const { return values_; }
  nlohmann::json to_json() const override;
  void reset() override {
    values_.clear();
    shift_ = kFirstShift;
  }

 private:
  void coarsen(Tick at);
  unsigned shift_ = kFirstShift;
  SeriesKind kind_;
  std::vector<double> values_;
};

// A value derived from other stats or state, computed when dumped (hit rate, bandwidth).
class Formula : public Stat {
 public:
  Formula(StatsRegistry& reg, std::string owner_path, std::string name, std::string unit,
          std::string description, std::function<double()> f);
  double value() const { return f_(); }
  nlohmann::json to_json() const override;
  void reset() override {}

 private:
  std::function<double()> f_;
};

// Every tallying stat's tally by full path (StatsRegistry::snapshot).
using StatsSnapshot = std::map<std::string, StatTally, std::less<>>;

class StatsRegistry {
 public:
  StatsRegistry() = default;
  ~StatsRegistry();  // stats that outlive the registry are detached, not left dangling
  StatsRegistry(const StatsRegistry&) = delete;
  StatsRegistry& operator=(const StatsRegistry&) = delete;

  // Unknown path: an Error naming it, and the closest existing path when one is near.
  Result<const Stat*> find(std::string_view full_path) const;

  // {"<owner path>": {"<stat name>": {"value": .., "unit": .., "description": ..}, ..}, ..}
  nlohmann::json to_json() const;
  std::string dump(int indent = 2) const;
  // `header`'s top-level keys (e.g. "header", "host") are merged into the object beside the
  // owner paths.
  Status write_file(const std::filesystem::path& path,
                    const nlohmann::json& header = nlohmann::json::object()) const;

  void reset_all();
  // The tallies of every counter, average and histogram now.
  StatsSnapshot snapshot() const;
  // Adds to every stat `times` x what it gained from `from` to `to` (two snapshots, `to` the
  // later): the interval repeated, as if simulated `times` more times. Stats missing from either
  // snapshot, and counts that went down between them (a reset), are left alone.
  void repeat_interval(const StatsSnapshot& from, const StatsSnapshot& to, std::uint64_t times);
  std::size_t size() const { return stats_.size(); }
  std::vector<std::string> paths() const;  // sorted full paths

  // `before_read` runs before every read, reset or repeat of the stats (and before find()
  // returns): what a component whose stats another host thread updates uses to finish that
  // work first (mem::MemorySystem's worker). One per owner; remove it before the owner goes.
  void add_reader(const void* owner, std::function<void()> before_read);
  void remove_reader(const void* owner);

 private:
  void before_read() const {
    for (const auto& [owner, fn] : readers_)
      fn();
  }
  std::vector<std::pair<const void*, std::function<void()>>> readers_;
  friend class Stat;
  void add(Stat& s);
  void remove(const Stat& s);

  std::map<std::string, Stat*, std::less<>> stats_;  // by full path; sorted for determinism
};

}  // namespace xpusim::sim
