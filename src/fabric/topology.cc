#include "fabric/topology.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <span>
#include <tuple>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "config/units.h"
#include "sim/one_line.h"

namespace xpusim::fabric {
namespace {

constexpr std::uint64_t kMaxChips = 65536;  // as in the reader
constexpr std::uint32_t kMaxPortsPerChip = 16;
constexpr std::uint32_t kMaxVcs = 8;
constexpr double kMaxLatencyPs = 1e18;

// Collects build errors as "SOURCE[:LINE]: key: message".
class Errors {
 public:
  explicit Errors(const PodSpec& spec) : source_(spec.source.empty() ? "<pod>" : spec.source) {}
  void add(int line, std::string_view key, std::string_view message) {
    std::string text = source_;
    if (line > 0) text += fmt::format(":{}", line);
    errors_.push_back(Error{sim::one_line(fmt::format("{}: {}: {}", text, key, message))});
  }
  bool empty() const { return errors_.empty(); }
  std::vector<Error> take() { return std::move(errors_); }

 private:
  std::string source_;
  std::vector<Error> errors_;
};

bool is_grid(Shape s) {
  return s != Shape::kExplicit;
}

std::uint64_t sat_add(std::uint64_t a, std::uint64_t b) {
  std::uint64_t r = 0;
  return __builtin_add_overflow(a, b, &r) ? ~std::uint64_t{0} : r;
}
std::uint64_t sat_mul(std::uint64_t a, std::uint64_t b) {
  std::uint64_t r = 0;
  return __builtin_mul_overflow(a, b, &r) ? ~std::uint64_t{0} : r;
}

std::string coord_text(const std::array<std::uint32_t, 3>& c, std::uint32_t rank) {
  return fmt::format("[{}]", fmt::join(std::span(c.data(), rank), ", "));
}

bool valid_medium(Medium m) {
  return static_cast<unsigned>(m) < kMediumCount;
}

// Link-level retry resends a packet until it crosses without a bit error. Below one chance in
// two per maximum packet a link spends most of its time replaying and gives up within a few
// packets (router.max_replays): no run on it is meaningful, so a used medium that bad is an
// error at load, not a link failure at the first packet.
void check_error_rates(const Topology& t, Errors& err) {
  const PodSpec& spec = t.spec();
  const std::uint64_t wire = sat_add(spec.max_packet_bytes, spec.header_bytes);
  const double bits = 8.0 * static_cast<double>(wire);
  std::array<bool, kMediumCount> seen{};
  for (const LinkInfo& l : t.links()) {
    const auto m = static_cast<std::size_t>(l.medium);
    if (!l.used || seen[m] || l.bit_error_rate <= 0) continue;
    seen[m] = true;
    const double p = std::exp(bits * std::log1p(-l.bit_error_rate));
    if (p >= 0.5) continue;
    err.add(0, fmt::format("media.{}.bit_error_rate", medium_name(l.medium)),
            fmt::format("{:g} lets a maximum packet ({} B with its header) cross a link error-free "
                        "with probability {:.2g}; link-level retry needs at least 0.5 (at most 2 "
                        "sends per packet on average): lower the rate or router.max_packet",
                        l.bit_error_rate, wire, p));
  }
}

}  // namespace

std::array<std::uint32_t, 3> Topology::coord(std::uint32_t chip) const {
  std::array<std::uint32_t, 3> c{};
  for (std::size_t d = 0; d < 3; ++d) {
    c[d] = chip % dims_[d];
    chip /= dims_[d];
  }
  return c;
}

std::uint32_t Topology::chip_at(const std::array<std::uint32_t, 3>& c) const {
  for (std::size_t d = 0; d < 3; ++d) {
    if (c[d] >= dims_[d]) return kNoChip;
  }
  return c[0] + dims_[0] * (c[1] + dims_[1] * c[2]);
}

std::uint32_t Topology::used_ports(std::uint32_t chip) const {
  if (chip >= chips_) return 0;
  std::uint32_t n = 0;
  for (std::uint32_t p = 0; p < spec_.ports_per_chip; ++p)
    n += port(chip, p).used ? 1 : 0;
  return n;
}

sim::Tick Topology::table_rtt(std::uint32_t chip, std::uint32_t p) const {
  if (chip >= chips_ || p >= spec_.ports_per_chip) return 0;
  const PortInfo& info = port(chip, p);
  if (!info.used) return 0;
  return 2 * links_[info.link].latency_ps + 2 * spec_.router_latency_ps;
}

std::string Topology::summary() const {
  std::array<std::uint32_t, kMediumCount> by_medium{};
  std::uint32_t used = 0, failed = 0, used_ports_total = 0;
  for (const LinkInfo& l : links_) {
    ++by_medium[static_cast<std::size_t>(l.medium)];
    used += l.used ? 1 : 0;
    failed += l.failed ? 1 : 0;
  }
  for (std::uint32_t c = 0; c < chips_; ++c)
    used_ports_total += used_ports(c);
  std::vector<std::string> media;
  for (std::size_t m = 0; m < kMediumCount; ++m) {
    if (by_medium[m] > 0) {
      media.push_back(fmt::format("{} {}", by_medium[m], medium_name(static_cast<Medium>(m))));
    }
  }
  return fmt::format(
      "{} {}: {} chips ({} active), {} links ({}; {} used, {} failed), {} used ports of {}",
      shape_name(spec_.shape), fmt::join(spec_.dims, "x"), chips_, active_count_, links_.size(),
      media.empty() ? std::string("none") : fmt::format("{}", fmt::join(media, ", ")), used, failed,
      used_ports_total, std::uint64_t{chips_} * spec_.ports_per_chip);
}

Result<Topology> build_topology(const PodSpec& spec) {
  Errors err(spec);
  const Shape shape = spec.shape;
  const std::size_t n = spec.dims.size();
  const std::string_view sname = shape_name(shape);

  // Geometry: without a valid one nothing else can be checked.
  if (shape > Shape::kExplicit) {
    err.add(0, "shape",
            fmt::format("unknown shape; valid: {}", fmt::join(topologies().names(), ", ")));
    return err.take();
  }
  if ((shape == Shape::kRing || shape == Shape::kExplicit) && n != 1) {
    err.add(0, "dims", fmt::format("shape {} takes one entry, got {}", sname, n));
  } else if ((shape == Shape::kMesh || shape == Shape::kTorus) && (n < 1 || n > 3)) {
    err.add(0, "dims", fmt::format("shape {} takes 1 to 3 entries, got {}", sname, n));
  } else if (shape == Shape::kTpuV4 && n != 3) {
    err.add(0, "dims", fmt::format("shape tpuv4 takes 3 entries, got {}", n));
  }
  if (!err.empty()) return err.take();
  std::uint64_t chips = 1;
  for (std::size_t d = 0; d < n; ++d) {
    if (spec.dims[d] < 2) {
      err.add(
          0, fmt::format("dims[{}]", d),
          fmt::format("{} is out of range: every dimension needs at least 2 chips", spec.dims[d]));
      return err.take();
    }
    chips = sat_mul(chips, spec.dims[d]);
  }
  if (chips > kMaxChips) {
    err.add(0, "dims", fmt::format("{} chips is above the limit of {}", chips, kMaxChips));
    return err.take();
  }
  if (shape == Shape::kTpuV4) {
    if (spec.cube == 0) err.add(0, "cube", "0 is out of range: the cube edge is at least 1");
    for (std::size_t d = 0; d < 3 && spec.cube > 0; ++d) {
      if (spec.dims[d] % spec.cube != 0) {
        err.add(0, fmt::format("dims[{}]", d),
                fmt::format("{} is not a multiple of the cube edge {}", spec.dims[d], spec.cube));
      }
      if (spec.tray[d] == 0 || spec.cube % spec.tray[d] != 0) {
        err.add(0, fmt::format("tray[{}]", d),
                fmt::format("{} does not divide the cube edge {}", spec.tray[d], spec.cube));
      }
    }
  }
  const std::uint32_t rank = is_grid(shape) ? static_cast<std::uint32_t>(n) : 1;
  const std::uint32_t ppc = spec.ports_per_chip;
  if (ppc < 1 || ppc > kMaxPortsPerChip) {
    err.add(0, "ports_per_chip", fmt::format("{} is out of range [1, {}]", ppc, kMaxPortsPerChip));
  } else if (is_grid(shape) && ppc < 2 * rank) {
    err.add(0, "ports_per_chip", fmt::format("{} is below 2 x rank = {}", ppc, 2 * rank));
  }
  if (spec.buffer.unit_bytes == 0 || (spec.buffer.unit_bytes & (spec.buffer.unit_bytes - 1)) != 0) {
    err.add(spec.buffer.line, "buffer.unit",
            fmt::format("{} is not a power of two", spec.buffer.unit_bytes));
  }
  if (spec.buffer.vcs < 1 || spec.buffer.vcs > kMaxVcs) {
    err.add(spec.buffer.line, "buffer.vcs",
            fmt::format("{} is out of range [1, {}]", spec.buffer.vcs, kMaxVcs));
  }
  if (spec.max_packet_bytes == 0) err.add(0, "router.max_packet", "must be at least 1 B");
  if (!valid_medium(spec.electrical_medium)) err.add(0, "electrical_medium", "unknown medium");
  for (std::size_t m = 0; m < kMediumCount; ++m) {
    const MediumSpec& ms = spec.media[m];
    const std::string key = fmt::format("media.{}", medium_name(static_cast<Medium>(m)));
    if (!std::isfinite(ms.default_length_m) || ms.default_length_m < 0) {
      err.add(0, key + ".length", fmt::format("{} is not a length >= 0", ms.default_length_m));
    }
    if (!std::isfinite(ms.bit_error_rate) || ms.bit_error_rate < 0 || ms.bit_error_rate >= 1) {
      err.add(0, key + ".bit_error_rate",
              fmt::format("{} is out of range [0, 1)", ms.bit_error_rate));
    }
  }
  if (!err.empty()) return err.take();

  Topology t;
  t.spec_ = spec;
  t.chips_ = static_cast<std::uint32_t>(chips);
  t.rank_ = rank;
  if (is_grid(shape)) {
    for (std::size_t d = 0; d < n; ++d)
      t.dims_[d] = spec.dims[d];
    for (std::size_t d = 0; d < n; ++d)
      t.wrap_[d] = shape != Shape::kMesh;
  } else {
    t.dims_ = {t.chips_, 1, 1};
  }
  t.ports_.assign(std::size_t{t.chips_} * ppc, PortInfo{});

  // Cables with their medium, length and latency; both ends' ports point at them.
  auto add_link = [&](std::uint32_t ca, std::uint32_t pa, std::uint32_t cb, std::uint32_t pb,
                      Medium m, double length, bool wraps, std::uint8_t dim, int line) {
    const MediumSpec& ms = spec.media[static_cast<std::size_t>(m)];
    const double lat = static_cast<double>(ms.latency_ps) +
                       std::round(length * static_cast<double>(ms.per_metre_ps));
    if (!(lat < kMaxLatencyPs)) {
      err.add(line, "links",
              fmt::format("chip {} port {} to chip {} port {}: latency of {} m of {} does not fit",
                          ca, pa, cb, pb, length, medium_name(m)));
      return;
    }
    LinkInfo l;
    l.chip_a = ca;
    l.port_a = pa;
    l.chip_b = cb;
    l.port_b = pb;
    l.medium = m;
    l.length_m = length;
    l.bandwidth_bytes_per_s = ms.bandwidth_bytes_per_s;
    l.latency_ps = static_cast<sim::Tick>(lat);
    l.bit_error_rate = ms.bit_error_rate;
    l.wraps = wraps;
    l.dim = dim;
    const auto index = static_cast<std::uint32_t>(t.links_.size());
    t.links_.push_back(l);
    for (const auto& [c, p, pc, pp] : {std::tuple{ca, pa, cb, pb}, std::tuple{cb, pb, ca, pa}}) {
      PortInfo& info = t.ports_[std::size_t{c} * ppc + p];
      info.connected = true;
      info.medium = m;
      info.length_m = length;
      info.peer_chip = pc;
      info.peer_port = pp;
      info.link = index;
    }
  };

  if (is_grid(shape)) {
    t.links_.reserve(std::size_t{t.chips_} * rank);
    for (std::uint32_t chip = 0; chip < t.chips_; ++chip) {
      const std::array<std::uint32_t, 3> a = t.coord(chip);
      for (std::uint32_t d = 0; d < rank; ++d) {
        const bool last = a[d] + 1 == t.dims_[d];
        if (last && !t.wrap_[d]) continue;
        std::array<std::uint32_t, 3> b = a;
        b[d] = last ? 0 : a[d] + 1;
        Medium m = spec.electrical_medium;
        if (shape == Shape::kTpuV4) {
          bool same_tray = true;
          for (std::size_t e = 0; e < 3; ++e)
            same_tray = same_tray && a[e] / spec.tray[e] == b[e] / spec.tray[e];
          if (last || a[d] / spec.cube != b[d] / spec.cube) {
            m = Medium::kOptical;
          } else if (same_tray) {
            m = Medium::kPcb;
          }
        }
        add_link(chip, 2 * d, t.chip_at(b), 2 * d + 1, m,
                 spec.media[static_cast<std::size_t>(m)].default_length_m, last,
                 static_cast<std::uint8_t>(d), 0);
      }
    }
  } else {
    std::map<std::pair<std::uint32_t, std::uint32_t>, int> taken;
    for (std::size_t i = 0; i < spec.links.size(); ++i) {
      const ExplicitLink& l = spec.links[i];
      const std::string key = fmt::format("links[{}]", i);
      if (l.chip_a >= t.chips_ || l.chip_b >= t.chips_) {
        err.add(l.line, key,
                fmt::format("dangling link: chip {} does not exist (the pod has {} chips)",
                            l.chip_a >= t.chips_ ? l.chip_a : l.chip_b, t.chips_));
        continue;
      }
      if (l.port_a >= ppc || l.port_b >= ppc) {
        err.add(l.line, key,
                fmt::format("port {} does not exist: ports_per_chip is {}",
                            l.port_a >= ppc ? l.port_a : l.port_b, ppc));
        continue;
      }
      if (l.chip_a == l.chip_b) {
        err.add(l.line, key,
                fmt::format("a link must join two different chips, got chip {}", l.chip_a));
        continue;
      }
      if (!valid_medium(l.medium)) {
        err.add(l.line, key + ".medium", "unknown medium");
        continue;
      }
      bool reused = false;
      for (const auto& end : {std::pair{l.chip_a, l.port_a}, std::pair{l.chip_b, l.port_b}}) {
        if (auto it = taken.find(end); it != taken.end()) {
          err.add(l.line, key,
                  fmt::format("dangling link: chip {} port {} is already cabled by the link at "
                              "line {}",
                              end.first, end.second, it->second));
          reused = true;
        }
      }
      if (reused) continue;
      taken.emplace(std::pair{l.chip_a, l.port_a}, l.line);
      taken.emplace(std::pair{l.chip_b, l.port_b}, l.line);
      double length = l.length_m;
      if (std::isnan(length) || std::isinf(length)) {
        err.add(l.line, key + ".length", fmt::format("{} is not a length >= 0", length));
        continue;
      }
      if (length < 0) length = spec.media[static_cast<std::size_t>(l.medium)].default_length_m;
      add_link(l.chip_a, l.port_a, l.chip_b, l.port_b, l.medium, length, false, 0, l.line);
    }
  }

  // The job: the slice, minus failed chips.
  t.active_.assign(t.chips_, true);
  if (!spec.slice_origin.empty() || !spec.slice_extent.empty()) {
    if (spec.slice_origin.size() != rank || spec.slice_extent.size() != rank) {
      err.add(0, "slice",
              fmt::format("origin and extent take {} entries each, got {} and {}", rank,
                          spec.slice_origin.size(), spec.slice_extent.size()));
    } else {
      bool inside = true;
      for (std::uint32_t d = 0; d < rank; ++d) {
        inside = inside && spec.slice_extent[d] >= 1 &&
                 std::uint64_t{spec.slice_origin[d]} + spec.slice_extent[d] <= t.dims_[d];
      }
      if (!inside) {
        err.add(0, "slice",
                fmt::format("slice outside the pod: origin [{}] extent [{}] in dims [{}]",
                            fmt::join(spec.slice_origin, ", "), fmt::join(spec.slice_extent, ", "),
                            fmt::join(spec.dims, ", ")));
      } else {
        for (std::uint32_t chip = 0; chip < t.chips_; ++chip) {
          const std::array<std::uint32_t, 3> c = t.coord(chip);
          for (std::uint32_t d = 0; d < rank; ++d) {
            if (c[d] < spec.slice_origin[d] ||
                c[d] >= spec.slice_origin[d] + spec.slice_extent[d]) {
              t.active_[chip] = false;
            }
          }
        }
      }
    }
  }
  for (std::size_t i = 0; i < spec.failed_chips.size(); ++i) {
    const std::uint32_t chip = t.chip_at(spec.failed_chips[i]);
    if (chip == kNoChip) {
      err.add(0, fmt::format("failed_chips[{}]", i),
              fmt::format("chip {} is outside the pod (dims [{}])",
                          coord_text(spec.failed_chips[i], 3), fmt::join(spec.dims, ", ")));
      continue;
    }
    t.active_[chip] = false;
  }
  for (std::size_t i = 0; i < spec.failed_links.size(); ++i) {
    const LinkEnd& f = spec.failed_links[i];
    const std::string key = fmt::format("failed_links[{}]", i);
    const std::uint32_t chip = t.chip_at(f.coord);
    if (chip == kNoChip) {
      err.add(f.line, key,
              fmt::format("chip {} is outside the pod (dims [{}])", coord_text(f.coord, 3),
                          fmt::join(spec.dims, ", ")));
      continue;
    }
    if (f.port >= ppc) {
      err.add(f.line, key,
              fmt::format("port {} does not exist: ports_per_chip is {}", f.port, ppc));
      continue;
    }
    const PortInfo& info = t.port(chip, f.port);
    if (!info.connected) {
      err.add(f.line, key,
              fmt::format("chip {} port {} is not connected, so it cannot fail",
                          coord_text(t.coord(chip), rank), f.port));
      continue;
    }
    t.links_[info.link].failed = true;
  }
  if (!err.empty()) return err.take();

  t.active_count_ =
      static_cast<std::uint32_t>(std::count(t.active_.begin(), t.active_.end(), true));
  std::uint32_t max_used = 0;
  for (LinkInfo& l : t.links_) {
    l.used = !l.failed && t.active_[l.chip_a] && t.active_[l.chip_b];
    t.ports_[std::size_t{l.chip_a} * ppc + l.port_a].used = l.used;
    t.ports_[std::size_t{l.chip_b} * ppc + l.port_b].used = l.used;
  }
  for (std::uint32_t chip = 0; chip < t.chips_; ++chip)
    max_used = std::max(max_used, t.used_ports(chip));
  check_error_rates(t, err);
  if (max_used == 0) {
    err.add(0, "failed_links",
            fmt::format("all ports unused: no healthy link joins two chips of the job ({} of {} "
                        "chips active)",
                        t.active_count_, t.chips_));
    return err.take();
  }
  if (!err.empty()) return err.take();

  // Buffer memory: the chip with the most used ports must fit its outbound queues, the inbound
  // queue and one maximum packet (or the floor) per used (port, VC).
  const BufferSpec& b = spec.buffer;
  const std::uint64_t packet = sat_add(spec.max_packet_bytes, spec.header_bytes);
  const std::uint64_t packet_units =
      sat_add(packet, b.unit_bytes - 1) / b.unit_bytes * b.unit_bytes;
  const bool floor_wins = b.min_bytes_per_vc > packet_units;
  const std::uint64_t per_vc = floor_wins ? b.min_bytes_per_vc : packet_units;
  const std::uint64_t needed =
      sat_add(sat_add(sat_mul(b.outbound_bytes, max_used), b.inbound_bytes),
              sat_mul(sat_mul(max_used, b.vcs), per_vc));
  if (b.bytes < needed) {
    using config::format_size;
    err.add(b.line, "buffer.bytes",
            fmt::format("{} is below {} x {} outbound + {} inbound + {} used ports x {} VCs x {} "
                        "({}) = {}",
                        format_size(b.bytes), format_size(b.outbound_bytes), max_used,
                        format_size(b.inbound_bytes), max_used, b.vcs, format_size(per_vc),
                        floor_wins ? "buffer.min_per_vc" : "one maximum packet per VC",
                        format_size(needed)));
    return err.take();
  }
  return t;
}

}  // namespace xpusim::fabric
