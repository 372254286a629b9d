#include "cp/queue.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <span>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace xpusim::cp {
namespace {

constexpr std::uint16_t kInvalidHeader = static_cast<std::uint16_t>(PacketType::kInvalid);

std::array<std::byte, 2> header_bytes(std::uint16_t header) {
  return {static_cast<std::byte>(header & 0xFF), static_cast<std::byte>(header >> 8)};
}

}  // namespace

Result<AqlQueue> AqlQueue::create(mem::GlobalMemory& memory, const QueueConfig& cfg) {
  if (cfg.size == 0 || !std::has_single_bit(cfg.size)) {
    return Error{fmt::format("queue {}: size {} is not a power of two (HSA queue sizes are 2^k)",
                             cfg.id, cfg.size)};
  }
  if (cfg.size > kMaxSize) {
    return Error{
        fmt::format("queue {}: size {} exceeds the agent maximum {}", cfg.id, cfg.size, kMaxSize)};
  }
  if (cfg.ring_base % kPacketBytes != 0) {
    return Error{fmt::format("queue {}: ring_base {:#x} is not 64 B aligned (AQL packets are)",
                             cfg.id, cfg.ring_base)};
  }
  // Every slot starts INVALID (not ready). Written a page at a time; this also proves the whole
  // ring is addressable, so later slot accesses cannot fail.
  constexpr std::uint64_t kChunk = mem::GlobalMemory::kPageBytes;
  std::vector<std::byte> chunk(kChunk, std::byte{0});
  for (std::uint64_t off = 0; off < kChunk; off += kPacketBytes) {
    chunk[off] = static_cast<std::byte>(kInvalidHeader & 0xFF);
  }
  const std::uint64_t ring_bytes = std::uint64_t{cfg.size} * kPacketBytes;
  for (std::uint64_t off = 0; off < ring_bytes; off += kChunk) {
    const std::uint64_t n = std::min(kChunk, ring_bytes - off);
    if (cfg.ring_base + off < cfg.ring_base) {
      return Error{fmt::format("queue {}: ring at {:#x} of {} B wraps past 2^64", cfg.id,
                               cfg.ring_base, ring_bytes)};
    }
    const Status s = memory.write(cfg.ring_base + off, std::span(chunk).first(n));
    if (!s) {
      return Error{fmt::format("queue {}: cannot initialise ring at {:#x}: {}", cfg.id,
                               cfg.ring_base, s.error().message)};
    }
  }
  return AqlQueue(memory, cfg);
}

Result<std::uint64_t> AqlQueue::reserve(std::uint32_t n) {
  if (!active()) {
    return Error{
        fmt::format("queue {}: inactive after error ({}); reserve refused", id_, error_->message)};
  }
  if (n == 0 || n > size_) {
    return Error{fmt::format("queue {}: reserve of {} packets, must be 1..size {}", id_, n, size_)};
  }
  // HSA: write_index may not exceed read_index + size (the ring would overwrite unread slots).
  if (write_index_ + n > read_index_ + size_) {
    return Error{fmt::format(
        "queue {}: full, reserve of {} at write_index {} would pass read_index {} + size {}", id_,
        n, write_index_, read_index_, size_)};
  }
  const std::uint64_t first = write_index_;
  write_index_ += n;
  return first;
}

Status AqlQueue::check_writable(std::uint64_t index, const char* what) const {
  if (index < read_index_ || index >= write_index_) {
    return Error{fmt::format("queue {}: {} at index {} outside reserved range [{}, {})", id_, what,
                             index, read_index_, write_index_)};
  }
  return Ok{};
}

Status AqlQueue::write_body(std::uint64_t index, const PacketBytes& packet) {
  if (Status s = check_writable(index, "write_body"); !s) return s;
  const Status s = memory_->write(slot_address(index) + 2, std::span(packet).subspan(2));
  XPUSIM_CHECK(s.ok(), "ring slot was initialised at create()");
  return Ok{};
}

Status AqlQueue::publish_header(std::uint64_t index, std::uint16_t header) {
  if (Status s = check_writable(index, "publish_header"); !s) return s;
  const auto bytes = header_bytes(header);
  const Status s = memory_->write(slot_address(index), bytes);
  XPUSIM_CHECK(s.ok(), "ring slot was initialised at create()");
  return Ok{};
}

std::uint16_t AqlQueue::header_at(std::uint64_t index) const {
  std::array<std::byte, 2> b{};
  const Status s = memory_->read(slot_address(index), b);
  XPUSIM_CHECK(s.ok(), "ring slot was initialised at create()");
  return static_cast<std::uint16_t>(std::to_integer<std::uint16_t>(b[0]) |
                                    (std::to_integer<std::uint16_t>(b[1]) << 8));
}

std::optional<PacketBytes> AqlQueue::peek() const {
  // Only the header decides readiness (the acquire load); an unpublished slot stays INVALID.
  if (!active() || read_index_ >= write_index_) return std::nullopt;
  if (header_type_byte(header_at(read_index_)) == kInvalidHeader) return std::nullopt;
  PacketBytes packet{};
  const Status s = memory_->read(slot_address(read_index_), packet);
  XPUSIM_CHECK(s.ok(), "ring slot was initialised at create()");
  return packet;
}

void AqlQueue::consume() {
  XPUSIM_CHECK(
      read_index_ < write_index_ && header_type_byte(header_at(read_index_)) != kInvalidHeader,
      "consume() needs a ready packet at read_index");
  // HSA: the packet processor hands the slot back by setting its type to INVALID.
  const Status s = memory_->write(slot_address(read_index_), header_bytes(kInvalidHeader));
  XPUSIM_CHECK(s.ok(), "ring slot was initialised at create()");
  ++read_index_;
}

void AqlQueue::set_error(Error e) {
  if (!error_) error_ = std::move(e);
}

}  // namespace xpusim::cp
