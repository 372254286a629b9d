#include "mem/address_map.h"

#include <algorithm>
#include <bit>

#include "sim/result.h"

namespace xpusim::mem {

PhysicalAddressMap::PhysicalAddressMap(AddressMapParams p) : p_(p) {
  XPUSIM_CHECK(p.sector_bytes > 0 && p.line_bytes % p.sector_bytes == 0 &&
                   p.line_bytes / p.sector_bytes <= 32,
               "a line is 1..32 whole sectors");
  XPUSIM_CHECK(p.l2_partitions > 0 && p.l2_slices % p.l2_partitions == 0,
               "every L2 partition has the same number of slices");
  XPUSIM_CHECK(p.hbm_channels > 0, "HBM needs a channel");
  XPUSIM_CHECK(p.hbm_interleave_bytes > 0 && p.hbm_interleave_bytes % p.sector_bytes == 0,
               "a sector lives in one HBM channel");
  line_div_ = sim::FastDiv(p.line_bytes);
  sector_div_ = sim::FastDiv(p.sector_bytes);
  slices_div_ = sim::FastDiv(p.l2_slices);
  channels_div_ = sim::FastDiv(p.hbm_channels);
  interleave_div_ = sim::FastDiv(p.hbm_interleave_bytes);
  pow2_ = std::has_single_bit(p.line_bytes) && std::has_single_bit(p.sector_bytes);
  sector_shift_ = static_cast<unsigned>(std::countr_zero(p.sector_bytes));
}

std::uint32_t PhysicalAddressMap::sector_mask(Addr a, std::uint64_t bytes) const {
  if (bytes == 0) return 0;
  if (pow2_) {  // every shipped config: masks and shifts
    const Addr offset = a & (p_.line_bytes - 1);
    const Addr end = std::min<Addr>(offset + bytes, p_.line_bytes);  // exclusive
    const auto first = static_cast<unsigned>(offset >> sector_shift_);
    const auto last = static_cast<unsigned>((end - 1) >> sector_shift_);
    // Bits first..last (last may be 31: 2 << 31 wraps to 0, and 0 - 1 is every bit).
    return ((2u << last) - 1) & ~((1u << first) - 1);
  }
  const Addr base = line_div_.div(a) * p_.line_bytes;
  const Addr end = std::min<Addr>(a + bytes, base + p_.line_bytes);  // exclusive
  const auto first = static_cast<std::uint32_t>(sector_div_.div(a - base));
  const auto last = static_cast<std::uint32_t>(sector_div_.div(end - 1 - base));
  std::uint32_t mask = 0;
  for (std::uint32_t s = first; s <= last; ++s)
    mask |= 1u << s;
  return mask;
}

}  // namespace xpusim::mem
