// The host memory a chip model's fixed structures take, estimated from its config before any
// is allocated, so a schema-valid but host-sized config (an `l2.size: 1TiB`) is refused with
// the key, the need and the limit instead of a bad_alloc, or an overcommitted host swapping.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config/chip_spec.h"
#include "sim/result.h"

namespace xpusim::system {

struct HostMemoryItem {
  std::string key;          // the chip-config key that sizes it
  std::uint64_t value = 0;  // the key's value
  std::string what;
  std::uint64_t bytes = 0;
};

// The structures that scale with config values: the L2's tag and in-flight arrays, every SM's
// L1 tags. The rest of a chip is a few tens of MB whatever its config.
std::vector<HostMemoryItem> host_memory_items(const config::ChipSpec& spec);

// The host's physical memory in bytes (0 when the system does not say).
std::uint64_t physical_memory_bytes();
// Half the host's physical memory: room for the global memory's touched pages and the rest.
std::uint64_t default_host_memory_limit();

// An error naming the largest item when the items add up to more than `limit` bytes (0: the
// default limit).
Status check_host_memory(const config::ChipSpec& spec, std::uint64_t limit = 0);

}  // namespace xpusim::system
