#include "mem/shared_memory.h"

#include <fmt/format.h>

#include <cstring>

namespace xpusim::mem {

Status SharedMemory::check_range(std::uint64_t offset, std::uint64_t bytes) const {
  if (!contains(offset, bytes)) {
    return Error{fmt::format(
        "shared memory access of {} bytes at offset {} is outside the CTA window [0, {}) "
        "(shared memory is per CTA; size it with the launch's shared-memory bytes)",
        bytes, offset, data_.size())};
  }
  return Ok{};
}

Status SharedMemory::read(std::uint32_t offset, std::span<std::byte> out) const {
  if (auto st = check_range(offset, out.size()); !st) return st;
  if (!out.empty()) std::memcpy(out.data(), data_.data() + offset, out.size());
  return Ok{};
}

Status SharedMemory::write(std::uint32_t offset, std::span<const std::byte> in) {
  if (auto st = check_range(offset, in.size()); !st) return st;
  if (!in.empty()) std::memcpy(data_.data() + offset, in.data(), in.size());
  return Ok{};
}

}  // namespace xpusim::mem
