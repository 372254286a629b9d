#include "mem/hbm_load.h"

#include <algorithm>
#include <cmath>

#include "sim/result.h"

namespace xpusim::mem {

HbmLoad::HbmLoad(const HbmLoadCurves& curves, std::uint64_t bytes_per_s)
    : reads_(ticks(curves.reads)),
      mixed_(ticks(curves.mixed)),
      writes_(ticks(curves.writes)),
      window_(curves.window),
      window_bytes_(static_cast<double>(bytes_per_s) * static_cast<double>(curves.window) /
                    static_cast<double>(sim::kSecond)) {
  XPUSIM_CHECK(curves.window > 0, "an HBM load window of 0");
}

HbmLoad::Curve HbmLoad::ticks(const std::vector<std::uint32_t>& ns) {
  XPUSIM_CHECK(ns.size() == kPoints, "an HBM load curve needs 9 points");
  Curve c{};
  for (std::size_t i = 0; i < kPoints; ++i)
    c[i + 1] = static_cast<double>(ns[i]) * static_cast<double>(sim::kNanosecond);
  return c;
}

double HbmLoad::at_load(const Curve& c, double load) {
  const double x = std::clamp(load * 10, 0.0, static_cast<double>(kPoints));  // beyond 90 %: held
  const auto i = std::min(static_cast<std::size_t>(x), kPoints - 1);
  return c[i] + (c[i + 1] - c[i]) * (x - static_cast<double>(i));
}

void HbmLoad::advance(sim::Tick at) {
  const std::uint64_t index = at / window_;
  if (index <= window_index_) return;
  const bool next = index == window_index_ + 1;
  prev_read_ = next ? cur_read_ : 0;
  prev_write_ = next ? cur_write_ : 0;
  cur_read_ = cur_write_ = 0;
  window_index_ = index;
}

void HbmLoad::add(sim::Tick at, std::uint64_t bytes, bool write) {
  advance(at);
  (write ? cur_write_ : cur_read_) += static_cast<double>(bytes);
}

sim::Tick HbmLoad::extra(sim::Tick at) {
  advance(at);
  // The last window's bytes: the current one's and the part of the one before that it still
  // covers (a booking older than the current window reads it as just begun).
  const sim::Tick start = window_index_ * window_;
  const double into =
      at > start ? static_cast<double>(at - start) / static_cast<double>(window_) : 0.0;
  const double reads = cur_read_ + prev_read_ * (1 - into);
  const double writes = cur_write_ + prev_write_ * (1 - into);
  const double total = reads + writes;
  if (total <= 0) return 0;
  const double load = total / window_bytes_;
  const double share = writes / total;  // 0: reads alone, 0.5: even, 1: writes alone
  const double lo = share <= 0.5 ? at_load(reads_, load) : at_load(mixed_, load);
  const double hi = share <= 0.5 ? at_load(mixed_, load) : at_load(writes_, load);
  const double t = share <= 0.5 ? 2 * share : 2 * share - 1;
  return static_cast<sim::Tick>(std::llround(lo + (hi - lo) * t));
}

}  // namespace xpusim::mem
