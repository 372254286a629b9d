// BufferMap: the device buffers the host allocated, by name and address range. With access
// checking on (system::ChipOptions::check_accesses), a warp's global load or store that is not
// wholly inside one buffer is a fault naming the address and the nearest buffer, as
// compute-sanitizer's memcheck reports it on silicon: a kernel indexing past its buffers
// (a wrong `n`) would otherwise read zeros or scribble over a neighbour and still "verify".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "mem/global_memory.h"
#include "sim/result.h"

namespace xpusim::mem {

class BufferMap {
 public:
  struct Buffer {
    std::string name;
    Addr base = 0;
    std::uint64_t bytes = 0;
  };

  // Buffers never overlap (the allocator places them); any order.
  void add(std::string_view name, Addr base, std::uint64_t bytes);

  // Whether [addr, addr + bytes) lies inside one buffer (bytes >= 1).
  bool contains(Addr addr, std::uint64_t bytes) const;
  // Ok when contains(); else "ACCESS of N bytes at ADDR is outside every buffer (K bytes past
  // the end of 'dst' [BASE, END))" or "(... before 'src' ...)". `access` is "load", "store".
  Status check(std::string_view access, Addr addr, std::uint64_t bytes) const;

  const std::vector<Buffer>& buffers() const { return buffers_; }
  bool empty() const { return buffers_.empty(); }

 private:
  // The buffer with the largest base <= addr, or nullptr.
  const Buffer* at_or_below(Addr addr) const;

  std::vector<Buffer> buffers_;  // sorted by base
};

}  // namespace xpusim::mem
