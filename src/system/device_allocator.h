// DeviceAllocator: the host's device-memory allocator (cudaMalloc's role on one chip). Buffers
// are placed one after another in HBM, each at the next 1 MiB boundary from kBase, and never
// freed (a run sets its buffers up once). Scenario buffers, placed when the file is loaded, are
// reserved at their addresses first; workloads allocate theirs after them, so several workloads
// of one kernel graph never share a byte. Every buffer is checked against hbm.capacity.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "kernel/registry.h"
#include "mem/buffer_map.h"
#include "mem/global_memory.h"
#include "sim/result.h"

namespace xpusim::system {

class DeviceAllocator {
 public:
  static constexpr mem::Addr kBase = 0x1000'0000;
  static constexpr std::uint64_t kAlign = std::uint64_t{1} << 20;

  explicit DeviceAllocator(std::uint64_t capacity) : capacity_(capacity) {}

  // A buffer of `bytes` (>= 1) at the next kAlign boundary. Errors start "WHAT: " (nothing for
  // an empty `what`) and name the size, what is already allocated and the capacity.
  Result<mem::Addr> allocate(std::string_view what, std::uint64_t bytes);
  // A buffer at a fixed address at or above the allocated ones (kAlign-aligned). Errors: it would
  // end beyond the capacity (named as for allocate), or lie below a buffer already placed.
  // `name` names it in the buffer map (empty: `what`).
  Status reserve(std::string_view what, mem::Addr at, std::uint64_t bytes,
                 std::string_view name = {});

  // A buffer of `bytes` (>= 1) at the next kAlign boundary whose `parts` (at offsets from its
  // start) are what the buffer map names: a module's device variables, each its own buffer for
  // the access check. Errors: as for allocate.
  Result<mem::Addr> allocate_parts(std::string_view what, std::uint64_t bytes,
                                   const std::vector<kernel::DeviceGlobals::Part>& parts);

  // Every buffer placed so far: what a kernel may access when the chip checks accesses.
  const mem::BufferMap& buffer_map() const { return map_; }

  // Bytes from kBase to the end of the last buffer.
  std::uint64_t used() const { return next_ - kBase; }
  std::uint64_t capacity() const { return capacity_; }
  std::uint64_t buffers() const { return buffers_; }

 private:
  // The checks of reserve and the bookkeeping, without naming it in the map.
  Status place(std::string_view what, mem::Addr at, std::uint64_t bytes);

  std::uint64_t capacity_;
  mem::Addr next_ = kBase;  // the end of the last buffer
  std::uint64_t buffers_ = 0;
  mem::BufferMap map_;
};

}  // namespace xpusim::system
