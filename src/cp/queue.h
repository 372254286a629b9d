// AqlQueue: an HSA user-mode queue (HSA System Architecture spec, "User mode queues"): a ring of
// 64-byte AQL packets in simulated GlobalMemory with a 64-bit write_index, read_index and a
// doorbell signal.
//
// Modelling choices:
//  - The ring bytes live in GlobalMemory (slot = index % size at ring_base + slot * 64), so
//    packets are real bytes a packet processor decodes. The indices and the doorbell are
//    host-side state (HSA keeps them in the queue descriptor; storing them in memory would add
//    nothing in a single-threaded model).
//  - create() writes an INVALID header into every slot, as the HSA runtime does: zeroed memory
//    would read as type 0 (VENDOR_SPECIFIC), i.e. "ready".
//  - Publication is modelled by order only: peek() looks at the header alone, so a packet whose
//    body was written but whose header was not published is never seen (HSA: header last,
//    with a release store).
//  - Errors: set_error() makes the queue inactive (HSA: an error is reported on that queue and
//    it stops processing; other queues are unaffected). An inactive queue refuses reserve()
//    and peek() sees nothing.
#pragma once

#include <cstdint>
#include <optional>

#include "cp/packets.h"
#include "cp/signal.h"
#include "mem/global_memory.h"
#include "sim/result.h"

namespace xpusim::cp {

struct QueueConfig {
  std::uint32_t size = 64;  // packets; a power of two (HSA)
  mem::Addr ring_base = 0;  // 64 B aligned (AQL packets are 64 B aligned)
  std::uint32_t id = 0;
};

class AqlQueue {
 public:
  // Agent limit on queue size (HSA_AGENT_INFO_QUEUE_MAX_SIZE is per agent; this is ours).
  static constexpr std::uint32_t kMaxSize = 1u << 20;

  static Result<AqlQueue> create(mem::GlobalMemory& memory, const QueueConfig& cfg);
  // Move-only: a copy would carry its own indices and two producers would overwrite each other.
  AqlQueue(const AqlQueue&) = delete;
  AqlQueue& operator=(const AqlQueue&) = delete;
  AqlQueue(AqlQueue&&) noexcept = default;
  AqlQueue& operator=(AqlQueue&&) noexcept = default;

  // Producer side. reserve() bumps write_index by n and returns the first reserved index; it
  // fails and changes nothing if write_index + n would pass read_index + size.
  Result<std::uint64_t> reserve(std::uint32_t n = 1);
  // Bytes 2..63 of `packet` into the slot of reserved, unconsumed `index`; bytes 0..1 untouched.
  Status write_body(std::uint64_t index, const PacketBytes& packet);
  // Bytes 0..1 (little-endian), the release store that hands the packet to the consumer.
  Status publish_header(std::uint64_t index, std::uint16_t header);
  // hsa_queue_store_write_index_relaxed: sets write_index with no check, as a producer that
  // bypasses reserve() can. The packet processor finds an index past read_index + size (the
  // producer overwrote unprocessed packets) and puts the queue in error.
  void store_write_index(std::uint64_t index) { write_index_ = index; }
  // HSA: the producer writes the doorbell with the write index of the last packet it published.
  void ring_doorbell(std::uint64_t index) {
    doorbell_.store_release(static_cast<Signal::Value>(index));
  }
  std::uint64_t doorbell() const { return static_cast<std::uint64_t>(doorbell_.load_acquire()); }
  Signal& doorbell_signal() { return doorbell_; }

  // Consumer side. peek(): the packet at read_index if its header type is not INVALID.
  std::optional<PacketBytes> peek() const;
  // Sets the header at read_index to INVALID and advances read_index; needs a ready packet.
  void consume();

  std::uint64_t read_index() const { return read_index_; }
  std::uint64_t write_index() const { return write_index_; }
  std::uint32_t size() const { return size_; }
  std::uint32_t id() const { return id_; }
  mem::Addr ring_base() const { return ring_base_; }
  mem::Addr slot_address(std::uint64_t index) const {
    return ring_base_ + (index & (size_ - 1)) * kPacketBytes;  // index % size, size = 2^k
  }

  // The first error sticks (later ones are usually consequences of it).
  void set_error(Error e);
  const std::optional<Error>& error() const { return error_; }
  bool active() const { return !error_.has_value(); }

 private:
  AqlQueue(mem::GlobalMemory& memory, const QueueConfig& cfg)
      : memory_(&memory), ring_base_(cfg.ring_base), size_(cfg.size), id_(cfg.id) {}
  // Only reserved slots not yet consumed may be written.
  Status check_writable(std::uint64_t index, const char* what) const;
  std::uint16_t header_at(std::uint64_t index) const;

  mem::GlobalMemory* memory_;
  mem::Addr ring_base_;
  std::uint32_t size_;
  std::uint32_t id_;
  std::uint64_t write_index_ = 0;
  std::uint64_t read_index_ = 0;
  Signal doorbell_{0};
  std::optional<Error> error_;
};

// The packet type in the low byte of an AQL header (HSA: header bits 7:0).
inline std::uint8_t header_type_byte(std::uint16_t header) {
  return static_cast<std::uint8_t>(header & 0xFF);
}

}  // namespace xpusim::cp
