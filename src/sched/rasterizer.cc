#include "sched/rasterizer.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <utility>

namespace xpusim::sched {

namespace {

bool nonzero(const GridDims& g) {
  return g.x >= 1 && g.y >= 1 && g.z >= 1;
}

}  // namespace

Status check_grid_dims(const GridDims& grid) {
  // 32b-16b-16b id tuple (seed1 ¶175); x is capped at CUDA's gridDim.x limit.
  constexpr std::uint32_t kMaxX = (1u << 31) - 1, kMaxYz = 65535;
  const auto bad = [](char dim, std::uint32_t v, std::uint32_t max) {
    return Error{fmt::format("grid.{} = {}: must be in [1, {}] (32b-16b-16b CTA id, seed1 ¶175)",
                             dim, v, max)};
  };
  if (grid.x < 1 || grid.x > kMaxX) return bad('x', grid.x, kMaxX);
  if (grid.y < 1 || grid.y > kMaxYz) return bad('y', grid.y, kMaxYz);
  if (grid.z < 1 || grid.z > kMaxYz) return bad('z', grid.z, kMaxYz);
  return Ok{};
}

CtaId decode_linear(const GridDims& grid, std::uint64_t linear) {
  XPUSIM_CHECK(nonzero(grid) && linear < grid.count(), "linear CTA index outside the grid");
  const std::uint64_t row = linear / grid.x;
  return {static_cast<std::uint32_t>(linear % grid.x), static_cast<std::uint32_t>(row % grid.y),
          static_cast<std::uint32_t>(row / grid.y)};
}

std::uint64_t encode_linear(const GridDims& grid, const CtaId& cta) {
  XPUSIM_CHECK(cta.x < grid.x && cta.y < grid.y && cta.z < grid.z, "CTA id outside the grid");
  return cta.x + std::uint64_t{grid.x} * (cta.y + std::uint64_t{grid.y} * cta.z);
}

std::uint32_t cga_cta_id(const GridDims& cluster, const CtaId& cta) {
  XPUSIM_CHECK(nonzero(cluster), "cluster dims must be >= 1");
  return encode_linear(cluster, {cta.x % cluster.x, cta.y % cluster.y, cta.z % cluster.z});
}

CtaId cluster_id(const GridDims& cluster, const CtaId& cta) {
  XPUSIM_CHECK(nonzero(cluster), "cluster dims must be >= 1");
  return {cta.x / cluster.x, cta.y / cluster.y, cta.z / cluster.z};
}

SmRasterizer::SmRasterizer(const GridDims& grid, std::uint32_t delta_bits)
    : SmRasterizer(grid, CtaId{}, delta_bits) {}

SmRasterizer::SmRasterizer(const GridDims& grid, const CtaId& next, std::uint32_t delta_bits)
    : grid_(grid), position_(next), delta_bits_(delta_bits) {
  XPUSIM_CHECK(nonzero(grid), "grid dims must be >= 1");
  XPUSIM_CHECK(delta_bits >= 1 && delta_bits <= 31, "delta_bits must be in [1, 31]");
  remaining_ = grid.count() - encode_linear(grid, next);
  delta_max_ = (1u << delta_bits) - 1;
}

void SmRasterizer::observe(std::uint32_t launched_elsewhere) {
  XPUSIM_CHECK(launched_elsewhere <= remaining_, "more launches observed than the grid holds");
  remaining_ -= launched_elsewhere;
  seen_ += launched_elsewhere;
  // Lazy: decode only when the counter is full and another launch arrives (¶179).
  for (std::uint32_t n = launched_elsewhere; n > 0;) {
    if (delta_ == delta_max_) {
      decode();
      ++overflow_decodes_;
    }
    const std::uint32_t take = std::min(n, delta_max_ - delta_);
    delta_ += take;
    n -= take;
  }
}

CtaId SmRasterizer::launch_own() {
  XPUSIM_CHECK(remaining_ >= 1, "launching past the end of the grid");
  decode();
  const CtaId id = position_;
  // Our own launch is one more global launch; counting it as delta keeps one decoder path.
  delta_ = 1;
  --remaining_;
  ++seen_;
  return id;
}

void SmRasterizer::decode() {
  ++decodes_;
  // seed1 ¶179: split the low-precision delta, then one carry per dim (each part < its dim, so
  // one conditional subtract suffices). 64-bit so a 2^31-wide x cannot wrap.
  const std::uint64_t plane = std::uint64_t{grid_.x} * grid_.y;
  const std::uint64_t zdelta = delta_ / plane, t = delta_ % plane;
  const std::uint64_t ydelta = t / grid_.x, xdelta = t % grid_.x;
  std::uint64_t x = position_.x + xdelta, c = 0;
  if (x >= grid_.x) x -= grid_.x, c = 1;
  std::uint64_t y = position_.y + ydelta + c;
  c = 0;
  if (y >= grid_.y) y -= grid_.y, c = 1;
  const std::uint64_t z = position_.z + zdelta + c;
  // z == grid.z (with x = y = 0) is the one-past-the-end position after the last CTA.
  XPUSIM_CHECK(z <= grid_.z, "rasterizer position ran past the grid");
  position_ = {static_cast<std::uint32_t>(x), static_cast<std::uint32_t>(y),
               static_cast<std::uint32_t>(z)};
  delta_ = 0;
}

Status check_cost_model(const RasterCostModel& m, std::uint32_t num_sms) {
  const auto positive = [](std::string_view knob, std::uint32_t v) -> Status {
    if (v == 0) return Error{fmt::format("raster cost model {} = 0: must be >= 1", knob)};
    return Ok{};
  };
  if (num_sms == 0) return Error{"raster cost model num_sms = 0: must be >= 1"};
  for (const auto& [knob, v] : {std::pair<std::string_view, std::uint32_t>{"central_decode_cycles",
                                                                           m.central_decode_cycles},
                                {"id_bytes", m.id_bytes},
                                {"ctas_per_packet", m.ctas_per_packet},
                                {"bus_bytes_per_cycle", m.bus_bytes_per_cycle},
                                {"cwd_packets_per_cycle", m.cwd_packets_per_cycle},
                                {"sm_decode_cycles", m.sm_decode_cycles},
                                {"delta_bits", m.delta_bits}}) {
    if (Status s = positive(knob, v); !s) return s;
  }
  if (m.ctas_per_packet > num_sms) {
    return Error{fmt::format(
        "raster cost model ctas_per_packet = {}: must be <= num_sms = {} (one sm_mask bit per "
        "CTA, seed1 ¶195)",
        m.ctas_per_packet, num_sms)};
  }
  if (m.delta_bits > 31) {
    return Error{fmt::format("raster cost model delta_bits = {}: must be <= 31", m.delta_bits)};
  }
  return Ok{};
}

std::string_view name(RasterBound b) {
  switch (b) {
    case RasterBound::kDecode:
      return "decode";
    case RasterBound::kPacketIssue:
      return "packet issue";
    case RasterBound::kBus:
      return "bus";
  }
  return "?";
}

namespace {

struct Bounded {
  double rate;
  RasterBound bound;
};

// The slowest stage; ties go to the first in enum order.
Bounded slowest(double decode, double issue, double bus) {
  Bounded b{decode, RasterBound::kDecode};
  if (issue < b.rate) b = {issue, RasterBound::kPacketIssue};
  if (bus < b.rate) b = {bus, RasterBound::kBus};
  return b;
}

}  // namespace

RasterComparison compare_rasterization(const GridDims& grid, std::uint32_t num_sms,
                                       std::span<const std::uint32_t> sm_of_launch,
                                       const RasterCostModel& m) {
  XPUSIM_CHECK(check_cost_model(m, num_sms).ok(), "invalid raster cost model");
  XPUSIM_CHECK(nonzero(grid), "grid dims must be >= 1");
  XPUSIM_CHECK(!sm_of_launch.empty() && sm_of_launch.size() <= grid.count(),
               "launch order must hold 1..grid.count() CTAs");
  RasterComparison r;
  const std::uint64_t n = sm_of_launch.size();
  r.ctas = n;

  // Packets: consecutive launches while the SMs strictly ascend, so each SM's position in the
  // packet is the popcount of the mask bits below it.
  std::uint32_t in_packet = 0, last_sm = 0;
  for (const std::uint32_t sm : sm_of_launch) {
    XPUSIM_CHECK(sm < num_sms, "launch to an SM outside num_sms");
    if (in_packet == 0 || in_packet == m.ctas_per_packet || sm <= last_sm) {
      ++r.packets;
      in_packet = 0;
    }
    ++in_packet;
    last_sm = sm;
  }
  r.packet_bytes = m.packet_header_bytes + (num_sms + 7) / 8;
  r.distributed_bytes = r.packets * r.packet_bytes;
  r.central_bytes = n * m.id_bytes;
  r.central_bytes_per_cta = static_cast<double>(r.central_bytes) / static_cast<double>(n);
  r.distributed_bytes_per_cta = static_cast<double>(r.distributed_bytes) / static_cast<double>(n);

  // Every SM follows every broadcast; an SM syncs its delta only when it launches (chunking
  // does not change the lazy overflow count) and once more at the end.
  std::vector<SmRasterizer> sms(num_sms, SmRasterizer(grid, m.delta_bits));
  std::vector<std::uint64_t> synced(num_sms, 0);
  const auto catch_up = [&](std::uint32_t sm, std::uint64_t upto) {
    for (std::uint64_t gap = upto - synced[sm]; gap > 0;) {
      const auto step = static_cast<std::uint32_t>(
          std::min<std::uint64_t>(gap, std::numeric_limits<std::uint32_t>::max()));
      sms[sm].observe(step);
      gap -= step;
    }
    synced[sm] = upto;
  };
  for (std::uint64_t i = 0; i < n; ++i) {
    const std::uint32_t sm = sm_of_launch[i];
    catch_up(sm, i);
    XPUSIM_CHECK(sms[sm].launch_own() == decode_linear(grid, i),
                 "distributed rasterization disagrees with the centralized decode");
    synced[sm] = i + 1;
  }
  r.decodes_per_sm.resize(num_sms);
  for (std::uint32_t sm = 0; sm < num_sms; ++sm) {
    catch_up(sm, n);
    r.decodes_per_sm[sm] = sms[sm].decodes();
    r.overflow_decodes += sms[sm].overflow_decodes();
  }

  const auto dn = static_cast<double>(n);
  const auto bus = static_cast<double>(m.bus_bytes_per_cycle);
  const auto central = slowest(1.0 / m.central_decode_cycles, m.cwd_packets_per_cycle,
                               bus / static_cast<double>(m.id_bytes));
  const std::uint64_t busiest = *std::max_element(r.decodes_per_sm.begin(), r.decodes_per_sm.end());
  const auto distributed = slowest(dn / static_cast<double>(busiest * m.sm_decode_cycles),
                                   dn * m.cwd_packets_per_cycle / static_cast<double>(r.packets),
                                   dn * bus / static_cast<double>(r.distributed_bytes));
  r.central_ids_per_cycle = central.rate;
  r.central_bound = central.bound;
  r.distributed_ids_per_cycle = distributed.rate;
  r.distributed_bound = distributed.bound;
  return r;
}

}  // namespace xpusim::sched
