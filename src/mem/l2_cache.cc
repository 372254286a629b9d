#include "mem/l2_cache.h"

#include <fmt/format.h>

namespace xpusim::mem {

L2Cache::L2Cache(Component& parent, sim::Clock& l2_clock, const L2Params& params,
                 const PhysicalAddressMap& map, Hbm& hbm)
    : Component(parent, "l2"), params_(params), map_(map) {
  XPUSIM_CHECK(params.slices > 0 && params.slices == map.params().l2_slices,
               "the L2 and the address map disagree on the slice count");
  const L2SliceParams slice{.bytes = params.size_bytes / params.slices,
                            .ways = params.ways,
                            .hit_latency_cycles = params.hit_latency_cycles,
                            .mshrs = params.mshrs_per_slice,
                            .set_index = params.set_index,
                            .writeback_buffers = params.writeback_buffers_per_slice};
  for (std::uint32_t s = 0; s < params.slices; ++s) {
    slices_.push_back(
        std::make_unique<L2Slice>(*this, fmt::format("slice{}", s), l2_clock, slice, map, hbm));
  }
  // Chip-wide totals, summed when the stats are dumped.
  using Read = std::uint64_t (*)(const L2Slice&);
  const auto total = [this](Read read) {
    return [this, read] {
      double sum = 0;
      for (const auto& s : slices_)
        sum += static_cast<double>(read(*s));
      return sum;
    };
  };
  add_formula("hits", "count", "reads that hit, all slices",
              total([](const L2Slice& s) { return s.hits.value(); }));
  add_formula("misses", "count", "reads that read HBM, all slices",
              total([](const L2Slice& s) { return s.misses.value(); }));
  add_formula("merged_misses", "count", "reads merged into an in-flight fill, all slices",
              total([](const L2Slice& s) { return s.merged_misses.value(); }));
  add_formula("writes", "count", "write requests, all slices",
              total([](const L2Slice& s) { return s.writes.value(); }));
  add_formula("evictions", "count", "valid lines replaced, all slices",
              total([](const L2Slice& s) { return s.evictions.value(); }));
  add_formula("writebacks", "count", "dirty lines written back, all slices",
              total([](const L2Slice& s) { return s.writebacks.value(); }));
  add_formula("hbm_read_sectors", "count", "sectors read from HBM, all slices",
              total([](const L2Slice& s) { return s.hbm_read_sectors.value(); }));
  add_formula("mshr_full_stalls", "count", "reads that waited for an MSHR, all slices",
              total([](const L2Slice& s) { return s.mshr_full_stalls.value(); }));
  add_formula("writeback_full_stalls", "count",
              "dirty evictions that waited for a write-back buffer, all slices",
              total([](const L2Slice& s) { return s.writeback_full_stalls.value(); }));
}

}  // namespace xpusim::mem
