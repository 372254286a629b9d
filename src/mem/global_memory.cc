#include "mem/global_memory.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

namespace xpusim::mem {

namespace {
Status check_wrap(Addr addr, std::uint64_t bytes) {
  if (bytes != 0 && addr + (bytes - 1) < addr) {
    return Error{fmt::format(
        "global memory access [{:#x}, +{}) wraps past the 64-bit address space", addr, bytes)};
  }
  return Ok{};
}
}  // namespace

Status GlobalMemory::check_read(Addr addr, std::uint64_t bytes) {
  return check_wrap(addr, bytes);
}

Status GlobalMemory::check_write(Addr addr, std::uint64_t bytes) const {
  if (auto st = check_wrap(addr, bytes); !st) return st;
  if (bytes == 0) return Ok{};
  const std::uint64_t first = addr / kPageBytes, last = (addr + (bytes - 1)) / kPageBytes;
  const std::uint64_t span = last - first + 1;
  // Count only when the answer is not obvious, so a huge request costs nothing.
  std::uint64_t missing = span;
  if (pages_.size() + span > max_pages_ && span <= max_pages_) {
    missing = 0;
    for (std::uint64_t p = first; p <= last; ++p)
      missing += pages_.count(p) == 0 ? 1 : 0;
  }
  if (pages_.size() + missing > max_pages_) {
    return Error{fmt::format(
        "global memory write [{:#x}, +{}) would touch more than the model's limit of {} bytes "
        "of backing store (GlobalMemory max_touched_bytes)",
        addr, bytes, max_pages_ * kPageBytes)};
  }
  return Ok{};
}

std::byte* GlobalMemory::page_for_write(std::uint64_t page_number) {
  Page& page = pages_[page_number];
  if (!page) page = std::make_unique<PageData>();  // value-initialized: zeros
  return page->bytes;
}

Status GlobalMemory::read(Addr addr, std::span<std::byte> out) const {
  if (auto st = check_wrap(addr, out.size()); !st) return st;
  std::size_t done = 0;
  while (done < out.size()) {
    const Addr a = addr + done;
    const std::uint64_t in_page = a % kPageBytes;
    const std::size_t n = std::min<std::size_t>(out.size() - done, kPageBytes - in_page);
    const PageData* page = find_page(a / kPageBytes);
    if (page == nullptr) {
      std::fill_n(out.begin() + static_cast<std::ptrdiff_t>(done), n, std::byte{0});
    } else {
      // memmove, not memcpy: knowing n <= 4096 and the page's alignment, GCC expands memcpy
      // inline as `rep movsq`, several times slower than the C library's vector copy.
      std::memmove(out.data() + done, page->bytes + in_page, n);
    }
    done += n;
  }
  return Ok{};
}

Status GlobalMemory::write(Addr addr, std::span<const std::byte> in) {
  if (auto st = check_write(addr, in.size()); !st) return st;
  std::size_t done = 0;
  while (done < in.size()) {
    const Addr a = addr + done;
    const std::uint64_t in_page = a % kPageBytes;
    const std::size_t n = std::min<std::size_t>(in.size() - done, kPageBytes - in_page);
    std::memcpy(page_for_write(a / kPageBytes) + in_page, in.data() + done, n);
    done += n;
  }
  ++writes_;
  return Ok{};
}

Status GlobalMemory::fill(Addr addr, std::uint64_t bytes, std::byte value) {
  if (auto st = check_write(addr, bytes); !st) return st;
  std::uint64_t done = 0;
  while (done < bytes) {
    const Addr a = addr + done;
    const std::uint64_t in_page = a % kPageBytes;
    const std::uint64_t n = std::min<std::uint64_t>(bytes - done, kPageBytes - in_page);
    std::fill_n(page_for_write(a / kPageBytes) + in_page, n, value);
    done += n;
  }
  ++writes_;
  return Ok{};
}

}  // namespace xpusim::mem
