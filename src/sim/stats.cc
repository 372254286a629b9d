#include "sim/stats.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>

#include <fmt/format.h>

#include "sim/suggest.h"

namespace xpusim::sim {

// ---- Stat ----------------------------------------------------------------------------------

Stat::Stat(StatsRegistry& reg, std::string owner_path, std::string name, std::string unit,
           std::string description)
    : reg_(&reg),
      meta_(std::make_unique<const Meta>(Meta{.owner_path = std::move(owner_path),
                                              .name = std::move(name),
                                              .unit = std::move(unit),
                                              .description = std::move(description)})) {
  XPUSIM_CHECK(!meta_->name.empty(), "a stat needs a non-empty name");
  reg.add(*this);
}

Stat::~Stat() {
  if (reg_) reg_->remove(*this);
}

std::string Stat::full_path() const {
  return meta_->owner_path.empty() ? meta_->name : meta_->owner_path + "." + meta_->name;
}

nlohmann::json Stat::base_json(nlohmann::json value) const {
  nlohmann::json j = nlohmann::json::object();
  j["value"] = std::move(value);
  j["unit"] = meta_->unit;
  j["description"] = meta_->description;
  return j;
}

// ---- stat kinds ----------------------------------------------------------------------------

nlohmann::json Counter::to_json() const {
  return base_json(value_);
}

namespace {
// Whether `to` is a later tally of the stat `from` is of: `counts` counts and `sums` sums each,
// no count gone down (a reset between them).
bool grew(const StatTally& from, const StatTally& to, std::size_t counts, std::size_t sums) {
  if (from.counts.size() != counts || to.counts.size() != counts || from.sums.size() != sums ||
      to.sums.size() != sums) {
    return false;
  }
  for (std::size_t i = 0; i < counts; ++i) {
    if (to.counts[i] < from.counts[i]) return false;
  }
  return true;
}
std::uint64_t count_gain(const StatTally& from, const StatTally& to, std::size_t i,
                         std::uint64_t times) {
  return (to.counts[i] - from.counts[i]) * times;
}
double sum_gain(const StatTally& from, const StatTally& to, std::size_t i, std::uint64_t times) {
  return (to.sums[i] - from.sums[i]) * static_cast<double>(times);
}
}  // namespace

void Counter::repeat(const StatTally& from, const StatTally& to, std::uint64_t times) {
  if (grew(from, to, 1, 0)) value_ += count_gain(from, to, 0, times);
}

nlohmann::json Scalar::to_json() const {
  return base_json(value_);
}

nlohmann::json Average::to_json() const {
  nlohmann::json j = base_json(mean());
  j["count"] = s_.count;
  j["min"] = min();
  j["max"] = max();
  return j;
}

void Average::tally(StatTally& out) const {
  out.counts.push_back(s_.count);
  out.sums.push_back(s_.sum);
}

void Average::repeat(const StatTally& from, const StatTally& to, std::uint64_t times) {
  if (!grew(from, to, 1, 1)) return;
  s_.count += count_gain(from, to, 0, times);
  s_.sum += sum_gain(from, to, 0, times);
}

Histogram::Histogram(StatsRegistry& reg, std::string owner_path, std::string name, std::string unit,
                     std::string description, double lo, double hi, std::size_t buckets)
    : Stat(reg, std::move(owner_path), std::move(name), std::move(unit), std::move(description)),
      lo_(lo),
      hi_(hi),
      scale_(static_cast<double>(buckets) / (hi - lo)),
      buckets_(buckets, 0) {
  XPUSIM_CHECK(buckets > 0, "a histogram needs at least one bucket");
  XPUSIM_CHECK(lo < hi, "a histogram needs lo < hi");
}

nlohmann::json Histogram::to_json() const {
  nlohmann::json j = base_json(total_);
  j["lo"] = lo_;
  j["hi"] = hi_;
  j["bucket_width"] = bucket_width();
  j["buckets"] = buckets_;
  j["underflow"] = underflow_;
  j["overflow"] = overflow_;
  j["mean"] = mean();
  return j;
}

void Histogram::reset() {
  std::fill(buckets_.begin(), buckets_.end(), 0);
  underflow_ = overflow_ = total_ = 0;
  sum_ = 0.0;
}

void Histogram::tally(StatTally& out) const {
  out.counts.assign(buckets_.begin(), buckets_.end());
  out.counts.push_back(underflow_);
  out.counts.push_back(overflow_);
  out.counts.push_back(total_);
  out.sums.push_back(sum_);
}

void Histogram::repeat(const StatTally& from, const StatTally& to, std::uint64_t times) {
  const std::size_t n = buckets_.size();
  if (!grew(from, to, n + 3, 1)) return;
  for (std::size_t i = 0; i < n; ++i)
    buckets_[i] += count_gain(from, to, i, times);
  underflow_ += count_gain(from, to, n, times);
  overflow_ += count_gain(from, to, n + 1, times);
  total_ += count_gain(from, to, n + 2, times);
  sum_ += sum_gain(from, to, 0, times);
}

TimeSeries::TimeSeries(StatsRegistry& reg, std::string owner_path, std::string name,
                       std::string unit, std::string description, Tick interval)
    : Stat(reg, std::move(owner_path), std::move(name), std::move(unit), std::move(description)),
      interval_(interval) {
  XPUSIM_CHECK(interval > 0, "a time series needs a non-zero interval");
}

void TimeSeries::grow(Tick index) {
  if (index >= kMaxIntervals) {
    const std::string msg = fmt::format(
        "time series '{}': sample at interval {} exceeds the limit of {} intervals; use a "
        "coarser interval",
        full_path(), index, kMaxIntervals);
    check_failed("index < kMaxIntervals", __FILE__, __LINE__, msg.c_str());
  }
  values_.resize(static_cast<std::size_t>(index) + 1, 0.0);
}

nlohmann::json TimeSeries::to_json() const {
  nlohmann::json j = base_json(values_);
  j["interval_ps"] = interval_;
  return j;
}

BoundedSeries::BoundedSeries(StatsRegistry& reg, std::string owner_path, std::string name,
                             std::string unit, std::string description, SeriesKind kind)
    : Stat(reg, std::move(owner_path), std::move(name), std::move(unit), std::move(description)),
      kind_(kind) {}

void BoundedSeries::coarsen(Tick at) {
  while ((at >> shift_) >= kIntervals) {
    const std::size_t n = values_.size();
    for (std::size_t i = 0; i < n; i += 2)
      values_[i / 2] = values_[i] + (i + 1 < n ? values_[i + 1] : 0.0);
    values_.resize((n + 1) / 2);
    ++shift_;
  }
}

void BoundedSeries::add_level(Tick from, Tick to, double level) {
  XPUSIM_CHECK(kind_ == SeriesKind::kLevel, "add_level on a series of sums");
  if (to <= from || level == 0) return;
  add(to - 1, 0.0);  // coarsens for the span's end first, so every piece below lands once
  while (from < to) {
    const Tick end = std::min(to, ((from >> shift_) + 1) << shift_);
    add(from, level * static_cast<double>(end - from));
    from = end;
  }
}

nlohmann::json BoundedSeries::to_json() const {
  nlohmann::json values = nlohmann::json::array();
  const double width = static_cast<double>(interval());
  const bool level = kind_ == SeriesKind::kLevel;
  for (double v : values_)
    values.push_back(level ? v / width : v);
  nlohmann::json j = base_json(std::move(values));
  j["interval_ps"] = interval();
  j["series"] = level ? "average" : "sum";
  return j;
}

Formula::Formula(StatsRegistry& reg, std::string owner_path, std::string name, std::string unit,
                 std::string description, std::function<double()> f)
    : Stat(reg, std::move(owner_path), std::move(name), std::move(unit), std::move(description)),
      f_(std::move(f)) {
  XPUSIM_CHECK(static_cast<bool>(f_), "a formula stat needs a function");
}

nlohmann::json Formula::to_json() const {
  return base_json(f_());
}

// ---- registry ------------------------------------------------------------------------------

StatsRegistry::~StatsRegistry() {
  for (auto& [path, stat] : stats_)
    stat->reg_ = nullptr;
}

void StatsRegistry::add(Stat& s) {
  auto [it, inserted] = stats_.emplace(s.full_path(), &s);
  if (!inserted) {
    const std::string msg = fmt::format("stat '{}' registered twice", it->first);
    check_failed("unique stat path", __FILE__, __LINE__, msg.c_str());
  }
}

void StatsRegistry::remove(const Stat& s) {
  auto it = stats_.find(s.full_path());
  if (it != stats_.end() && it->second == &s) stats_.erase(it);
}

void StatsRegistry::add_reader(const void* owner, std::function<void()> before_read) {
  readers_.emplace_back(owner, std::move(before_read));
}

void StatsRegistry::remove_reader(const void* owner) {
  std::erase_if(readers_, [owner](const auto& r) { return r.first == owner; });
}

Result<const Stat*> StatsRegistry::find(std::string_view full_path) const {
  before_read();
  if (auto it = stats_.find(full_path); it != stats_.end()) return it->second;
  // Suggest a near path (a typo, a wrong index) but not an unrelated one.
  const std::string* best = nullptr;
  std::size_t best_distance = std::max<std::size_t>(3, full_path.size() / 3) + 1;
  for (const auto& [path, stat] : stats_) {
    const std::size_t d = edit_distance(full_path, path);
    if (d < best_distance) {
      best_distance = d;
      best = &path;
    }
  }
  if (best) return Error{fmt::format("unknown stat '{}'; closest is '{}'", full_path, *best)};
  return Error{fmt::format("unknown stat '{}'", full_path)};
}

nlohmann::json StatsRegistry::to_json() const {
  before_read();
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [path, stat] : stats_)
    j[stat->owner_path()][stat->name()] = stat->to_json();
  return j;
}

std::string StatsRegistry::dump(int indent) const {
  return to_json().dump(indent) + "\n";
}

Status StatsRegistry::write_file(const std::filesystem::path& path,
                                 const nlohmann::json& header) const {
  nlohmann::json all = header;
  all.update(to_json());
  const std::string text = all.dump(2) + "\n";
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) {
    return Error{
        fmt::format("cannot write stats file '{}': {}", path.string(), std::strerror(errno))};
  }
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  out.close();
  if (!out) {
    return Error{
        fmt::format("cannot write stats file '{}': {}", path.string(), std::strerror(errno))};
  }
  return Ok{};
}

void StatsRegistry::reset_all() {
  before_read();
  for (auto& [path, stat] : stats_)
    stat->reset();
}

StatsSnapshot StatsRegistry::snapshot() const {
  before_read();
  StatsSnapshot out;
  for (const auto& [path, stat] : stats_) {
    StatTally t;
    stat->tally(t);
    if (!t.counts.empty() || !t.sums.empty()) out.emplace_hint(out.end(), path, std::move(t));
  }
  return out;
}

void StatsRegistry::repeat_interval(const StatsSnapshot& from, const StatsSnapshot& to,
                                    std::uint64_t times) {
  if (times == 0) return;
  before_read();
  for (auto& [path, stat] : stats_) {
    const auto f = from.find(path);
    const auto t = to.find(path);
    if (f != from.end() && t != to.end()) stat->repeat(f->second, t->second, times);
  }
}

std::vector<std::string> StatsRegistry::paths() const {
  std::vector<std::string> out;
  out.reserve(stats_.size());
  for (const auto& [path, stat] : stats_)
    out.push_back(path);
  return out;
}

}  // namespace xpusim::sim
