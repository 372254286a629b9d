#include "mem/pattern.h"

#include <vector>

#include "sim/rng.h"

namespace xpusim::mem {

std::optional<Pattern> parse_pattern(std::string_view name) {
  if (name == "zero") return Pattern::kZero;
  if (name == "address") return Pattern::kAddress;
  if (name == "splitmix") return Pattern::kSplitmix;
  return std::nullopt;
}

std::string pattern_names() {
  return "zero, address, splitmix";
}

std::byte pattern_byte(Pattern p, std::uint64_t a) {
  switch (p) {
    case Pattern::kZero:
      return std::byte{0};
    case Pattern::kAddress:
      return static_cast<std::byte>(a & 0xff);
    case Pattern::kSplitmix:
      return static_cast<std::byte>(sim::splitmix64(a) & 0xff);
  }
  return std::byte{0};
}

Status fill_pattern(GlobalMemory& g, Addr addr, std::uint64_t bytes, Pattern p) {
  constexpr std::uint64_t kChunk = 1 << 16;
  std::vector<std::byte> buf;
  for (std::uint64_t done = 0; done < bytes; done += buf.size()) {
    buf.resize(std::min(kChunk, bytes - done));
    for (std::size_t i = 0; i < buf.size(); ++i)
      buf[i] = pattern_byte(p, addr + done + i);
    if (auto st = g.write(addr + done, buf); !st) return st;
  }
  return Ok{};
}

void fill_pattern(SharedMemory& s, Pattern p) {
  auto bytes = s.bytes();
  for (std::size_t i = 0; i < bytes.size(); ++i)
    bytes[i] = pattern_byte(p, i);
}

}  // namespace xpusim::mem
