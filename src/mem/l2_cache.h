// L2Cache: the slices of the L2 (each an L2Slice) and chip-wide totals of their stats.
// Which slice holds a line is PhysicalAddressMap::slice_of_line (an XOR-folded line number).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "mem/l2_slice.h"

namespace xpusim::mem {

struct L2Params {
  std::uint64_t size_bytes = 4 * 1024 * 1024;  // all slices together
  std::uint32_t slices = 8;
  std::uint32_t ways = 16;
  sim::Cycles hit_latency_cycles = 100;
  std::uint32_t mshrs_per_slice = 64;
  SetIndex set_index = SetIndex::kHash;           // real L2s hash it (docs/memory-hierarchy.md)
  std::uint32_t writeback_buffers_per_slice = 0;  // 0: no limit (L2SliceParams)
};

class L2Cache : public sim::Component {
 public:
  L2Cache(Component& parent, sim::Clock& l2_clock, const L2Params& params,
          const PhysicalAddressMap& map, Hbm& hbm);

  L2Slice& slice(std::uint32_t i) { return *slices_[i]; }
  L2Slice& slice_of_line(std::uint64_t line) { return *slices_[map_.slice_of_line(line)]; }
  std::size_t slices() const { return slices_.size(); }
  const L2Params& params() const { return params_; }

 private:
  L2Params params_;
  const PhysicalAddressMap& map_;
  std::vector<std::unique_ptr<L2Slice>> slices_;
};

}  // namespace xpusim::mem
