// Reference State Table (seed3 ¶90, ¶93, Table 3): 8 entries indexed by the 3-bit ref_num.
// Each entry is the decoded reference dispatch packet, i.e. its dispatch info (¶54) and
// cleanup info (¶55). A new reference packet with the same ref_num overwrites the entry;
// condensed packets only read it.
#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "cp/packets.h"
#include "sim/result.h"

namespace xpusim::cp {

class ReferenceTable {
 public:
  static constexpr std::uint32_t kSlots = kRefSlots;

  // Requires ref_num < kSlots (XPUSIM_CHECK; decoded packets guarantee it).
  void store(std::uint8_t ref_num, const DispatchPacket& p);
  // Errors: ref_num >= 8, empty slot.
  Result<DispatchPacket> lookup(std::uint8_t ref_num) const;
  bool occupied(std::uint8_t ref_num) const;
  void clear();

 private:
  std::array<std::optional<DispatchPacket>, kSlots> entries_{};
};

}  // namespace xpusim::cp
