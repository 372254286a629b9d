#include "mem/address_map.h"

#include <algorithm>

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
}

std::uint64_t PhysicalAddressMap::fold(std::uint64_t x) {
  std::uint64_t h = 0;
  for (unsigned shift = 0; shift < 64; shift += 7)
    h ^= x >> shift;
  return h;
}

std::uint32_t PhysicalAddressMap::sector_mask(Addr a, std::uint64_t bytes) const {
  if (bytes == 0) return 0;
  const Addr base = a / p_.line_bytes * p_.line_bytes;
  const Addr end = std::min<Addr>(a + bytes, base + p_.line_bytes);  // exclusive
  const auto first = static_cast<std::uint32_t>((a - base) / p_.sector_bytes);
  const auto last = static_cast<std::uint32_t>((end - 1 - base) / p_.sector_bytes);
  std::uint32_t mask = 0;
  for (std::uint32_t s = first; s <= last; ++s)
    mask |= 1u << s;
  return mask;
}

std::uint32_t PhysicalAddressMap::slice_of_line(std::uint64_t line) const {
  return static_cast<std::uint32_t>(fold(line) % p_.l2_slices);
}

std::uint32_t PhysicalAddressMap::channel_of(Addr a) const {
  return static_cast<std::uint32_t>(fold(a / p_.hbm_interleave_bytes) % p_.hbm_channels);
}

}  // namespace xpusim::mem
