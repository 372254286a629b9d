// The ≤128 B line split of a global byte range (seed0 ¶89), inline for the copy loops that call
// it once per box row; append_line_requests (copy_engine.h) is the public spelling.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "tma/copy_engine.h"

namespace xpusim::tma {

inline void append_lines(std::vector<GlobalRequest>& out, mem::Addr addr, std::uint64_t bytes) {
  if (bytes == 0) return;
  // Head piece up to the first line boundary, whole lines, tail piece.
  const std::uint64_t head = std::min<std::uint64_t>(kLineBytes - addr % kLineBytes, bytes);
  const std::uint64_t lines = (bytes - head) / kLineBytes, tail = (bytes - head) % kLineBytes;
  const std::size_t old = out.size(), count = 1 + lines + (tail != 0 ? 1 : 0);
  if (const std::size_t need = old + count; need > out.capacity()) {
    out.reserve(std::max(need, 2 * out.capacity()));  // keep the growth geometric
  }
  out.resize(old + count);  // then fill in place: one bounds check, not one per request
  GlobalRequest* r = out.data() + old;
  *r++ = {.address = addr, .bytes = static_cast<std::uint32_t>(head)};
  const mem::Addr first = addr + head;
  for (std::uint64_t i = 0; i < lines; ++i)
    *r++ = {.address = first + i * kLineBytes, .bytes = kLineBytes};
  if (tail != 0) {
    *r = {.address = first + lines * kLineBytes, .bytes = static_cast<std::uint32_t>(tail)};
  }
}

}  // namespace xpusim::tma
