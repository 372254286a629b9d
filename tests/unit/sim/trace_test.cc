#include "sim/trace.h"

#include <sys/resource.h>

#include <csignal>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace xpusim::sim {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

std::filesystem::path temp_path(const std::string& name) {
  return std::filesystem::path(::testing::TempDir()) / ("xpusim_trace_test_" + name + ".json");
}

std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

std::vector<json> events_with_ph(const json& trace, const std::string& ph) {
  std::vector<json> out;
  for (const json& e : trace["traceEvents"]) {
    if (e["ph"] == ph) out.push_back(e);
  }
  return out;
}

TEST(TraceTest, FormatUsIsExactIntegerArithmetic) {
  EXPECT_EQ(format_us(0), "0.000000");
  EXPECT_EQ(format_us(1), "0.000001");
  EXPECT_EQ(format_us(999'999), "0.999999");
  EXPECT_EQ(format_us(1'000'000), "1.000000");
  EXPECT_EQ(format_us(1'234'567), "1.234567");
  EXPECT_EQ(format_us(kMaxTick), "18446744073709.551615");
}

TEST(TraceTest, GlobMatch) {
  EXPECT_TRUE(glob_match("*", ""));
  EXPECT_TRUE(glob_match("*", "chip0.sm0"));
  EXPECT_TRUE(glob_match("chip0.gpc0.*", "chip0.gpc0.sm3.tma"));
  EXPECT_FALSE(glob_match("chip0.gpc0.*", "chip0.gpc0"));
  EXPECT_FALSE(glob_match("chip0.gpc0.*", "chip0.gpc01.sm0"));
  EXPECT_TRUE(glob_match("*.tma", "chip0.gpc1.sm9.tma"));
  EXPECT_FALSE(glob_match("*.tma", "chip0.gpc1.sm9.tma.cache"));
  EXPECT_TRUE(glob_match("chip*.sm*.tma", "chip1.gpc0.sm12.tma"));
  EXPECT_TRUE(glob_match("a*a*a", "aaaaa"));
  EXPECT_FALSE(glob_match("a*a*a", "aa"));
  EXPECT_TRUE(glob_match("exact", "exact"));
  EXPECT_FALSE(glob_match("exact", "exactly"));
  EXPECT_FALSE(glob_match("", "x"));
}

TEST(TraceTest, WritesEveryEventKindAsChromeJson) {
  const auto path = temp_path("kinds");
  Tracer tr;
  ASSERT_TRUE(tr.open({path, 100, {}}).ok());
  EXPECT_TRUE(tr.enabled());
  const TrackId sm0 = tr.track("chip0.sm0");
  const TrackId tma = tr.track("chip0.sm0.tma");
  EXPECT_EQ(sm0, 0u);
  EXPECT_EQ(tma, 1u);
  EXPECT_EQ(tr.track("chip0.sm0"), sm0);  // same path, same id

  const json args = {{"bytes", 128}, {"stall", "bank_conflict"}};
  tr.complete(sm0, "mm", 1'234'567, 2'234'568, "core", &args);
  tr.complete(tma, "load", 5, 5);
  tr.instant(tma, "desc_miss", 3'000'000, "tma");
  tr.counter(tma, "inflight", 4'000'001, 2.5);
  tr.flow_begin(sm0, "req", 7, 1'300'000);
  tr.flow_end(tma, "req", 7, 1'400'000);
  EXPECT_EQ(tr.events_written(), 6u);
  EXPECT_EQ(tr.events_dropped(), 0u);
  ASSERT_TRUE(tr.close().ok());
  EXPECT_FALSE(tr.enabled());
  ASSERT_TRUE(tr.close().ok());  // idempotent

  const std::string text = read_text(path);
  const json trace = json::parse(text);
  EXPECT_EQ(trace["displayTimeUnit"], "ns");
  EXPECT_EQ(
      trace["otherData"],
      json::parse(R"({"complete":true,"dropped_events":0,"max_events":100,"generator":"xpusim"})"));

  // Metadata: the process once, then one name (and sort index) per track.
  const auto meta = events_with_ph(trace, "M");
  ASSERT_EQ(meta.size(), 5u);
  EXPECT_EQ(meta[0], json::parse(
                         R"({"name":"process_name","ph":"M","pid":1,"tid":0,
                             "args":{"name":"xpusim"}})"));
  EXPECT_EQ(meta[1]["name"], "thread_name");
  EXPECT_EQ(meta[1]["tid"], 0);
  EXPECT_EQ(meta[1]["args"]["name"], "chip0.sm0");
  EXPECT_EQ(meta[2]["name"], "thread_sort_index");
  EXPECT_EQ(meta[2]["args"]["sort_index"], 0);
  EXPECT_EQ(meta[3]["name"], "thread_name");
  EXPECT_EQ(meta[3]["tid"], 1);
  EXPECT_EQ(meta[3]["args"]["name"], "chip0.sm0.tma");

  const auto x = events_with_ph(trace, "X");
  ASSERT_EQ(x.size(), 2u);
  EXPECT_EQ(x[0]["name"], "mm");
  EXPECT_EQ(x[0]["cat"], "core");
  EXPECT_EQ(x[0]["pid"], 1);
  EXPECT_EQ(x[0]["tid"], sm0);
  EXPECT_EQ(x[0]["args"], args);
  EXPECT_FALSE(x[1].contains("cat"));  // no category given
  EXPECT_FALSE(x[1].contains("args"));
  // Exact decimal text straight from picoseconds.
  EXPECT_THAT(text, HasSubstr("\"ts\":1.234567,\"dur\":1.000001"));
  EXPECT_THAT(text, HasSubstr("\"ts\":0.000005,\"dur\":0.000000"));

  const auto i = events_with_ph(trace, "i");
  ASSERT_EQ(i.size(), 1u);
  EXPECT_EQ(i[0]["s"], "t");
  EXPECT_EQ(i[0]["tid"], tma);
  EXPECT_EQ(i[0]["cat"], "tma");
  EXPECT_THAT(text, HasSubstr("\"ts\":3.000000"));

  const auto c = events_with_ph(trace, "C");
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0]["name"], "chip0.sm0.tma.inflight");
  EXPECT_EQ(c[0]["args"], json::parse(R"({"value":2.5})"));
  EXPECT_THAT(text, HasSubstr("\"ts\":4.000001"));

  const auto s = events_with_ph(trace, "s");
  const auto f = events_with_ph(trace, "f");
  ASSERT_EQ(s.size(), 1u);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(s[0]["id"], 7);
  EXPECT_EQ(f[0]["id"], s[0]["id"]);
  EXPECT_EQ(f[0]["cat"], s[0]["cat"]);
  EXPECT_EQ(f[0]["name"], s[0]["name"]);
  EXPECT_EQ(s[0]["tid"], sm0);
  EXPECT_EQ(f[0]["tid"], tma);
  EXPECT_EQ(f[0]["bp"], "e");
  EXPECT_FALSE(s[0].contains("bp"));
  EXPECT_THAT(text, HasSubstr("\"ts\":1.300000"));
  std::filesystem::remove(path);
}

TEST(TraceTest, EscapesNames) {
  const auto path = temp_path("escape");
  Tracer tr;
  ASSERT_TRUE(tr.open({.path = path}).ok());
  const std::string weird = "q\"b\\s\nn\tt\x01 end";
  const TrackId t = tr.track(weird);
  tr.instant(t, weird, 0, weird);
  ASSERT_TRUE(tr.close().ok());
  const json trace = json::parse(read_text(path));
  const auto i = events_with_ph(trace, "i");
  ASSERT_EQ(i.size(), 1u);
  EXPECT_EQ(i[0]["name"], weird);
  EXPECT_EQ(i[0]["cat"], weird);
  EXPECT_EQ(events_with_ph(trace, "M")[1]["args"]["name"], weird);
  std::filesystem::remove(path);
}

TEST(TraceTest, FiltersSelectComponentsByGlob) {
  const auto path = temp_path("filters");
  Tracer tr;
  ASSERT_TRUE(tr.open({path, 100, {"chip0.gpc0.*", "*.tma"}}).ok());
  const TrackId in0 = tr.track("chip0.gpc0.sm1");
  const TrackId out = tr.track("chip0.gpc1.sm0");
  const TrackId in1 = tr.track("chip0.gpc1.sm0.tma");
  const TrackId bare = tr.track("chip0.gpc0");  // the glob needs something after the dot
  EXPECT_EQ(in0, 0u);
  EXPECT_EQ(out, kNoTrack);
  EXPECT_EQ(in1, 1u);  // filtered-out paths do not use up ids
  EXPECT_EQ(bare, kNoTrack);
  EXPECT_EQ(tr.track("chip0.gpc1.sm0"), kNoTrack);
  tr.complete(in0, "a", 0, 1);
  tr.complete(out, "b", 0, 1);
  tr.instant(in1, "c", 0);
  EXPECT_EQ(tr.events_written(), 2u);
  ASSERT_TRUE(tr.close().ok());

  const json trace = json::parse(read_text(path));
  std::vector<std::string> names;
  for (const json& e : trace["traceEvents"]) {
    if (e["name"] == "thread_name") names.push_back(e["args"]["name"]);
    EXPECT_NE(e["name"], "b");
  }
  EXPECT_EQ(names, (std::vector<std::string>{"chip0.gpc0.sm1", "chip0.gpc1.sm0.tma"}));
  std::filesystem::remove(path);
}

TEST(TraceTest, CapDropsAndCountsExcessEvents) {
  const auto path = temp_path("cap");
  Tracer tr;
  ASSERT_TRUE(tr.open({path, 3, {}}).ok());
  const TrackId t = tr.track("a");
  for (int k = 0; k < 5; ++k)
    tr.complete(t, fmt::format("e{}", k), k, k + 1);
  tr.track("b");  // metadata still gets through past the cap
  EXPECT_EQ(tr.events_written(), 3u);
  EXPECT_EQ(tr.events_dropped(), 2u);
  ASSERT_TRUE(tr.close().ok());

  const json trace = json::parse(read_text(path));
  const auto x = events_with_ph(trace, "X");
  ASSERT_EQ(x.size(), 3u);
  EXPECT_EQ(x[2]["name"], "e2");
  EXPECT_EQ(events_with_ph(trace, "M").size(), 5u);
  EXPECT_EQ(trace["otherData"]["dropped_events"], 2);
  EXPECT_EQ(trace["otherData"]["max_events"], 3);
  // A capped trace does not cover its run, and says from when.
  EXPECT_EQ(trace["otherData"]["complete"], false);
  EXPECT_EQ(trace["otherData"]["reason"],
            "the cap of 3 events was reached at 0.000003 us; 2 later events were left out");
  std::filesystem::remove(path);
}

TEST(TraceTest, WindowKeepsOnlyEventsThatOverlapIt) {
  const auto path = temp_path("window");
  Tracer tr;
  ASSERT_TRUE(tr.open({.path = path, .window_begin = 100, .window_end = 200}).ok());
  const TrackId t = tr.track("a");
  tr.complete(t, "before", 10, 50);
  tr.complete(t, "touches_begin", 50, 100);  // [50, 100) ends where the window starts
  tr.complete(t, "straddles_begin", 90, 110);
  tr.complete(t, "point_at_begin", 100, 100);
  tr.complete(t, "inside", 120, 130);
  tr.complete(t, "covers", 0, 1000);
  tr.complete(t, "straddles_end", 190, 250);
  tr.complete(t, "at_end", 200, 210);
  tr.instant(t, "i_before", 99);
  tr.instant(t, "i_inside", 100);
  tr.instant(t, "i_end", 200);
  tr.counter(t, "c_inside", 199, 1.0);
  tr.counter(t, "c_after", 300, 2.0);
  tr.flow_begin(t, "f", 1, 150);
  tr.flow_end(t, "f", 1, 250);
  EXPECT_EQ(tr.events_written(), 8u);
  EXPECT_EQ(tr.events_outside_window(), 7u);
  EXPECT_EQ(tr.events_dropped(), 0u);
  ASSERT_TRUE(tr.close().ok());

  const json trace = json::parse(read_text(path));
  std::vector<std::string> names;
  for (const json& e : trace["traceEvents"]) {
    if (e["ph"] != "M") names.push_back(e["name"]);
  }
  EXPECT_EQ(names,
            (std::vector<std::string>{"straddles_begin", "point_at_begin", "inside", "covers",
                                      "straddles_end", "i_inside", "a.c_inside", "f"}));
  // Slices are kept whole, not clipped to the window.
  EXPECT_EQ(events_with_ph(trace, "X")[3]["dur"], 0.001);
  EXPECT_EQ(trace["otherData"]["window"],
            json::parse(R"({"begin_ps":100,"end_ps":200,"events_outside":7})"));
  EXPECT_EQ(trace["otherData"]["complete"], true);  // what is outside was not asked for
  std::filesystem::remove(path);
}

TEST(TraceTest, OpenEndedWindowAndTheCapCountOnlyEventsInside) {
  const auto path = temp_path("window_open");
  Tracer tr;
  ASSERT_TRUE(tr.open({.path = path, .max_events = 2, .window_begin = 1000}).ok());
  const TrackId t = tr.track("a");
  for (Tick at = 0; at < 5000; at += 500)
    tr.instant(t, "i", at);
  EXPECT_EQ(tr.events_outside_window(), 2u);
  EXPECT_EQ(tr.events_written(), 2u);
  EXPECT_EQ(tr.events_dropped(), 6u);
  ASSERT_TRUE(tr.close().ok());
  const json trace = json::parse(read_text(path));
  EXPECT_EQ(trace["otherData"]["window"]["end_ps"], nullptr);
  EXPECT_EQ(trace["otherData"]["complete"], false);
  EXPECT_EQ(trace["otherData"]["reason"],
            "the cap of 2 events was reached at 0.002000 us; 6 later events were left out");
  std::filesystem::remove(path);
}

TEST(TraceTest, IncompleteRunIsMarkedInTheTrailer) {
  const auto path = temp_path("incomplete");
  Tracer tr;
  tr.mark_incomplete("ignored while closed");
  ASSERT_TRUE(tr.open({.path = path, .max_events = 1}).ok());
  const TrackId t = tr.track("a");
  tr.instant(t, "x", 5);
  tr.instant(t, "y", 6);
  tr.mark_incomplete("fault: warp 0 read past the end");
  tr.mark_incomplete("fault: warp 0 read past the end");  // once
  ASSERT_TRUE(tr.close().ok());
  const json trace = json::parse(read_text(path));
  EXPECT_EQ(trace["otherData"]["complete"], false);
  EXPECT_EQ(trace["otherData"]["reason"],
            "fault: warp 0 read past the end; the cap of 1 events was reached at 0.000006 us; 1 "
            "later events were left out");
  EXPECT_FALSE(trace["otherData"].contains("window"));
  std::filesystem::remove(path);
}

TEST(TraceTest, DiscardRemovesTheFile) {
  const auto path = temp_path("discard");
  Tracer tr;
  ASSERT_TRUE(tr.open({.path = path}).ok());
  tr.instant(tr.track("a"), "x", 1);
  tr.discard();
  EXPECT_FALSE(tr.enabled());
  EXPECT_FALSE(std::filesystem::exists(path));
  tr.discard();  // idempotent
  EXPECT_TRUE(tr.close().ok());
}

TEST(TraceTest, AFullDeviceIsAnErrorAndNotRemoved) {
  if (!std::filesystem::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  Tracer tr;
  ASSERT_TRUE(tr.open({.path = "/dev/full"}).ok());
  const TrackId t = tr.track("a");
  for (int k = 0; k < 20'000; ++k)  // past the 1 MiB buffer
    tr.complete(t, "a fairly long slice name", k, k + 1);
  auto st = tr.close();
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message, "cannot write trace file '/dev/full': No space left on device");
  EXPECT_TRUE(std::filesystem::exists("/dev/full"));
}

// A file that cannot grow (a full disk, a quota) ends mid-event: the tracer removes it rather
// than leave invalid JSON. RLIMIT_FSIZE stands in for the full disk, in a child process.
bool trace_past_file_size_limit(const std::filesystem::path& path) {
  std::signal(SIGXFSZ, SIG_IGN);  // EFBIG from write() instead of the signal
  rlimit limit{};
  limit.rlim_cur = limit.rlim_max = 64 * 1024;
  if (::setrlimit(RLIMIT_FSIZE, &limit) != 0) return false;
  Tracer tr;
  if (!tr.open({.path = path}).ok()) return false;
  const TrackId t = tr.track("a");
  for (int k = 0; k < 20'000; ++k)
    tr.complete(t, "a fairly long slice name", k, k + 1);
  auto st = tr.close();
  return !st.ok() && !std::filesystem::exists(path) &&
         st.error().message == fmt::format(
                                   "cannot write trace file '{}': File too large; the "
                                   "unfinished file was removed",
                                   path.string());
}

TEST(TraceTest, AFailedWriteRemovesTheUnfinishedFile) {
  const auto path = temp_path("fsize");
  EXPECT_EXIT(std::exit(trace_past_file_size_limit(path) ? 0 : 1), ::testing::ExitedWithCode(0),
              "");
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace xpusim::sim
