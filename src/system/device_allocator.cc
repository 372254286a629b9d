#include "system/device_allocator.h"

#include <fmt/format.h>

#include "config/units.h"

namespace xpusim::system {

namespace {

// "WHAT: " ("" for no name: the caller locates the error itself).
std::string prefix(std::string_view what) {
  return what.empty() ? std::string() : fmt::format("{}: ", what);
}

std::uint64_t align_up(std::uint64_t x) {
  return (x + DeviceAllocator::kAlign - 1) / DeviceAllocator::kAlign * DeviceAllocator::kAlign;
}

}  // namespace

Status DeviceAllocator::reserve(std::string_view what, mem::Addr at, std::uint64_t bytes,
                                std::string_view name) {
  if (auto st = place(what, at, bytes); !st) return st;
  map_.add(name.empty() ? what : name, at, bytes);
  return Ok{};
}

Result<mem::Addr> DeviceAllocator::allocate_parts(
    std::string_view what, std::uint64_t bytes,
    const std::vector<kernel::DeviceGlobals::Part>& parts) {
  if (bytes == 0) return Error{fmt::format("{}a buffer of 0 bytes", prefix(what))};
  const mem::Addr at = align_up(next_);
  if (auto st = place(what, at, bytes); !st) return st.errors();
  for (const kernel::DeviceGlobals::Part& p : parts)
    map_.add(p.name, at + p.offset, p.bytes);
  return at;
}

Status DeviceAllocator::place(std::string_view what, mem::Addr at, std::uint64_t bytes) {
  if (at < next_ || at % kAlign != 0) {
    return Error{
        fmt::format("{}{:#x} is below the buffers already placed (they end at {:#x}) "
                    "or not on a {} boundary",
                    prefix(what), at, next_, config::format_size(kAlign))};
  }
  // Overflow-safe: at >= kBase, so at - kBase does not wrap.
  if (bytes > capacity_ || at - kBase > capacity_ - bytes) {
    return Error{fmt::format(
        "{}{} at {:#x}: the buffers would span {} from {:#x}, more than the chip's {} of memory "
        "(hbm.capacity)",
        prefix(what), config::format_size(bytes), at,
        bytes > capacity_ ? std::string("more than that") : config::format_size(at - kBase + bytes),
        kBase, config::format_size(capacity_))};
  }
  next_ = at + bytes;
  ++buffers_;
  return Ok{};
}

Result<mem::Addr> DeviceAllocator::allocate(std::string_view what, std::uint64_t bytes) {
  if (bytes == 0) return Error{fmt::format("{}a buffer of 0 bytes", prefix(what))};
  const mem::Addr at = align_up(next_);
  if (auto st = reserve(what, at, bytes); !st) return st.errors();
  return at;
}

}  // namespace xpusim::system
