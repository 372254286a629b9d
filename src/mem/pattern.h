// Deterministic byte patterns for initializing memory in tests and in `xpusim tma copy`, so
// results can be reproduced outside the simulator from the pattern's definition alone.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "mem/global_memory.h"
#include "mem/shared_memory.h"

namespace xpusim::mem {

enum class Pattern : std::uint8_t {
  kZero,      // every byte 0
  kAddress,   // byte at address a = a & 0xff
  kSplitmix,  // byte at address a = low byte of splitmix64(a) (rng.h; Vigna's constants)
};

std::optional<Pattern> parse_pattern(std::string_view name);
std::string pattern_names();  // "zero, address, splitmix"

// The byte the pattern puts at address `a`.
std::byte pattern_byte(Pattern p, std::uint64_t a);

Status fill_pattern(GlobalMemory& g, Addr addr, std::uint64_t bytes, Pattern p);
// Shared memory: the address is the CTA-relative offset.
void fill_pattern(SharedMemory& s, Pattern p);

}  // namespace xpusim::mem
