#include "cp/queue.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "cp/signal.h"

namespace xpusim::cp {
namespace {

constexpr mem::Addr kRing = 0x10000;

// A packet with header type `type` and a body that encodes `seed`, so each slot's bytes differ.
PacketBytes packet(std::uint8_t type, std::uint32_t seed) {
  PacketBytes p{};
  p[0] = static_cast<std::byte>(type);
  p[1] = std::byte{0};
  for (std::size_t i = 2; i < p.size(); ++i)
    p[i] = static_cast<std::byte>((seed * 31 + i) & 0xFF);
  return p;
}

std::uint16_t header_of(const PacketBytes& p) {
  return static_cast<std::uint16_t>(std::to_integer<std::uint16_t>(p[0]) |
                                    (std::to_integer<std::uint16_t>(p[1]) << 8));
}

PacketBytes read_slot(const mem::GlobalMemory& m, mem::Addr a) {
  PacketBytes out{};
  EXPECT_TRUE(m.read(a, out).ok());
  return out;
}

AqlQueue make(mem::GlobalMemory& m, std::uint32_t size, mem::Addr base = kRing,
              std::uint32_t id = 0) {
  Result<AqlQueue> q = AqlQueue::create(m, QueueConfig{.size = size, .ring_base = base, .id = id});
  EXPECT_TRUE(q.ok()) << (q.ok() ? "" : q.error().message);
  return std::move(q).value();
}

void produce(AqlQueue& q, const PacketBytes& p) {
  const Result<std::uint64_t> idx = q.reserve();
  ASSERT_TRUE(idx.ok()) << idx.error().message;
  ASSERT_TRUE(q.write_body(*idx, p).ok());
  ASSERT_TRUE(q.publish_header(*idx, header_of(p)).ok());
  q.ring_doorbell(*idx);
}

TEST(AqlQueue, BadConfigIsRejected) {
  mem::GlobalMemory m;
  EXPECT_FALSE(AqlQueue::create(m, {.size = 0, .ring_base = kRing}).ok());
  EXPECT_FALSE(AqlQueue::create(m, {.size = 48, .ring_base = kRing}).ok());
  EXPECT_FALSE(AqlQueue::create(m, {.size = 3, .ring_base = kRing}).ok());
  EXPECT_FALSE(AqlQueue::create(m, {.size = 64, .ring_base = kRing + 32}).ok());
  EXPECT_FALSE(AqlQueue::create(m, {.size = AqlQueue::kMaxSize * 2, .ring_base = kRing}).ok());
  // A ring that would wrap past 2^64.
  EXPECT_FALSE(AqlQueue::create(m, {.size = 64, .ring_base = ~mem::Addr{0} - 63}).ok());
  const Result<AqlQueue> bad = AqlQueue::create(m, {.size = 48, .ring_base = kRing, .id = 7});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("48"), std::string::npos);
  EXPECT_TRUE(AqlQueue::create(m, {.size = 1, .ring_base = kRing}).ok());
  EXPECT_TRUE(AqlQueue::create(m, {.size = 64, .ring_base = kRing}).ok());
}

TEST(AqlQueue, CreateMarksEverySlotInvalid) {
  mem::GlobalMemory m;
  AqlQueue q = make(m, 8);
  for (std::uint64_t i = 0; i < 8; ++i) {
    const PacketBytes s = read_slot(m, q.slot_address(i));
    EXPECT_EQ(header_of(s), static_cast<std::uint16_t>(PacketType::kInvalid)) << i;
  }
  EXPECT_FALSE(q.peek().has_value());
  EXPECT_EQ(q.read_index(), 0u);
  EXPECT_EQ(q.write_index(), 0u);
}

TEST(AqlQueue, SlotAddressIsIndexModSize) {
  mem::GlobalMemory m;
  AqlQueue q = make(m, 16);
  EXPECT_EQ(q.slot_address(0), kRing);
  EXPECT_EQ(q.slot_address(5), kRing + 5 * 64);
  EXPECT_EQ(q.slot_address(16), kRing);
  EXPECT_EQ(q.slot_address(16 * 1000 + 3), kRing + 3 * 64);
}

TEST(AqlQueue, RingWrapsAroundOverManyPackets) {
  mem::GlobalMemory m;
  constexpr std::uint32_t kSize = 8;
  AqlQueue q = make(m, kSize);
  // Keep the ring 3 deep so slots are reused at indices far beyond size.
  std::uint64_t consumed = 0;
  for (std::uint32_t n = 0; n < 100; ++n) {
    const PacketBytes p = packet(2, n);
    produce(q, p);
    // The bytes land at index % size in simulated memory.
    EXPECT_EQ(read_slot(m, kRing + (n % kSize) * 64), p) << n;
    if (q.write_index() - q.read_index() == 3) {
      const std::optional<PacketBytes> got = q.peek();
      ASSERT_TRUE(got.has_value());
      EXPECT_EQ(*got, packet(2, static_cast<std::uint32_t>(consumed)));
      q.consume();
      ++consumed;
    }
  }
  EXPECT_EQ(q.write_index(), 100u);
  EXPECT_EQ(q.doorbell(), 99u);
  while (q.peek()) {
    EXPECT_EQ(*q.peek(), packet(2, static_cast<std::uint32_t>(consumed)));
    q.consume();
    ++consumed;
  }
  EXPECT_EQ(consumed, 100u);
  EXPECT_EQ(q.read_index(), 100u);
}

TEST(AqlQueue, HeaderIsPublishedLast) {
  mem::GlobalMemory m;
  AqlQueue q = make(m, 4);
  const PacketBytes p = packet(2, 42);
  const Result<std::uint64_t> idx = q.reserve();
  ASSERT_TRUE(idx.ok());
  EXPECT_FALSE(q.peek().has_value());
  ASSERT_TRUE(q.write_body(*idx, p).ok());
  // Body bytes are in memory, but the header is still INVALID: not ready.
  PacketBytes slot = read_slot(m, q.slot_address(*idx));
  EXPECT_EQ(header_of(slot), static_cast<std::uint16_t>(PacketType::kInvalid));
  EXPECT_TRUE(std::equal(slot.begin() + 2, slot.end(), p.begin() + 2));
  EXPECT_FALSE(q.peek().has_value());
  ASSERT_TRUE(q.publish_header(*idx, header_of(p)).ok());
  ASSERT_TRUE(q.peek().has_value());
  EXPECT_EQ(*q.peek(), p);
}

TEST(AqlQueue, ConsumerStopsAtFirstUnpublishedSlot) {
  mem::GlobalMemory m;
  AqlQueue q = make(m, 4);
  const Result<std::uint64_t> a = q.reserve();
  produce(q, packet(2, 1));  // index 1 published, index 0 not
  ASSERT_TRUE(a.ok());
  EXPECT_FALSE(q.peek().has_value());  // in order: index 0 blocks index 1
  ASSERT_TRUE(q.write_body(*a, packet(2, 0)).ok());
  ASSERT_TRUE(q.publish_header(*a, 2).ok());
  ASSERT_TRUE(q.peek().has_value());
  EXPECT_EQ(*q.peek(), packet(2, 0));
  q.consume();
  EXPECT_EQ(*q.peek(), packet(2, 1));
}

TEST(AqlQueue, FullQueueErrorLeavesStateUnchanged) {
  mem::GlobalMemory m;
  AqlQueue q = make(m, 4);
  for (std::uint32_t n = 0; n < 4; ++n)
    produce(q, packet(2, n));
  const std::uint64_t bell = q.doorbell();
  std::vector<PacketBytes> before;
  for (std::uint64_t i = 0; i < 4; ++i)
    before.push_back(read_slot(m, q.slot_address(i)));

  const Result<std::uint64_t> full = q.reserve();
  ASSERT_FALSE(full.ok());
  EXPECT_NE(full.error().message.find("full"), std::string::npos);
  EXPECT_EQ(q.write_index(), 4u);
  EXPECT_EQ(q.read_index(), 0u);
  EXPECT_EQ(q.doorbell(), bell);
  for (std::uint64_t i = 0; i < 4; ++i)
    EXPECT_EQ(read_slot(m, q.slot_address(i)), before[i]);
  EXPECT_TRUE(q.active());  // back-pressure is not a queue error

  // Freeing one slot allows exactly one more; a batch of 2 still does not fit.
  q.consume();
  EXPECT_FALSE(q.reserve(2).ok());
  EXPECT_EQ(q.write_index(), 4u);
  const Result<std::uint64_t> one = q.reserve();
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(*one, 4u);
  EXPECT_FALSE(q.reserve().ok());
  EXPECT_FALSE(q.reserve(0).ok());
  EXPECT_FALSE(q.reserve(5).ok());
}

TEST(AqlQueue, WritesOutsideTheReservedRangeAreRejected) {
  mem::GlobalMemory m;
  AqlQueue q = make(m, 4);
  EXPECT_FALSE(q.write_body(0, packet(2, 0)).ok());  // not reserved
  EXPECT_FALSE(q.publish_header(0, 2).ok());
  produce(q, packet(2, 0));
  q.consume();
  EXPECT_FALSE(q.publish_header(0, 2).ok());  // already consumed
  EXPECT_FALSE(q.peek().has_value());
}

TEST(AqlQueue, ConsumeResetsHeaderToInvalid) {
  mem::GlobalMemory m;
  AqlQueue q = make(m, 4);
  const PacketBytes p = packet(3, 9);
  produce(q, p);
  const mem::Addr slot = q.slot_address(0);
  EXPECT_EQ(header_of(read_slot(m, slot)), 3u);
  q.consume();
  const PacketBytes after = read_slot(m, slot);
  EXPECT_EQ(header_of(after), static_cast<std::uint16_t>(PacketType::kInvalid));
  EXPECT_TRUE(std::equal(after.begin() + 2, after.end(), p.begin() + 2));  // body untouched
  EXPECT_EQ(q.read_index(), 1u);
  EXPECT_FALSE(q.peek().has_value());
}

TEST(AqlQueue, DoorbellCarriesTheLastWriteIndex) {
  mem::GlobalMemory m;
  AqlQueue q = make(m, 8);
  std::vector<Signal::Value> rung;
  q.doorbell_signal().when(SignalCondition::kGte, 2, [&](Signal::Value v) { rung.push_back(v); });
  for (std::uint32_t n = 0; n < 5; ++n) {
    produce(q, packet(2, n));
    EXPECT_EQ(q.doorbell(), n);
  }
  EXPECT_EQ(q.doorbell_signal().stores(), 5u);
  EXPECT_EQ(rung, std::vector<Signal::Value>{2});  // the waiter fired once, at index 2
}

TEST(AqlQueue, ErrorStateIsolatesOneQueue) {
  mem::GlobalMemory m;
  AqlQueue bad = make(m, 4, kRing, 0);
  AqlQueue good = make(m, 4, kRing + 4 * 64, 1);
  produce(bad, packet(2, 1));
  produce(good, packet(2, 2));
  EXPECT_TRUE(bad.active());

  bad.set_error(Error{"queue 0: packet 0: bad header"});
  bad.set_error(Error{"a later error"});
  EXPECT_FALSE(bad.active());
  ASSERT_TRUE(bad.error().has_value());
  EXPECT_EQ(bad.error()->message, "queue 0: packet 0: bad header");  // first error sticks
  EXPECT_FALSE(bad.peek().has_value());
  EXPECT_FALSE(bad.reserve().ok());
  EXPECT_EQ(bad.write_index(), 1u);

  EXPECT_TRUE(good.active());
  EXPECT_FALSE(good.error().has_value());
  ASSERT_TRUE(good.peek().has_value());
  EXPECT_EQ(*good.peek(), packet(2, 2));
  good.consume();
  produce(good, packet(2, 3));
  EXPECT_EQ(*good.peek(), packet(2, 3));
}

TEST(Signal, StoreLoadAndWaiters) {
  Signal s(1);
  EXPECT_EQ(s.load_acquire(), 1);
  int fired_now = 0;
  s.when(SignalCondition::kNe, 0, [&](Signal::Value) { ++fired_now; });  // already holds
  EXPECT_EQ(fired_now, 1);
  EXPECT_EQ(s.waiters(), 0u);

  std::vector<Signal::Value> done;
  s.when(SignalCondition::kEq, 0, [&](Signal::Value v) { done.push_back(v); });
  s.when(SignalCondition::kLt, 0, [&](Signal::Value v) { done.push_back(100 + v); });
  EXPECT_EQ(s.waiters(), 2u);
  s.store_release(5);
  EXPECT_TRUE(done.empty());
  s.subtract_release(5);  // completion: 5 -> 0
  EXPECT_EQ(done, std::vector<Signal::Value>{0});
  s.subtract_release(1);
  EXPECT_EQ(done, (std::vector<Signal::Value>{0, 99}));
  EXPECT_EQ(s.waiters(), 0u);
  s.add_release(3);
  EXPECT_EQ(s.load_acquire(), 2);
  EXPECT_EQ(s.stores(), 4u);
}

}  // namespace
}  // namespace xpusim::cp
