#include "sim/stats.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <memory>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sim/rng.h"

namespace xpusim::sim {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;

TEST(StatsTest, JsonShapeIsComponentMapOfStatMaps) {
  StatsRegistry reg;
  Counter sm1_req(reg, "chip0.sm1", "requests", "count", "requests seen");
  Counter sm0_req(reg, "chip0.sm0", "requests", "count", "requests seen");
  Scalar sm0_bytes(reg, "chip0.sm0", "bytes", "B", "bytes resident");
  sm0_req += 3;
  sm1_req.inc();
  sm0_bytes.set(1.5);

  const json expected = json::parse(R"({
    "chip0.sm0": {
      "bytes": {"value": 1.5, "unit": "B", "description": "bytes resident"},
      "requests": {"value": 3, "unit": "count", "description": "requests seen"}
    },
    "chip0.sm1": {
      "requests": {"value": 1, "unit": "count", "description": "requests seen"}
    }
  })");
  EXPECT_EQ(reg.to_json(), expected);
  EXPECT_EQ(reg.size(), 3u);
  EXPECT_EQ(reg.paths(), (std::vector<std::string>{"chip0.sm0.bytes", "chip0.sm0.requests",
                                                   "chip0.sm1.requests"}));
  // Keys come out sorted, so the text is stable.
  const std::string text = reg.dump();
  EXPECT_LT(text.find("\"chip0.sm0\""), text.find("\"chip0.sm1\""));
  EXPECT_LT(text.find("\"bytes\""), text.find("\"requests\""));
}

TEST(StatsTest, FullPathAndAccessors) {
  StatsRegistry reg;
  Counter c(reg, "chip0.gpc3.sm17.tma", "requests", "count", "TMA requests");
  Counter top(reg, "", "runs", "count", "top-level");
  EXPECT_EQ(c.full_path(), "chip0.gpc3.sm17.tma.requests");
  EXPECT_EQ(c.owner_path(), "chip0.gpc3.sm17.tma");
  EXPECT_EQ(c.name(), "requests");
  EXPECT_EQ(c.unit(), "count");
  EXPECT_EQ(c.description(), "TMA requests");
  EXPECT_EQ(top.full_path(), "runs");
  EXPECT_EQ(reg.to_json()[""]["runs"]["value"], 0);
}

TEST(StatsTest, CounterArithmetic) {
  StatsRegistry reg;
  Counter c(reg, "a", "c", "count", "");
  c.inc();
  c.inc(4);
  ++c;
  c += 10;
  EXPECT_EQ(c.value(), 16u);
  Scalar s(reg, "a", "s", "J", "");
  s.add(2.5);
  s.add(-1.0);
  EXPECT_DOUBLE_EQ(s.value(), 1.5);
  s.set(7.0);
  EXPECT_DOUBLE_EQ(s.value(), 7.0);
}

TEST(StatsTest, AverageIsWeightedWithMinMax) {
  StatsRegistry reg;
  Average a(reg, "l2", "latency", "cycles", "load latency");
  EXPECT_EQ(a.to_json(), json::parse(R"({"value":0.0,"unit":"cycles","description":"load latency",
                                         "count":0,"min":0.0,"max":0.0})"));
  a.sample(10.0);
  a.sample(4.0, 3);   // (10 + 12) / 4
  a.sample(99.0, 0);  // zero weight: ignored entirely
  EXPECT_EQ(a.count(), 4u);
  EXPECT_DOUBLE_EQ(a.mean(), 5.5);
  EXPECT_DOUBLE_EQ(a.min(), 4.0);
  EXPECT_DOUBLE_EQ(a.max(), 10.0);
  EXPECT_EQ(a.to_json(), json::parse(R"({"value":5.5,"unit":"cycles","description":"load latency",
                                         "count":4,"min":4.0,"max":10.0})"));
}

// Samples kept apart (a second host thread's share) and merged give the stat that sampling
// them all in one place gives; an empty share changes nothing.
TEST(StatsTest, MergedSamplesAreTheSameAsSampledOnes) {
  StatsRegistry reg;
  Average whole(reg, "x", "whole", "", ""), parts(reg, "x", "parts", "", "");
  Samples apart;
  for (int i = 0; i < 100; ++i) {
    const double v = (i * 37) % 101;
    whole.sample(v, 1 + i % 3);
    if (i % 2 == 0) {
      parts.sample(v, 1 + i % 3);
    } else {
      apart.add(v, 1 + i % 3);
    }
  }
  parts.merge(apart);
  parts.merge(Samples{});
  EXPECT_EQ(parts.to_json()["count"], whole.to_json()["count"]);
  EXPECT_EQ(parts.mean(), whole.mean());
  EXPECT_EQ(parts.min(), whole.min());
  EXPECT_EQ(parts.max(), whole.max());
}

TEST(StatsTest, HistogramBucketsAndEdges) {
  StatsRegistry reg;
  Histogram h(reg, "hbm", "queue", "entries", "queue depth", 0.0, 10.0, 5);  // width 2
  h.sample(-0.5);                                                            // underflow
  h.sample(0.0);       // first bucket includes lo
  h.sample(1.999);     // bucket 0
  h.sample(2.0);       // bucket 1: left edge is inclusive
  h.sample(5.0, 3);    // bucket 2, weight 3
  h.sample(9.999);     // last bucket
  h.sample(10.0);      // hi is exclusive: overflow
  h.sample(100.0, 2);  // overflow
  EXPECT_EQ(h.buckets(), (std::vector<std::uint64_t>{2, 1, 3, 0, 1}));
  EXPECT_EQ(h.underflow(), 1u);
  EXPECT_EQ(h.overflow(), 3u);
  EXPECT_EQ(h.count(), 11u);
  const double sum = -0.5 + 0 + 1.999 + 2 + 15 + 9.999 + 10 + 200;
  EXPECT_DOUBLE_EQ(h.mean(), sum / 11);

  const json j = h.to_json();
  EXPECT_EQ(j["value"], 11);
  EXPECT_EQ(j["unit"], "entries");
  EXPECT_EQ(j["description"], "queue depth");
  EXPECT_EQ(j["lo"], 0.0);
  EXPECT_EQ(j["hi"], 10.0);
  EXPECT_EQ(j["bucket_width"], 2.0);
  EXPECT_EQ(j["buckets"], json::parse("[2,1,3,0,1]"));
  EXPECT_EQ(j["underflow"], 1);
  EXPECT_EQ(j["overflow"], 3);
  EXPECT_DOUBLE_EQ(j["mean"].get<double>(), sum / 11);
  EXPECT_EQ(j.size(), 10u);

  h.sample(std::numeric_limits<double>::quiet_NaN());
  h.sample(-std::numeric_limits<double>::infinity());
  h.sample(std::numeric_limits<double>::infinity());
  EXPECT_EQ(h.underflow(), 3u);
  EXPECT_EQ(h.overflow(), 4u);
}

TEST(StatsTest, HistogramDecimalEdgesLandInTheirOwnBucket) {
  StatsRegistry reg;
  Histogram h(reg, "x", "h", "", "", 0.0, 1.0, 10);
  for (int k = 0; k < 10; ++k)
    h.sample(k / 10.0);
  EXPECT_EQ(h.buckets(), std::vector<std::uint64_t>(10, 1));
  Histogram n(reg, "x", "n", "", "", -4.0, 4.0, 4);
  n.sample(-4.0);
  n.sample(-2.0);
  n.sample(-0.0001);
  n.sample(0.0);
  n.sample(3.9999);
  EXPECT_EQ(n.buckets(), (std::vector<std::uint64_t>{1, 2, 1, 1}));
  EXPECT_EQ(n.underflow() + n.overflow(), 0u);
}

TEST(StatsTest, TimeSeriesBucketsByIntervalWithGapsAsZero) {
  StatsRegistry reg;
  TimeSeries ts(reg, "c2c.port0", "bytes", "B", "bytes per interval", 10 * kNanosecond);
  EXPECT_EQ(ts.to_json()["value"], json::array());
  ts.add(0, 1.0);
  ts.add(9'999, 2.0);   // still interval 0
  ts.add(10'000, 0.5);  // interval 1 starts exactly at 10 ns
  ts.add(35'000, 5.0);  // interval 3; interval 2 stays 0
  const json expected = json::parse(R"({"value":[3.0,0.5,0.0,5.0],"unit":"B",
      "description":"bytes per interval","interval_ps":10000})");
  EXPECT_EQ(ts.to_json(), expected);
  ts.add(1'000, 1.0);  // late sample into an earlier interval
  EXPECT_EQ(ts.values(), (std::vector<double>{4.0, 0.5, 0.0, 5.0}));
}

// A naive reference for BoundedSeries: every sample kept, bucketed at the end by the
// series' final interval.
TEST(StatsTest, BoundedSeriesEqualsNaiveBucketingAtItsFinalInterval) {
  StatsRegistry reg;
  BoundedSeries s(reg, "chip0.sm0", "issue_series", "instructions", "per interval",
                  SeriesKind::kSum);
  EXPECT_EQ(s.interval(), Tick{1} << BoundedSeries::kFirstShift);
  Rng rng = Rng::for_stream(7, "bounded_series");
  std::vector<std::pair<Tick, double>> samples;
  Tick t = 0;
  for (int i = 0; i < 20000; ++i) {
    t += rng.uniform(5000);  // mostly forward, a few late ones below
    const Tick at = i % 97 == 0 && t > 100000 ? t - 100000 : t;
    const double v = static_cast<double>(1 + rng.uniform(9));  // integers: sums exact
    samples.emplace_back(at, v);
    s.add(at, v);
  }
  const Tick width = s.interval();
  EXPECT_GT(width, Tick{1} << BoundedSeries::kFirstShift);  // it coarsened
  EXPECT_LE(s.values().size(), BoundedSeries::kIntervals);
  std::vector<double> naive(static_cast<std::size_t>(t / width) + 1, 0.0);
  for (auto [at, v] : samples)
    naive[static_cast<std::size_t>(at / width)] += v;
  EXPECT_EQ(s.values(), naive);
  EXPECT_EQ(s.to_json()["interval_ps"], width);
  EXPECT_EQ(s.to_json()["series"], "sum");
}

TEST(StatsTest, BoundedSeriesLevelDumpsTimeAveragesPerInterval) {
  StatsRegistry reg;
  BoundedSeries s(reg, "chip0.cwd", "running_ctas_series", "CTAs", "average", SeriesKind::kLevel);
  const Tick w = s.interval();     // 1024 ps
  s.add_level(0, w / 2, 4.0);      // half the first interval at 4
  s.add_level(w / 2, 3 * w, 2.0);  // then 2 until the third interval starts
  const json j = s.to_json();
  EXPECT_EQ(j["series"], "average");
  EXPECT_EQ(j["value"], json::parse("[3.0, 2.0, 2.0]"));
  // A span past the last interval coarsens first: 4096 intervals' worth at level 1.
  s.add_level(3 * w, 4096 * w, 1.0);
  EXPECT_EQ(s.interval(), 4 * w);
  const json k = s.to_json();
  ASSERT_EQ(k["value"].size(), 1024u);
  EXPECT_DOUBLE_EQ(k["value"][0].get<double>(), (3.0 + 2.0 + 2.0 + 1.0) / 4);
  EXPECT_DOUBLE_EQ(k["value"][1023].get<double>(), 1.0);
  EXPECT_DEATH(BoundedSeries(reg, "x", "y", "", "", SeriesKind::kSum).add_level(0, 1, 1.0),
               "add_level on a series of sums");
}

TEST(StatsTest, FormulaIsEvaluatedAtDumpTime) {
  StatsRegistry reg;
  Counter hits(reg, "l2", "hits", "count", "");
  Counter accesses(reg, "l2", "accesses", "count", "");
  Formula rate(reg, "l2", "hit_rate", "ratio", "hits / accesses", [&] {
    return accesses.value() ? static_cast<double>(hits.value()) / accesses.value() : 0.0;
  });
  EXPECT_EQ(reg.to_json()["l2"]["hit_rate"]["value"], 0.0);
  hits += 3;
  accesses += 4;
  EXPECT_EQ(reg.to_json()["l2"]["hit_rate"]["value"], 0.75);
  EXPECT_DOUBLE_EQ(rate.value(), 0.75);
  EXPECT_EQ(reg.to_json()["l2"]["hit_rate"]["unit"], "ratio");
}

TEST(StatsTest, FindKnownAndUnknownPaths) {
  StatsRegistry reg;
  Counter c(reg, "chip0.sm0", "requests", "count", "");
  auto found = reg.find("chip0.sm0.requests");
  ASSERT_TRUE(found.ok());
  EXPECT_EQ(*found, &c);

  auto typo = reg.find("chip0.sm0.reqests");
  ASSERT_FALSE(typo.ok());
  EXPECT_THAT(typo.error().message, HasSubstr("'chip0.sm0.reqests'"));
  EXPECT_THAT(typo.error().message, HasSubstr("closest is 'chip0.sm0.requests'"));

  auto unrelated = reg.find("hbm.bandwidth_total");
  ASSERT_FALSE(unrelated.ok());
  EXPECT_THAT(unrelated.error().message, HasSubstr("'hbm.bandwidth_total'"));
  EXPECT_THAT(unrelated.error().message, Not(HasSubstr("closest")));

  EXPECT_FALSE(reg.find("chip0.sm0").ok());  // a component is not a stat
}

TEST(StatsDeathTest, DuplicateRegistrationDies) {
  StatsRegistry reg;
  Counter a(reg, "chip0.sm0", "requests", "count", "");
  EXPECT_DEATH(Counter(reg, "chip0.sm0", "requests", "count", ""),
               "stat 'chip0.sm0.requests' registered twice");
  // Different split, same full path: still the same stat path.
  EXPECT_DEATH(Scalar(reg, "chip0", "sm0.requests", "count", ""),
               "stat 'chip0.sm0.requests' registered twice");
}

TEST(StatsTest, DestroyedStatLeavesTheRegistry) {
  StatsRegistry reg;
  Counter keep(reg, "chip0.sm0", "requests", "count", "");
  {
    Counter gone(reg, "chip0.sm1", "requests", "count", "");
    EXPECT_EQ(reg.size(), 2u);
    EXPECT_TRUE(reg.to_json().contains("chip0.sm1"));
  }
  EXPECT_EQ(reg.size(), 1u);
  EXPECT_FALSE(reg.to_json().contains("chip0.sm1"));
  EXPECT_FALSE(reg.find("chip0.sm1.requests").ok());
  // The path is free again.
  Counter again(reg, "chip0.sm1", "requests", "count", "");
  EXPECT_EQ(reg.size(), 2u);
}

TEST(StatsTest, StatMayOutliveRegistry) {
  auto reg = std::make_unique<StatsRegistry>();
  Counter c(*reg, "a", "b", "count", "");
  reg.reset();  // detaches c; its destructor must not touch the dead registry
  c.inc();
  EXPECT_EQ(c.value(), 1u);
}

void build(StatsRegistry& reg, std::vector<std::unique_ptr<Stat>>& owned, bool reversed) {
  std::vector<std::string> owners = {"chip0.sm0", "chip0.sm1", "chip0.l2.slice3"};
  if (reversed) std::reverse(owners.begin(), owners.end());
  for (const auto& o : owners) {
    auto c = std::make_unique<Counter>(reg, o, "requests", "count", "reqs");
    c->inc(o.size());
    auto a = std::make_unique<Average>(reg, o, "latency", "cycles", "lat");
    a->sample(1.0 / 3.0);
    a->sample(0.1, 7);
    auto h = std::make_unique<Histogram>(reg, o, "depth", "entries", "d", 0, 1, 3);
    h->sample(0.5);
    owned.push_back(std::move(c));
    owned.push_back(std::move(a));
    owned.push_back(std::move(h));
  }
}

TEST(StatsTest, DumpIsDeterministicRegardlessOfRegistrationOrder) {
  StatsRegistry r1, r2;
  std::vector<std::unique_ptr<Stat>> s1, s2;
  build(r1, s1, false);
  build(r2, s2, true);
  EXPECT_EQ(r1.dump(), r2.dump());
  EXPECT_EQ(r1.dump(0), r2.dump(0));
  EXPECT_EQ(r1.dump(), r1.dump());
}

TEST(StatsTest, ResetAllClearsEveryKind) {
  StatsRegistry reg;
  Counter c(reg, "x", "c", "", "");
  Scalar s(reg, "x", "s", "", "");
  Average a(reg, "x", "a", "", "");
  Histogram h(reg, "x", "h", "", "", 0, 4, 2);
  TimeSeries t(reg, "x", "t", "", "", 100);
  Formula f(reg, "x", "f", "", "", [&] { return static_cast<double>(c.value()) + 1; });
  c.inc(5);
  s.set(2);
  a.sample(3);
  h.sample(1);
  h.sample(-1);
  h.sample(9);
  t.add(250, 1);
  reg.reset_all();
  EXPECT_EQ(c.value(), 0u);
  EXPECT_EQ(s.value(), 0.0);
  EXPECT_EQ(a.count(), 0u);
  EXPECT_EQ(a.mean(), 0.0);
  EXPECT_EQ(h.count(), 0u);
  EXPECT_EQ(h.underflow() + h.overflow(), 0u);
  EXPECT_EQ(h.buckets(), (std::vector<std::uint64_t>{0, 0}));
  EXPECT_TRUE(t.values().empty());
  EXPECT_EQ(f.value(), 1.0);  // derived: follows its inputs
  a.sample(8);
  EXPECT_EQ(a.min(), 8.0);  // min/max restart too
  EXPECT_EQ(a.max(), 8.0);
}

// Wave sampling's replay: each tallying stat gains `times` x what it gained between two
// snapshots, computed here by hand from the samples; levels, series and formulas stay.
TEST(StatsTest, RepeatIntervalAddsTheGainBetweenTwoSnapshotsTimesOver) {
  StatsRegistry reg;
  Counter c(reg, "x", "c", "", "");
  Scalar s(reg, "x", "s", "", "");
  Average a(reg, "x", "a", "", "");
  Histogram h(reg, "x", "h", "", "", 0, 4, 2);  // buckets [0, 2) and [2, 4)
  TimeSeries t(reg, "x", "t", "", "", 100);
  Formula f(reg, "x", "f", "", "", [&] { return 2.0 * static_cast<double>(c.value()); });
  c.inc(5);
  s.set(2);
  a.sample(10);
  h.sample(1);
  t.add(50, 1);
  const StatsSnapshot from = reg.snapshot();
  EXPECT_EQ(from.size(), 3u);  // the counter, the average, the histogram
  c.inc(3);
  s.set(9);
  a.sample(1, 2);  // the interval: weight 2, sum 2
  a.sample(100);   // a max beyond every other sample, counted once
  h.sample(3);
  h.sample(-1);
  h.sample(7, 2);
  t.add(150, 4);
  const StatsSnapshot to = reg.snapshot();
  reg.repeat_interval(from, to, 4);
  EXPECT_EQ(c.value(), 8u + 4 * 3);
  EXPECT_EQ(s.value(), 9.0);
  EXPECT_EQ(a.count(), 4u + 4 * 3);
  EXPECT_DOUBLE_EQ(a.mean(), (112.0 + 4 * 102.0) / 16);
  EXPECT_EQ(a.min(), 1.0);
  EXPECT_EQ(a.max(), 100.0);
  EXPECT_EQ(h.buckets(), (std::vector<std::uint64_t>{1, 1 + 4}));
  EXPECT_EQ(h.underflow(), 1u + 4);
  EXPECT_EQ(h.overflow(), 2u + 4 * 2);
  EXPECT_EQ(h.count(), 5u + 4 * 4);
  EXPECT_DOUBLE_EQ(h.mean(), (1.0 + 5 * (3 - 1 + 14)) / 21);
  EXPECT_EQ(t.values(), (std::vector<double>{1, 4}));
  EXPECT_EQ(f.value(), 2.0 * 20);

  // A stat reset between the snapshots, or missing from one, is left alone; zero times is
  // nothing.
  const StatsSnapshot before = reg.snapshot();
  c.reset();
  c.inc(1);
  Counter late(reg, "x", "late", "", "");
  late.inc(7);
  const StatsSnapshot after = reg.snapshot();
  reg.repeat_interval(before, after, 3);
  EXPECT_EQ(c.value(), 1u);
  EXPECT_EQ(late.value(), 7u);
  reg.repeat_interval(from, to, 0);
  EXPECT_EQ(a.count(), 16u);
}

TEST(StatsTest, WriteFileRoundTripsAndNamesBadPath) {
  StatsRegistry reg;
  Counter c(reg, "chip0", "cycles", "cycles", "elapsed");
  c.inc(42);
  const std::filesystem::path path =
      std::filesystem::path(::testing::TempDir()) / "xpusim_stats_test.json";
  ASSERT_TRUE(reg.write_file(path).ok());
  std::ifstream in(path);
  std::stringstream buf;
  buf << in.rdbuf();
  EXPECT_EQ(buf.str(), reg.dump());
  EXPECT_EQ(json::parse(buf.str())["chip0"]["cycles"]["value"], 42);
  std::filesystem::remove(path);

  auto bad = reg.write_file("/nonexistent-xpusim-dir/stats.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.error().message, HasSubstr("'/nonexistent-xpusim-dir/stats.json'"));
  EXPECT_THAT(bad.error().message, HasSubstr("No such file or directory"));
}

}  // namespace
}  // namespace xpusim::sim
