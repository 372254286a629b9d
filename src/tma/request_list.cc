#include "tma/request_list.h"

#include "sim/result.h"

namespace xpusim::tma {

GlobalRequest RequestList::operator[](std::size_t i) const {
  XPUSIM_CHECK(i < size_, "request index out of range");
  for (const Run& r : runs()) {
    if (i < r.count) return *Iterator(&r, static_cast<std::uint32_t>(i));
    i -= r.count;
  }
  return {};  // unreachable: i < size_
}

}  // namespace xpusim::tma
