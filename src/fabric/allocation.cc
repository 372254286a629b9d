#include "fabric/allocation.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "fabric/policies/policies.h"

namespace xpusim::fabric {

namespace {
// total x w needs 128 bits; the weight sum of many 64-bit weights may too.
__extension__ using u128 = unsigned __int128;
}  // namespace

std::uint64_t Allocation::total() const {
  return std::accumulate(port_bytes.begin(), port_bytes.end(), std::uint64_t{0});
}

Result<std::vector<std::uint64_t>> proportional_split(std::span<const std::uint64_t> weights,
                                                      std::uint64_t total) {
  u128 sum = 0;
  for (std::uint64_t w : weights)
    sum += w;
  if (sum == 0) {
    return Error{
        fmt::format("proportional split: all {} weights are 0; nothing to split {} units by",
                    weights.size(), total)};
  }
  // seed4 §3 [model]: floor shares, then one unit each to the largest remainders. Remainders
  // are compared exactly as total x w mod W (all shares have the same denominator W).
  std::vector<std::uint64_t> q(weights.size());
  std::vector<u128> rem(weights.size());
  std::uint64_t given = 0;
  for (std::size_t i = 0; i < weights.size(); ++i) {
    const u128 num = u128{total} * weights[i];
    q[i] = static_cast<std::uint64_t>(num / sum);
    rem[i] = num % sum;
    given += q[i];
  }
  // Fewer leftover units than non-zero remainders, so no weight-0 entry (remainder 0) wins.
  std::vector<std::size_t> order(weights.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return rem[a] > rem[b]; });
  for (std::uint64_t k = 0; k < total - given; ++k)
    ++q[order[k]];
  return q;
}

namespace detail {

std::string format_bytes(std::uint64_t b) {
  if (b >= (1u << 20) && b % (1u << 20) == 0) return fmt::format("{} MiB", b >> 20);
  if (b >= 1024 && b % 1024 == 0) return fmt::format("{} KiB", b >> 10);
  return fmt::format("{} B", b);
}

std::uint64_t received(const PortDemand& p) {
  return std::accumulate(p.received_per_vc.begin(), p.received_per_vc.end(), std::uint64_t{0});
}

Result<Frame> make_frame(const AllocationInput& in) {
  if (in.unit_bytes == 0) return Error{"buffer: unit_bytes is 0; sizes must be whole units"};
  if (in.vcs == 0) return Error{"buffer: vcs is 0; every port has at least one virtual channel"};
  std::vector<Error> errors;
  Frame f;
  for (std::size_t p = 0; p < in.ports.size(); ++p) {
    const PortDemand& d = in.ports[p];
    if (!d.received_per_vc.empty() && d.received_per_vc.size() != in.vcs) {
      errors.push_back({fmt::format(
          "buffer: port {} has {} received_per_vc counts; it needs one per VC ({}) or none", p,
          d.received_per_vc.size(), in.vcs)});
    }
    if (d.used) ++f.used_ports;
  }
  if (!errors.empty()) return errors;
  // seed4 ¶52: unused ports get zero first; with none used there is nothing to size.
  if (f.used_ports == 0) {
    return Error{fmt::format("buffer: all ports unused ({} ports); nothing to allocate to",
                             in.ports.size())};
  }
  f.units = in.total_bytes / in.unit_bytes;
  f.floor_units = (in.min_bytes_per_vc + in.unit_bytes - 1) / in.unit_bytes;
  // seed4 §5 item 5: a queue smaller than one maximum packet could never accept one (credits).
  const u128 floors = u128{f.floor_units} * in.vcs * f.used_ports;
  if (floors > f.units) {
    return Error{fmt::format(
        "buffer: {} of port queues is below the floor of {} used ports x {} VCs x {} (one "
        "maximum packet per VC)",
        format_bytes(in.total_bytes), f.used_ports, in.vcs,
        format_bytes(f.floor_units * in.unit_bytes))};
  }
  f.floors = static_cast<std::uint64_t>(floors);
  return f;
}

Allocation build_allocation(const AllocationInput& in, const Frame& f,
                            std::span<const std::uint64_t> extra_units, bool vc_by_counts) {
  XPUSIM_CHECK(extra_units.size() == in.ports.size(), "one extra share per port");
  Allocation a;
  a.port_bytes.assign(in.ports.size(), 0);
  a.vc_bytes.assign(in.ports.size(), std::vector<std::uint64_t>(in.vcs, 0));
  const std::vector<std::uint64_t> ones(in.vcs, 1);
  for (std::size_t p = 0; p < in.ports.size(); ++p) {
    const PortDemand& d = in.ports[p];
    if (!d.used) continue;
    // Per-VC split is [model] (seed4 §5 item 5): by the per-VC counters, equal without them.
    const bool by_counts = vc_by_counts && received(d) > 0;
    auto vc = proportional_split(by_counts ? std::span(d.received_per_vc) : std::span(ones),
                                 extra_units[p]);
    XPUSIM_CHECK(vc.ok(), "VC weights are non-zero");
    for (std::uint32_t v = 0; v < in.vcs; ++v) {
      a.vc_bytes[p][v] = (f.floor_units + (*vc)[v]) * in.unit_bytes;
      a.port_bytes[p] += a.vc_bytes[p][v];
    }
  }
  return a;
}

}  // namespace detail

Result<Allocation> allocate_weighted(const AllocationInput& in,
                                     std::span<const std::uint64_t> port_weights) {
  if (port_weights.size() != in.ports.size()) {
    return Error{
        fmt::format("buffer: {} port weights for {} ports", port_weights.size(), in.ports.size())};
  }
  auto f = detail::make_frame(in);
  if (!f) return f.errors();
  // seed4 ¶52: unused ports are zeroed first; their weights never count.
  std::vector<std::uint64_t> w(in.ports.size(), 0);
  for (std::size_t p = 0; p < in.ports.size(); ++p) {
    if (in.ports[p].used) w[p] = port_weights[p];
  }
  if (std::all_of(w.begin(), w.end(), [](std::uint64_t x) { return x == 0; })) {
    return Error{fmt::format(
        "buffer: every used port ({}) has weight 0; a proportional split needs a non-zero sum",
        f->used_ports)};
  }
  auto extra = proportional_split(w, f->spare());
  XPUSIM_CHECK(extra.ok(), "weights checked non-zero");
  return detail::build_allocation(in, *f, *extra, /*vc_by_counts=*/true);
}

Status check_allocation(const AllocationInput& in, const Allocation& a) {
  if (in.unit_bytes == 0) return Error{"allocation: unit_bytes is 0"};
  if (a.port_bytes.size() != in.ports.size() || a.vc_bytes.size() != in.ports.size()) {
    return Error{fmt::format("allocation: {} port sizes and {} VC lists for {} ports",
                             a.port_bytes.size(), a.vc_bytes.size(), in.ports.size())};
  }
  const std::uint64_t floor =
      (in.min_bytes_per_vc + in.unit_bytes - 1) / in.unit_bytes * in.unit_bytes;
  std::vector<Error> errors;
  u128 sum = 0;
  for (std::size_t p = 0; p < in.ports.size(); ++p) {
    const auto& vcs = a.vc_bytes[p];
    if (vcs.size() != in.vcs) {
      errors.push_back(
          {fmt::format("allocation: port {} has {} VC sizes; vcs is {}", p, vcs.size(), in.vcs)});
      continue;
    }
    u128 port_sum = 0;
    for (std::size_t v = 0; v < vcs.size(); ++v) {
      port_sum += vcs[v];
      if (vcs[v] % in.unit_bytes != 0) {
        errors.push_back(
            {fmt::format("allocation: port {} VC {} has {} B, not a multiple of the "
                         "{} B unit",
                         p, v, vcs[v], in.unit_bytes)});
      }
      if (in.ports[p].used && vcs[v] < floor) {
        errors.push_back(
            {fmt::format("allocation: port {} VC {} has {} B, below the {} B floor "
                         "(one maximum packet per used VC)",
                         p, v, vcs[v], floor)});
      }
    }
    if (port_sum != a.port_bytes[p]) {
      errors.push_back({fmt::format("allocation: port {} has {} B but its VCs sum to {} B", p,
                                    a.port_bytes[p], static_cast<std::uint64_t>(port_sum))});
    }
    if (!in.ports[p].used && a.port_bytes[p] != 0) {
      errors.push_back(
          {fmt::format("allocation: unused port {} has {} B; unused ports get 0 (seed4 ¶52)", p,
                       a.port_bytes[p])});
    }
    sum += a.port_bytes[p];
  }
  if (sum > in.total_bytes) {
    errors.push_back({fmt::format("allocation: ports sum to {} B, more than the {} B total",
                                  static_cast<std::uint64_t>(sum), in.total_bytes)});
  }
  if (!errors.empty()) return errors;
  return Ok{};
}

}  // namespace xpusim::fabric
