// PhysicalAddressMap: where a physical address lives in the memory hierarchy: its line and
// sectors, its L2 slice (and so its L2 partition) and its HBM channel.
//
// Slice and channel selection hash the block number (line number for slices, interleave-block
// number for channels) with an XOR-fold, h(x) = x ^ (x >> 7) ^ (x >> 14) ^ ... (all 7-bit
// shifts up to 63), then take h mod count. Within a 128-block run of consecutive blocks the
// fold only flips low bits by a constant, so consecutive lines still spread round-robin, while
// power-of-two strides (4 KiB rows, 64 KiB tiles) that would camp on a few slices under a
// plain modulo are scattered by their high bits. NVIDIA does not publish its hash; this one
// is our assumption (docs/memory-hierarchy.md).
#pragma once

#include <cstdint>

#include "mem/global_memory.h"
#include "sim/fast_div.h"

namespace xpusim::mem {

struct AddressMapParams {
  std::uint32_t line_bytes = 128;
  std::uint32_t sector_bytes = 32;
  std::uint32_t l2_slices = 1;
  std::uint32_t l2_partitions = 1;  // divides l2_slices; slices are numbered partition-major
  std::uint32_t hbm_channels = 1;
  std::uint64_t hbm_interleave_bytes = 256;  // a multiple of sector_bytes
};

class PhysicalAddressMap {
 public:
  explicit PhysicalAddressMap(AddressMapParams p);

  const AddressMapParams& params() const { return p_; }
  std::uint32_t sectors_per_line() const { return p_.line_bytes / p_.sector_bytes; }
  std::uint64_t line_of(Addr a) const { return line_div_.div(a); }
  // a's offset in its line.
  std::uint64_t line_offset(Addr a) const {
    return pow2_ ? a & (p_.line_bytes - 1) : a - line_of(a) * p_.line_bytes;
  }
  Addr line_addr(std::uint64_t line) const { return line * p_.line_bytes; }
  // Sectors of a's line covered by [a, a + bytes), clipped to the line.
  std::uint32_t sector_mask(Addr a, std::uint64_t bytes) const;
  std::uint32_t slice_of_line(std::uint64_t line) const {
    return static_cast<std::uint32_t>(slices_div_.mod(fold(line)));
  }
  std::uint32_t partition_of_slice(std::uint32_t slice) const {
    return slice / (p_.l2_slices / p_.l2_partitions);
  }
  std::uint32_t channel_of(Addr a) const {
    return static_cast<std::uint32_t>(channels_div_.mod(fold(interleave_block(a))));
  }
  // The HBM interleave block of `a`: addresses of one block share a channel.
  std::uint64_t interleave_block(Addr a) const { return interleave_div_.div(a); }

  // The XOR-fold described above.
  static std::uint64_t fold(std::uint64_t x) {
    // Written out (every shift 0, 7, ..., 63): GCC keeps the loop form as a loop.
    return x ^ (x >> 7) ^ (x >> 14) ^ (x >> 21) ^ (x >> 28) ^ (x >> 35) ^ (x >> 42) ^ (x >> 49) ^
           (x >> 56) ^ (x >> 63);
  }

 private:
  AddressMapParams p_;
  // The divisions every request makes, as multiplies (sim/fast_div.h).
  sim::FastDiv line_div_;
  sim::FastDiv sector_div_;
  sim::FastDiv slices_div_;
  sim::FastDiv channels_div_;
  sim::FastDiv interleave_div_;
  // Lines and sectors are powers of two: sector masks by shifts.
  bool pow2_ = false;
  unsigned sector_shift_ = 0;
};

}  // namespace xpusim::mem
