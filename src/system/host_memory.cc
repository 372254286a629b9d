#include "system/host_memory.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>

#include "config/units.h"

namespace xpusim::system {
namespace {

// Per line: SectorCache's 8 B tag, 8 B sector bits and 1 B LRU entry; the L2 adds a 16 B
// in-flight record per way (l2_slice.h).
constexpr std::uint64_t kTagBytesPerLine = 17;
constexpr std::uint64_t kL2InFlightBytesPerLine = 16;

// Host figures are estimates: one decimal in GiB reads better than an exact KB count.
std::string gib(std::uint64_t bytes) {
  return fmt::format("{:.1f} GiB", static_cast<double>(bytes) / (1 << 30));
}

}  // namespace

std::vector<HostMemoryItem> host_memory_items(const config::ChipSpec& spec) {
  std::vector<HostMemoryItem> items;
  if (spec.l2.line_bytes > 0) {
    const std::uint64_t lines = spec.l2.size_bytes / spec.l2.line_bytes;
    items.push_back({"l2.size", spec.l2.size_bytes, "the L2's tags",
                     lines * (kTagBytesPerLine + kL2InFlightBytesPerLine)});
    const std::uint64_t l1 = spec.sm.l1_shared_bytes > spec.sm.shared_memory_bytes
                                 ? spec.sm.l1_shared_bytes - spec.sm.shared_memory_bytes
                                 : 0;
    items.push_back({"sm.l1_shared_bytes", spec.sm.l1_shared_bytes, "the SMs' L1 tags",
                     l1 / spec.l2.line_bytes * kTagBytesPerLine * spec.num_sms()});
  }
  return items;
}

std::uint64_t physical_memory_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return 0;
  return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page);
}

std::uint64_t default_host_memory_limit() {
  const std::uint64_t host = physical_memory_bytes();
  return host == 0 ? std::uint64_t{8} << 30 : host / 2;
}

Status check_host_memory(const config::ChipSpec& spec, std::uint64_t limit) {
  const std::vector<HostMemoryItem> items = host_memory_items(spec);
  std::uint64_t total = 0;
  for (const HostMemoryItem& i : items)
    total += i.bytes;
  const bool by_default = limit == 0;
  if (by_default) limit = default_host_memory_limit();
  if (total <= limit || items.empty()) return Ok{};
  const auto largest = std::max_element(
      items.begin(), items.end(), [](const auto& a, const auto& b) { return a.bytes < b.bytes; });
  return Error{fmt::format(
      "{} = {}: {} need {} of host memory ({} for the chip's caches), more than the {} limit{}",
      largest->key, config::format_size(largest->value), largest->what, gib(largest->bytes),
      gib(total), gib(limit), by_default ? " (half this host's physical memory)" : "")};
}

}  // namespace xpusim::system
