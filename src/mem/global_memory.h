// GlobalMemory: the functional (bit-exact) model of device global memory. Sparse and paged:
// a page is allocated on its first write; reading memory never written returns zeros.
// 64-bit addresses; an access whose range wraps past 2^64 is an error, never UB.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <unordered_map>

#include "sim/result.h"

namespace xpusim::mem {

using Addr = std::uint64_t;

class GlobalMemory {
 public:
  static constexpr std::uint64_t kPageBytes = 4096;

  GlobalMemory() = default;
  GlobalMemory(const GlobalMemory&) = delete;
  GlobalMemory& operator=(const GlobalMemory&) = delete;
  GlobalMemory(GlobalMemory&&) = default;
  GlobalMemory& operator=(GlobalMemory&&) = default;

  Status read(Addr addr, std::span<std::byte> out) const;
  Status write(Addr addr, std::span<const std::byte> in);
  Status fill(Addr addr, std::uint64_t bytes, std::byte value);

  std::size_t pages_allocated() const { return pages_.size(); }

 private:
  using Page = std::unique_ptr<std::byte[]>;
  std::unordered_map<std::uint64_t, Page> pages_;  // keyed by page number; never iterated
};

}  // namespace xpusim::mem
