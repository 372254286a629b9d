// Trace writer (STYLE.md item 13): an opt-in observer that streams Chrome trace-event JSON, which
// ui.perfetto.dev and chrome://tracing open. One track (tid) per component, all in pid 1.
// Filters pick components by path glob; a cap bounds the file size (excess events are counted).
// A default-constructed Tracer is disabled and every call returns at once.
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

// Every member has a default initializer, so `{.path = p}` compiles cleanly under -Wextra.
struct TraceOptions {
  std::filesystem::path path = {};
  std::uint64_t max_events = 1'000'000;  // metadata events do not count
  // Component-path globs where '*' matches any run of characters (dots included), e.g.
  // "chip0.gpc0.*" or "*.tma". Empty: trace every component.
  std::vector<std::string> filters = {};
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
  std::uint64_t events_dropped() const { return dropped_; }

  // Writes the trailer (displayTimeUnit, otherData with the drop count) and closes the file.
  // Idempotent; the destructor calls it.
  Status close();

 private:
  bool admit();  // counts the event against the cap
  void write_complete(TrackId t, std::string_view name, Tick begin, Tick end,
                      std::string_view category, const nlohmann::json* args);
  void write_instant(TrackId t, std::string_view name, Tick at, std::string_view category,
                     const nlohmann::json* args);
  void write_counter(TrackId t, std::string_view name, Tick at, double value);
  void write_flow(TrackId t, std::string_view name, std::uint64_t flow_id, Tick at, bool end);
  void emit(const std::string& event);

  std::FILE* file_ = nullptr;
  std::filesystem::path path_;
  std::uint64_t max_events_ = 0;
  std::vector<std::string> filters_;
  std::map<std::string, TrackId, std::less<>> tracks_;  // kNoTrack for filtered-out paths
  std::vector<std::string> track_paths_;                // by TrackId
  std::uint64_t written_ = 0;
  std::uint64_t dropped_ = 0;
  bool first_event_ = true;
  bool write_failed_ = false;
};

}  // namespace xpusim::sim
