#include "cli.h"

#include "config/units.h"
#include "sim/clock.h"
#include "sim/version.h"

#include <fmt/format.h>

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>

namespace xpusim::cli {

Status probe_output(const std::string& path) {
  const bool existed = std::filesystem::exists(path);
  std::ofstream probe(path, std::ios::app);
  if (!probe) return Error{"cannot open the file for writing"};
  if (!existed) {
    probe.close();
    std::filesystem::remove(path);
  }
  return Ok{};
}

void print_errors(const std::vector<Error>& errors) {
  for (const Error& e : errors)
    std::fprintf(stderr, "error: %s\n", e.message.c_str());
}

int fail(const std::vector<Error>& errors, int code) {
  print_errors(errors);
  return code;
}

CLI::Validator non_negative(std::uint64_t max) {
  return CLI::Validator(
      [max](std::string& v) -> std::string {
        if (!v.empty() && v.front() == '-') return "must not be negative";
        std::uint64_t n = 0;
        const auto r = std::from_chars(v.data(), v.data() + v.size(), n);
        if (r.ec == std::errc::result_out_of_range || (r.ec == std::errc{} && n > max)) {
          return fmt::format("{} is above the largest allowed value, {}", v, max);
        }
        return "";  // not a number: CLI11's own conversion names it
      },
      "", "non-negative");
}

CLI::Validator cycles() {
  return non_negative(sim::kMaxUserCycles);
}

Status parse_whole(std::string_view flag, std::string_view key, std::string_view value,
                   std::uint32_t& out) {
  const auto r = std::from_chars(value.data(), value.data() + value.size(), out);
  if (value.empty() || r.ec != std::errc{} || r.ptr != value.data() + value.size()) {
    return Error{fmt::format("{}: {} = '{}' is not a whole number", flag, key, value)};
  }
  return Ok{};
}

Status set_knobs(std::string_view flag, std::string_view text, std::span<const Knob> knobs) {
  return config::for_each_key_value(flag, text, [&](auto item, auto key, auto value) -> Status {
    for (const Knob& k : knobs) {
      if (k.key == key) return parse_whole(flag, key, value, *k.field);
    }
    std::string valid;
    for (const Knob& k : knobs)
      valid += fmt::format("{}{}", valid.empty() ? "" : ", ", k.key);
    return Error{fmt::format("{}: unknown item '{}' (valid: {}, each =N)", flag, item, valid)};
  });
}

std::filesystem::path config_dir(const GlobalOptions& g) {
  if (!g.config_dir.empty()) return g.config_dir;
  if (const char* env = std::getenv("XPUSIM_CONFIG_DIR"); env != nullptr && *env != '\0') {
    return env;
  }
  return XPUSIM_CONFIG_DIR;
}

std::vector<Error> reject_sim_outputs(const GlobalOptions& g, std::string_view command) {
  std::vector<Error> errors;
  for (const auto& [flag, value] :
       {std::pair{"--stats", &g.stats_path}, {"--trace", &g.trace_path}}) {
    if (!value->empty()) {
      errors.push_back(
          {fmt::format("{} = {}: '{}' runs no simulation, so it writes no {} "
                       "(use a simulating command such as 'demo')",
                       flag, *value, command, flag + 2)});
    }
  }
  if (!g.trace_window.empty()) {
    errors.push_back(
        {fmt::format("--trace-window = {}: '{}' runs no simulation, so it writes no "
                     "trace to window",
                     g.trace_window, command)});
  }
  return errors;
}

Result<sim::Tick> run_slice_from_env() {
  const char* env = std::getenv("XPUSIM_RUN_SLICE");
  if (env == nullptr || *env == '\0') return sim::Tick{0};
  auto t = config::parse_time_ps(env);
  if (!t) return Error{fmt::format("XPUSIM_RUN_SLICE = {}: {}", env, t.error().message)};
  if (*t == 0) return Error{fmt::format("XPUSIM_RUN_SLICE = {}: must be greater than zero", env)};
  return *t;
}

Result<std::unique_ptr<Session>> Session::open(const GlobalOptions& g) {
  std::unique_ptr<Session> s(new Session(g));
  std::vector<Error> errors;
  s->limit_label_ = fmt::format("--max-time = {}", g.max_time);
  if (g.max_time.empty()) {
    s->limit_ = *config::parse_time_ps(kDefaultMaxTime);
    s->limit_label_ = fmt::format(
        "the default --max-time of {} (a guard against endless runs; --max-time none lifts it)",
        kDefaultMaxTime);
  } else if (g.max_time == "none") {
    s->limit_ = sim::kMaxTick;
  } else {
    auto t = config::parse_time_ps(g.max_time);
    if (!t) {
      errors.push_back({fmt::format("--max-time = {}: {}", g.max_time, t.error().message)});
    } else if (*t == 0) {
      errors.push_back({fmt::format("--max-time = {}: must be greater than zero", g.max_time)});
    } else {
      s->limit_ = *t;
    }
  }
  if (!g.stats_path.empty()) {
    if (auto st = probe_output(g.stats_path); !st)
      errors.push_back({fmt::format("--stats = {}: {}", g.stats_path, st.error().message)});
  }
  std::optional<config::TimeWindow> window;
  if (!g.trace_window.empty()) {
    if (auto w = config::parse_time_window(g.trace_window); !w) {
      errors.push_back({fmt::format("--trace-window = {}: {}", g.trace_window, w.error().message)});
    } else if (g.trace_path.empty()) {
      errors.push_back(
          {fmt::format("--trace-window = {}: no trace is written to window (add --trace FILE)",
                       g.trace_window)});
    } else {
      window = *w;
    }
  }
  if (!g.trace_path.empty()) {  // opened to find its errors too; a failed open() is discarded
    sim::TraceOptions opts;
    opts.path = g.trace_path;
    opts.max_events = g.trace_max_events;
    opts.filters = g.trace_filters;
    if (window) {
      opts.window_begin = window->begin;
      opts.window_end = window->end;
    }
    if (auto st = s->sim_->tracer().open(opts); !st.ok()) {
      for (const Error& e : st.errors())
        errors.push_back({"--trace: " + e.message});
    }
  }
  if (!errors.empty()) return errors;
  return s;
}

Session::~Session() {
  if (!finished_) sim_->tracer().discard();
}

nlohmann::json Session::stats_header() const {
  // Everything here but "host" is the same for the same config and seed: a determinism check
  // compares the file without its "host" object.
  nlohmann::json header = {
      {"xpusim", version()},      {"git", git_describe()},
      {"command", g_.command},    {"seed", g_.seed},
      {"sim_ticks", sim_->now()}, {"sim_seconds", static_cast<double>(sim_->now()) / 1e12},
      {"max_time_ps", limit_}};
  header.update(header_);
  const double host =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  nlohmann::json top = {{"header", std::move(header)},
                        {"host", {{"command_line", g_.command_line}, {"host_seconds", host}}}};
  if (!figures_.is_null()) top["figures"] = figures_;
  return top;
}

nlohmann::json Session::stats_json() const {
  nlohmann::json all = stats_header();
  all.update(sim_->stats().to_json());
  return all;
}

std::vector<Error> Session::finish() {
  finished_ = true;
  std::vector<Error> errors;
  if (auto st = sim_->tracer().close(); !st.ok()) {
    for (const Error& e : st.errors())
      errors.push_back({"--trace: " + e.message});
  }
  if (!g_.stats_path.empty()) {
    if (auto st = sim_->stats().write_file(g_.stats_path, stats_header()); !st.ok()) {
      for (const Error& e : st.errors())
        errors.push_back({"--stats: " + e.message});
    }
  }
  return errors;
}

}  // namespace xpusim::cli
