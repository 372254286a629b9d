// Trace writer (STYLE.md item 13): an opt-in observer that streams Chrome trace-event JSON, which
// ui.perfetto.dev and chrome://tracing open. One track (tid) per component, all in pid 1.
// Filters pick components by path glob; a window of simulated time picks events; a cap bounds
// the file size (excess events are counted). The trailer says whether the trace is complete and
// why not. A default-constructed Tracer is disabled and every call returns at once.
#pragma once

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/result.h"
#include "sim/tick.h"

namespace xpusim::sim {

// The event cap of every trace that names none (--trace-max-events, a scenario's
// trace_max_events): about 85 MB of JSON.
inline constexpr std::uint64_t kDefaultTraceMaxEvents = 1'000'000;

// Every member has a default initializer, so `{.path = p}` compiles cleanly under -Wextra.
struct TraceOptions {
  std::filesystem::path path = {};
  std::uint64_t max_events = kDefaultTraceMaxEvents;  // metadata events do not count
  // Component-path globs where '*' matches any run of characters (dots included), e.g.
  // "chip0.gpc0.*" or "*.tma". Empty: trace every component.
  std::vector<std::string> filters = {};
  // Simulated time [window_begin, window_end): only events that overlap it are written. A slice
  // is kept whole (its real begin and duration) when any part of it is inside; a zero-length
  // slice, an instant, a counter sample or a flow end is kept when its tick is inside.
  Tick window_begin = 0;
  Tick window_end = kMaxTick;
};

using TrackId = std::uint32_t;
inline constexpr TrackId kNoTrack = ~TrackId{0};

// True when `text` matches `pattern` in full, '*' matching any (possibly empty) run.
bool glob_match(std::string_view pattern, std::string_view text);

// "1.234567" for 1234567 ps: microseconds with exactly 6 fractional digits, no rounding.
std::string format_us(Tick ps);

class Tracer {
 public:
  Tracer() = default;
  ~Tracer();
  Tracer(const Tracer&) = delete;
  Tracer& operator=(const Tracer&) = delete;

  Status open(const TraceOptions& options);  // errors name the file
  bool enabled() const { return file_ != nullptr; }

  // Same path, same id; ids count up from 0 in order of first request. kNoTrack when disabled
  // or filtered out. The first request writes the track's thread_name metadata.
  TrackId track(std::string_view component_path);

  void complete(TrackId t, std::string_view name, Tick begin, Tick end,
                std::string_view category = "", const nlohmann::json* args = nullptr) {
    if (t != kNoTrack && file_) write_complete(t, name, begin, end, category, args);
  }
  void instant(TrackId t, std::string_view name, Tick at, std::string_view category = "",
               const nlohmann::json* args = nullptr) {
    if (t != kNoTrack && file_) write_instant(t, name, at, category, args);
  }
  // Chrome counters are per process, so the series is named "<component path>.<name>".
  void counter(TrackId t, std::string_view name, Tick at, double value) {
    if (t != kNoTrack && file_) write_counter(t, name, at, value);
  }
  // A flow arrow from the slice enclosing `at` on one track to the slice enclosing `at` on
  // another; begin and end are paired by flow_id (keep ids below 2^53 for chrome://tracing).
  void flow_begin(TrackId t, std::string_view name, std::uint64_t flow_id, Tick at) {
    if (t != kNoTrack && file_) write_flow(t, name, flow_id, at, /*end=*/false);
  }
  void flow_end(TrackId t, std::string_view name, std::uint64_t flow_id, Tick at) {
    if (t != kNoTrack && file_) write_flow(t, name, flow_id, at, /*end=*/true);
  }

  std::uint64_t events_written() const { return written_; }  // excluding metadata
  std::uint64_t events_dropped() const { return dropped_; }  // at the cap
  std::uint64_t events_outside_window() const { return outside_; }

  // Marks the trace as not covering its whole run (the run faulted, hung, threw or hit its time
  // limit): the trailer says `"complete": false` with the reasons. Reaching the cap marks it too.
  void mark_incomplete(std::string_view reason);

  // Writes the trailer (displayTimeUnit; otherData: complete or why not, the cap and the events
  // it left out, the window) and closes the file. A trace whose writing failed (a full disk) is
  // removed rather than left as invalid JSON, and the error says so. Idempotent; the destructor
  // calls it.
  Status close();
  // Closes and removes the file (a run that never started: its trace would say nothing).
  void discard();

 private:
  bool admit(Tick at);  // counts the event against the cap
  bool in_window(Tick at) {
    if (at >= window_begin_ && at < window_end_) return true;
    ++outside_;
    return false;
  }
  void write_complete(TrackId t, std::string_view name, Tick begin, Tick end,
                      std::string_view category, const nlohmann::json* args);
  void write_instant(TrackId t, std::string_view name, Tick at, std::string_view category,
                     const nlohmann::json* args);
  void write_counter(TrackId t, std::string_view name, Tick at, double value);
  void write_flow(TrackId t, std::string_view name, std::uint64_t flow_id, Tick at, bool end);
  void emit(const std::string& event);
  void write_text(std::string_view text);  // records the first failure's errno

  std::FILE* file_ = nullptr;
  std::filesystem::path path_;
  std::uint64_t max_events_ = 0;
  std::vector<std::string> filters_;
  std::map<std::string, TrackId, std::less<>> tracks_;  // kNoTrack for filtered-out paths
  std::vector<std::string> track_paths_;                // by TrackId
  Tick window_begin_ = 0;
  Tick window_end_ = kMaxTick;
  std::uint64_t written_ = 0;
  std::uint64_t dropped_ = 0;
  std::uint64_t outside_ = 0;
  Tick first_dropped_at_ = 0;
  std::vector<std::string> incomplete_;  // why the trace does not cover its run
  bool first_event_ = true;
  int write_errno_ = 0;  // of the first failed write; 0: none
};

}  // namespace xpusim::sim
