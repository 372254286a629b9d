// GlobalMemory: the functional (bit-exact) model of device global memory. Sparse and paged:
// a page is allocated on its first write; reading memory never written returns zeros.
// 64-bit addresses; an access whose range wraps past 2^64 is an error, never UB. The host
// memory behind it is bounded (`max_touched_bytes`): a write that would exceed it is an error
// and changes nothing, so a runaway fill cannot exhaust the machine.
#pragma once

#include <algorithm>
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
  static constexpr std::uint64_t kDefaultMaxTouchedBytes = std::uint64_t{8} << 30;  // 8 GiB

  explicit GlobalMemory(std::uint64_t max_touched_bytes = kDefaultMaxTouchedBytes)
      : max_pages_(max_touched_bytes / kPageBytes) {}
  GlobalMemory(const GlobalMemory&) = delete;
  GlobalMemory& operator=(const GlobalMemory&) = delete;
  GlobalMemory(GlobalMemory&&) = default;
  GlobalMemory& operator=(GlobalMemory&&) = default;

  Status read(Addr addr, std::span<std::byte> out) const;
  Status write(Addr addr, std::span<const std::byte> in);
  Status fill(Addr addr, std::uint64_t bytes, std::byte value);

  std::size_t pages_allocated() const { return pages_.size(); }

  // Zero-copy read access for hot paths: the bytes from `addr` to the end of its page (at most
  // `bytes`). Sets `*data` to them, or to nullptr when the page was never written (zeros).
  // Returns how many bytes the view covers (≥ 1 when bytes ≥ 1).
  std::uint64_t view(Addr addr, std::uint64_t bytes, const std::byte** data) const {
    const std::uint64_t in_page = addr % kPageBytes;
    const auto it = pages_.find(addr / kPageBytes);
    *data = it == pages_.end() ? nullptr : it->second->bytes + in_page;
    return std::min(bytes, kPageBytes - in_page);
  }

 private:
  // 64 B aligned, so bulk copies out of a page run at full speed (glibc's memcpy halves its
  // throughput on 16 B aligned buffers).
  struct alignas(64) PageData {
    std::byte bytes[kPageBytes];
  };
  using Page = std::unique_ptr<PageData>;
  // Checks [addr, addr + bytes) neither wraps nor needs more pages than the limit allows.
  Status check_write(Addr addr, std::uint64_t bytes) const;
  std::byte* page_for_write(std::uint64_t page_number);

  std::uint64_t max_pages_;
  std::unordered_map<std::uint64_t, Page> pages_;  // keyed by page number; never iterated
};

}  // namespace xpusim::mem
