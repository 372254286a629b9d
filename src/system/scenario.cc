#include "system/scenario.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <fstream>
#include <limits>
#include <numeric>
#include <set>
#include <span>
#include <sstream>
#include <system_error>

#include "config/chip_spec.h"
#include "config/key_value_list.h"
#include "config/units.h"
#include "config/yaml_node.h"
#include "core/warp_scheduler.h"
#include "sched/policy.h"
#include "sim/file_read.h"
#include "sim/one_line.h"
#include "sim/suggest.h"
#include "system/scenario_keys.h"
#include "tma/tensor_map_io.h"

namespace xpusim::system {

using config::SourcePos;

std::string_view to_string(RunMode m) {
  return m == RunMode::kFunctional ? "functional" : "timing-only";
}

Result<mem::MemoryTiming> parse_memory_timing_key(std::string_view text) {
  if (auto t = mem::parse_memory_timing(text)) return *t;
  const std::vector<std::string> timings = {"events", "transactions"};
  return Error{fmt::format(
      "'{}' is not a memory timing{}; memory timings: events (every step at its tick, the "
      "reference), transactions (each request timed whole when issued: faster, approximate)",
      text, sim::did_you_mean(text, timings))};
}

Result<RunMode> parse_run_mode(std::string_view text) {
  if (text == "functional") return RunMode::kFunctional;
  if (text == "timing-only") return RunMode::kTimingOnly;
  const std::vector<std::string> modes = {"functional", "timing-only"};
  return Error{
      fmt::format("'{}' is not a mode{}; modes: functional (data moves, results "
                  "checked), timing-only (no data, same timing)",
                  text, sim::did_you_mean(text, modes))};
}

std::string_view to_string(BufferFill f) {
  switch (f) {
    case BufferFill::kZero:
      return "zero";
    case BufferFill::kIota32:
      return "iota32";
    case BufferFill::kRandom32:
      return "random32";
  }
  return "?";
}

std::string Scenario::what() const {
  if (is_workload()) return "workload " + workload;
  if (is_graph()) {
    return fmt::format("kernel graph ({} kernel{})", graph.size(), graph.size() == 1 ? "" : "s");
  }
  return "kernel " + kernel;
}

Error Scenario::error_at(SourcePos pos, std::string_view key, std::string_view message) const {
  std::string text = source;
  if (pos.line > 0) text += fmt::format(":{}:{}", pos.line, pos.column);
  if (!text.empty()) text += ": ";
  if (!key.empty()) text += fmt::format("{}: ", key);
  text += message;
  return Error{sim::one_line(text)};
}

namespace {

// Each mapping's valid keys, from the one table (scenario_keys.h).
std::vector<std::string> keys_of(std::string_view parent) {
  return config::child_keys(scenario_keys(), parent);
}

std::string join(const std::vector<std::string>& v) {
  return fmt::format("{}", fmt::join(v, ", "));
}

SourcePos pos_of(const YAML::Node& n) {
  return config::yaml_pos(n.Mark());
}

// yaml-cpp places an empty value at the next token; the key is the better spot.
SourcePos value_pos(const YAML::Node& v, SourcePos key_pos) {
  return v.IsNull() ? key_pos : pos_of(v);
}

std::string describe(const YAML::Node& n) {
  return config::describe_yaml_node(n);
}

// Decimal or 0x hexadecimal, no sign, no unit.
std::optional<std::uint64_t> parse_u64(std::string_view text) {
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    text.remove_prefix(2);
    base = 16;
  }
  std::uint64_t v = 0;
  const auto r = std::from_chars(text.data(), text.data() + text.size(), v, base);
  if (text.empty() || r.ec != std::errc{} || r.ptr != text.data() + text.size()) {
    return std::nullopt;
  }
  return v;
}

// A YAML 1.2 float: decimal or exponent form with an optional sign, or .inf, -.inf, .nan (any
// case as YAML spells them). T: float or double; false when the text is none of these or out of
// T's range.
template <class T>
bool yaml_float(const YAML::Node& v, T& out) {
  if (!v.IsScalar()) return false;
  std::string_view t = v.Scalar();
  const bool negative = !t.empty() && t.front() == '-';
  if (!t.empty() && (t.front() == '+' || t.front() == '-')) t.remove_prefix(1);
  if (t == ".inf" || t == ".Inf" || t == ".INF") {
    out = negative ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity();
    return true;
  }
  if (t == ".nan" || t == ".NaN" || t == ".NAN") {
    if (v.Scalar() != t) return false;  // YAML's NaN takes no sign
    out = std::numeric_limits<T>::quiet_NaN();
    return true;
  }
  // from_chars takes no '+' and would read "inf", "nan" and "-": not YAML floats.
  if (t.empty() || !(std::isdigit(static_cast<unsigned char>(t.front())) || t.front() == '.')) {
    return false;
  }
  T x = 0;
  const auto r = std::from_chars(t.data(), t.data() + t.size(), x);
  if (r.ec != std::errc{} || r.ptr != t.data() + t.size()) return false;
  out = negative ? -x : x;
  return true;
}

// A buffer file's size. Errors: "PATH: cannot open the buffer file: REASON", a folder, and
// anything but a regular file (a pipe or a device has no size, and reading one could block).
Result<std::uint64_t> buffer_file_size(const std::filesystem::path& path) {
  std::error_code ec;
  const auto st = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(st)) {
    return Error{fmt::format(
        "{}: cannot open the buffer file: {}", path.string(),
        (ec ? ec : std::make_error_code(std::errc::no_such_file_or_directory)).message())};
  }
  if (std::filesystem::is_directory(st)) {
    return Error{fmt::format("{}: is a folder, not a buffer file", path.string())};
  }
  if (!std::filesystem::is_regular_file(st)) {
    return Error{
        fmt::format("{}: is not a regular file (a buffer file has a size)", path.string())};
  }
  if (std::ifstream in(path, std::ios::binary); !in) {
    return Error{fmt::format("{}: cannot open the buffer file: {}", path.string(),
                             std::error_code(errno, std::generic_category()).message())};
  }
  const std::uint64_t n = std::filesystem::file_size(path, ec);
  if (ec) {
    return Error{
        fmt::format("{}: cannot read the buffer file's size: {}", path.string(), ec.message())};
  }
  return n;
}

std::string out_of_range(std::uint64_t n, std::uint64_t lo, std::uint64_t hi) {
  if (hi == std::numeric_limits<std::uint64_t>::max()) {
    return fmt::format("{} is less than {}, the smallest allowed", n, lo);
  }
  return fmt::format("{} is outside [{}, {}]", n, lo, hi);
}

class Reader {
 public:
  Reader(std::string_view source, const std::filesystem::path& dir) : diag_(std::string(source)) {
    s_.source = std::string(source);
    s_.dir = dir;
  }

  Result<Scenario> read(std::string_view yaml) {
    YAML::Node root;
    try {
      root = YAML::Load(std::string(yaml));
    } catch (const YAML::Exception& e) {
      diag_.error(config::yaml_pos(e.mark), "", fmt::format("YAML syntax error: {}", e.msg));
      return diag_.take();
    }
    if (root.IsNull()) {
      diag_.error(
          {1, 1}, "",
          fmt::format("empty scenario; expected a mapping with keys {}", join(keys_of(""))));
      return diag_.take();
    }
    if (!root.IsMap()) {
      diag_.error(pos_of(root), "",
                  fmt::format("expected a mapping at the top level, got {}", describe(root)));
      return diag_.take();
    }
    top(root);
    if (!diag_.empty()) return diag_.take();
    return std::move(s_);
  }

 private:
  void error(SourcePos pos, std::string_view key, std::string_view message) {
    diag_.error(pos, key, message);
  }

  // Calls fn(key, key_pos, value) for each entry of `map`; reports non-scalar, duplicate and
  // unknown keys (when `valid` is non-empty).
  template <class F>
  void entries(const YAML::Node& map, std::string_view section,
               const std::vector<std::string>& valid, F&& fn) {
    std::map<std::string, SourcePos> seen;
    for (const auto& kv : map) {
      const SourcePos key_pos = pos_of(kv.first);
      if (!kv.first.IsScalar()) {
        error(key_pos, section,
              fmt::format("keys must be plain strings, got {}", describe(kv.first)));
        continue;
      }
      const std::string& key = kv.first.Scalar();
      const std::string path = section.empty() ? key : fmt::format("{}.{}", section, key);
      if (auto [it, fresh] = seen.emplace(key, key_pos); !fresh) {
        error(key_pos, path, fmt::format("duplicate key; first given at line {}", it->second.line));
        continue;
      }
      if (!valid.empty() && std::find(valid.begin(), valid.end(), key) == valid.end()) {
        if (section.empty()) suggested_.insert(sim::closest_match(key, valid));
        error(
            key_pos, path,
            fmt::format("unknown key '{}'{}; valid keys{}: {}", key, sim::did_you_mean(key, valid),
                        section.empty() ? "" : fmt::format(" in {}", section), join(valid)));
        continue;
      }
      fn(key, path, key_pos, kv.second);
    }
  }

  std::optional<std::string> text(const YAML::Node& v, std::string_view path, SourcePos key_pos,
                                  std::string_view what) {
    if (!v.IsScalar() || v.Scalar().empty()) {
      error(value_pos(v, key_pos), path, fmt::format("expected {}, got {}", what, describe(v)));
      return std::nullopt;
    }
    return v.Scalar();
  }

  std::optional<std::uint64_t> whole(const YAML::Node& v, std::string_view path, SourcePos key_pos,
                                     std::uint64_t lo, std::uint64_t hi) {
    if (!v.IsScalar()) {
      error(value_pos(v, key_pos), path,
            fmt::format("expected a whole number, got {}", describe(v)));
      return std::nullopt;
    }
    const auto n = parse_u64(v.Scalar());
    if (!n) {
      error(pos_of(v), path, fmt::format("\"{}\" is not a whole number", v.Scalar()));
      return std::nullopt;
    }
    if (*n < lo || *n > hi) {
      error(pos_of(v), path, out_of_range(*n, lo, hi));
      return std::nullopt;
    }
    return n;
  }

  // A signed whole number: an optional sign, then decimal or 0x hexadecimal.
  std::optional<std::int64_t> signed_whole(const YAML::Node& v, std::string_view path,
                                           SourcePos key_pos, std::int64_t lo, std::int64_t hi) {
    if (!v.IsScalar()) {
      error(value_pos(v, key_pos), path,
            fmt::format("expected a whole number, got {}", describe(v)));
      return std::nullopt;
    }
    std::string_view t = v.Scalar();
    const bool negative = !t.empty() && t.front() == '-';
    if (!t.empty() && (t.front() == '+' || t.front() == '-')) t.remove_prefix(1);
    const auto magnitude = parse_u64(t);
    if (!magnitude) {
      error(pos_of(v), path, fmt::format("\"{}\" is not a whole number", v.Scalar()));
      return std::nullopt;
    }
    // |lo| = hi + 1 in two's complement: compare magnitudes, no overflow.
    const std::uint64_t limit =
        negative ? static_cast<std::uint64_t>(hi) + 1 : static_cast<std::uint64_t>(hi);
    if (*magnitude > limit) {
      error(pos_of(v), path, fmt::format("{} is outside [{}, {}]", v.Scalar(), lo, hi));
      return std::nullopt;
    }
    return negative ? static_cast<std::int64_t>(0 - *magnitude)
                    : static_cast<std::int64_t>(*magnitude);
  }

  // true | false (also 1 | 0).
  std::optional<bool> boolean(const YAML::Node& v, std::string_view path, SourcePos key_pos) {
    const std::string t = v.IsScalar() ? v.Scalar() : "";
    if (t == "true" || t == "1") return true;
    if (t == "false" || t == "0") return false;
    error(value_pos(v, key_pos), path, fmt::format("expected true or false, got {}", describe(v)));
    return std::nullopt;
  }

  // A percentage: a number from 0 to `hi` (fractions allowed, no % sign).
  std::optional<double> percent(const YAML::Node& v, std::string_view path, SourcePos key_pos,
                                double hi) {
    if (!v.IsScalar()) {
      error(value_pos(v, key_pos), path,
            fmt::format("expected a percentage (a number), got {}", describe(v)));
      return std::nullopt;
    }
    const std::string& t = v.Scalar();
    double x = 0;
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), x);
    if (ec != std::errc() || end != t.data() + t.size() || !(x >= 0)) {
      error(pos_of(v), path,
            fmt::format("\"{}\" is not a percentage (a number such as 2 or 0.5)", t));
      return std::nullopt;
    }
    if (x > hi) {
      error(pos_of(v), path, fmt::format("{} is outside [0, {}]", t, hi));
      return std::nullopt;
    }
    return x;
  }

  // A whole number of bytes, or a size with a unit ("4MiB").
  std::optional<std::uint64_t> size(const YAML::Node& v, std::string_view path, SourcePos key_pos,
                                    std::uint64_t lo, std::uint64_t hi) {
    if (!v.IsScalar()) {
      error(value_pos(v, key_pos), path,
            fmt::format("expected a whole number or a size such as \"4MiB\", got {}", describe(v)));
      return std::nullopt;
    }
    auto n = config::parse_size_bytes(v.Scalar());
    if (!n) {
      if (auto hex = parse_u64(v.Scalar())) {
        n = *hex;
      } else {
        error(pos_of(v), path, n.error().message);
        return std::nullopt;
      }
    }
    if (*n < lo || *n > hi) {
      error(pos_of(v), path, out_of_range(*n, lo, hi));
      return std::nullopt;
    }
    return *n;
  }

  // [x, y, z], [x, y], [x] or x; every dim >= 1.
  std::optional<kernel::Dim3> dim3(const YAML::Node& v, std::string_view path, SourcePos key_pos) {
    std::vector<YAML::Node> items;
    if (v.IsScalar()) {
      items.push_back(v);
    } else if (v.IsSequence() && v.size() >= 1 && v.size() <= 3) {
      for (const auto& item : v)
        items.push_back(item);
    } else {
      error(value_pos(v, key_pos), path,
            fmt::format("expected [x, y, z] with 1 to 3 whole numbers, got {}{}", describe(v),
                        v.IsSequence() ? fmt::format(" of {}", v.size()) : ""));
      return std::nullopt;
    }
    std::uint32_t d[3] = {1, 1, 1};
    bool ok = true;
    for (std::size_t i = 0; i < items.size(); ++i) {
      const auto n = whole(items[i], fmt::format("{}.{}", path, "xyz"[i]), key_pos, 1,
                           std::numeric_limits<std::uint32_t>::max());
      if (n) {
        d[i] = static_cast<std::uint32_t>(*n);
      } else {
        ok = false;
      }
    }
    if (!ok) return std::nullopt;
    return kernel::Dim3{.x = d[0], .y = d[1], .z = d[2]};
  }

  void top(const YAML::Node& root) {
    const SourcePos root_pos = pos_of(root);
    root_pos_ = root_pos;
    std::map<std::string, SourcePos, std::less<>> given;
    std::optional<YAML::Node> args;     // read last: it names buffers listed anywhere
    std::optional<YAML::Node> runs;     // read after every top-level key: runs start from them
    std::optional<YAML::Node> graph;    // read last, as args
    std::optional<YAML::Node> outputs;  // read last, as args
    entries(root, "", keys_of(""),
            [&](const std::string& key, const std::string& path, SourcePos key_pos,
                const YAML::Node& v) {
              given[key] = key_pos;
              if (key == "chip") {
                if (auto t = text(v, path, key_pos, "a chip name or path")) {
                  s_.chip = *t;
                  s_.chip_pos = pos_of(v);
                }
              } else if (key == "mode") {
                if (auto t = text(v, path, key_pos, "functional or timing-only")) {
                  auto m = parse_run_mode(*t);
                  if (m) {
                    s_.mode = *m;
                  } else {
                    error(pos_of(v), path, m.error().message);
                  }
                }
              } else if (key == "memory_timing") {
                if (auto t = text(v, path, key_pos, "events or transactions")) {
                  auto m = parse_memory_timing_key(*t);
                  if (m) {
                    s_.memory_timing = *m;
                  } else {
                    error(pos_of(v), path, m.error().message);
                  }
                }
              } else if (key == "set_sampling") {
                if (auto n = whole(v, path, key_pos, 1, mem::kMaxSetSampling)) {
                  s_.set_sampling = static_cast<std::uint32_t>(*n);
                }
              } else if (key == "wave_sampling") {
                if (auto x = percent(v, path, key_pos, kMaxWaveSamplingPercent)) {
                  s_.wave_sampling = *x;
                }
              } else if (key == "workload") {
                if (auto t = text(v, path, key_pos, "a workload name")) {
                  s_.workload = *t;
                  s_.workload_pos = pos_of(v);
                }
              } else if (key == "kernel") {
                if (auto t = text(v, path, key_pos, "a kernel name")) {
                  s_.kernel = *t;
                  s_.kernel_pos = pos_of(v);
                }
              } else if (key == "ptx" || key == "cuda") {
                if (auto t = text(v, path, key_pos, key == "ptx" ? "a .ptx file" : "a .cu file")) {
                  (key == "ptx" ? s_.ptx : s_.cuda) = *t;
                  (key == "ptx" ? s_.ptx_pos : s_.cuda_pos) = pos_of(v);
                }
              } else if (key == "policy") {
                read_policy(v, path, key_pos);
              } else if (key == "cga_memory_slots") {  // seed1 ¶222: the CWD's slot pool
                if (auto n = whole(v, path, key_pos, 0, sched::kMaxMemorySlots)) {
                  s_.cga_memory_slots = static_cast<std::uint32_t>(*n);
                }
              } else if (key == "rasterization") {  // seed1 ¶176-190: who decodes CTA ids
                if (auto t = text(v, path, key_pos, "distributed or central")) {
                  if (*t == "distributed" || *t == "central") {
                    s_.rasterization = *t == "central"
                                           ? sched::DistributorTiming::Rasterization::kCentral
                                           : sched::DistributorTiming::Rasterization::kDistributed;
                  } else {
                    error(pos_of(v), path,
                          fmt::format("'{}' is not a rasterization{}; rasterizations: "
                                      "distributed (each SM decodes its CTA ids, seed1), central "
                                      "(the CWD sends each CTA its id)",
                                      *t,
                                      sim::did_you_mean(
                                          *t, std::vector<std::string>{"distributed", "central"})));
                  }
                }
              } else if (key == "sm_scheduler") {
                read_scheduler(v, path, key_pos);
              } else if (key == "params") {
                read_params(s_.params, v, path, key_pos);
              } else if (key == "sm_timing") {
                read_sm_timing(v, path, key_pos);
              } else if (key == "launch") {
                s_.launch_pos = key_pos;
                read_launch(v, path, key_pos, s_.launch, s_.launch_queue, s_.launch_queue_pos);
              } else if (key == "queues") {
                s_.queues_pos = key_pos;
                read_queues(v, path, key_pos, s_.queues);
              } else if (key == "cp_timing") {
                read_cp_timing(v, path, key_pos);
              } else if (key == "kernels") {
                graph.emplace(v);
              } else if (key == "buffers") {
                read_buffers(v, path, key_pos);
              } else if (key == "args") {
                s_.args_pos = key_pos;
                args.emplace(v);
              } else if (key == "stats" || key == "trace" || key == "trace_max_events" ||
                         key == "trace_window") {
                read_output(s_, key, v, path, key_pos);
              } else if (key == "runs") {
                runs.emplace(v);
              } else if (key == "outputs") {
                s_.outputs_pos = key_pos;
                outputs.emplace(v);
              }
            });
    if (!given.contains("chip") && !suggested_.contains("chip")) {
      error(root_pos, "chip",
            "missing required key 'chip' (a name in configs/chips such as h100-sxm5, or a path)");
    }
    if (kind(given, runs.has_value())) {
      if (args && given.contains("kernel")) read_args(*args, "args", s_.args_pos, s_.args);
      if (graph) read_graph(*graph, given.find("kernels")->second);
      if (given.contains("kernel"))
        check_queue(s_.launch_queue, "launch.queue", s_.launch_queue_pos);
      if (outputs && !runs && (given.contains("kernel") || graph)) {
        read_outputs(*outputs, "outputs", s_.outputs_pos, s_);
        check_outputs(s_, "outputs", s_.outputs_pos);
      }
      if (runs) read_runs(*runs, given);
    }
  }

  // outputs: {BUFFER: FILE, ...} into target.outputs (`path`: "outputs" or "runs[N].outputs").
  void read_outputs(const YAML::Node& v, const std::string& path, SourcePos key_pos,
                    Scenario& target) {
    if (!v.IsMap()) {
      error(value_pos(v, key_pos), path,
            fmt::format("expected a mapping of buffer: file such as {{dst: dst.bin}}, got {}",
                        describe(v)));
      return;
    }
    std::vector<std::string> buffer_names;
    for (const ScenarioBuffer& b : s_.buffers)
      buffer_names.push_back(b.name);
    std::map<std::string, std::string, std::less<>> files;  // file -> the buffer written there
    entries(v, path, {},
            [&](const std::string& key, const std::string& p, SourcePos kp, const YAML::Node& x) {
              const auto file = text(x, p, kp, "a file name");
              if (!file) return;
              if (std::none_of(s_.buffers.begin(), s_.buffers.end(),
                               [&](const ScenarioBuffer& b) { return b.name == key; })) {
                if (declared_buffers_.contains(key)) return;  // its own error was given
                error(kp, p,
                      fmt::format("'{}' is not a buffer{}; buffers: {}", key,
                                  sim::did_you_mean(key, buffer_names),
                                  buffer_names.empty() ? "none (declare them in buffers:)"
                                                       : join(buffer_names)));
                return;
              }
              if (auto [it, fresh] = files.emplace(*file, key); !fresh) {
                error(pos_of(x), p,
                      fmt::format("'{}' is buffer {}'s output already; each output file holds one "
                                  "buffer",
                                  *file, it->second));
                return;
              }
              target.outputs.push_back(
                  ScenarioOutput{.buffer = key, .path = *file, .key = p, .pos = pos_of(x)});
            });
  }

  // A run's outputs need its data (functional mode) and files of their own.
  void check_outputs(const Scenario& r, const std::string& path, SourcePos pos) {
    if (r.outputs.empty()) return;
    if (r.mode == RunMode::kTimingOnly) {
      error(pos, path,
            "a timing-only run moves no data, so it has no buffer bytes to write; run it "
            "functional (mode: functional) or drop outputs:");
    }
    for (const ScenarioOutput& o : r.outputs) {
      for (const auto& [key, file] :
           {std::pair{"stats", &r.stats_path}, std::pair{"trace", &r.trace_path}}) {
        if (o.path == *file) {
          error(o.pos, o.key,
                fmt::format("'{}' is the run's {} file too; an output needs a file of its own",
                            o.path, key));
        }
      }
    }
  }

  // A launch's queue must be one of the file's queues.
  void check_queue(std::uint32_t q, std::string_view path, SourcePos pos) {
    if (q >= s_.queues.size()) {
      error(pos, path,
            fmt::format("queue {}: the scenario has {} queue{} (queues: lists them; 0 is the "
                        "first)",
                        q, s_.queues.size(), s_.queues.size() == 1 ? "" : "s"));
    }
  }

  // queues: [{dispatch: standard|condensed, size: N}, ...]
  void read_queues(const YAML::Node& v, const std::string& path, SourcePos key_pos,
                   std::vector<system::QueueSpec>& out) {
    if (!v.IsSequence() || v.size() == 0 || v.size() > system::kMaxQueues) {
      error(value_pos(v, key_pos), path,
            fmt::format("expected a list of 1 to {} queues such as [{{dispatch: standard}}, "
                        "{{dispatch: condensed, size: 64}}], got {}{}",
                        system::kMaxQueues, describe(v),
                        v.IsSequence() ? fmt::format(" of {}", v.size()) : ""));
      return;
    }
    std::vector<system::QueueSpec> queues;
    std::size_t i = 0;
    for (const auto& item : v) {
      const std::string p = fmt::format("{}[{}]", path, i++);
      const SourcePos ip = value_pos(item, key_pos);
      if (!item.IsMap()) {
        error(ip, p,
              fmt::format("expected a mapping with keys {}, got {}", join(keys_of("queues[]")),
                          describe(item)));
        continue;
      }
      system::QueueSpec q;
      entries(
          item, p, keys_of("queues[]"),
          [&](const std::string& key, const std::string& kp, SourcePos at, const YAML::Node& x) {
            if (key == "dispatch") {
              if (auto t = text(x, kp, at, "standard or condensed")) {
                auto m = system::parse_dispatch_mode(*t);
                if (m) {
                  q.dispatch = *m;
                } else {
                  error(pos_of(x), kp, m.error().message);
                }
              }
            } else if (auto n = whole(x, kp, at, 1, cp::AqlQueue::kMaxSize)) {
              if (!std::has_single_bit(*n)) {
                error(pos_of(x), kp,
                      fmt::format("{} is not a power of two (HSA queue sizes are)", *n));
              } else {
                q.size = static_cast<std::uint32_t>(*n);
              }
            }
          });
      queues.push_back(q);
    }
    out = std::move(queues);
  }

  void read_cp_timing(const YAML::Node& v, const std::string& path, SourcePos key_pos) {
    std::vector<std::string> names;
    for (const CpTimingField& f : cp_timing_fields())
      names.emplace_back(f.name);
    names.emplace_back(kSkipUnneededCleanup);
    if (!v.IsMap()) {
      error(value_pos(v, key_pos), path,
            fmt::format("expected a mapping with keys {}, got {}", join(names), describe(v)));
      return;
    }
    entries(v, path, names,
            [&](const std::string& key, const std::string& p, SourcePos kp, const YAML::Node& x) {
              if (key == kSkipUnneededCleanup) {
                if (auto b = boolean(x, p, kp)) {
                  s_.cp_timing.push_back({.field = key, .value = *b ? 1u : 0u, .pos = kp});
                }
                return;
              }
              if (auto n = whole(x, p, kp, 0, kMaxCpCycles)) {
                s_.cp_timing.push_back(
                    {.field = key, .value = static_cast<std::uint32_t>(*n), .pos = kp});
              }
            });
  }

  // kernels: a graph of launches; each entry {name, kernel, launch, args, after}.
  void read_graph(const YAML::Node& v, SourcePos key_pos) {
    if (!v.IsSequence() || v.size() == 0) {
      error(value_pos(v, key_pos), "kernels",
            fmt::format("expected a non-empty list of launches such as [{{name: a, kernel: "
                        "stream_fill, launch: {{grid: 4, block: 64}}, args: [...]}}], got {}",
                        describe(v)));
      return;
    }
    std::vector<ScenarioKernel> nodes;
    std::map<std::string, std::size_t, std::less<>> index;
    std::size_t i = 0;
    for (const auto& item : v) {
      const std::string p = fmt::format("kernels[{}]", i++);
      const SourcePos ip = value_pos(item, key_pos);
      if (!item.IsMap()) {
        error(ip, p,
              fmt::format("expected a mapping with keys {}, got {}", join(keys_of("kernels[]")),
                          describe(item)));
        continue;
      }
      ScenarioKernel k;
      k.name = fmt::format("k{}", i - 1);
      k.name_pos = ip;
      std::set<std::string> seen;
      entries(item, p, keys_of("kernels[]"),
              [&](const std::string& key, const std::string& q, SourcePos kq, const YAML::Node& x) {
                seen.insert(key);
                if (key == "name") {
                  if (auto t = text(x, q, kq, "a kernel's name in the graph")) {
                    if (!valid_run_name(*t)) {
                      error(pos_of(x), q,
                            fmt::format("'{}' is not a name: use letters, digits, '_', '.' and '-'",
                                        *t));
                    } else {
                      k.name = *t;
                      k.name_pos = pos_of(x);
                    }
                  }
                } else if (key == "kernel") {
                  if (auto t = text(x, q, kq, "a kernel name")) {
                    k.kernel = *t;
                    k.kernel_pos = pos_of(x);
                  }
                } else if (key == "launch") {
                  k.launch_pos = kq;
                  read_launch(x, q, kq, k.launch, k.queue, k.queue_pos);
                } else if (key == "args") {
                  k.args_pos = kq;
                  read_args(x, q, kq, k.args);
                } else if (key == "workload") {
                  if (auto t = text(x, q, kq, "a workload name")) {
                    k.workload = *t;
                    k.workload_pos = pos_of(x);
                  }
                } else if (key == "params") {
                  read_params(k.params, x, q, kq);
                } else if (key == "queue") {
                  if (auto n = whole(x, q, kq, 0, system::kMaxQueues - 1)) {
                    k.queue = static_cast<std::uint32_t>(*n);
                    k.queue_pos = pos_of(x);
                  }
                } else if (key == "after" || key == "after_any") {
                  std::vector<YAML::Node> items;
                  if (x.IsScalar()) {
                    items.push_back(x);
                  } else if (x.IsSequence()) {
                    for (const auto& y : x)
                      items.push_back(y);
                  } else {
                    error(value_pos(x, kq), q,
                          fmt::format("expected a list of entry names, got {}", describe(x)));
                  }
                  auto& names = key == "after" ? k.after : k.after_any;
                  auto& positions = key == "after" ? k.after_pos : k.after_any_pos;
                  for (const YAML::Node& y : items) {
                    if (auto t = text(y, q, kq, "an entry name of this graph")) {
                      names.push_back(*t);
                      positions.push_back(pos_of(y));
                    }
                  }
                  // HSA: one barrier-OR packet has five dependency slots.
                  if (key == "after_any" && names.size() > 5) {
                    error(kq, q,
                          fmt::format("{} entries: a barrier-OR packet waits for at most 5 (HSA)",
                                      names.size()));
                  }
                }
              });
      // A kernel entry or a workload entry, each with its own keys.
      if (seen.contains("kernel") && seen.contains("workload")) {
        error(k.workload_pos, p + ".workload",
              "kernel and workload are exclusive: an entry launches one kernel or runs one "
              "workload");
      } else if (seen.contains("workload")) {
        for (const char* other : {"launch", "args"}) {
          if (seen.contains(other)) {
            error(ip, fmt::format("{}.{}", p, other),
                  "not with 'workload:': a workload makes its own launches (its entry takes "
                  "params: and queue:)");
          }
        }
      } else {
        for (const char* required : {"kernel", "launch"}) {
          if (!seen.contains(required)) {
            error(ip, fmt::format("{}.{}", p, required),
                  fmt::format("missing required key '{}' (or 'workload:')", required));
          }
        }
        if (seen.contains("queue")) {
          error(ip, p + ".queue", "a kernel entry names its queue in launch: {queue: N}");
        }
        if (seen.contains("params")) {
          error(ip, p + ".params", "not with 'kernel:': params belong to a workload entry");
        }
      }
      check_queue(k.queue, p + (k.is_workload() ? ".queue" : ".launch.queue"),
                  k.queue_pos.line > 0 ? k.queue_pos : ip);
      if (auto [it, fresh] = index.emplace(k.name, nodes.size()); !fresh) {
        error(k.name_pos, p + ".name",
              fmt::format("'{}' names kernels[{}] too; names in a graph must differ", k.name,
                          it->second));
        continue;
      }
      nodes.push_back(std::move(k));
    }
    // Dependencies: known names, no cycle; launch order is topological, stable in file order.
    std::vector<std::string> names;
    for (const ScenarioKernel& k : nodes)
      names.push_back(k.name);
    std::vector<std::vector<std::size_t>> deps(nodes.size());
    bool ok = true;
    for (std::size_t n = 0; n < nodes.size(); ++n) {
      for (const bool any : {false, true}) {
        const auto& list = any ? nodes[n].after_any : nodes[n].after;
        const auto& positions = any ? nodes[n].after_any_pos : nodes[n].after_pos;
        const std::string key = fmt::format("kernels[{}].{}", n, any ? "after_any" : "after");
        for (std::size_t d = 0; d < list.size(); ++d) {
          const std::string& dep = list[d];
          const auto it = index.find(dep);
          if (it == index.end()) {
            error(positions[d], key,
                  fmt::format("'{}' is not an entry of this graph{}; entries: {}", dep,
                              sim::did_you_mean(dep, names), join(names)));
            ok = false;
          } else if (it->second == n) {
            error(positions[d], key, fmt::format("'{}' cannot wait for itself", dep));
            ok = false;
          } else {
            deps[n].push_back(it->second);
          }
        }
      }
    }
    if (!ok) return;
    std::vector<std::size_t> order;
    std::vector<bool> placed(nodes.size(), false);
    while (order.size() < nodes.size()) {
      bool progress = false;
      for (std::size_t n = 0; n < nodes.size(); ++n) {
        if (placed[n]) continue;
        if (std::all_of(deps[n].begin(), deps[n].end(), [&](std::size_t d) { return placed[d]; })) {
          placed[n] = true;
          order.push_back(n);
          progress = true;
          break;  // restart: the earliest ready entry goes first
        }
      }
      if (!progress) {
        // Walk unplaced dependencies from an unplaced entry until a name repeats: a cycle.
        std::size_t at = 0;
        while (placed[at])
          ++at;
        std::vector<std::size_t> path;
        while (std::find(path.begin(), path.end(), at) == path.end()) {
          path.push_back(at);
          at = *std::find_if(deps[at].begin(), deps[at].end(),
                             [&](std::size_t d) { return !placed[d]; });
        }
        std::string cycle;
        for (auto it = std::find(path.begin(), path.end(), at); it != path.end(); ++it)
          cycle += nodes[*it].name + " -> ";
        error(nodes[at].name_pos, fmt::format("kernels[{}].after", at),
              fmt::format("the graph has a cycle: {}{}", cycle, nodes[at].name));
        return;
      }
    }
    for (const std::size_t n : order)
      s_.graph.push_back(nodes[n]);
  }

  // Checks that the file is one kind of scenario (a workload or a kernel launch, where runs may
  // name the workload) with only that kind's keys. False: stop reading (the kind is unclear).
  bool kind(std::map<std::string, SourcePos, std::less<>>& given, bool has_runs) {
    const SourcePos root_pos = root_pos_;
    const auto has = [&](std::string_view k) { return given.contains(k); };
    if (has("kernels")) {
      for (std::string_view k : {"workload", "kernel", "launch", "args", "params", "runs"}) {
        if (has(k)) {
          error(given.find(k)->second, k,
                "not with 'kernels:' (a graph): each of its entries names its kernel, launch and "
                "args");
          return false;
        }
      }
      return true;
    }
    if (has("ptx") && has("cuda")) {
      error(given["cuda"], "cuda", "ptx and cuda are exclusive: name the module once");
      return false;
    }
    if ((has("ptx") || has("cuda")) && has("workload") && !has("kernel") && !has("kernels")) {
      const char* k = has("ptx") ? "ptx" : "cuda";
      error(given[k], k,
            "a PTX module's entries are launched with kernel: or kernels:, not a workload");
      return false;
    }
    if (has("workload") && has("kernel")) {
      const SourcePos second = std::max(given["workload"], given["kernel"], [](auto a, auto b) {
        return std::pair(a.line, a.column) < std::pair(b.line, b.column);
      });
      error(second, "",
            "workload and kernel are exclusive: a scenario runs a workload or one "
            "kernel launch, not both");
      return false;
    }
    if (!has("workload") && !has("kernel") && !has_runs) {
      if (suggested_.contains("workload") || suggested_.contains("kernel")) return false;
      error(root_pos, "",
            "missing key 'workload', 'kernel' or 'kernels': a scenario runs a registered "
            "workload (workload: NAME), one kernel launch (kernel: NAME with launch, buffers, "
            "args) or a graph of launches (kernels: [...])");
      return false;
    }
    if (has_runs) {
      for (std::string_view k : {"stats", "trace"}) {
        if (has(k)) {
          error(given.find(k)->second, k,
                fmt::format("with 'runs:', each run names its own {0} file (runs: - {{name: "
                            "..., {0}: FILE}}), so that two runs never write one file",
                            k));
        }
      }
      if (has("outputs")) {
        error(given.find("outputs")->second, "outputs",
              "with 'runs:', each run names its own outputs (runs: - {name: ..., outputs: "
              "{BUFFER: FILE}}), so that two runs never write one file");
      }
    }
    if (!has("kernel")) {  // a workload here or in every run
      for (std::string_view k : {"launch", "buffers", "args", "outputs"}) {
        if (has(k)) {
          error(given.find(k)->second, k,
                "only with 'kernel:' (a generic launch); a workload sets up its own launches "
                "and takes 'params:'");
        }
      }
      return true;
    }
    if (has("params")) {
      error(given["params"], "params",
            "only with 'workload:'; a kernel launch takes its inputs as 'args:'");
    }
    if (!has("launch") && !suggested_.contains("launch")) {
      error(root_pos, "launch",
            "missing required key 'launch' (kernel: needs launch: {grid: [x, y, z], block: "
            "[x, y, z]})");
    }
    return true;
  }

  // stats, trace, trace_max_events or trace_window of the file or of one run.
  void read_output(Scenario& target, const std::string& key, const YAML::Node& v,
                   const std::string& path, SourcePos key_pos) {
    if (key == "trace_max_events") {
      if (auto n = whole(v, path, key_pos, 1, kMaxTraceEvents)) target.trace_max_events = *n;
      return;
    }
    if (key == "trace_window") {
      auto t = text(v, path, key_pos, "START:END such as \"10us:20us\"");
      if (!t) return;
      if (auto w = config::parse_time_window(*t); !w) {
        error(pos_of(v), path, fmt::format("{}: {}", *t, w.error().message));
      } else {
        target.trace_window = *t;
      }
      return;
    }
    auto t = text(v, path, key_pos, "a file name (FILE.json)");
    if (!t) return;
    if (key == "stats") {
      target.stats_path = *t;
      target.stats_pos = pos_of(v);
    } else {
      target.trace_path = *t;
      target.trace_pos = pos_of(v);
    }
  }

  static bool valid_run_name(std::string_view name) {
    return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
      return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
             c == '_' || c == '.' || c == '-';
    });
  }

  // The runs: list. Each entry starts from the top-level scenario (s_) and sets its own keys.
  void read_runs(const YAML::Node& v, const std::map<std::string, SourcePos, std::less<>>& given) {
    const SourcePos key_pos = given.find("runs")->second;
    if (!v.IsSequence() || v.size() == 0) {
      error(value_pos(v, key_pos), "runs",
            fmt::format(
                "expected a non-empty list of runs such as [{{name: small, params: {{...}}}}, "
                "{{name: big, mode: timing-only}}], got {}{}",
                describe(v), v.IsSequence() ? " with no entries" : ""));
      return;
    }
    std::vector<Scenario> runs;
    std::map<std::string, std::size_t> names;  // name -> run index
    // Output file -> the run and key that writes it.
    std::map<std::string, std::pair<std::string, std::string>> outputs;
    std::size_t i = 0;
    for (const auto& item : v) {
      const std::string p = fmt::format("runs[{}]", i++);
      const SourcePos ip = value_pos(item, key_pos);
      if (!item.IsMap()) {
        error(ip, p,
              fmt::format("expected a mapping with keys {}, got {}", join(keys_of("runs[]")),
                          describe(item)));
        continue;
      }
      Scenario r = s_;
      r.name = fmt::format("run{}", i);
      r.name_pos = ip;
      r.index = i - 1;
      bool named = false, ok = true;
      const auto err = [&](SourcePos at, const std::string& key, std::string_view message) {
        error(at, key, message);
        ok = false;
      };
      const std::size_t before = diag_.size();
      entries(
          item, p, keys_of("runs[]"),
          [&](const std::string& key, const std::string& q, SourcePos kq, const YAML::Node& x) {
            if (key == "name") {
              auto t = text(x, q, kq, "a run name");
              if (!t) return;
              if (!valid_run_name(*t)) {
                err(pos_of(x), q,
                    fmt::format("'{}' is not a run name: use letters, digits, '_', '.' and "
                                "'-'",
                                *t));
                return;
              }
              r.name = *t;
              r.name_pos = pos_of(x);
              named = true;
            } else if (key == "mode") {
              if (auto t = text(x, q, kq, "functional or timing-only")) {
                auto m = parse_run_mode(*t);
                if (m) {
                  r.mode = *m;
                } else {
                  err(pos_of(x), q, m.error().message);
                }
              }
            } else if (key == "memory_timing") {
              if (auto t = text(x, q, kq, "events or transactions")) {
                auto m = parse_memory_timing_key(*t);
                if (m) {
                  r.memory_timing = *m;
                } else {
                  err(pos_of(x), q, m.error().message);
                }
              }
            } else if (key == "set_sampling") {
              if (auto n = whole(x, q, kq, 1, mem::kMaxSetSampling)) {
                r.set_sampling = static_cast<std::uint32_t>(*n);
              }
            } else if (key == "wave_sampling") {
              if (auto p = percent(x, q, kq, kMaxWaveSamplingPercent)) r.wave_sampling = *p;
            } else if (key == "workload") {
              if (!s_.kernel.empty()) {
                err(kq, q,
                    fmt::format("the file launches kernel {}; a run of a kernel launch takes no "
                                "workload",
                                s_.kernel));
              } else if (auto t = text(x, q, kq, "a workload name")) {
                r.workload = *t;
                r.workload_pos = pos_of(x);
              }
            } else if (key == "params") {
              if (!s_.kernel.empty()) {
                err(kq, q, "only with 'workload:'; a kernel launch takes its inputs as 'args:'");
              } else {
                read_params(r.params, x, q, kq);
              }
            } else if (key == "queues") {
              read_queues(x, q, kq, r.queues);
            } else if (key == "outputs") {
              if (s_.kernel.empty()) {
                err(kq, q,
                    "only with 'kernel:' (a generic launch); a workload's memory is its own, not "
                    "buffers: of the file");
              } else {
                r.outputs_pos = kq;
                read_outputs(x, q, kq, r);
              }
            } else {
              read_output(r, key, x, q, kq);
            }
          });
      check_outputs(r, p + ".outputs", r.outputs_pos);
      if (diag_.size() != before) ok = false;
      if (r.workload.empty() && r.kernel.empty()) {
        err(ip, p,
            "no workload: name one in this run (workload: NAME) or at the top level of the file");
      }
      if (auto [it, fresh] = names.emplace(r.name, runs.size()); !fresh) {
        err(r.name_pos, p + ".name",
            fmt::format("'{}' names {} too; run names must differ", r.name,
                        named ? fmt::format("run {}", it->second + 1) : "another run"));
      }
      for (const auto& [key, file, at] :
           {std::tuple{"stats", r.stats_path, r.stats_pos}, {"trace", r.trace_path, r.trace_pos}}) {
        if (file.empty()) continue;
        const auto [it, fresh] = outputs.emplace(file, std::pair(r.name, std::string(key)));
        if (!fresh) {
          err(at, fmt::format("{}.{}", p, key),
              fmt::format("'{}' is written by run {} already (its {}); each output file must "
                          "belong to one run",
                          file, it->second.first, it->second.second));
        }
      }
      for (const ScenarioOutput& o : r.outputs) {
        const auto [it, fresh] = outputs.emplace(o.path, std::pair(r.name, "outputs." + o.buffer));
        if (!fresh && it->second.first != r.name) {
          err(o.pos, o.key,
              fmt::format("'{}' is written by run {} already (its {}); each output file must "
                          "belong to one run",
                          o.path, it->second.first, it->second.second));
        }
      }
      r.runs.clear();
      if (ok) runs.push_back(std::move(r));
    }
    s_.runs = std::move(runs);
  }

  // A registered work-distributor policy name, or nullopt (the error reported).
  std::optional<std::string> policy_name(const YAML::Node& v, const std::string& path,
                                         SourcePos key_pos) {
    auto t = text(v, path, key_pos, "a work-distributor policy name");
    if (!t) return std::nullopt;
    if (auto known = sched::policies().find(*t); !known) {
      error(pos_of(v), path, known.error().message);
      return std::nullopt;
    }
    return t;
  }

  void read_policy(const YAML::Node& v, const std::string& path, SourcePos key_pos) {
    if (auto t = policy_name(v, path, key_pos)) {
      s_.policy = *t;
      s_.policy_pos = pos_of(v);
    }
  }

  void read_scheduler(const YAML::Node& v, const std::string& path, SourcePos key_pos) {
    auto t = text(v, path, key_pos, "a warp scheduler name");
    if (!t) return;
    if (auto made = core::make_warp_scheduler(*t); !made) {
      error(pos_of(v), path, made.error().message);
      return;
    }
    s_.sm_scheduler = *t;
  }

  // Into `params`, replacing a value of the same name.
  void read_params(std::map<std::string, ScenarioParam, std::less<>>& params, const YAML::Node& v,
                   const std::string& path, SourcePos key_pos) {
    if (v.IsNull()) return;
    if (!v.IsMap()) {
      error(value_pos(v, key_pos), path,
            fmt::format("expected a mapping of parameter: value, got {}", describe(v)));
      return;
    }
    entries(v, path, {},
            [&](const std::string& key, const std::string& p, SourcePos kp, const YAML::Node& x) {
              if (auto n = size(x, p, kp, 0, std::numeric_limits<std::uint64_t>::max())) {
                params[key] = ScenarioParam{.value = *n, .pos = value_pos(x, kp), .flag = {}};
              }
            });
  }

  void read_sm_timing(const YAML::Node& v, const std::string& path, SourcePos key_pos) {
    if (v.IsNull()) return;
    if (!v.IsMap()) {
      error(value_pos(v, key_pos), path,
            fmt::format("expected a mapping of field: cycles, got {}", describe(v)));
      return;
    }
    std::vector<std::string> valid;
    for (const TimingField& f : sm_timing_fields())
      valid.emplace_back(f.name);
    entries(v, path, valid,
            [&](const std::string& key, const std::string& p, SourcePos kp, const YAML::Node& x) {
              for (const TimingField& f : sm_timing_fields()) {
                if (f.name != key) continue;
                if (auto n = whole(x, p, kp, f.min, f.max)) {
                  s_.sm_timing.push_back(TimingOverride{
                      .field = key, .value = static_cast<std::uint32_t>(*n), .pos = kp});
                }
              }
            });
  }

  void read_launch(const YAML::Node& v, const std::string& path, SourcePos key_pos,
                   kernel::LaunchParams& launch, std::uint32_t& queue, SourcePos& queue_pos) {
    if (!v.IsMap()) {
      error(value_pos(v, key_pos), path,
            fmt::format("expected a mapping with keys {}, got {}", join(keys_of("launch")),
                        describe(v)));
      return;
    }
    std::set<std::string> seen;
    entries(v, path, keys_of("launch"),
            [&](const std::string& key, const std::string& p, SourcePos kp, const YAML::Node& x) {
              seen.insert(key);
              if (key == "grid" || key == "block" || key == "cluster") {
                const auto d = dim3(x, p, kp);
                if (!d) return;
                if (key == "grid") {
                  launch.grid = *d;
                } else if (key == "block") {
                  launch.block = *d;
                } else {
                  launch.cluster = *d;
                }
              } else if (key == "dynamic_shared_bytes") {
                if (auto n = size(x, p, kp, 0, std::numeric_limits<std::uint32_t>::max())) {
                  launch.dynamic_shared_bytes = static_cast<std::uint32_t>(*n);
                }
              } else if (key == "registers_per_thread") {
                if (auto n = whole(x, p, kp, 0, std::numeric_limits<std::uint32_t>::max())) {
                  launch.registers_per_thread = static_cast<std::uint32_t>(*n);
                }
              } else if (key == "queue") {
                if (auto n = whole(x, p, kp, 0, system::kMaxQueues - 1)) {
                  queue = static_cast<std::uint32_t>(*n);
                  queue_pos = pos_of(x);
                }
              } else if (key == "priority") {
                if (auto n = whole(x, p, kp, 0, 0xFFFF'FFFF)) {
                  launch.priority = static_cast<std::uint32_t>(*n);
                }
              } else if (key == "gpu_cga") {  // GPC_CGAs per GPU_CGA (seed1 ¶200)
                if (auto n = whole(x, p, kp, 1, 0xFFFF)) {
                  launch.gpc_cgas_per_gpu_cga = static_cast<std::uint32_t>(*n);
                }
              } else if (key == "ugpu_cga") {  // GPC_CGAs per µGPU_CGA (seed1 ¶115)
                if (auto n = whole(x, p, kp, 1, 0xFFFF)) {
                  launch.gpc_cgas_per_ugpu_cga = static_cast<std::uint32_t>(*n);
                }
              } else if (key == "cpc_cga") {  // CPC_CGAs per cluster (seed1 ¶169)
                if (auto n = whole(x, p, kp, 1, 0xFF)) {
                  launch.cpc_cgas_per_gpc_cga = static_cast<std::uint32_t>(*n);
                }
              } else if (key == "multicast") {
                if (auto b = boolean(x, p, kp)) launch.multicast = *b;
              } else if (key == "policy") {  // this launch's placement policy
                if (auto t = policy_name(x, p, kp)) launch.policy = *t;
              }
            });
    for (const char* k : {"grid", "block"}) {
      if (!seen.contains(k)) {
        error(key_pos, fmt::format("{}.{}", path, k), fmt::format("missing required key '{}'", k));
      }
    }
  }

  // A buffer's file: it must open as a regular file of exactly the buffer's size (the size,
  // when `bytes:` is not given). Sets b.file_path and, without bytes, b.bytes.
  bool read_buffer_file(ScenarioBuffer& b, const std::string& path, bool has_bytes) {
    b.file_path = s_.dir.empty() || std::filesystem::path(b.file).is_absolute()
                      ? std::filesystem::path(b.file)
                      : s_.dir / b.file;
    auto n = buffer_file_size(b.file_path);
    if (!n) {
      error(b.file_pos, path, n.error().message);
      return false;
    }
    if (!has_bytes) {
      if (*n == 0) {
        error(b.file_pos, path,
              fmt::format("{} is empty: a buffer needs at least 1 byte (give bytes: for a buffer "
                          "of zeros)",
                          b.file_path.string()));
        return false;
      }
      b.bytes = *n;
      return true;
    }
    // A short file is an error rather than zero-padded: a wrong file or element type would
    // otherwise run silently on zeros.
    if (*n != b.bytes) {
      error(
          b.file_pos, path,
          fmt::format("{} holds {} bytes, {} than the buffer's {} (bytes:); the file gives all of "
                      "the buffer's initial bytes (leave bytes: out to take its size)",
                      b.file_path.string(), *n, *n > b.bytes ? "more" : "fewer", b.bytes));
      return false;
    }
    return true;
  }

  void read_buffers(const YAML::Node& v, const std::string& path, SourcePos key_pos) {
    if (v.IsNull()) return;
    if (!v.IsMap()) {
      error(value_pos(v, key_pos), path,
            fmt::format("expected a mapping of name: {{bytes: SIZE, fill: zero|iota32|random32}}, "
                        "got {}",
                        describe(v)));
      return;
    }
    std::uint64_t next = kBufferBase;
    entries(
        v, path, {},
        [&](const std::string& key, const std::string& p, SourcePos kp, const YAML::Node& x) {
          declared_buffers_.insert(key);
          ScenarioBuffer b{.name = key,
                           .bytes = 0,
                           .fill = BufferFill::kZero,
                           .address = 0,
                           .pos = kp,
                           .file = {},
                           .file_path = {},
                           .file_pos = {}};
          if (!x.IsMap()) {
            error(value_pos(x, kp), p,
                  fmt::format("expected {{bytes: SIZE, fill: zero|iota32|random32}}, got {}",
                              describe(x)));
            return;
          }
          bool ok = true, has_bytes = false, has_fill = false, has_file = false;
          entries(
              x, p, keys_of("buffers.*"),
              [&](const std::string& k, const std::string& q, SourcePos kq, const YAML::Node& y) {
                if (k == "bytes") {
                  has_bytes = true;
                  const auto n = size(y, q, kq, 1, std::numeric_limits<std::uint64_t>::max());
                  ok &= n.has_value();
                  if (n) b.bytes = *n;
                } else if (k == "file") {
                  has_file = true;
                  const auto t = text(y, q, kq, "a file name");
                  ok &= t.has_value();
                  if (t) {
                    b.file = *t;
                    b.file_pos = pos_of(y);
                  }
                } else {
                  has_fill = true;
                  const auto t = text(y, q, kq, "zero, iota32 or random32");
                  const std::vector<std::string> fills = {"zero", "iota32", "random32"};
                  if (!t) {
                    ok = false;
                  } else if (*t == "zero") {
                    b.fill = BufferFill::kZero;
                  } else if (*t == "iota32") {
                    b.fill = BufferFill::kIota32;
                  } else if (*t == "random32") {
                    b.fill = BufferFill::kRandom32;
                  } else {
                    error(pos_of(y), q,
                          fmt::format("'{}' is not a fill{}; fills: zero (untouched), "
                                      "iota32 (u32 element i = i), random32 (seeded)",
                                      *t, sim::did_you_mean(*t, fills)));
                    ok = false;
                  }
                }
              });
          if (has_file && has_fill) {
            error(b.file_pos.line > 0 ? b.file_pos : kp, p + ".file",
                  "file and fill are exclusive: the file gives all of the buffer's initial bytes");
            return;
          }
          if (!has_bytes && !has_file) {
            error(kp, p + ".bytes",
                  "missing required key 'bytes' (or 'file:', whose size it then is)");
            return;
          }
          if (!ok) return;
          if (has_file && !read_buffer_file(b, p + ".file", has_bytes)) return;
          if (b.fill != BufferFill::kZero && b.bytes % 4 != 0) {
            error(kp, p + ".bytes",
                  fmt::format("{} is not a multiple of 4 (fill {} writes u32 elements)", b.bytes,
                              to_string(b.fill)));
            return;
          }
          b.address = next;
          std::uint64_t end = 0;
          if (__builtin_add_overflow(b.address, b.bytes, &end) ||
              __builtin_add_overflow(end, kBufferAlign - 1, &end)) {
            error(kp, p + ".bytes",
                  fmt::format("{} bytes at {:#x} run past the 64-bit address space", b.bytes,
                              b.address));
            return;
          }
          next = end / kBufferAlign * kBufferAlign;
          s_.buffers.push_back(std::move(b));
        });
  }

  // {tensor_map: {dataType: ..., globalAddress: BUFFER, ...}}: encoded by our encoder
  // (cuTensorMapEncodeTiled's / Im2col's rules) into the 128-byte parameter.
  bool read_tensor_map(const YAML::Node& y, const std::string& q, SourcePos kq,
                       const std::vector<std::string>& buffer_names, ScenarioArg& a) {
    if (!y.IsMap()) {
      error(value_pos(y, kq), q,
            fmt::format("expected a tensor map (the keys of `xpusim tma`), got {}", describe(y)));
      return false;
    }
    YAML::Node map = YAML::Clone(y);
    const YAML::Node g = map["globalAddress"];
    if (!g || !g.IsScalar()) {
      error(value_pos(y, kq), q + ".globalAddress", "missing: the buffer the tensor lies in");
      return false;
    }
    const auto b = std::find_if(s_.buffers.begin(), s_.buffers.end(),
                                [&](const ScenarioBuffer& x) { return x.name == g.Scalar(); });
    if (b == s_.buffers.end()) {
      error(pos_of(y["globalAddress"]), q + ".globalAddress",
            fmt::format("'{}' is not a buffer{}", g.Scalar(),
                        sim::did_you_mean(g.Scalar(), buffer_names)));
      return false;
    }
    map["globalAddress"] = fmt::format("{:#x}", b->address);
    YAML::Emitter out;
    out << map;
    auto encoded = tma::parse_tensor_map_yaml(out.c_str(), "tensor_map");
    if (!encoded) {
      // The encoder's own "tensor_map:LINE:COL: " points into the re-emitted map: dropped.
      for (const Error& e : encoded.errors()) {
        std::string m = e.message;
        if (m.starts_with("tensor_map:")) {
          std::size_t at = 0;
          for (int colons = 0; colons < 3 && at != std::string::npos; ++colons)
            at = m.find(':', at + 1);
          if (at != std::string::npos && at + 2 <= m.size()) m = m.substr(at + 2);
        }
        error(value_pos(y, kq), q, m);
      }
      return false;
    }
    const tma::TensorMapBlob blob = tma::to_blob(*encoded);
    a.kind = kernel::ArgKind::kTensorMap;
    a.buffer = b->name;
    a.blob.assign(blob.begin(), blob.end());
    return true;
  }

  void read_args(const YAML::Node& v, const std::string& path, SourcePos key_pos,
                 std::vector<ScenarioArg>& out) {
    if (v.IsNull()) return;
    if (!v.IsSequence()) {
      error(value_pos(v, key_pos), path,
            fmt::format("expected a sequence such as [{{ptr: src}}, {{u64: 1024}}], got {}",
                        describe(v)));
      return;
    }
    std::vector<std::string> buffer_names;
    for (const ScenarioBuffer& b : s_.buffers)
      buffer_names.push_back(b.name);
    std::size_t i = 0;
    for (const auto& item : v) {
      const std::string p = fmt::format("{}[{}]", path, i++);
      const SourcePos ip = value_pos(item, key_pos);
      if (!item.IsMap() || item.size() != 1) {
        error(ip, p,
              fmt::format("expected one of {{u8|u16|u32|u64: N}}, {{s32|s64: N}}, "
                          "{{f32|f64: X}}, {{ptr: BUFFER}}, {{tensor_map: {{...}}}}, got {}{}",
                          describe(item),
                          item.IsMap() ? fmt::format(" with {} keys", item.size()) : ""));
        continue;
      }
      entries(
          item, p, keys_of("args[]"),
          [&](const std::string& k, const std::string& q, SourcePos kq, const YAML::Node& y) {
            ScenarioArg a{.kind = kernel::ArgKind::kU32, .bits = 0, .buffer = {}, .pos = kq};
            constexpr std::pair<std::string_view, kernel::ArgKind> kUnsigned[] = {
                {"u8", kernel::ArgKind::kU8},
                {"u16", kernel::ArgKind::kU16},
                {"u32", kernel::ArgKind::kU32},
                {"u64", kernel::ArgKind::kU64}};
            const auto u = std::find_if(std::begin(kUnsigned), std::end(kUnsigned),
                                        [&](const auto& e) { return e.first == k; });
            if (u != std::end(kUnsigned)) {
              const std::uint64_t bytes = kernel::arg_bytes(u->second);
              const auto n =
                  whole(y, q, kq, 0, std::numeric_limits<std::uint64_t>::max() >> (64 - 8 * bytes));
              if (!n) return;
              a.kind = u->second;
              a.bits = *n;
            } else if (k == "s32" || k == "s64") {
              const bool narrow = k == "s32";
              const auto n = signed_whole(y, q, kq,
                                          narrow ? std::numeric_limits<std::int32_t>::min()
                                                 : std::numeric_limits<std::int64_t>::min(),
                                          narrow ? std::numeric_limits<std::int32_t>::max()
                                                 : std::numeric_limits<std::int64_t>::max());
              if (!n) return;
              a.kind = narrow ? kernel::ArgKind::kS32 : kernel::ArgKind::kS64;
              // Two's complement in the argument's own width (the kernarg bytes).
              a.bits = narrow ? std::uint64_t{static_cast<std::uint32_t>(*n)}
                              : static_cast<std::uint64_t>(*n);
            } else if (k == "f32") {
              float f = 0;
              if (!yaml_float(y, f)) {
                error(value_pos(y, kq), q, fmt::format("{} is not a 32-bit float", describe(y)));
                return;
              }
              a.kind = kernel::ArgKind::kF32;
              a.bits = std::bit_cast<std::uint32_t>(f);
            } else if (k == "f64") {
              double f = 0;
              if (!yaml_float(y, f)) {
                error(value_pos(y, kq), q, fmt::format("{} is not a 64-bit float", describe(y)));
                return;
              }
              a.kind = kernel::ArgKind::kF64;
              a.bits = std::bit_cast<std::uint64_t>(f);
            } else if (k == "tensor_map") {
              // The keys `xpusim tma` reads; globalAddress names a buffer (its address).
              if (!read_tensor_map(y, q, kq, buffer_names, a)) return;
            } else {
              const auto t = text(y, q, kq, "a buffer name");
              if (!t) return;
              const auto b = std::find_if(s_.buffers.begin(), s_.buffers.end(),
                                          [&](const ScenarioBuffer& x) { return x.name == *t; });
              if (b == s_.buffers.end()) {
                if (declared_buffers_.contains(*t)) return;  // its own error was given
                error(pos_of(y), q,
                      fmt::format("'{}' is not a buffer{}; buffers: {}", *t,
                                  sim::did_you_mean(*t, buffer_names),
                                  buffer_names.empty() ? "none (declare them in buffers:)"
                                                       : join(buffer_names)));
                return;
              }
              a.kind = kernel::ArgKind::kPtr;
              a.bits = b->address;
              a.buffer = *t;
            }
            out.push_back(std::move(a));
          });
    }
  }

  Scenario s_;
  SourcePos root_pos_;
  config::Diagnostics diag_;
  // Top-level keys that a misspelt key resembles: not reported missing as well.
  std::set<std::string, std::less<>> suggested_;
  // Every buffer name in the file, also those whose declaration had an error.
  std::set<std::string, std::less<>> declared_buffers_;
};

}  // namespace

Result<Scenario> load_scenario_string(std::string_view yaml, std::string_view source_name,
                                      const std::filesystem::path& dir) {
  return Reader(source_name, dir).read(yaml);
}

Result<Scenario> load_scenario_file(const std::filesystem::path& path) {
  auto text = read_file_bounded(path, "scenario file");
  if (!text) return text.errors();
  return load_scenario_string(*text, path.string(), path.parent_path());
}

Scenario workload_scenario(std::string_view chip, std::string_view workload,
                           const ParamValues& params, RunMode mode) {
  Scenario s;
  s.chip = chip;
  s.workload = workload;
  s.mode = mode;
  for (const auto& [name, value] : params)
    s.params[name] = ScenarioParam{.value = value, .pos = {}, .flag = {}};
  return s;
}

std::vector<Scenario> scenario_runs(const Scenario& s) {
  if (!s.runs.empty()) return s.runs;
  return {s};
}

Result<std::filesystem::path> resolve_scenario_chip(const Scenario& s,
                                                    const std::filesystem::path& config_dir) {
  std::string name = s.chip;
  const bool is_path = name.find('/') != std::string::npos || name.ends_with(".yaml");
  if (is_path && std::filesystem::path(name).is_relative() && !s.dir.empty()) {
    name = (s.dir / name).string();
  }
  auto p = config::resolve_chip(name, config_dir);
  if (!p) return s.error_at(s.chip_pos, "chip", p.error().message);
  return p;
}

Status apply_param_overrides(Scenario& s, std::string_view flag, std::string_view text) {
  if (text.empty()) return Ok{};
  if (!s.is_workload()) {
    return Error{
        fmt::format("{}: the scenario launches kernel {}, which takes no parameters "
                    "(its inputs are args: in the scenario file)",
                    flag, s.kernel)};
  }
  return config::for_each_key_value(flag, text, [&](auto item, auto key, auto value) -> Status {
    if (key.empty() || key.size() == item.size()) {
      return Error{fmt::format("{}: item '{}' is not key=value", flag, item)};
    }
    auto n = config::parse_size_bytes(value);
    if (!n) {
      return Error{fmt::format("{}: {} = '{}': {}", flag, key, value, n.error().message)};
    }
    s.params[std::string(key)] = ScenarioParam{.value = *n, .pos = {}, .flag = std::string(flag)};
    return Ok{};
  });
}

core::SmTiming scenario_sm_timing(const Scenario& s, core::SmTiming base) {
  for (const TimingOverride& o : s.sm_timing) {
    for (const TimingField& f : sm_timing_fields()) {
      if (f.name == o.field) base.*f.member = o.value;
    }
  }
  return base;
}

cp::AgentTiming scenario_cp_timing(const Scenario& s, cp::AgentTiming base) {
  for (const TimingOverride& o : s.cp_timing) {
    if (o.field == kSkipUnneededCleanup) base.skip_unneeded_cleanup = o.value != 0;
    for (const CpTimingField& f : cp_timing_fields()) {
      if (f.name == o.field) base.*f.member = o.value;
    }
  }
  return base;
}

namespace {

// An error about one parameter: located in the file, or naming the flag that set it.
Error param_error(const Scenario& s, const std::string& name, const ScenarioParam& p,
                  std::string_view message, const std::string& prefix = "") {
  if (!p.flag.empty()) return Error{fmt::format("{}: {}", p.flag, message)};
  return s.error_at(p.pos, prefix + "params." + name, message);
}

// A workload and its parameters (declared defaults under the given ones). Errors, located: an
// unknown workload, a parameter unknown or out of range (one error per line that set one).
Result<std::pair<Workload*, ParamValues>> resolve_workload(
    const Scenario& s, const WorkloadRegistry& workloads, const std::string& name,
    SourcePos name_pos, const std::map<std::string, ScenarioParam, std::less<>>& given,
    const std::string& prefix) {
  auto w = workloads.find(name);
  if (!w) return s.error_at(name_pos, prefix + "workload", w.error().message);
  // One parameter at a time first, so that an error points at the line that set it.
  std::vector<Error> errors;
  ParamValues all;
  for (const auto& [param, p] : given) {
    all[param] = p.value;
    if (auto one = resolve_params(**w, ParamValues{{param, p.value}}); !one) {
      errors.push_back(param_error(s, param, p, one.error().message, prefix));
    }
  }
  if (!errors.empty()) return errors;
  auto values = resolve_params(**w, all);
  if (!values) return s.error_at(name_pos, prefix + "params", values.error().message);
  return std::pair{*w, std::move(values).value()};
}

}  // namespace

namespace {

// One launch's kernel and arguments, checked against its signature; errors located at the
// kernel, the arguments or the argument of the wrong kind (keys prefixed with `key`).
Result<std::pair<const kernel::KernelDef*, kernel::KernelArgs>> resolve_launch(
    const Scenario& s, const kernel::KernelRegistry& kernels, const std::string& name,
    SourcePos kernel_pos, const std::vector<ScenarioArg>& given, SourcePos args_pos,
    const std::string& key) {
  auto k = kernels.find(name);
  if (!k) return s.error_at(kernel_pos, key + "kernel", k.error().message);
  kernel::KernelArgs args;
  for (const ScenarioArg& a : given) {
    if (a.kind == kernel::ArgKind::kTensorMap) {
      args.tensor_map(a.blob);
    } else {
      args.from_bits(a.kind, a.bits);
    }
  }
  if (auto st = args.check((*k)->name, (*k)->args); !st) {
    // A wrong type points at that argument; a wrong count at the args key.
    SourcePos where = args_pos.line > 0 ? args_pos : kernel_pos;
    std::string at = key + "args";
    if (given.size() == (*k)->args.size()) {
      for (std::size_t i = 0; i < given.size(); ++i) {
        if (given[i].kind != (*k)->args[i].kind) {
          where = given[i].pos;
          at = fmt::format("{}args[{}]", key, i);
          break;
        }
      }
    }
    return s.error_at(where, at, st.error().message);
  }
  return std::pair(*k, std::move(args));
}

}  // namespace

Result<ResolvedScenario> resolve_scenario(const Scenario& s, const kernel::KernelRegistry& kernels,
                                          const WorkloadRegistry& workloads) {
  ResolvedScenario r;
  if (s.is_workload()) {
    auto w = resolve_workload(s, workloads, s.workload, s.workload_pos, s.params, "");
    if (!w) return w.errors();
    r.workload = w->first;
    r.params = std::move(w->second);
    return r;
  }
  if (s.is_graph()) {
    std::vector<Error> errors;
    for (std::size_t i = 0; i < s.graph.size(); ++i) {
      const ScenarioKernel& g = s.graph[i];
      const std::string prefix = fmt::format("kernels[{}].", i);
      if (g.is_workload()) {
        auto w = resolve_workload(s, workloads, g.workload, g.workload_pos, g.params, prefix);
        if (w) {
          r.graph.push_back({.kernel = nullptr,
                             .args = {},
                             .workload = w->first,
                             .params = std::move(w->second)});
        } else {
          errors.insert(errors.end(), w.errors().begin(), w.errors().end());
        }
        continue;
      }
      auto node = resolve_launch(s, kernels, g.kernel, g.kernel_pos, g.args, g.args_pos, prefix);
      if (node) {
        r.graph.push_back({.kernel = node->first,
                           .args = std::move(node->second),
                           .workload = nullptr,
                           .params = {}});
      } else {
        errors.insert(errors.end(), node.errors().begin(), node.errors().end());
      }
    }
    if (!errors.empty()) return errors;
    return r;
  }
  auto node = resolve_launch(s, kernels, s.kernel, s.kernel_pos, s.args, s.args_pos, "");
  if (!node) return node.errors();
  r.kernel = node->first;
  r.args = std::move(node->second);
  return r;
}

namespace {

// SplitMix64 (Steele, Lea, Flood 2014): a fixed, portable sequence for a given seed.
std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E37'79B9'7F4A'7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58'476D'1CE4'E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D0'49BB'1331'11EBull;
  return z ^ (z >> 31);
}

Status fill_buffer(mem::GlobalMemory& memory, const ScenarioBuffer& b, std::uint64_t seed,
                   std::uint64_t index) {
  if (b.fill == BufferFill::kZero) return Ok{};
  constexpr std::uint64_t kChunk = 1 << 16;  // u32 elements written at a time
  std::vector<std::uint32_t> chunk(kChunk);
  std::uint64_t state = seed ^ (0xA076'1D64'78BD'642Full * (index + 1));
  const std::uint64_t n = b.bytes / 4;
  for (std::uint64_t at = 0; at < n; at += kChunk) {
    const std::uint64_t count = std::min(kChunk, n - at);
    for (std::uint64_t i = 0; i < count; ++i) {
      chunk[i] = b.fill == BufferFill::kIota32 ? static_cast<std::uint32_t>(at + i)
                                               : static_cast<std::uint32_t>(splitmix64(state));
    }
    if (auto st = memory.write(b.address + 4 * at, std::as_bytes(std::span(chunk.data(), count)));
        !st) {
      return st;
    }
  }
  return Ok{};
}

// Copies a buffer's file into memory, in chunks (a file may be far larger than host memory
// wants at once); chunks of zeros are skipped, as untouched memory reads 0.
Status read_buffer_file(mem::GlobalMemory& memory, const ScenarioBuffer& b) {
  auto n = buffer_file_size(b.file_path);
  if (!n) return n.errors();
  if (*n != b.bytes) {  // changed since the scenario was loaded
    return Error{fmt::format("{} holds {} bytes now, not the buffer's {}", b.file_path.string(), *n,
                             b.bytes)};
  }
  std::ifstream in(b.file_path, std::ios::binary);
  constexpr std::uint64_t kChunk = 1 << 20;
  std::vector<char> chunk(static_cast<std::size_t>(std::min(kChunk, b.bytes)));
  for (std::uint64_t at = 0; at < b.bytes; at += kChunk) {
    const std::uint64_t count = std::min(kChunk, b.bytes - at);
    if (!in.read(chunk.data(), static_cast<std::streamsize>(count))) {
      return Error{fmt::format("{}: read error at byte {}", b.file_path.string(), at)};
    }
    const auto bytes = std::as_bytes(std::span(chunk.data(), count));
    if (std::all_of(bytes.begin(), bytes.end(), [](std::byte c) { return c == std::byte{0}; })) {
      continue;
    }
    if (auto st = memory.write(b.address + at, bytes); !st) return st;
  }
  return Ok{};
}

}  // namespace

Result<std::vector<std::uint32_t>> setup_scenario(const Scenario& s, const ResolvedScenario& r,
                                                  system::Chip& chip,
                                                  const kernel::KernelRegistry& kernels,
                                                  std::uint64_t seed) {
  if (s.is_workload()) {
    if (auto st = r.workload->setup(chip, kernels, r.params); !st) {
      // A run's setup error points at the run, whose parameters it may be about.
      const bool run = !s.name.empty();
      std::vector<Error> errors;
      for (const Error& e : st.errors()) {
        errors.push_back(s.error_at(run ? s.name_pos : s.workload_pos,
                                    run ? fmt::format("runs[{}]", s.index) : "workload",
                                    e.message));
      }
      return errors;
    }
    std::vector<std::uint32_t> ids(chip.launches());
    std::iota(ids.begin(), ids.end(), 0u);
    return ids;
  }
  // The file placed its buffers; the allocator checks them against hbm.capacity and places a
  // graph's workloads after them.
  for (const ScenarioBuffer& b : s.buffers) {
    if (auto st = chip.allocator().reserve("", b.address, b.bytes, b.name); !st) {
      return s.error_at(b.pos, fmt::format("buffers.{}", b.name), st.error().message);
    }
  }
  if (chip.options().functional) {
    for (std::size_t i = 0; i < s.buffers.size(); ++i) {
      const ScenarioBuffer& b = s.buffers[i];
      if (!b.file.empty()) {
        if (auto st = read_buffer_file(chip.memory(), b); !st) {
          return s.error_at(b.file_pos, fmt::format("buffers.{}.file", b.name), st.error().message);
        }
      } else if (auto st = fill_buffer(chip.memory(), b, seed, i); !st) {
        return s.error_at(b.pos, fmt::format("buffers.{}", b.name), st.error().message);
      }
    }
  } else if (!s.outputs.empty()) {
    return s.error_at(s.outputs.front().pos, s.outputs.front().key,
                      "a timing-only run moves no data, so it has no buffer bytes to write");
  }
  if (!s.is_graph()) {
    auto id = chip.launch(*r.kernel, s.launch, r.args, {}, {.queue = s.launch_queue});
    if (!id) return s.error_at(s.launch_pos, "launch", id.error().message);
    return std::vector<std::uint32_t>{*id};
  }
  // A graph's entries are issued by its host program (GraphHost), which Run keeps for the
  // simulation: some are issued while it runs.
  return std::vector<std::uint32_t>{};
}

}  // namespace xpusim::system

namespace xpusim::system {
namespace {

std::string errno_text() {
  return std::error_code(errno, std::generic_category()).message();
}

const ScenarioBuffer& output_buffer(const Scenario& s, const ScenarioOutput& o) {
  const auto b = std::find_if(s.buffers.begin(), s.buffers.end(),
                              [&](const ScenarioBuffer& x) { return x.name == o.buffer; });
  XPUSIM_CHECK(b != s.buffers.end(), "an output names a buffer the loader checked");
  return *b;
}

}  // namespace

Status probe_scenario_outputs(const Scenario& s) {
  std::vector<Error> errors;
  for (const ScenarioOutput& o : s.outputs) {
    const std::string tmp = o.path + ".tmp";
    const bool existed = std::filesystem::exists(tmp);
    if (std::ofstream probe(tmp, std::ios::app | std::ios::binary); !probe) {
      errors.push_back(
          s.error_at(o.pos, o.key, fmt::format("cannot create {}: {}", tmp, errno_text())));
      continue;
    }
    if (!existed) std::filesystem::remove(tmp);
  }
  if (!errors.empty()) return errors;
  return Ok{};
}

Result<std::vector<std::string>> write_scenario_outputs(const Scenario& s,
                                                        const mem::GlobalMemory& memory) {
  // Every file to NAME.tmp first, then renamed: a failure anywhere leaves every NAME as it was.
  std::vector<std::string> written;
  const auto discard = [&](std::size_t n) {
    std::error_code ec;
    for (std::size_t i = 0; i < n; ++i)
      std::filesystem::remove(s.outputs[i].path + ".tmp", ec);
  };
  constexpr std::uint64_t kChunk = 1 << 20;
  std::vector<std::byte> chunk;
  for (std::size_t i = 0; i < s.outputs.size(); ++i) {
    const ScenarioOutput& o = s.outputs[i];
    const ScenarioBuffer& b = output_buffer(s, o);
    const std::string tmp = o.path + ".tmp";
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) {
      const std::string why = errno_text();
      discard(i);
      return s.error_at(o.pos, o.key, fmt::format("cannot create {}: {}", tmp, why));
    }
    chunk.resize(static_cast<std::size_t>(std::min(kChunk, b.bytes)));
    for (std::uint64_t at = 0; at < b.bytes && out; at += kChunk) {
      const std::uint64_t count = std::min(kChunk, b.bytes - at);
      const auto part = std::span(chunk).first(count);
      XPUSIM_CHECK(memory.read(b.address + at, part).ok(), "a buffer lies in memory");
      out.write(reinterpret_cast<const char*>(part.data()), static_cast<std::streamsize>(count));
    }
    out.close();
    if (!out) {
      const std::string why = errno_text();
      discard(i + 1);
      return s.error_at(o.pos, o.key, fmt::format("cannot write {}: {}", tmp, why));
    }
    written.push_back(fmt::format("{}: buffer {}, {} bytes", o.path, b.name, b.bytes));
  }
  for (std::size_t i = 0; i < s.outputs.size(); ++i) {
    const ScenarioOutput& o = s.outputs[i];
    std::error_code ec;
    std::filesystem::rename(o.path + ".tmp", o.path, ec);
    if (ec) {
      const std::string why = ec.message();
      for (std::size_t j = i; j < s.outputs.size(); ++j)
        std::filesystem::remove(s.outputs[j].path + ".tmp", ec);
      return s.error_at(o.pos, o.key,
                        fmt::format("cannot rename {}.tmp to {}: {}", o.path, o.path, why));
    }
  }
  return written;
}

}  // namespace xpusim::system
