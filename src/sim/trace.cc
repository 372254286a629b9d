#include "sim/trace.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace xpusim::sim {
namespace {

constexpr int kPid = 1;  // one simulated system per trace; components are threads

void append_string(std::string& out, std::string_view s) {
  out += '"';
  for (const char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += fmt::format("\\u{:04x}", static_cast<unsigned>(c));
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

// {"name":..,["cat":..,]"ph":..,"pid":1,"tid":..  (no closing brace)
std::string event_head(std::string_view name, std::string_view category, char ph, TrackId t) {
  std::string e = "{\"name\":";
  append_string(e, name);
  if (!category.empty()) {
    e += ",\"cat\":";
    append_string(e, category);
  }
  e += fmt::format(",\"ph\":\"{}\",\"pid\":{},\"tid\":{}", ph, kPid, t);
  return e;
}

void append_args(std::string& e, const nlohmann::json* args) {
  if (!args) return;
  e += ",\"args\":";
  e += args->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string metadata(std::string_view kind, TrackId tid, std::string_view key,
                     const std::string& value) {
  std::string e = event_head(kind, "", 'M', tid);
  e += ",\"args\":{";
  append_string(e, key);
  e += ':';
  e += value;
  e += "}}";
  return e;
}

std::string quoted(std::string_view s) {
  std::string out;
  append_string(out, s);
  return out;
}

}  // namespace

bool glob_match(std::string_view pattern, std::string_view text) {
  // Greedy match with backtracking to the last '*': linear for the usual patterns.
  std::size_t p = 0, t = 0, star = std::string_view::npos, mark = 0;
  while (t < text.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = t;
    } else if (p < pattern.size() && pattern[p] == text[t]) {
      ++p;
      ++t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*')
    ++p;
  return p == pattern.size();
}

std::string format_us(Tick ps) {
  return fmt::format("{}.{:06}", ps / 1'000'000, ps % 1'000'000);
}

Tracer::~Tracer() {
  (void)close();
}

Status Tracer::open(const TraceOptions& options) {
  if (file_) return Error{fmt::format("trace already open on '{}'", path_.string())};
  std::FILE* f = std::fopen(options.path.c_str(), "wb");
  if (!f) {
    return Error{fmt::format("cannot open trace file '{}': {}", options.path.string(),
                             std::strerror(errno))};
  }
  std::setvbuf(f, nullptr, _IOFBF, std::size_t{1} << 20);  // events stream out in big writes
  file_ = f;
  path_ = options.path;
  max_events_ = options.max_events;
  filters_ = options.filters;
  window_begin_ = options.window_begin;
  window_end_ = options.window_end;
  tracks_.clear();
  track_paths_.clear();
  written_ = dropped_ = outside_ = 0;
  first_dropped_at_ = 0;
  incomplete_.clear();
  first_event_ = true;
  write_errno_ = 0;
  write_text("{\"traceEvents\":[\n");
  emit(metadata("process_name", 0, "name", quoted("xpusim")));
  return Ok{};
}

TrackId Tracer::track(std::string_view component_path) {
  if (!file_) return kNoTrack;
  if (auto it = tracks_.find(component_path); it != tracks_.end()) return it->second;
  bool wanted = filters_.empty();
  for (const std::string& f : filters_) {
    if (glob_match(f, component_path)) {
      wanted = true;
      break;
    }
  }
  if (!wanted) {
    tracks_.emplace(component_path, kNoTrack);
    return kNoTrack;
  }
  const auto id = static_cast<TrackId>(track_paths_.size());
  XPUSIM_CHECK(id != kNoTrack, "too many trace tracks");
  tracks_.emplace(component_path, id);
  track_paths_.emplace_back(component_path);
  emit(metadata("thread_name", id, "name", quoted(component_path)));
  // Keeps tracks in creation order (hardware order) instead of sorting them by name.
  emit(metadata("thread_sort_index", id, "sort_index", std::to_string(id)));
  return id;
}

bool Tracer::admit(Tick at) {
  if (written_ >= max_events_) {
    if (dropped_++ == 0) first_dropped_at_ = at;
    return false;
  }
  ++written_;
  return true;
}

void Tracer::mark_incomplete(std::string_view reason) {
  if (!file_) return;
  if (std::find(incomplete_.begin(), incomplete_.end(), reason) == incomplete_.end()) {
    incomplete_.emplace_back(reason);
  }
}

void Tracer::write_complete(TrackId t, std::string_view name, Tick begin, Tick end,
                            std::string_view category, const nlohmann::json* args) {
  XPUSIM_CHECK(end >= begin, "trace slice ends before it begins");
  // A slice is [begin, end); a zero-length one is the point `begin`.
  if (begin >= window_end_ || (end <= window_begin_ && begin < window_begin_)) {
    ++outside_;
    return;
  }
  if (!admit(begin)) return;
  std::string e = event_head(name, category, 'X', t);
  e += fmt::format(",\"ts\":{},\"dur\":{}", format_us(begin), format_us(end - begin));
  append_args(e, args);
  e += '}';
  emit(e);
}

void Tracer::write_instant(TrackId t, std::string_view name, Tick at, std::string_view category,
                           const nlohmann::json* args) {
  if (!in_window(at) || !admit(at)) return;
  std::string e = event_head(name, category, 'i', t);
  e += fmt::format(",\"s\":\"t\",\"ts\":{}", format_us(at));
  append_args(e, args);
  e += '}';
  emit(e);
}

void Tracer::write_counter(TrackId t, std::string_view name, Tick at, double value) {
  if (!in_window(at) || !admit(at)) return;
  std::string e = event_head(track_paths_[t] + "." + std::string(name), "", 'C', t);
  e += fmt::format(",\"ts\":{},\"args\":{{\"value\":{}}}}}", format_us(at),
                   nlohmann::json(value).dump());
  emit(e);
}

void Tracer::write_flow(TrackId t, std::string_view name, std::uint64_t flow_id, Tick at,
                        bool end) {
  if (!in_window(at) || !admit(at)) return;
  // Chrome pairs flow events by (cat, name, id); a fixed category keeps that simple.
  std::string e = event_head(name, "flow", end ? 'f' : 's', t);
  e += fmt::format(",\"id\":{},\"ts\":{}", flow_id, format_us(at));
  if (end) e += ",\"bp\":\"e\"";
  e += '}';
  emit(e);
}

void Tracer::write_text(std::string_view text) {
  if (std::fwrite(text.data(), 1, text.size(), file_) != text.size() && write_errno_ == 0) {
    write_errno_ = errno != 0 ? errno : EIO;
  }
}

void Tracer::emit(const std::string& event) {
  if (!first_event_) write_text(",\n");
  first_event_ = false;
  write_text(event);
}

Status Tracer::close() {
  if (!file_) return Ok{};
  if (dropped_ > 0) {
    mark_incomplete(
        fmt::format("the cap of {} events was reached at {} us; {} later events were "
                    "left out",
                    max_events_, format_us(first_dropped_at_), dropped_));
  }
  nlohmann::json other = {{"generator", "xpusim"},
                          {"complete", incomplete_.empty()},
                          {"max_events", max_events_},
                          {"dropped_events", dropped_}};
  if (!incomplete_.empty()) {
    other["reason"] = fmt::format("{}", fmt::join(incomplete_, "; "));
  }
  if (window_begin_ != 0 || window_end_ != kMaxTick) {
    other["window"] = {
        {"begin_ps", window_begin_},
        {"end_ps", window_end_ == kMaxTick ? nlohmann::json(nullptr) : nlohmann::json(window_end_)},
        {"events_outside", outside_}};
  }
  write_text(fmt::format("\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{}\n}}\n",
                         other.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)));
  if (std::fflush(file_) != 0 && write_errno_ == 0) write_errno_ = errno != 0 ? errno : EIO;
  if (std::fclose(file_) != 0 && write_errno_ == 0) write_errno_ = errno != 0 ? errno : EIO;
  file_ = nullptr;
  if (write_errno_ != 0) {
    // The file ends mid-event: remove it rather than leave invalid JSON behind. Only a regular
    // file: a trace written to a device (/dev/full) is not ours to remove.
    std::error_code ec;
    const bool removed =
        std::filesystem::is_regular_file(path_, ec) && std::filesystem::remove(path_, ec);
    return Error{fmt::format("cannot write trace file '{}': {}{}", path_.string(),
                             std::strerror(write_errno_),
                             removed ? "; the unfinished file was removed" : "")};
  }
  return Ok{};
}

void Tracer::discard() {
  if (!file_) return;
  std::fclose(file_);
  file_ = nullptr;
  std::error_code ec;
  if (std::filesystem::is_regular_file(path_, ec)) std::filesystem::remove(path_, ec);
}

}  // namespace xpusim::sim
