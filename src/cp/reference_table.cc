#include "cp/reference_table.h"

#include <fmt/format.h>

namespace xpusim::cp {

void ReferenceTable::store(std::uint8_t ref_num, const DispatchPacket& p) {
  XPUSIM_CHECK(ref_num < kSlots, "RST store ref_num must be < 8");
  entries_[ref_num] = p;  // a new reference packet with the same ref_num overwrites (seed3 ¶93)
}

Result<DispatchPacket> ReferenceTable::lookup(std::uint8_t ref_num) const {
  if (ref_num >= kSlots) {
    return Error{
        fmt::format("RST ref_num {}: must be < {} (8-entry table, seed3 ¶90)", ref_num, kSlots)};
  }
  if (!entries_[ref_num]) {
    return Error{
        fmt::format("RST slot {}: empty; a reference packet with ref_num {} must be "
                    "processed before a condensed packet uses it (seed3 ¶141)",
                    ref_num, ref_num)};
  }
  return *entries_[ref_num];
}

bool ReferenceTable::occupied(std::uint8_t ref_num) const {
  return ref_num < kSlots && entries_[ref_num].has_value();
}

void ReferenceTable::clear() {
  entries_.fill(std::nullopt);
}

}  // namespace xpusim::cp
