#include "mem/memory_system.h"

#include <fmt/format.h>

#include "config/chip_spec.h"

namespace xpusim::mem {

MemoryParams MemoryParams::from_chip(const config::ChipSpec& chip) {
  MemoryParams p;
  p.sm_clock_hz = chip.clocks.sm_hz;
  p.l2_clock_hz = chip.clocks.l2_hz;
  // SM ids are GPC-major (docs/config.md); computed from the fields so that this library
  // needs only the header of the config unit.
  p.gpc_of_sm.clear();
  for (std::uint32_t g = 0; g < chip.topology.tpcs_per_gpc.size(); ++g) {
    const std::uint32_t sms = chip.topology.tpcs_per_gpc[g] * chip.topology.sms_per_tpc;
    p.gpc_of_sm.insert(p.gpc_of_sm.end(), sms, g);
  }
  p.gpcs = chip.topology.gpcs;
  p.map = AddressMapParams{.line_bytes = chip.l2.line_bytes,
                           .sector_bytes = chip.l2.sector_bytes,
                           .l2_slices = chip.l2.slices,
                           .l2_partitions = chip.l2.partitions,
                           .hbm_channels = chip.hbm.channels,
                           .hbm_interleave_bytes = chip.hbm.interleave_bytes};
  p.l1 = L1Params{.bytes = chip.sm.l1_shared_bytes - chip.sm.shared_memory_bytes,
                  .ways = chip.l1.ways,
                  .hit_latency_cycles = chip.l1.hit_latency_cycles};
  p.crossbar = CrossbarParams{.latency_cycles = chip.crossbar.latency_cycles,
                              .slice_bytes_per_cycle = chip.l2.slice_bytes_per_cycle,
                              .cross_partition_cycles = chip.l2.cross_partition_cycles};
  p.l2 = L2Params{.size_bytes = chip.l2.size_bytes,
                  .slices = chip.l2.slices,
                  .ways = chip.l2.ways,
                  .hit_latency_cycles = chip.l2.hit_latency_cycles,
                  .mshrs_per_slice = chip.l2.mshrs_per_slice};
  p.hbm = HbmParams{.channels = chip.hbm.channels,
                    .bandwidth_bytes_per_s = chip.hbm.bandwidth_bytes_per_s,
                    .latency = chip.hbm.latency_ps};
  p.dsmem = DsmemParams{.latency_cycles = chip.dsmem.latency_cycles,
                        .bytes_per_cycle = chip.dsmem.bytes_per_cycle};
  return p;
}

MemorySystem::MemorySystem(Component& parent, const MemoryParams& params, std::string_view name)
    : Component(parent, name),
      params_(params),
      sm_clock_(events(), params.sm_clock_hz),
      l2_clock_(events(), params.l2_clock_hz),
      map_(params.map),
      loads_(add_counter("loads", "count", "global load requests (one line each)")),
      stores_(add_counter("stores", "count", "global store requests (one line each)")),
      load_latency_(add_average("load_latency", "SM cycles", "issue to data back, per load")) {
  XPUSIM_CHECK(!params.gpc_of_sm.empty() && params.gpcs > 0, "a memory system needs SMs");
  l1_group_ = std::make_unique<Component>(*this, "l1");
  for (std::uint32_t sm = 0; sm < params.gpc_of_sm.size(); ++sm) {
    l1_.push_back(std::make_unique<L1Cache>(*l1_group_, fmt::format("sm{}", sm), params.l1,
                                            params.map.line_bytes));
  }
  hbm_ = std::make_unique<Hbm>(*this, params.hbm, map_);
  l2_ = std::make_unique<L2Cache>(*this, l2_clock_, params.l2, map_, *hbm_);
  std::vector<std::uint32_t> near(params.gpc_of_sm.size());
  for (std::uint32_t sm = 0; sm < near.size(); ++sm)
    near[sm] = params.near_partition(sm);
  std::vector<std::uint32_t> slice_partition(params.l2.slices);
  for (std::uint32_t s = 0; s < slice_partition.size(); ++s)
    slice_partition[s] = map_.partition_of_slice(s);
  xbar_ = std::make_unique<Crossbar>(*this, l2_clock_, params.crossbar, std::move(near),
                                     std::move(slice_partition));
  dsmem_ = std::make_unique<DsmemNetwork>(*this, sm_clock_, params.dsmem, params.gpc_of_sm);
}

std::uint32_t MemorySystem::sectors_of(const MemRequest& r) const {
  XPUSIM_CHECK(r.sm < l1_.size(), "memory request from an SM that does not exist");
  if (r.sector_mask != 0) {
    XPUSIM_CHECK(map_.sectors_per_line() == 32 || r.sector_mask >> map_.sectors_per_line() == 0,
                 "memory request names a sector beyond its line");
    return r.sector_mask;
  }
  XPUSIM_CHECK(r.bytes > 0, "memory request of zero bytes");
  XPUSIM_CHECK(r.addr % params_.map.line_bytes + r.bytes <= params_.map.line_bytes,
               "memory request crosses a line; split it with coalesce()");
  return map_.sector_mask(r.addr, r.bytes);
}

void MemorySystem::load(const MemRequest& r, Done done, bool cache_in_l1) {
  const std::uint32_t sectors = sectors_of(r);
  const std::uint64_t line = map_.line_of(r.addr);
  const std::uint32_t sm = r.sm;
  ++loads_;
  const sim::Tick start = now();
  auto finish = [this, start, done = std::move(done)] {
    load_latency_.sample(
        static_cast<double>(sm_clock_.cycle_at(now()) - sm_clock_.cycle_at(start)));
    done();
  };
  const sim::Cycles l1_latency = params_.l1.hit_latency_cycles;
  const std::uint32_t missing = cache_in_l1 ? l1_[sm]->load(line, sectors) : sectors;
  if (missing == 0) {
    events().post(cycles_after(sm_clock_, now(), l1_latency), std::move(finish));
    return;
  }
  const std::uint32_t slice = map_.slice_of_line(line);
  const sim::Tick at_slice = xbar_->send_request(sm, slice, kControlMessageBytes);
  events().post(at_slice, [=, this, finish = std::move(finish)]() mutable {
    l2_->slice(slice).read(
        line, missing, [=, this, finish = std::move(finish)](sim::Cycles pipeline) mutable {
          const sim::Tick back = xbar_->send_response(slice, sector_bytes(missing), pipeline);
          events().post(cycles_after(sm_clock_, back, l1_latency),
                        [=, this, finish = std::move(finish)]() mutable {
                          if (cache_in_l1) l1_[sm]->fill(line, missing);
                          finish();
                        });
        });
  });
}

void MemorySystem::store(const MemRequest& r, Done done) {
  const std::uint32_t sectors = sectors_of(r);
  const std::uint64_t line = map_.line_of(r.addr);
  ++stores_;
  l1_[r.sm]->store(line, sectors);
  const std::uint32_t slice = map_.slice_of_line(line);
  const sim::Tick at_slice =
      xbar_->send_request(r.sm, slice, kControlMessageBytes + sector_bytes(sectors));
  events().post(at_slice, [=, this, done = std::move(done)]() mutable {
    l2_->slice(slice).write(
        line, sectors, [=, this, done = std::move(done)](sim::Cycles pipeline) mutable {
          events().post(xbar_->send_response(slice, kControlMessageBytes, pipeline),
                        std::move(done));
        });
  });
}

}  // namespace xpusim::mem
