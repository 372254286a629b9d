// WaveSampler (wave_sampler.h): wave boundaries at the first exit of each wave, steadiness
// over the last three waves, and what keeps a grid from being sampled (another grid's CTAs, a
// peak that grows after the first exit).
#include "sched/wave_sampler.h"

#include <gtest/gtest.h>

#include <vector>

namespace xpusim::sched {
namespace {

// Feeds `size`-CTA waves of the given durations: each wave's exits come together at its end.
// Returns the sampler after the boundary that ends the last duration.
WaveSampler waves_of(const std::vector<sim::Tick>& durations, std::uint64_t size = 4) {
  WaveSampler w;
  w.started(0, 0);
  sim::Tick t = 0;
  for (const sim::Tick d : durations) {
    t += d;
    for (std::uint64_t e = 0; e < size; ++e) {
      const bool boundary = w.exited(t + e, size, 0);
      EXPECT_EQ(boundary, e == 0) << "exit " << e << " of the wave ending at " << t;
    }
  }
  return w;
}

TEST(WaveSampler, TheFirstExitOfEachWaveIsABoundary) {
  const WaveSampler w = waves_of({1000, 1000, 1000});
  EXPECT_EQ(w.size(), 4u);
  EXPECT_EQ(w.waves(), 3u);
  // From the first exit of one wave to the first exit of the next: the wave's length, not
  // counting the exits spread after it.
  EXPECT_EQ(w.period(), 1000u);
}

TEST(WaveSampler, SteadyWhenTheLastThreeWavesLieWithinTheTolerance) {
  EXPECT_FALSE(waves_of({1000, 1000}).steady(0.5));  // two waves are never enough
  EXPECT_TRUE(waves_of({1000, 970, 990}).steady(0.05));
  EXPECT_FALSE(waves_of({1000, 970, 990}).steady(0.02));
  // A drift: each wave 4 % shorter than the one before. Two neighbours agree within 5 %, the
  // three do not.
  EXPECT_FALSE(waves_of({1000, 960, 922}).steady(0.05));
  EXPECT_TRUE(waves_of({1000, 960, 922, 920, 921}).steady(0.05));
}

TEST(WaveSampler, AnotherGridsCtaDuringTheWavesKeepsThemFromBeingSteady) {
  WaveSampler w;
  w.started(0, 0);
  w.exited(1000, 2, 0);
  w.exited(1001, 2, 0);
  w.exited(2000, 2, 1);  // another grid's CTA started or exited during wave 2
  w.exited(2001, 2, 1);
  w.exited(3000, 2, 1);
  EXPECT_EQ(w.waves(), 3u);
  EXPECT_FALSE(w.steady(0.5));
  w.exited(3001, 2, 1);
  w.exited(4000, 2, 1);
  EXPECT_FALSE(w.steady(0.5));  // wave 2 is still one of the last three
  w.exited(4001, 2, 1);
  w.exited(5000, 2, 1);  // three waves since, none with another grid's activity
  EXPECT_TRUE(w.steady(0.01));
}

TEST(WaveSampler, APeakThatGrowsAfterTheFirstExitStartsTheCountAgain) {
  WaveSampler w;
  w.started(0, 0);
  EXPECT_TRUE(w.exited(1000, 2, 0));  // two CTAs resident: waves of 2
  EXPECT_FALSE(w.exited(1001, 2, 0));
  EXPECT_FALSE(w.exited(1500, 4, 0));  // four now: counted again from here
  EXPECT_EQ(w.size(), 4u);
  EXPECT_EQ(w.waves(), 0u);
  EXPECT_FALSE(w.exited(1501, 4, 0));
  EXPECT_FALSE(w.exited(1502, 4, 0));
  EXPECT_FALSE(w.exited(1503, 4, 0));
  EXPECT_TRUE(w.exited(2500, 4, 0));  // 4 exits after the restart
  EXPECT_EQ(w.period(), 1000u);
}

TEST(WaveSampler, AfterTheSkipTheNextBoundaryIsTheCheck) {
  WaveSampler w = waves_of({1000, 1000, 1000});
  EXPECT_FALSE(w.check());
  w.skipped();
  EXPECT_TRUE(w.exited(3990, 8, 0));  // a peak that grows after the skip changes nothing
  ASSERT_TRUE(w.check());
  EXPECT_EQ(*w.check(), 990u);
}

}  // namespace
}  // namespace xpusim::sched
