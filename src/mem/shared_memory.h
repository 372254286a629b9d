// SharedMemory: one CTA's shared-memory window, offsets [0, size). Every access outside the
// window is a named error (never a crash or a silent wrap).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "sim/host_lines.h"
#include "sim/result.h"

namespace xpusim::mem {

class SharedMemory {
 public:
  explicit SharedMemory(std::uint32_t bytes) : data_(bytes) {}

  std::uint32_t size() const { return static_cast<std::uint32_t>(data_.size()); }
  Status read(std::uint32_t offset, std::span<std::byte> out) const;
  Status write(std::uint32_t offset, std::span<const std::byte> in);
  // Checks [offset, offset + bytes) lies inside the window.
  Status check_range(std::uint64_t offset, std::uint64_t bytes) const;
  // The same test without building a Status (for per-lane checks on the hot path).
  bool contains(std::uint64_t offset, std::uint64_t bytes) const {
    return offset <= data_.size() && bytes <= data_.size() - offset;
  }
  std::span<std::byte> bytes() { return data_; }
  std::span<const std::byte> bytes() const { return data_; }

 private:
  // 64 B aligned: TMA box copies move whole 16 B chunks, and bulk copies out of the window run
  // at full speed only from 64 B aligned buffers.
  sim::HostLineVector<std::byte> data_;
};

}  // namespace xpusim::mem
