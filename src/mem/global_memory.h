// GlobalMemory: the functional (bit-exact) model of device global memory. Sparse and paged:
// a page is allocated on its first write; reading memory never written returns zeros.
// 64-bit addresses; an access whose range wraps past 2^64 is an error, never UB. The host
// memory behind it is bounded (`max_touched_bytes`): a write that would exceed it is an error
// and changes nothing, so a runaway fill cannot exhaust the machine.
#pragma once

#include <algorithm>
#include <array>
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
  // Moves leave the source empty; neither side keeps the other's page cache.
  GlobalMemory(GlobalMemory&& o) noexcept
      : max_pages_(o.max_pages_), pages_(std::move(o.pages_)), writes_(o.writes_ + 1) {
    o.pages_.clear(), o.recent_ = {}, ++o.writes_;
  }
  GlobalMemory& operator=(GlobalMemory&& o) noexcept {
    max_pages_ = o.max_pages_, pages_ = std::move(o.pages_), recent_ = {};
    writes_ = std::max(writes_, o.writes_) + 1;
    o.pages_.clear(), o.recent_ = {}, ++o.writes_;
    return *this;
  }

  Status read(Addr addr, std::span<std::byte> out) const;
  Status write(Addr addr, std::span<const std::byte> in);
  Status fill(Addr addr, std::uint64_t bytes, std::byte value);

  std::size_t pages_allocated() const { return pages_.size(); }
  // Successful writes and fills so far (any address): unchanged means no byte changed, a cheap
  // test before comparing a cached copy (the TMA unit's descriptors).
  std::uint64_t writes() const { return writes_; }

  // Zero-copy read access for hot paths: the bytes from `addr` to the end of its page (at most
  // `bytes`). Sets `*data` to them, or to nullptr when the page was never written (zeros).
  // Returns how many bytes the view covers (≥ 1 when bytes ≥ 1).
  std::uint64_t view(Addr addr, std::uint64_t bytes, const std::byte** data) const {
    const std::uint64_t in_page = addr % kPageBytes;
    const PageData* page = find_page(addr / kPageBytes);
    *data = page == nullptr ? nullptr : page->bytes + in_page;
    return std::min(bytes, kPageBytes - in_page);
  }

  // The error read() gives for [addr, addr + bytes) without reading (the range wraps past
  // 2^64; any other range reads, unwritten bytes as zeros).
  static Status check_read(Addr addr, std::uint64_t bytes);
  // The error write() gives for [addr, addr + bytes) without writing: the range wraps or
  // needs more pages than the limit allows.
  Status check_write(Addr addr, std::uint64_t bytes) const;

 private:
  // 64 B aligned, so bulk copies out of a page run at full speed (glibc's memcpy halves its
  // throughput on 16 B aligned buffers).
  struct alignas(64) PageData {
    std::byte bytes[kPageBytes];
  };
  using Page = std::unique_ptr<PageData>;
  std::byte* page_for_write(std::uint64_t page_number);

  // The page, or nullptr if never written. A small direct-mapped cache of recent hits sits in
  // front of the hash map: a lookup there costs a 64-bit division (prime bucket count), and a
  // box copy looks up every page it touches. Pages are never freed, so hits never go stale;
  // misses are not cached. Like the rest of the class, not safe for concurrent use.
  const PageData* find_page(std::uint64_t page_number) const {
    CacheEntry& e = recent_[page_number % recent_.size()];
    if (e.page != nullptr && e.number == page_number) return e.page;
    const auto it = pages_.find(page_number);
    if (it == pages_.end()) return nullptr;
    e = {.number = page_number, .page = it->second.get()};
    return e.page;
  }

  struct CacheEntry {
    std::uint64_t number = 0;
    const PageData* page = nullptr;
  };

  std::uint64_t max_pages_;
  std::unordered_map<std::uint64_t, Page> pages_;  // keyed by page number; never iterated
  mutable std::array<CacheEntry, 16> recent_{};
  std::uint64_t writes_ = 0;
};

}  // namespace xpusim::mem
