// The shared buffer memory (src/fabric/buffer_memory.h): the register API's checks, the
// contiguous layout of an allocation, and the FIFO pointers that wrap at stop (seed4 ¶44-¶47).
#include "fabric/buffer_memory.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace xpusim::fabric {
namespace {

using V = std::vector<std::uint64_t>;

bool has(const Status& st, const std::string& part) {
  if (st.ok()) return false;
  for (const auto& e : st.errors()) {
    if (e.message.find(part) != std::string::npos) return true;
  }
  return false;
}

std::string first(const Status& st) {
  return st.ok() ? "ok" : st.error().message;
}

TEST(BufferMemory, QueueIdsAndNames) {
  BufferMemory m(4096, 32, 4, 2);
  EXPECT_EQ(m.queues(), 4u * 2 + 4 + 1);
  EXPECT_EQ(m.port_queue(3, 1), 7u);
  EXPECT_EQ(m.outbound_queue(2), 10u);
  EXPECT_EQ(m.inbound_queue(), 12u);
  EXPECT_EQ(m.queue_name(m.port_queue(3, 1)), "port3.vc1");
  EXPECT_EQ(m.queue_name(m.port_queue(0, 0)), "port0.vc0");
  EXPECT_EQ(m.queue_name(m.outbound_queue(2)), "outbound2");
  EXPECT_EQ(m.queue_name(m.inbound_queue()), "inbound");
  for (std::uint32_t q = 0; q < m.queues(); ++q) {
    EXPECT_EQ(m.capacity(q), 0u);
    EXPECT_EQ(m.range(q).start, 0u);
  }
  EXPECT_TRUE(m.drained());
}

TEST(BufferMemory, LayoutIsContiguousAndInOrder) {
  BufferMemory m(4096, 32, 4, 2);
  // Port 2 has no receive queues, so it gets no outbound queue either.
  const Allocation a{{256, 128, 0, 1024}, {{64, 192}, {96, 32}, {0, 0}, {512, 512}}};
  ASSERT_TRUE(m.program_layout(a, 64, 128).ok());
  std::uint64_t addr = 0;
  const auto expect_next = [&](std::uint32_t q, std::uint64_t size) {
    EXPECT_EQ(m.range(q).start, addr) << m.queue_name(q);
    EXPECT_EQ(m.capacity(q), size) << m.queue_name(q);
    EXPECT_EQ(m.head(q), addr);
    EXPECT_EQ(m.tail(q), addr);
    addr += size;
  };
  for (std::uint32_t p = 0; p < 4; ++p)
    expect_next(m.outbound_queue(p), p == 2 ? 0 : 64);
  expect_next(m.inbound_queue(), 128);
  for (std::uint32_t p = 0; p < 4; ++p) {
    for (std::uint32_t vc = 0; vc < 2; ++vc)
      expect_next(m.port_queue(p, vc), a.vc_bytes[p][vc]);
  }
  EXPECT_EQ(addr, 3 * 64 + 128 + 1408u);
  // Independently: non-empty ranges are aligned, inside memory and pairwise disjoint.
  std::vector<QueueRange> rs;
  for (std::uint32_t q = 0; q < m.queues(); ++q) {
    if (m.capacity(q) > 0) rs.push_back(m.range(q));
  }
  std::sort(rs.begin(), rs.end(), [](auto x, auto y) { return x.start < y.start; });
  EXPECT_EQ(rs.front().start, 0u);
  for (std::size_t i = 0; i < rs.size(); ++i) {
    EXPECT_EQ(rs[i].start % 32, 0u);
    EXPECT_LE(rs[i].stop, 4096u);
    if (i > 0) {
      EXPECT_EQ(rs[i].start, rs[i - 1].stop);
    }
  }
}

TEST(BufferMemory, LayoutErrorsChangeNothing) {
  BufferMemory m(1024, 32, 2, 1);
  ASSERT_TRUE(m.program_layout(Allocation{{256, 256}, {{256}, {256}}}, 64, 64).ok());
  const QueueRange before = m.range(m.port_queue(1, 0));

  auto st = m.program_layout(Allocation{{512, 512}, {{512}, {512}}}, 64, 64);
  EXPECT_TRUE(has(st, "needs 1216 B; the memory has 1024 B")) << first(st);
  st = m.program_layout(Allocation{{48, 256}, {{48}, {256}}}, 64, 64);
  EXPECT_TRUE(has(st, "port0.vc0 size of 48 B is not a multiple of the 32 B unit")) << first(st);
  st = m.program_layout(Allocation{{256, 256}, {{256}, {256}}}, 40, 64);
  EXPECT_TRUE(has(st, "outbound queue size of 40 B")) << first(st);
  st = m.program_layout(Allocation{{256, 128}, {{256}, {256}}}, 64, 64);
  EXPECT_TRUE(has(st, "port 1 has 128 B but its VCs sum to 256 B")) << first(st);
  st = m.program_layout(Allocation{{256}, {{256}}}, 64, 64);
  EXPECT_TRUE(has(st, "allocation has 1 ports")) << first(st);
  EXPECT_EQ(m.range(m.port_queue(1, 0)).start, before.start);
  EXPECT_EQ(m.range(m.port_queue(1, 0)).stop, before.stop);
}

TEST(BufferMemory, ReprogramOnlyWhenDrained) {
  BufferMemory m(1024, 32, 2, 1);
  const Allocation a{{256, 256}, {{256}, {256}}};
  ASSERT_TRUE(m.program_layout(a, 64, 64).ok());
  const std::uint32_t q = m.port_queue(1, 0);
  m.push(q, 10);
  EXPECT_FALSE(m.drained());
  auto st = m.program_layout(a, 64, 64);
  EXPECT_TRUE(has(st, "port1.vc0 holds 32 B")) << first(st);
  st = m.program(q, {m.range(q).start, m.range(q).stop - 32});
  EXPECT_TRUE(has(st, "port1.vc0 holds 32 B")) << first(st);
  EXPECT_EQ(m.used(q), 32u);  // nothing changed
  m.pop(q, 32);
  EXPECT_TRUE(m.drained());
  EXPECT_TRUE(m.program_layout(a, 64, 64).ok());
}

TEST(BufferMemory, ProgramChecks) {
  BufferMemory m(1024, 32, 2, 1);
  const std::uint32_t p0 = m.port_queue(0, 0), p1 = m.port_queue(1, 0);
  ASSERT_TRUE(m.program(p0, {0, 256}).ok());

  auto st = m.program(p1, {64, 320});
  EXPECT_TRUE(has(st, "port1.vc0 range [0x40, 0x140) overlaps port0.vc0 [0x0, 0x100)"))
      << first(st);
  st = m.program(p1, {272, 512});
  EXPECT_TRUE(has(st, "not aligned to the 32 B allocation unit")) << first(st);
  st = m.program(p1, {512, 1056});
  EXPECT_TRUE(has(st, "outside the 1024 B memory")) << first(st);
  st = m.program(p1, {512, 256});
  EXPECT_TRUE(has(st, "stop 0x100 is below its start 0x200")) << first(st);
  st = m.program(99, {0, 0});
  EXPECT_TRUE(has(st, "queue id 99 out of range")) << first(st);
  EXPECT_EQ(m.capacity(p1), 0u);  // none of the refused writes changed it

  // Zero-size queues are legal anywhere in range, even inside another queue, and a queue
  // overlapping only zero-size ones is fine; a range may end exactly at the memory's end.
  EXPECT_TRUE(m.program(m.inbound_queue(), {128, 128}).ok());
  EXPECT_TRUE(m.program(m.outbound_queue(0), {1024, 1024}).ok());
  EXPECT_TRUE(m.program(p1, {256, 1024}).ok());
  EXPECT_TRUE(m.program(m.outbound_queue(1), {512, 512}).ok());
  // Re-programming a queue does not collide with its own old range.
  EXPECT_TRUE(m.program(p0, {32, 256}).ok());
  EXPECT_EQ(m.capacity(p0), 224u);
}

TEST(BufferMemory, FifoPointersWrapAtStop) {
  BufferMemory m(1024, 32, 1, 1);
  const std::uint32_t q = m.port_queue(0, 0);
  ASSERT_TRUE(m.program(q, {64, 224}).ok());  // 160 B = 5 units
  EXPECT_EQ(m.footprint(40), 64u);
  EXPECT_EQ(m.push(q, 40), 64u);
  EXPECT_EQ(m.push(q, 64), 128u);
  EXPECT_EQ(m.tail(q), 192u);
  EXPECT_EQ(m.free(q), 32u);
  EXPECT_EQ(m.pop(q, 64), 64u);
  EXPECT_EQ(m.head(q), 128u);
  // This packet straddles stop: written at 192, the tail wraps to start + 32.
  EXPECT_EQ(m.push(q, 64), 192u);
  EXPECT_EQ(m.tail(q), 96u);
  EXPECT_EQ(m.push(q, 32), 96u);
  EXPECT_EQ(m.tail(q), 128u);
  EXPECT_EQ(m.free(q), 0u);
  EXPECT_EQ(m.pop(q, 64), 128u);
  EXPECT_EQ(m.pop(q, 64), 192u);
  EXPECT_EQ(m.head(q), 96u);
  EXPECT_EQ(m.pop(q, 32), 96u);
  EXPECT_EQ(m.head(q), m.tail(q));
  EXPECT_TRUE(m.drained());
  // Exactly filling to stop wraps the tail to start.
  ASSERT_TRUE(m.program(q, {64, 224}).ok());
  m.push(q, 160);
  EXPECT_EQ(m.tail(q), 64u);
  EXPECT_EQ(m.free(q), 0u);
}

// The router's pass-through (a packet consumed as it arrives) is a push and a pop of the same
// footprint: both pointers move and wrap, the occupancy stays.
TEST(BufferMemory, PassThroughMovesBothPointersAndKeepsTheOccupancy) {
  BufferMemory m(1024, 32, 1, 1);
  const std::uint32_t q = m.port_queue(0, 0);
  ASSERT_TRUE(m.program(q, {64, 224}).ok());  // 160 B
  EXPECT_EQ(m.push_fp(q, 64), 64u);
  m.pass_fp(q, 64);
  EXPECT_EQ(m.tail(q), 192u);
  EXPECT_EQ(m.head(q), 128u);
  EXPECT_EQ(m.used(q), 64u);
  m.pass_fp(q, 96);  // the last 96 B: both pointers wrap past stop
  EXPECT_EQ(m.tail(q), 128u);
  EXPECT_EQ(m.head(q), 64u);
  EXPECT_EQ(m.used(q), 64u);
  EXPECT_EQ(m.pop_fp(q, 64), 64u);
  EXPECT_EQ(m.head(q), m.tail(q));
  EXPECT_TRUE(m.drained());
}

TEST(BufferMemoryDeathTest, OverflowAndUnderflowAreInternalErrors) {
  BufferMemory m(1024, 32, 1, 1);
  const std::uint32_t q = m.port_queue(0, 0);
  ASSERT_TRUE(m.program(q, {0, 64}).ok());
  m.push(q, 64);
  EXPECT_DEATH(m.push(q, 1), "overflows");
  m.pop(q, 64);
  EXPECT_DEATH(m.pop(q, 32), "underflows");
  // The datapath forms check the same: a pass-through needs room for the packet.
  m.push_fp(q, 32);
  EXPECT_DEATH(m.pass_fp(q, 64), "overflows");
  EXPECT_DEATH(m.pop_fp(q, 64), "underflows");
}

}  // namespace
}  // namespace xpusim::fabric
