// HbmLoad: how much longer a channel's reads take at the load it has just carried, from
// bandwidth-latency curves measured on a real GPU (docs/memory-hierarchy.md, "HBM under load").
// A channel in this model is a bandwidth server with a fixed latency, so a read waits only
// once the channel's bandwidth is short; a real controller's reads wait from well below that
// (banks, rows, refresh, write drains), and far more when writes share the channel.
// tools/silicon/kernels.cu --loaded measured that wait on an H100 for reads alone, an even
// read/write mix and writes alone, at 1 to 90 % of HBM's bandwidth; the curves hold it at 10 %,
// 20 %, ... 90 %, and a read adds the wait interpolated at its channel's load and write share.
// The same approach as Mess (Esmaili-Dokht et al., "A Mess of Memory System Benchmarking,
// Simulation and Application Profiling", MICRO 2024), per channel.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "sim/tick.h"

namespace xpusim::mem {

struct HbmLoadCurves {
  // Extra read latency in ns at 10 %, 20 %, ... 90 % of a channel's bandwidth: 9 entries
  // each, or all three empty (no extra).
  std::vector<std::uint32_t> reads, mixed, writes;
  // The load is the bytes booked over the last `window` (a sliding estimate).
  sim::Tick window = sim::kMicrosecond;
  bool enabled() const { return !reads.empty(); }
};

class HbmLoad {
 public:
  static constexpr std::size_t kPoints = 9;  // 10 % to 90 %

  // `curves` must be enabled (9 entries each); `bytes_per_s` is the channel's bandwidth.
  HbmLoad(const HbmLoadCurves& curves, std::uint64_t bytes_per_s);
  // `bytes` booked on the channel at `at` (bookings come in any time order: one older than
  // the current window counts in it).
  void add(sim::Tick at, std::uint64_t bytes, bool write);
  // The extra latency of a read at `at`, at the load and write share of the last window.
  sim::Tick extra(sim::Tick at);

 private:
  using Curve = std::array<double, kPoints + 1>;  // ticks at 0 %, 10 %, ... 90 %
  static Curve ticks(const std::vector<std::uint32_t>& ns);
  static double at_load(const Curve& c, double load);
  void advance(sim::Tick at);

  Curve reads_, mixed_, writes_;
  sim::Tick window_;
  double window_bytes_;  // what the channel moves in a window
  // Bytes booked in the current window and the one before it (reads, writes).
  std::uint64_t window_index_ = 0;
  double cur_read_ = 0, cur_write_ = 0, prev_read_ = 0, prev_write_ = 0;
};

}  // namespace xpusim::mem
