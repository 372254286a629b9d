#include "mem/buffer_map.h"

#include <fmt/format.h>

#include <algorithm>

namespace xpusim::mem {

void BufferMap::add(std::string_view name, Addr base, std::uint64_t bytes) {
  const auto it = std::upper_bound(buffers_.begin(), buffers_.end(), base,
                                   [](Addr a, const Buffer& b) { return a < b.base; });
  buffers_.insert(it, Buffer{.name = std::string(name), .base = base, .bytes = bytes});
}

const BufferMap::Buffer* BufferMap::at_or_below(Addr addr) const {
  const auto it = std::upper_bound(buffers_.begin(), buffers_.end(), addr,
                                   [](Addr a, const Buffer& b) { return a < b.base; });
  return it == buffers_.begin() ? nullptr : &*(it - 1);
}

bool BufferMap::contains(Addr addr, std::uint64_t bytes) const {
  const Buffer* b = at_or_below(addr);
  // Overflow-safe: addr >= b->base.
  return b != nullptr && bytes <= b->bytes && addr - b->base <= b->bytes - bytes;
}

Status BufferMap::check(std::string_view access, Addr addr, std::uint64_t bytes) const {
  if (contains(addr, bytes)) return Ok{};
  const auto range = [](const Buffer& b) {
    return fmt::format("'{}' [{:#x}, {:#x})", b.name, b.base, b.base + b.bytes);
  };
  std::string where;
  if (const Buffer* below = at_or_below(addr); below != nullptr) {
    const Addr end = below->base + below->bytes;
    where = addr >= end ? fmt::format("{} bytes past the end of {}", addr - end, range(*below))
                        : fmt::format("running {} bytes past the end of {}", addr + bytes - end,
                                      range(*below));
  } else if (!buffers_.empty()) {
    where =
        fmt::format("{} bytes before {}", buffers_.front().base - addr, range(buffers_.front()));
  } else {
    where = "no buffer is allocated";
  }
  return Error{fmt::format("{} of {} bytes at {:#x} is outside every buffer ({})", access, bytes,
                           addr, where)};
}

}  // namespace xpusim::mem
