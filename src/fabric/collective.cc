// Collectives as per-chip state machines over ring phases (traffic.h). A phase is a ring
// reduce-scatter or all-gather over a group of chips on a range of the buffer: n-1 steps, in
// step s a chip sends one chunk to its successor and takes one from its predecessor. A lane is
// a sequence of phases over its own half of the buffer (bidirectional variants run two lanes
// in opposite ring directions); the torus all-reduce chains one phase per dimension.
#include "fabric/collective.h"

#include <algorithm>

#include <fmt/format.h>

#include "sim/rng.h"

namespace xpusim::fabric {
namespace {

std::uint64_t pack_tag(std::uint32_t lane, std::uint32_t phase, std::uint32_t step) {
  return (static_cast<std::uint64_t>(lane) << 56) | (static_cast<std::uint64_t>(phase) << 32) |
         step;
}

}  // namespace

Collective::Collective(Network& net, const TrafficSpec& spec) : net_(net), spec_(spec) {}

std::uint32_t Collective::initial_value(std::uint32_t chip, std::uint64_t e) {
  return static_cast<std::uint32_t>(sim::splitmix64((static_cast<std::uint64_t>(chip) << 40) ^ e));
}

// Active chips in boustrophedon order (x fastest, the row and plane directions alternating), so
// ring neighbours are grid neighbours wherever the grid allows.
std::vector<std::uint32_t> Collective::snake_order() const {
  const Topology& t = net_.topology();
  std::vector<std::uint32_t> order;
  if (!t.is_grid()) {
    for (std::uint32_t c = 0; c < t.chips(); ++c) {
      if (t.active(c)) order.push_back(c);
    }
    return order;
  }
  const auto& d = t.dims();
  std::uint32_t row = 0;
  for (std::uint32_t z = 0; z < d[2]; ++z) {
    for (std::uint32_t yi = 0; yi < d[1]; ++yi, ++row) {
      const std::uint32_t y = z % 2 ? d[1] - 1 - yi : yi;
      for (std::uint32_t xi = 0; xi < d[0]; ++xi) {
        const std::uint32_t x = row % 2 ? d[0] - 1 - xi : xi;
        const std::uint32_t c = t.chip_at({x, y, z});
        if (t.active(c)) order.push_back(c);
      }
    }
  }
  return order;
}

Status Collective::plan() {
  const Topology& t = net_.topology();
  const std::uint32_t n_chips = t.chips();
  if (spec_.bytes % 4 != 0) {
    return Error{
        fmt::format("--bytes: {} is not a multiple of 4 (collectives reduce 32-bit "
                    "elements)",
                    spec_.bytes)};
  }
  const std::vector<std::uint32_t> ring = snake_order();
  members_ = ring;
  const auto n = static_cast<std::uint32_t>(ring.size());
  if (n < 2) return Error{"collective: the job has fewer than 2 active chips"};
  elems_ = spec_.bytes / 4;
  if (spec_.kind == TrafficKind::kAllGather) elems_ *= n;  // bytes is the shard
  if (spec_.functional) {
    const std::uint64_t total = elems_ * 4 * n;
    if (total > (256ULL << 20)) {
      return Error{
          fmt::format("--functional: {} chips x {} bytes exceed the 256 MiB the value "
                      "check may hold; drop --functional for a timing-only run",
                      n, elems_ * 4)};
    }
  }
  chips_.assign(n_chips, ChipState{});
  auto ring_phase = [&](const std::vector<std::uint32_t>& group, PhaseKind kind, std::uint32_t lane,
                        std::uint32_t offset) {
    for (std::uint32_t i = 0; i < group.size(); ++i) {
      Phase ph;
      ph.kind = kind;
      ph.group = group;
      ph.pos = i;
      ph.offset = offset;
      chips_[group[i]].lanes[lane].phases.push_back(std::move(ph));
    }
  };
  auto reversed = [](std::vector<std::uint32_t> g) {
    std::reverse(g.begin(), g.end());
    return g;
  };
  lanes_ = spec_.algo == CollectiveAlgo::kRing || spec_.kind != TrafficKind::kAllReduce ? 1 : 2;
  if (spec_.kind == TrafficKind::kAllGather) {
    ring_phase(ring, PhaseKind::kAllGather, 0, 0);
  } else if (spec_.kind == TrafficKind::kReduceScatter) {
    ring_phase(ring, PhaseKind::kReduceScatter, 0, 0);
  } else if (spec_.algo != CollectiveAlgo::kTorus) {
    for (std::uint32_t lane = 0; lane < lanes_; ++lane) {
      const auto g = lane == 0 ? ring : reversed(ring);
      ring_phase(g, PhaseKind::kReduceScatter, lane, 0);
      ring_phase(g, PhaseKind::kAllGather, lane, 1);
    }
  } else {
    if (!t.is_grid()) return Error{"--algo torus: needs a grid pod (ring, mesh, torus, tpuv4)"};
    // One group per line of chips along each dimension; all lines of a dimension must be full.
    std::vector<std::vector<std::vector<std::uint32_t>>> groups(t.rank());
    for (std::uint32_t d = 0; d < t.rank(); ++d) {
      std::vector<std::uint32_t> done(n_chips, 0);
      std::size_t size = 0;
      for (std::uint32_t c : ring) {
        if (done[c]) continue;
        auto base = t.coord(c);
        std::vector<std::uint32_t> g;
        for (std::uint32_t i = 0; i < t.dims()[d]; ++i) {
          auto x = base;
          x[d] = i;
          const std::uint32_t m = t.chip_at(x);
          if (t.active(m)) {
            g.push_back(m);
            done[m] = 1;
          }
        }
        if (size != 0 && g.size() != size) {
          return Error{
              "--algo torus: the active chips do not form a full box (a failed chip "
              "or an uneven slice); use --algo ring or bidir"};
        }
        size = g.size();
        groups[d].push_back(std::move(g));
      }
    }
    for (std::uint32_t lane = 0; lane < lanes_; ++lane) {
      for (std::uint32_t d = 0; d < t.rank(); ++d) {
        for (const auto& g : groups[d])
          ring_phase(lane ? reversed(g) : g, PhaseKind::kReduceScatter, lane, 0);
      }
      for (std::uint32_t d = t.rank(); d-- > 0;) {
        for (const auto& g : groups[d])
          ring_phase(lane ? reversed(g) : g, PhaseKind::kAllGather, lane, 1);
      }
    }
  }
  // Ranges: each lane starts on its half; a reduce-scatter narrows the range to the owned
  // chunk, the matching all-gather (walked in reverse) widens it back.
  for (std::uint32_t c : ring) {
    for (std::uint32_t lane = 0; lane < lanes_; ++lane) {
      Lane& L = chips_[c].lanes[lane];
      std::uint64_t lo = lane == 0 ? 0 : elems_ / 2;
      std::uint64_t hi = lanes_ == 1 || lane == 1 ? elems_ : elems_ / 2;
      std::vector<std::pair<std::uint64_t, std::uint64_t>> stack;
      for (Phase& ph : L.phases) {
        if (ph.kind == PhaseKind::kReduceScatter) {
          ph.lo = lo;
          ph.hi = hi;
          stack.emplace_back(lo, hi);
          const auto nn = static_cast<std::uint32_t>(ph.group.size());
          const std::uint32_t own = (ph.pos + 1) % nn;
          const std::uint64_t len = hi - lo;
          const std::uint64_t nlo = lo + len * own / nn, nhi = lo + len * (own + 1) / nn;
          lo = nlo;
          hi = nhi;
        } else if (!stack.empty()) {
          ph.lo = stack.back().first;
          ph.hi = stack.back().second;
          stack.pop_back();
          lo = ph.lo;
          hi = ph.hi;
        } else {
          ph.lo = lo;
          ph.hi = hi;
        }
      }
    }
  }
  if (spec_.functional) {
    for (std::uint32_t i = 0; i < n; ++i) {
      const std::uint32_t c = ring[i];
      chips_[c].data.assign(elems_, 0);
      if (spec_.kind == TrafficKind::kAllGather) {
        const std::uint64_t lo = elems_ * i / n, hi = elems_ * (i + 1) / n;
        for (std::uint64_t e = lo; e < hi; ++e)
          chips_[c].data[e] = initial_value(c, e);
      } else {
        for (std::uint64_t e = 0; e < elems_; ++e)
          chips_[c].data[e] = initial_value(c, e);
      }
    }
  }
  return Ok{};
}

Status Collective::start() {
  if (Status s = plan(); !s) return s;
  for (std::uint32_t c : members_) {
    for (std::uint32_t lane = 0; lane < lanes_; ++lane) {
      if (Status s = advance(c, lane); !s) return s;
    }
  }
  return Ok{};
}

std::pair<std::uint64_t, std::uint64_t> Collective::chunk(const Phase& ph, std::int64_t j) const {
  const auto n = static_cast<std::int64_t>(ph.group.size());
  const auto k = static_cast<std::uint64_t>(((j % n) + n) % n);
  const std::uint64_t len = ph.hi - ph.lo;
  return {ph.lo + len * k / static_cast<std::uint64_t>(n),
          ph.lo + len * (k + 1) / static_cast<std::uint64_t>(n)};
}

// Runs a chip's lane as far as its received messages allow: send step s, then apply the
// message of step s, then send step s + 1 (which may carry what step s just reduced).
Status Collective::advance(std::uint32_t chip, std::uint32_t lane) {
  ChipState& cs = chips_[chip];
  Lane& L = cs.lanes[lane];
  while (L.phase < L.phases.size()) {
    Phase& ph = L.phases[L.phase];
    const auto n = static_cast<std::uint32_t>(ph.group.size());
    const std::uint32_t steps = n - 1;
    const auto pos = static_cast<std::int64_t>(ph.pos + ph.offset);
    if (L.sent == L.applied && L.sent < steps) {
      const auto [lo, hi] = chunk(ph, pos - L.sent);
      const std::uint32_t dst = ph.group[(ph.pos + 1) % n];
      const std::uint64_t tag = pack_tag(lane, L.phase, L.sent);
      if (spec_.functional) {
        payloads_[{dst, tag}].assign(cs.data.begin() + static_cast<std::ptrdiff_t>(lo),
                                     cs.data.begin() + static_cast<std::ptrdiff_t>(hi));
      }
      auto id = net_.send(chip, dst, (hi - lo) * 4, tag, this);
      if (!id) return id.errors();
      ++L.sent;
      continue;
    }
    if (L.applied < L.sent) {
      const std::uint64_t tag = pack_tag(lane, L.phase, L.applied);
      auto it = L.arrived.find(tag);
      if (it == L.arrived.end()) return Ok{};
      L.arrived.erase(it);
      if (spec_.functional) {
        const auto [lo, hi] = chunk(ph, pos - L.applied - 1);
        auto p = payloads_.find({chip, tag});
        XPUSIM_CHECK(p != payloads_.end() && p->second.size() == hi - lo, "payload of a step");
        for (std::uint64_t e = lo; e < hi; ++e) {
          if (ph.kind == PhaseKind::kReduceScatter) {
            cs.data[e] += p->second[e - lo];
          } else {
            cs.data[e] = p->second[e - lo];
          }
        }
        payloads_.erase(p);
      }
      ++L.applied;
      continue;
    }
    // Phase complete (or a 1-chip group): on to the next.
    ++L.phase;
    L.sent = L.applied = 0;
  }
  if (!L.finished) {
    L.finished = true;
    if (++finished_lanes_ == members_.size() * lanes_) {
      finish_ = net_.now();
      finished();
    }
  }
  return Ok{};
}

void Collective::delivered(MessageId, std::uint32_t, std::uint32_t dst, std::uint64_t tag) {
  const auto lane = static_cast<std::uint32_t>(tag >> 56);
  chips_[dst].lanes[lane].arrived.insert(tag);
  Status s = advance(dst, lane);
  if (!s && error_.empty()) error_ = s.error().message;
}

double Collective::bus_bytes() const {
  const auto n = static_cast<double>(members_.size());
  const double buf = static_cast<double>(elems_) * 4.0;
  switch (spec_.kind) {
    case TrafficKind::kAllReduce:
      return 2.0 * (n - 1) / n * buf;
    default:
      return (n - 1) / n * buf;
  }
}

Status Collective::verify() const {
  if (!error_.empty()) return Error{error_};
  if (!spec_.functional) return Error{"verify: the run was timing-only (use --functional)"};
  const auto n = static_cast<std::uint32_t>(members_.size());
  // Naive reference: element e of a reduction is the sum of every member's initial value; of an
  // all-gather, the initial value of the member whose shard holds e.
  std::vector<std::uint32_t> want(elems_, 0);
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::uint64_t lo = elems_ * i / n, hi = elems_ * (i + 1) / n;
    for (std::uint64_t e = 0; e < elems_; ++e) {
      if (spec_.kind != TrafficKind::kAllGather) {
        want[e] += initial_value(members_[i], e);
      } else if (e >= lo && e < hi) {
        want[e] = initial_value(members_[i], e);
      }
    }
  }
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::uint32_t c = members_[i];
    std::uint64_t lo = 0, hi = elems_;
    if (spec_.kind == TrafficKind::kReduceScatter) {
      const std::uint32_t own = (i + 1) % n;
      lo = elems_ * own / n;
      hi = elems_ * (own + 1) / n;
    }
    for (std::uint64_t e = lo; e < hi; ++e) {
      if (chips_[c].data[e] != want[e]) {
        return Error{fmt::format("verify: chip {} element {} holds {:#x}, the reference {:#x}", c,
                                 e, chips_[c].data[e], want[e])};
      }
    }
  }
  return Ok{};
}

std::string Collective::describe() const {
  return fmt::format("{} ({}) of {} per chip over {} chips", traffic_name(spec_.kind),
                     algo_name(spec_.algo), spec_.bytes, members_.size());
}

}  // namespace xpusim::fabric
