// Wave sampling: a grid of many waves of like CTAs reaches a steady state in which every wave
// takes the same time and does the same work; the CWD then stops launching the waves in the
// middle and stands each in by the last wave it simulated (the steady-state fast-forward of
// GPU sampled simulation: TBPoint, IPDPS 2014; Photon, MICRO 2023). docs/work-distributor.md,
// "Wave sampling".
//
// A wave is as many CTA exits as the grid had CTAs resident at its peak (`size`, known at its
// first exit; when the peak grows later, the count starts again from that exit). The waves'
// boundaries are the grid's first CTA start, then its exits 1, size + 1, 2 x size + 1, ...:
// the first exit of each wave. Deciding there, the CWD has launched nothing of the next wave
// yet (the slot that exit frees is still empty) and the wave still running is nearly done. In
// a steady state any exit and the one `size` later are a wave's duration apart.
//
// Steady: the last three waves' durations lie within `tolerance` of the shortest. Three, not
// two: a chip warming up (an L2 filling with dirty lines on a memory-bound GEMM) shortens or
// lengthens each wave a little, and two waves can agree by chance on the way (the tiny chip's
// 4096 x 2048 x 1024 GEMM: 37.7 k, 36.1 k, 35.4 k, 34.2 k, ... 32.0 k cycles; two waves
// within 2 % there gave a 7.6 % error). This class keeps one grid's boundaries; what to skip
// and the stats are the CWD's.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>

#include "sim/tick.h"

namespace xpusim::sched {

// The tolerance as a fraction (0.02: 2 %); 0 turns wave sampling off.
struct WaveSampling {
  double tolerance = 0;
  bool on() const { return tolerance > 0; }
};
// The largest tolerance a run may ask for: beyond it no waves need to look alike.
inline constexpr double kMaxWaveSamplingTolerance = 0.5;

class WaveSampler {
 public:
  static constexpr std::size_t kSteadyWaves = 3;

  // The grid's first CTA started. `others` counts the CTA starts and exits of every other grid
  // so far: waves are only sampled while the grid had the chip to itself.
  void started(sim::Tick t, std::uint64_t others) {
    if (started_) return;
    started_ = true;
    restart(t, others);
  }
  // A CTA of the grid exited at `t` (as the CWD heard it); `peak` is the most CTAs of the grid
  // resident at once so far. True when the exit is a wave boundary.
  bool exited(sim::Tick t, std::uint64_t peak, std::uint64_t others) {
    if (peak > size_ && size_ != 0 && !skipped_) {
      // The grid holds more CTAs than at its first exit (another grid held slots then): the
      // waves were too short. Count again from this exit, as from a start.
      size_ = peak;
      restart(t, others);
      exits_ = 1;
      return false;
    }
    if (size_ == 0) size_ = peak;
    if (size_ == 0 || exits_++ % size_ != 0) return false;
    std::rotate(periods_.begin(), periods_.begin() + 1, periods_.end());
    periods_.back() = t - last_boundary_;
    std::rotate(others_.begin(), others_.begin() + 1, others_.end());
    others_.back() = others;
    last_boundary_ = t;
    ++waves_;
    if (skipped_ && !check_) check_ = periods_.back();
    return true;
  }
  // At a boundary: the last kSteadyWaves waves' durations lie within `tolerance` of the
  // shortest, and no other grid's CTA started or exited during them.
  bool steady(double tolerance) const {
    if (waves_ < kSteadyWaves || others_.front() != others_.back()) return false;
    const auto [lo, hi] = std::minmax_element(periods_.begin(), periods_.end());
    return *lo > 0 && static_cast<double>(*hi - *lo) <= tolerance * static_cast<double>(*lo);
  }
  // The CWD skipped waves: the next boundary is the check on the period used.
  void skipped() { skipped_ = true; }

  std::uint64_t size() const { return size_; }          // CTAs per wave (0: no exit yet)
  std::uint64_t waves() const { return waves_; }        // boundaries after the start (simulated)
  sim::Tick period() const { return periods_.back(); }  // the last wave's duration
  bool has_skipped() const { return skipped_; }
  // The first period to end after the skip: from the boundary of the skip to the first exit
  // of the CTAs launched after it (the tail's first, when the tail is under a wave).
  std::optional<sim::Tick> check() const { return check_; }

 private:
  void restart(sim::Tick t, std::uint64_t others) {
    waves_ = 0;
    periods_.fill(0);
    last_boundary_ = t;
    others_.fill(others);
  }

  bool started_ = false;
  bool skipped_ = false;
  std::uint64_t size_ = 0, exits_ = 0, waves_ = 0;
  sim::Tick last_boundary_ = 0;
  std::array<sim::Tick, kSteadyWaves> periods_{};         // the last waves' durations
  std::array<std::uint64_t, kSteadyWaves + 1> others_{};  // at the last boundaries
  std::optional<sim::Tick> check_;
};

}  // namespace xpusim::sched
