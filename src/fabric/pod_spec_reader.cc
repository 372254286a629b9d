// The strict pod YAML reader: every key is declared here; every problem becomes one
// "FILE:LINE:COL: key.path: message" line, and all problems are collected. When the file reads
// cleanly, the topology is built once so that the checks needing the graph (unconnected failed
// links, all ports unused, buffer too small) are load errors too.
#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include "config/units.h"
#include "config/yaml_node.h"
#include "config/yaml_reader.h"
#include "fabric/pod_keys.h"
#include "fabric/pod_spec.h"
#include "fabric/topology.h"
#include "sim/suggest.h"

namespace xpusim::fabric {
namespace {

using config::Diagnostics;
using config::SourcePos;
using config::UnitKind;

constexpr std::uint64_t kMaxChips = 65536;
constexpr std::uint64_t kMaxPortsPerChip = 16;
constexpr std::uint64_t kMaxVcs = 8;
constexpr double kMaxLengthM = 1e6;
constexpr std::uint64_t kMaxReplays = 254;
// Upper bounds of the quantities, far above any fabric and far enough below 2^64 that the tick
// and byte arithmetic of a run (serialization = wire bytes x 10^12 / bandwidth, arrival = now +
// replays x (serialization + 2 latencies) + router, 32-bit packet footprints) cannot overflow.
constexpr std::uint64_t kMaxTimePs = 1'000'000'000'000;            // 1 s
constexpr std::uint64_t kMaxPerMetrePs = 1'000'000'000;            // 1 ms per metre
constexpr std::uint64_t kMinBandwidth = 1'000'000;                 // 1 MB/s
constexpr std::uint64_t kMaxBandwidth = 1'000'000'000'000'000;     // 1 PB/s
constexpr std::uint64_t kMaxPacketBytes = std::uint64_t{1} << 20;  // 1 MiB
constexpr std::uint64_t kMaxBufferBytes = std::uint64_t{1} << 50;  // 1 PiB

struct Entry {
  SourcePos key_pos;
  YAML::Node value;
};
using Entries = std::map<std::string, Entry, std::less<>>;

std::string join_path(std::string_view section, std::string_view key) {
  return section.empty() ? std::string(key) : fmt::format("{}.{}", section, key);
}

SourcePos node_pos(const YAML::Node& node, SourcePos fallback) {
  // yaml-cpp places an empty value at the start of the next token; the key is the better spot.
  return node.IsNull() ? fallback : config::yaml_pos(node.Mark());
}

SourcePos value_pos(const Entry& e) {
  return node_pos(e.value, e.key_pos);
}

const Entry* find(const Entries& entries, std::string_view key) {
  auto it = entries.find(key);
  return it == entries.end() ? nullptr : &it->second;
}

std::string dims_text(std::span<const std::uint32_t> dims) {
  return fmt::format("{}", fmt::join(dims, "x"));
}

// Each mapping's valid keys, from the one table (pod_keys.h).
std::vector<std::string> keys_of(std::string_view parent) {
  return config::child_keys(pod_keys(), parent);
}

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

class PodReader {
 public:
  explicit PodReader(Diagnostics& diag) : diag_(diag) {}

  PodSpec read(const YAML::Node& root, std::string_view source) {
    PodSpec spec;
    spec.source = std::string(source);
    spec.buffer.line = 1;
    set_defaults(spec);
    if (root.IsNull()) {
      diag_.error(SourcePos{1, 1}, "",
                  "empty document; expected a mapping with keys name, shape, dims, ...");
      return spec;
    }
    if (!root.IsMap()) {
      diag_.error(config::yaml_pos(root.Mark()), "",
                  fmt::format("expected a mapping at the top level, got {}",
                              config::describe_yaml_node(root)));
      return spec;
    }
    root_pos_ = config::yaml_pos(root.Mark());
    const Entries top = keys(root, "", keys_of(""));

    read_name(top, spec);
    read_geometry(top, spec);
    read_ports(top, spec);
    if (const Entry* e = find(top, "electrical_medium")) {
      if (auto m = medium(*e, "electrical_medium")) {
        if (*m == Medium::kOptical) {
          diag_.error(value_pos(*e), "electrical_medium",
                      "\"optical\" is not an electrical medium; valid: pcb, copper");
        } else {
          spec.electrical_medium = *m;
        }
      }
    }
    if (const Entry* e = find(top, "media")) read_media(*e, spec);
    if (const Entry* e = find(top, "router")) read_router(*e, spec);
    if (const Entry* e = find(top, "buffer")) read_buffer(*e, spec);
    if (const Entry* e = find(top, "rtt")) {
      if (auto s = choice(*e, "rtt", {"table", "measured"})) {
        spec.rtt_source = *s == "table" ? RttSource::kTable : RttSource::kMeasured;
      }
    }
    if (const Entry* e = find(top, "slice")) read_slice(*e, spec);
    if (const Entry* e = find(top, "failed_chips")) read_failed_chips(*e, spec);
    if (const Entry* e = find(top, "failed_links")) read_failed_links(*e, spec);
    const Entry* links = find(top, "links");
    if (shape_ok_ && spec.shape != Shape::kExplicit && links != nullptr) {
      diag_.error(links->key_pos, "links",
                  fmt::format("only shape explicit takes a links list (shape is {}); grid links "
                              "follow from shape and dims",
                              shape_name(spec.shape)));
    } else if (links != nullptr) {
      read_links(*links, spec);
    } else if (shape_ok_ && spec.shape == Shape::kExplicit) {
      diag_.error(root_pos_, "links",
                  "missing required key 'links' (shape explicit lists its cables as "
                  "{a: [chip, port], b: [chip, port], medium, length})");
    }
    return spec;
  }

 private:
  static void set_defaults(PodSpec& spec) {
    auto set = [&](Medium m, sim::Tick lat_ns, double ber, double len) {
      MediumSpec& s = spec.media[static_cast<std::size_t>(m)];
      s.latency_ps = lat_ns * sim::kNanosecond;
      s.per_metre_ps = 5 * sim::kNanosecond;
      s.bandwidth_bytes_per_s = 50'000'000'000ULL;
      s.bit_error_rate = ber;
      s.default_length_m = len;
    };
    set(Medium::kPcb, 30, 0.0, 0.3);
    set(Medium::kCopper, 60, 0.0, 1.0);
    set(Medium::kOptical, 200, 1e-12, 20.0);
    spec.router_latency_ps = 50 * sim::kNanosecond;
    spec.max_packet_bytes = 512;
    spec.header_bytes = 32;
    spec.buffer.bytes = 128 * 1024;
    spec.buffer.unit_bytes = 32;
    spec.buffer.outbound_bytes = 2 * 1024;
    spec.buffer.inbound_bytes = 4 * 1024;
    spec.buffer.vcs = 2;
    spec.buffer.min_bytes_per_vc = 0;
    spec.buffer.policy = "rtt";
  }

  // The entries of a mapping; unknown and duplicate keys are reported.
  Entries keys(const YAML::Node& map, const std::string& section,
               const std::vector<std::string>& valid) {
    Entries out;
    const std::vector<std::string>& names = valid;
    for (const auto& kv : map) {
      const SourcePos key_pos = config::yaml_pos(kv.first.Mark());
      if (!kv.first.IsScalar()) {
        diag_.error(key_pos, section,
                    fmt::format("keys must be plain strings, got {}",
                                config::describe_yaml_node(kv.first)));
        continue;
      }
      const std::string& key = kv.first.Scalar();
      const std::string path = join_path(section, key);
      if (std::find(valid.begin(), valid.end(), key) == valid.end()) {
        diag_.error(key_pos, path,
                    fmt::format("unknown key '{}'{}; valid keys here: {}", key,
                                sim::did_you_mean(key, names), fmt::join(valid, ", ")));
        continue;
      }
      if (auto it = out.find(key); it != out.end()) {
        diag_.error(key_pos, path,
                    fmt::format("duplicate key; first given at line {}", it->second.key_pos.line));
        continue;
      }
      out.emplace(key, Entry{key_pos, kv.second});
    }
    return out;
  }

  // A mapping value: its entries, or nullopt (reported) when it is not a mapping.
  std::optional<Entries> section(const Entry& e, const std::string& path,
                                 const std::vector<std::string>& valid) {
    if (!e.value.IsMap()) {
      diag_.error(value_pos(e), path,
                  fmt::format("expected a mapping with keys {}, got {}", fmt::join(valid, ", "),
                              config::describe_yaml_node(e.value)));
      return std::nullopt;
    }
    return keys(e.value, path, valid);
  }

  bool require(const Entries& entries, std::string_view key, const std::string& section,
               SourcePos where, std::string_view what) {
    if (find(entries, key) != nullptr) return true;
    diag_.error(where, join_path(section, key),
                fmt::format("missing required key '{}' ({})", key, what));
    return false;
  }

  std::optional<std::string> scalar(const YAML::Node& node, SourcePos at, const std::string& path,
                                    std::string_view expected) {
    if (!node.IsScalar()) {
      diag_.error(at, path,
                  fmt::format("expected {}, got {}", expected, config::describe_yaml_node(node)));
      return std::nullopt;
    }
    return node.Scalar();
  }

  std::optional<std::string> choice(const Entry& e, const std::string& path,
                                    std::vector<std::string> choices) {
    auto s = scalar(e.value, value_pos(e), path, "a string");
    if (!s) return std::nullopt;
    if (std::find(choices.begin(), choices.end(), *s) != choices.end()) return s;
    diag_.error(value_pos(e), path,
                fmt::format("\"{}\" is not one of {}{}", *s, fmt::join(choices, ", "),
                            sim::did_you_mean(*s, choices)));
    return std::nullopt;
  }

  std::optional<Medium> medium(const Entry& e, const std::string& path) {
    auto s = scalar(e.value, value_pos(e), path, "a medium (pcb, copper, optical)");
    if (!s) return std::nullopt;
    Result<Medium> m = parse_medium(*s);
    if (!m) {
      diag_.error(value_pos(e), path, m.error().message);
      return std::nullopt;
    }
    return *m;
  }

  std::optional<std::uint64_t> integer(const YAML::Node& node, SourcePos at,
                                       const std::string& path, std::uint64_t min,
                                       std::uint64_t max) {
    auto s = scalar(node, at, path, "an integer");
    if (!s) return std::nullopt;
    const std::string_view text = *s;
    const bool negative = text.starts_with('-') && all_digits(text.substr(1));
    if (!negative && !all_digits(text)) {
      diag_.error(at, path, fmt::format("expected an integer, got \"{}\"", text));
      return std::nullopt;
    }
    std::uint64_t value = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (negative || ec != std::errc() || ptr != text.data() + text.size() || value < min ||
        value > max) {
      diag_.error(at, path, fmt::format("{} is out of range [{}, {}]", text, min, max));
      return std::nullopt;
    }
    return value;
  }

  std::optional<std::uint64_t> integer(const Entry& e, const std::string& path, std::uint64_t min,
                                       std::uint64_t max) {
    return integer(e.value, value_pos(e), path, min, max);
  }

  std::optional<std::uint64_t> quantity(const Entry& e, const std::string& path, UnitKind kind,
                                        std::uint64_t min, std::uint64_t max) {
    const SourcePos at = value_pos(e);
    auto s = scalar(e.value, at, path, fmt::format("a {}", config::unit_kind_name(kind)));
    if (!s) return std::nullopt;
    Result<std::uint64_t> v = config::parse_quantity(*s, kind);
    if (!v) {
      diag_.error(at, path, v.error().message);
      return std::nullopt;
    }
    if (*v < min) {
      diag_.error(
          at, path,
          fmt::format("\"{}\" must be at least {}", *s, config::format_quantity(min, kind)));
      return std::nullopt;
    }
    if (*v > max) {
      diag_.error(at, path,
                  fmt::format("\"{}\" must be at most {}", *s, config::format_quantity(max, kind)));
      return std::nullopt;
    }
    return *v;
  }

  // A finite number in [min, max] (max_open: [min, max)).
  std::optional<double> real(const Entry& e, const std::string& path, double min, double max,
                             bool max_open) {
    const SourcePos at = value_pos(e);
    auto s = scalar(e.value, at, path, "a number");
    if (!s) return std::nullopt;
    const std::string_view text = *s;
    double value = 0.0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || ptr != text.data() + text.size() || text.empty()) {
      diag_.error(at, path, fmt::format("expected a number, got \"{}\"", text));
      return std::nullopt;
    }
    if (!std::isfinite(value) || value < min || value > max || (max_open && value >= max)) {
      diag_.error(
          at, path,
          fmt::format("{} is out of range [{}, {}{}", text, min, max, max_open ? ")" : "]"));
      return std::nullopt;
    }
    return value;
  }

  // A sequence of integers, each in [min, max].
  std::optional<std::vector<std::uint32_t>> int_list(const YAML::Node& node, SourcePos at,
                                                     const std::string& path, std::uint64_t min,
                                                     std::uint64_t max) {
    if (!node.IsSequence()) {
      diag_.error(
          at, path,
          fmt::format("expected a sequence of integers, got {}", config::describe_yaml_node(node)));
      return std::nullopt;
    }
    std::vector<std::uint32_t> out;
    bool good = true;
    for (std::size_t i = 0; i < node.size(); ++i) {
      const YAML::Node item = node[i];
      auto v = integer(item, node_pos(item, at), fmt::format("{}[{}]", path, i), min, max);
      if (v) {
        out.push_back(static_cast<std::uint32_t>(*v));
      } else {
        good = false;
      }
    }
    if (!good) return std::nullopt;
    return out;
  }

  // A chip coordinate: `rank` integers inside the pod (rank 1 shapes also take a plain integer).
  std::optional<std::array<std::uint32_t, 3>> coord(const YAML::Node& node, SourcePos at,
                                                    const std::string& path) {
    std::vector<std::uint32_t> values;
    if (node.IsScalar() && rank_ == 1) {
      auto v = integer(node, at, path, 0, kMaxChips);
      if (!v) return std::nullopt;
      values.push_back(static_cast<std::uint32_t>(*v));
    } else {
      auto list = int_list(node, at, path, 0, kMaxChips);
      if (!list) return std::nullopt;
      values = std::move(*list);
    }
    if (!geometry_ok_) return std::nullopt;
    if (values.size() != rank_) {
      diag_.error(at, path,
                  fmt::format("a chip coordinate has {} entr{} for a {} pod of dims [{}], got [{}]",
                              rank_, rank_ == 1 ? "y" : "ies", shape_name(shape_),
                              fmt::join(dims_, ", "), fmt::join(values, ", ")));
      return std::nullopt;
    }
    std::array<std::uint32_t, 3> c{};
    for (std::uint32_t d = 0; d < rank_; ++d) {
      if (values[d] >= dims_[d]) {
        diag_.error(at, path,
                    fmt::format("chip [{}] is outside the pod: dims are [{}]",
                                fmt::join(values, ", "), fmt::join(dims_, ", ")));
        return std::nullopt;
      }
      c[d] = values[d];
    }
    return c;
  }

  std::optional<std::uint32_t> port(const YAML::Node& node, SourcePos at, const std::string& path) {
    auto p = integer(node, at, path, 0, kMaxPortsPerChip - 1);
    if (!p) return std::nullopt;
    if (ports_ok_ && *p >= ports_per_chip_) {
      diag_.error(at, path,
                  fmt::format("port {} does not exist: ports_per_chip is {} (ports 0-{})", *p,
                              ports_per_chip_, ports_per_chip_ - 1));
      return std::nullopt;
    }
    return static_cast<std::uint32_t>(*p);
  }

  void read_name(const Entries& top, PodSpec& spec) {
    if (const Entry* e = find(top, "name")) {
      if (auto s = scalar(e->value, value_pos(*e), "name", "a string")) {
        if (s->empty()) {
          diag_.error(value_pos(*e), "name", "must not be empty");
        } else {
          spec.name = *s;
        }
      }
    } else {
      diag_.error(root_pos_, "name", "missing required key 'name' (the pod's name)");
    }
    if (const Entry* e = find(top, "description")) {
      if (auto s = scalar(e->value, value_pos(*e), "description", "a string")) {
        spec.description = *s;
      }
    }
  }

  void read_geometry(const Entries& top, PodSpec& spec) {
    const Entry* shape = find(top, "shape");
    if (shape == nullptr) {
      diag_.error(
          root_pos_, "shape",
          fmt::format("missing required key 'shape' ({})", fmt::join(topologies().names(), ", ")));
    } else if (auto s = scalar(shape->value, value_pos(*shape), "shape", "a shape name")) {
      const ShapeRegistry shapes = topologies();
      if (auto e = shapes.find(*s)) {
        shape_ok_ = true;
        spec.shape = (*e)->make;
      } else {
        diag_.error(value_pos(*shape), "shape", e.error().message);
      }
    }
    shape_ = spec.shape;
    const bool tpu = shape_ok_ && spec.shape == Shape::kTpuV4;

    bool cube_ok = true;
    if (const Entry* e = find(top, "cube")) {
      if (shape_ok_ && !tpu) {
        diag_.error(
            e->key_pos, "cube",
            fmt::format("only shape tpuv4 takes a cube (shape is {})", shape_name(spec.shape)));
      } else if (auto v = integer(*e, "cube", 1, kMaxChips)) {
        spec.cube = static_cast<std::uint32_t>(*v);
      } else {
        cube_ok = false;
      }
    }
    if (const Entry* e = find(top, "tray")) {
      if (shape_ok_ && !tpu) {
        diag_.error(
            e->key_pos, "tray",
            fmt::format("only shape tpuv4 takes a tray (shape is {})", shape_name(spec.shape)));
      } else if (auto v = int_list(e->value, value_pos(*e), "tray", 1, kMaxChips)) {
        if (v->size() != 3) {
          diag_.error(
              value_pos(*e), "tray",
              fmt::format("expected 3 entries (chips per tray in x, y, z), got {}", v->size()));
        } else if (cube_ok && std::any_of(v->begin(), v->end(),
                                          [&](std::uint32_t t) { return spec.cube % t != 0; })) {
          diag_.error(value_pos(*e), "tray",
                      fmt::format("[{}] does not divide the cube ({}): a tray must not straddle "
                                  "two cubes",
                                  fmt::join(*v, ", "), spec.cube));
        } else {
          std::copy(v->begin(), v->end(), spec.tray.begin());
        }
      }
    }

    if (tpu && cube_ok && find(top, "tray") == nullptr &&
        std::any_of(spec.tray.begin(), spec.tray.end(),
                    [&](std::uint32_t t) { return spec.cube % t != 0; })) {
      diag_.error(find(top, "cube")->key_pos, "tray",
                  fmt::format("the default tray [{}] does not divide the cube ({}); give a tray "
                              "whose entries divide it",
                              fmt::join(spec.tray, ", "), spec.cube));
      cube_ok = false;
    }

    const Entry* dims = find(top, "dims");
    if (dims == nullptr) {
      diag_.error(root_pos_, "dims", "missing required key 'dims' (chips per dimension)");
      return;
    }
    auto v = int_list(dims->value, value_pos(*dims), "dims", 1, kMaxChips);
    if (!v) return;
    spec.dims = *v;
    if (!shape_ok_) return;
    const SourcePos at = value_pos(*dims);
    const std::size_t n = v->size();
    const std::string_view sname = shape_name(spec.shape);
    if ((spec.shape == Shape::kRing || spec.shape == Shape::kExplicit) && n != 1) {
      diag_.error(at, "dims",
                  fmt::format("shape {} takes one entry ({}), got {}", sname,
                              spec.shape == Shape::kRing ? "[chips in the ring]" : "[chips]", n));
      return;
    }
    if ((spec.shape == Shape::kMesh || spec.shape == Shape::kTorus) && (n < 1 || n > 3)) {
      diag_.error(at, "dims", fmt::format("shape {} takes 1 to 3 entries, got {}", sname, n));
      return;
    }
    if (tpu && n != 3) {
      diag_.error(at, "dims", fmt::format("shape tpuv4 takes 3 entries, got {}", n));
      return;
    }
    for (std::size_t d = 0; d < n; ++d) {
      if ((*v)[d] < 2) {
        diag_.error(
            at, fmt::format("dims[{}]", d),
            fmt::format("{} is out of range: every dimension needs at least 2 chips", (*v)[d]));
        return;
      }
    }
    if (tpu && cube_ok) {
      for (std::size_t d = 0; d < n; ++d) {
        if ((*v)[d] % spec.cube != 0) {
          diag_.error(at, fmt::format("dims[{}]", d),
                      fmt::format("{} is not a multiple of the cube edge {} (dims [{}])", (*v)[d],
                                  spec.cube, fmt::join(*v, ", ")));
          return;
        }
      }
    } else if (tpu) {
      return;
    }
    std::uint64_t chips = 1;
    for (std::uint32_t x : *v)
      chips *= x;
    if (chips > kMaxChips) {
      diag_.error(
          at, "dims",
          fmt::format("{} = {} chips is above the limit of {}", dims_text(*v), chips, kMaxChips));
      return;
    }
    geometry_ok_ = true;
    dims_ = *v;
    chips_ = static_cast<std::uint32_t>(chips);
    rank_ = (spec.shape == Shape::kExplicit) ? 1 : static_cast<std::uint32_t>(n);
  }

  void read_ports(const Entries& top, PodSpec& spec) {
    const Entry* e = find(top, "ports_per_chip");
    if (e != nullptr) {
      auto v = integer(*e, "ports_per_chip", 1, kMaxPortsPerChip);
      if (!v) return;
      spec.ports_per_chip = static_cast<std::uint32_t>(*v);
    }
    if (geometry_ok_ && spec.shape != Shape::kExplicit && spec.ports_per_chip < 2 * rank_) {
      diag_.error(e != nullptr ? value_pos(*e) : root_pos_, "ports_per_chip",
                  fmt::format("{} is below 2 x rank = {}: a {}-D {} needs ports +d and -d in "
                              "every dimension",
                              spec.ports_per_chip, 2 * rank_, rank_, shape_name(spec.shape)));
      return;
    }
    ports_ok_ = true;
    ports_per_chip_ = spec.ports_per_chip;
  }

  void read_media(const Entry& e, PodSpec& spec) {
    if (!e.value.IsMap()) {
      diag_.error(value_pos(e), "media",
                  fmt::format("expected a mapping from medium (pcb, copper, optical) to its "
                              "properties, got {}",
                              config::describe_yaml_node(e.value)));
      return;
    }
    const Entries media = keys(e.value, "media", keys_of("media"));
    for (const auto& [name, entry] : media) {
      const Medium m = *parse_medium(name);
      MediumSpec& ms = spec.media[static_cast<std::size_t>(m)];
      const std::string path = join_path("media", name);
      auto props = section(entry, path, keys_of(path));
      if (!props) continue;
      if (const Entry* p = find(*props, "latency")) {
        if (auto v = quantity(*p, path + ".latency", UnitKind::kTime, 1, kMaxTimePs))
          ms.latency_ps = *v;
      }
      if (const Entry* p = find(*props, "per_metre")) {
        if (auto v = quantity(*p, path + ".per_metre", UnitKind::kTime, 0, kMaxPerMetrePs))
          ms.per_metre_ps = *v;
      }
      if (const Entry* p = find(*props, "bandwidth")) {
        if (auto v = quantity(*p, path + ".bandwidth", UnitKind::kBandwidth, kMinBandwidth,
                              kMaxBandwidth)) {
          ms.bandwidth_bytes_per_s = *v;
        }
      }
      if (const Entry* p = find(*props, "bit_error_rate")) {
        if (auto v = real(*p, path + ".bit_error_rate", 0.0, 1.0, true)) ms.bit_error_rate = *v;
      }
      if (const Entry* p = find(*props, "length")) {
        if (auto v = real(*p, path + ".length", 0.0, kMaxLengthM, false)) {
          ms.default_length_m = *v;
        }
      }
    }
  }

  void read_router(const Entry& e, PodSpec& spec) {
    auto r = section(e, "router", keys_of("router"));
    if (!r) return;
    if (const Entry* p = find(*r, "latency")) {
      if (auto v = quantity(*p, "router.latency", UnitKind::kTime, 0, kMaxTimePs))
        spec.router_latency_ps = *v;
    }
    if (const Entry* p = find(*r, "max_packet")) {
      if (auto v = quantity(*p, "router.max_packet", UnitKind::kSize, 1, kMaxPacketBytes)) {
        spec.max_packet_bytes = *v;
      }
    }
    if (const Entry* p = find(*r, "header")) {
      if (auto v = quantity(*p, "router.header", UnitKind::kSize, 0, kMaxPacketBytes))
        spec.header_bytes = *v;
    }
    if (const Entry* p = find(*r, "max_replays")) {
      // A packet's sends are counted in 8 bits (seed4 ¶62 counts every attempt).
      if (auto v = integer(*p, "router.max_replays", 0, kMaxReplays)) {
        spec.max_replays = static_cast<std::uint32_t>(*v);
      }
    }
  }

  void read_buffer(const Entry& e, PodSpec& spec) {
    spec.buffer.line = e.key_pos.line;
    auto b = section(e, "buffer", keys_of("buffer"));
    if (!b) return;
    BufferSpec& buf = spec.buffer;
    if (const Entry* p = find(*b, "bytes")) {
      buf.line = p->key_pos.line;
      if (auto v = quantity(*p, "buffer.bytes", UnitKind::kSize, 1, kMaxBufferBytes))
        buf.bytes = *v;
    }
    if (const Entry* p = find(*b, "unit")) {
      if (auto v = quantity(*p, "buffer.unit", UnitKind::kSize, 1, kMaxPacketBytes)) {
        if ((*v & (*v - 1)) != 0) {
          diag_.error(value_pos(*p), "buffer.unit",
                      fmt::format("{} is not a power of two",
                                  config::format_quantity(*v, UnitKind::kSize)));
        } else {
          buf.unit_bytes = *v;
        }
      }
    }
    if (const Entry* p = find(*b, "outbound")) {
      if (auto v = quantity(*p, "buffer.outbound", UnitKind::kSize, 0, kMaxBufferBytes))
        buf.outbound_bytes = *v;
    }
    if (const Entry* p = find(*b, "inbound")) {
      if (auto v = quantity(*p, "buffer.inbound", UnitKind::kSize, 0, kMaxBufferBytes))
        buf.inbound_bytes = *v;
    }
    if (const Entry* p = find(*b, "vcs")) {
      if (auto v = integer(*p, "buffer.vcs", 1, kMaxVcs)) buf.vcs = static_cast<std::uint32_t>(*v);
    }
    if (const Entry* p = find(*b, "min_per_vc")) {
      if (auto v = quantity(*p, "buffer.min_per_vc", UnitKind::kSize, 0, kMaxBufferBytes)) {
        buf.min_bytes_per_vc = *v;
      }
    }
    if (const Entry* p = find(*b, "policy")) {
      if (auto s = scalar(p->value, value_pos(*p), "buffer.policy", "a policy name")) {
        if (s->empty()) {
          diag_.error(value_pos(*p), "buffer.policy", "must not be empty");
        } else {
          buf.policy = *s;
        }
      }
    }
  }

  void read_slice(const Entry& e, PodSpec& spec) {
    auto s = section(e, "slice", keys_of("slice"));
    if (!s) return;
    const SourcePos at = value_pos(e);
    const bool have_origin = require(*s, "origin", "slice", at, "first chip of the slice");
    const bool have_extent = require(*s, "extent", "slice", at, "chips per dimension");
    if (!have_origin || !have_extent) return;
    const Entry& oe = *find(*s, "origin");
    const Entry& ee = *find(*s, "extent");
    auto origin = int_list(oe.value, value_pos(oe), "slice.origin", 0, kMaxChips);
    auto extent = int_list(ee.value, value_pos(ee), "slice.extent", 1, kMaxChips);
    if (!origin || !extent || !geometry_ok_) return;
    bool good = true;
    if (origin->size() != rank_) {
      diag_.error(value_pos(oe), "slice.origin",
                  fmt::format("expected {} entr{} (one per dimension of dims [{}]), got {}", rank_,
                              rank_ == 1 ? "y" : "ies", fmt::join(dims_, ", "), origin->size()));
      good = false;
    }
    if (extent->size() != rank_) {
      diag_.error(value_pos(ee), "slice.extent",
                  fmt::format("expected {} entr{} (one per dimension of dims [{}]), got {}", rank_,
                              rank_ == 1 ? "y" : "ies", fmt::join(dims_, ", "), extent->size()));
      good = false;
    }
    if (!good) return;
    for (std::uint32_t d = 0; d < rank_; ++d) {
      if (std::uint64_t{(*origin)[d]} + (*extent)[d] > dims_[d]) {
        diag_.error(value_pos(ee), "slice",
                    fmt::format("slice outside the pod: origin [{}] + extent [{}] exceeds dims "
                                "[{}] in dimension {}",
                                fmt::join(*origin, ", "), fmt::join(*extent, ", "),
                                fmt::join(dims_, ", "), d));
        return;
      }
    }
    spec.slice_origin = *origin;
    spec.slice_extent = *extent;
  }

  void read_failed_chips(const Entry& e, PodSpec& spec) {
    if (!e.value.IsSequence()) {
      diag_.error(value_pos(e), "failed_chips",
                  fmt::format("expected a sequence of chip coordinates, got {}",
                              config::describe_yaml_node(e.value)));
      return;
    }
    for (std::size_t i = 0; i < e.value.size(); ++i) {
      const YAML::Node item = e.value[i];
      if (auto c = coord(item, node_pos(item, value_pos(e)), fmt::format("failed_chips[{}]", i))) {
        spec.failed_chips.push_back(*c);
      }
    }
  }

  void read_failed_links(const Entry& e, PodSpec& spec) {
    if (!e.value.IsSequence()) {
      diag_.error(value_pos(e), "failed_links",
                  fmt::format("expected a sequence of {{chip: COORD, port: N}}, got {}",
                              config::describe_yaml_node(e.value)));
      return;
    }
    const std::vector<std::string> valid = keys_of("failed_links[]");
    for (std::size_t i = 0; i < e.value.size(); ++i) {
      const std::string path = fmt::format("failed_links[{}]", i);
      const Entry item{node_pos(e.value[i], value_pos(e)), e.value[i]};
      auto m = section(item, path, valid);
      if (!m) continue;
      const bool have_chip = require(*m, "chip", path, item.key_pos, "the chip's coordinates");
      const bool have_port = require(*m, "port", path, item.key_pos, "the port id");
      if (!have_chip || !have_port) continue;
      const Entry& ce = *find(*m, "chip");
      const Entry& pe = *find(*m, "port");
      auto c = coord(ce.value, value_pos(ce), path + ".chip");
      auto p = port(pe.value, value_pos(pe), path + ".port");
      if (!c || !p) continue;
      spec.failed_links.push_back(LinkEnd{*c, *p, item.key_pos.line});
    }
  }

  // [chip, port] of an explicit link.
  std::optional<std::pair<std::uint32_t, std::uint32_t>> link_end(const Entry& e,
                                                                  const std::string& path) {
    const SourcePos at = value_pos(e);
    if (!e.value.IsSequence() || e.value.size() != 2) {
      diag_.error(
          at, path,
          fmt::format("expected [chip, port], got {}", config::describe_yaml_node(e.value)));
      return std::nullopt;
    }
    auto chip = integer(e.value[0], node_pos(e.value[0], at), path + "[0]", 0, kMaxChips);
    auto p = port(e.value[1], node_pos(e.value[1], at), path + "[1]");
    if (!chip || !p) return std::nullopt;
    if (geometry_ok_ && *chip >= chips_) {
      diag_.error(at, path,
                  fmt::format("dangling link: chip {} does not exist (the pod has {} chips, 0-{})",
                              *chip, chips_, chips_ - 1));
      return std::nullopt;
    }
    return std::pair{static_cast<std::uint32_t>(*chip), *p};
  }

  void read_links(const Entry& e, PodSpec& spec) {
    if (!e.value.IsSequence()) {
      diag_.error(value_pos(e), "links",
                  fmt::format("expected a sequence of {{a: [chip, port], b: [chip, port], medium, "
                              "length}}, got {}",
                              config::describe_yaml_node(e.value)));
      return;
    }
    const std::vector<std::string> valid = keys_of("links[]");
    std::map<std::pair<std::uint32_t, std::uint32_t>, int> taken;  // (chip, port) -> line
    for (std::size_t i = 0; i < e.value.size(); ++i) {
      const std::string path = fmt::format("links[{}]", i);
      const Entry item{node_pos(e.value[i], value_pos(e)), e.value[i]};
      auto m = section(item, path, valid);
      if (!m) continue;
      const bool have_a = require(*m, "a", path, item.key_pos, "[chip, port] of one end");
      const bool have_b = require(*m, "b", path, item.key_pos, "[chip, port] of the other end");
      ExplicitLink link;
      link.line = item.key_pos.line;
      link.medium = spec.electrical_medium;
      link.length_m = -1.0;
      bool good = have_a && have_b;
      if (const Entry* p = find(*m, "medium")) {
        if (auto md = medium(*p, path + ".medium")) {
          link.medium = *md;
        } else {
          good = false;
        }
      }
      if (const Entry* p = find(*m, "length")) {
        if (auto len = real(*p, path + ".length", 0.0, kMaxLengthM, false)) {
          link.length_m = *len;
        } else {
          good = false;
        }
      }
      std::optional<std::pair<std::uint32_t, std::uint32_t>> a, b;
      if (have_a) a = link_end(*find(*m, "a"), path + ".a");
      if (have_b) b = link_end(*find(*m, "b"), path + ".b");
      if (!a || !b || !good) continue;
      if (a->first == b->first) {
        diag_.error(item.key_pos, path,
                    fmt::format("a link must join two different chips, got chip {} ports {} and "
                                "{}",
                                a->first, a->second, b->second));
        continue;
      }
      bool reused = false;
      for (const auto& [end, key] : {std::pair{*a, "a"}, std::pair{*b, "b"}}) {
        if (auto it = taken.find(end); it != taken.end()) {
          diag_.error(value_pos(*find(*m, key)), fmt::format("{}.{}", path, key),
                      fmt::format("dangling link: chip {} port {} is already cabled by the link "
                                  "at line {}; a port takes one cable",
                                  end.first, end.second, it->second));
          reused = true;
        }
      }
      if (reused) continue;
      taken.emplace(*a, link.line);
      taken.emplace(*b, link.line);
      link.chip_a = a->first;
      link.port_a = a->second;
      link.chip_b = b->first;
      link.port_b = b->second;
      spec.links.push_back(link);
    }
  }

  Diagnostics& diag_;
  SourcePos root_pos_{1, 1};
  bool shape_ok_ = false, geometry_ok_ = false, ports_ok_ = false;
  Shape shape_ = Shape::kTorus;
  std::vector<std::uint32_t> dims_;
  std::uint32_t chips_ = 0, rank_ = 1, ports_per_chip_ = 0;
};

}  // namespace

Result<PodSpec> load_pod_string(std::string_view yaml, std::string_view source_name) {
  Diagnostics diag{std::string(source_name)};
  PodSpec spec;
  try {
    const YAML::Node root = YAML::Load(std::string(yaml));
    PodReader reader(diag);
    spec = reader.read(root, source_name);
  } catch (const YAML::Exception& e) {
    diag.error(config::yaml_pos(e.mark), "", fmt::format("YAML syntax error: {}", e.msg));
  }
  if (!diag.empty()) return diag.take();
  // The checks that need the graph: unconnected failed links, no used port, buffer too small.
  Result<Topology> topo = build_topology(spec);
  if (!topo) return topo.errors();
  return spec;
}

}  // namespace xpusim::fabric
