#include "cp/host.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cp/condensed.h"
#include "cp/reference_table.h"

namespace xpusim::cp {
namespace {

// Kripke's iteration (seed3 ¶66): six kernels, same sizes, own code object and kernarg each.
std::vector<DispatchPacket> kripke(std::size_t kernels = 6) {
  std::vector<DispatchPacket> out;
  for (std::size_t k = 0; k < kernels; ++k) {
    DispatchPacket p;
    p.header.acquire = FenceScope::kAgent;
    p.header.release = FenceScope::kAgent;
    p.setup = 3;
    p.workgroup_size = {64, 4, 1};
    p.grid_size = {4096, 64, 32};
    p.private_segment_size = 256;
    p.group_segment_size = 8192;
    p.kernel_object = 0x7f00'0000'1000 + k * 0x1000;
    p.kernarg_address = 0x6000'0000 + k * 0x100;
    p.completion_signal = k + 1 == kernels ? 0xC0DE : 0;  // only the last one signals the host
    out.push_back(p);
  }
  return out;
}

// A minimal packet processor (seed3 processes 300 and 600): drains `q`, keeps the RST, and
// returns the dispatch packets it would launch, in order.
std::vector<DispatchPacket> drain(AqlQueue& q, ReferenceTable& rst,
                                  std::size_t* packets = nullptr) {
  std::vector<DispatchPacket> launched;
  while (const std::optional<PacketBytes> bytes = q.peek()) {
    if (packets) ++*packets;
    const Result<PacketType> type = packet_type(*bytes);
    EXPECT_TRUE(type.ok());
    if (*type == PacketType::kCondensedDispatch) {
      const Result<CondensedPacket> c = decode_condensed(*bytes);
      EXPECT_TRUE(c.ok()) << c.error().message;
      for (const KernelDiff& d : c->kernels) {
        const Result<DispatchPacket> ref = rst.lookup(d.ref_num);
        EXPECT_TRUE(ref.ok());
        launched.push_back(apply(*ref, d));
      }
    } else {
      const Result<DispatchPacket> p = decode_dispatch(*bytes);
      EXPECT_TRUE(p.ok()) << p.error().message;
      if (p->is_reference) rst.store(static_cast<std::uint8_t>(p->ref_num), *p);
      launched.push_back(*p);
    }
    q.consume();
  }
  return launched;
}

// What the launch does, minus the reference marking.
DispatchPacket plain(DispatchPacket p) {
  p.is_reference = false;
  p.ref_num = 0;
  return p;
}

TEST(TaskGraph, KripkeSendsSixReferencesThenOneCondensedPacketPerIteration) {
  const std::vector<DispatchPacket> graph_launches = kripke();
  const Result<TaskGraph> g = TaskGraph::record(graph_launches);
  ASSERT_TRUE(g.ok()) << g.error().message;
  EXPECT_EQ(g->references(), 6u);

  const std::vector<DispatchPacket> first = g->first_launch();
  ASSERT_EQ(first.size(), 6u);
  for (std::size_t k = 0; k < 6; ++k) {
    EXPECT_TRUE(first[k].is_reference) << k;
    EXPECT_EQ(first[k].ref_num, k);
    EXPECT_EQ(plain(first[k]), graph_launches[k]);
  }

  const std::vector<CondensedPacket> replay = g->replay();
  ASSERT_EQ(replay.size(), 1u);
  ASSERT_EQ(replay[0].kernels.size(), 6u);
  const Result<PacketBytes> bytes = encode(replay[0]);
  ASSERT_TRUE(bytes.ok()) << bytes.error().message;
  EXPECT_EQ(bytes->size(), 64u);
  EXPECT_EQ((*bytes)[0], static_cast<std::byte>(PacketType::kCondensedDispatch));
  EXPECT_EQ((*bytes)[1], std::byte{6});

  // Decode + apply against the RST the first launch filled reproduces every launch exactly.
  ReferenceTable rst;
  for (const DispatchPacket& r : first)
    rst.store(static_cast<std::uint8_t>(r.ref_num), r);
  const Result<CondensedPacket> back = decode_condensed(*bytes);
  ASSERT_TRUE(back.ok()) << back.error().message;
  ASSERT_EQ(back->kernels.size(), 6u);
  for (std::size_t k = 0; k < 6; ++k) {
    EXPECT_EQ(back->kernels[k].diff_vector, 0u) << k;  // identical relaunch: 1 slot each
    const Result<DispatchPacket> ref = rst.lookup(back->kernels[k].ref_num);
    ASSERT_TRUE(ref.ok());
    EXPECT_EQ(apply(*ref, back->kernels[k]), graph_launches[k]) << k;
  }
}

TEST(TaskGraph, KripkeThroughTheQueueForManyIterations) {
  mem::GlobalMemory m;
  Host host(m);
  Result<AqlQueue> q = host.create_queue(8);
  ASSERT_TRUE(q.ok());
  const std::vector<DispatchPacket> launches = kripke();
  const Result<TaskGraph> g = TaskGraph::record(launches);
  ASSERT_TRUE(g.ok());

  ReferenceTable rst;
  std::size_t packets = 0;
  ASSERT_TRUE(host.launch_first(*q, *g).ok());
  std::vector<DispatchPacket> got = drain(*q, rst, &packets);
  EXPECT_EQ(packets, 6u);
  ASSERT_EQ(got.size(), 6u);
  for (std::size_t k = 0; k < 6; ++k)
    EXPECT_EQ(plain(got[k]), launches[k]);

  for (int it = 0; it < 20; ++it) {  // 20 iterations on an 8-slot ring: wraps around
    packets = 0;
    const Result<std::uint64_t> idx = host.launch_replay(*q, *g);
    ASSERT_TRUE(idx.ok()) << idx.error().message;
    EXPECT_EQ(q->doorbell(), *idx);
    got = drain(*q, rst, &packets);
    EXPECT_EQ(packets, 1u) << it;  // one 64 B packet instead of six (384 B)
    EXPECT_EQ(got, launches) << it;
  }
  EXPECT_EQ(q->read_index(), 26u);
}

TEST(TaskGraph, PerIterationDiffsSplitAcrossCondensedPackets) {
  const std::vector<DispatchPacket> launches = kripke();
  const Result<TaskGraph> g = TaskGraph::record(launches);
  ASSERT_TRUE(g.ok());
  ReferenceTable rst;
  for (const DispatchPacket& r : g->first_launch())
    rst.store(static_cast<std::uint8_t>(r.ref_num), r);

  // Only the completion signal changes: 5 slots per kernel, 30 in all, still one packet.
  std::vector<DispatchPacket> next = launches;
  for (std::size_t k = 0; k < next.size(); ++k)
    next[k].completion_signal = 0xA000 + k;
  Result<std::vector<CondensedPacket>> r = g->replay(next);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ((*r)[0].kernels[0].diff_vector, 1u << 12);

  // A new kernarg too: 9 slots per kernel, 3 kernels per packet, so 2 packets.
  for (std::size_t k = 0; k < next.size(); ++k)
    next[k].kernarg_address = 0x9000'0000 + k * 64;
  r = g->replay(next);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->size(), 2u);
  std::vector<DispatchPacket> got;
  for (const CondensedPacket& c : *r) {
    EXPECT_EQ(c.kernels.size(), 3u);
    const Result<PacketBytes> b = encode(c);
    ASSERT_TRUE(b.ok()) << b.error().message;
    const Result<CondensedPacket> d = decode_condensed(*b);
    ASSERT_TRUE(d.ok());
    for (const KernelDiff& kd : d->kernels)
      got.push_back(apply(*rst.lookup(kd.ref_num), kd));
  }
  EXPECT_EQ(got, next);
  // Diffs never rewrote the references: an unchanged replay still needs no diff.
  EXPECT_EQ(g->replay().size(), 1u);

  EXPECT_FALSE(g->replay(std::span(next).first(5)).ok());
  next[2].is_reference = true;
  EXPECT_FALSE(g->replay(next).ok());
}

TEST(TaskGraph, MoreThanEightDistinctKernelsShareTheRst) {
  const std::vector<DispatchPacket> launches = kripke(12);
  const Result<TaskGraph> g = TaskGraph::record(launches);
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->references(), 8u);
  const std::vector<DispatchPacket> first = g->first_launch();
  ASSERT_EQ(first.size(), 12u);
  for (std::size_t k = 0; k < 12; ++k) {
    EXPECT_EQ(first[k].is_reference, k < 8) << k;
    EXPECT_EQ(plain(first[k]), launches[k]) << k;
  }

  mem::GlobalMemory m;
  Host host(m);
  Result<AqlQueue> q = host.create_queue(16);
  ASSERT_TRUE(q.ok());
  ReferenceTable rst;
  ASSERT_TRUE(host.launch_first(*q, *g).ok());
  std::vector<DispatchPacket> got = drain(*q, rst);
  ASSERT_EQ(got.size(), 12u);
  for (std::size_t k = 0; k < 12; ++k)
    EXPECT_EQ(plain(got[k]), launches[k]);

  // Kernels 8..11 diff kernel_object + kernarg (and the last its signal) against a reference.
  std::size_t packets = 0;
  ASSERT_TRUE(host.launch_replay(*q, *g).ok());
  got = drain(*q, rst, &packets);
  EXPECT_EQ(got, launches);
  EXPECT_GE(packets, 2u);  // 8 + 3 * 9 + 13 slots > 31
}

TEST(TaskGraph, IdenticalLaunchesShareOneReferenceAndLongGraphsSplit) {
  const std::vector<DispatchPacket> six = kripke();
  std::vector<DispatchPacket> launches;
  for (int rep = 0; rep < 7; ++rep)
    launches.insert(launches.end(), six.begin(), six.end());
  const Result<TaskGraph> g = TaskGraph::record(launches);  // 42 launches, 6 distinct
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->references(), 6u);
  const std::vector<DispatchPacket> first = g->first_launch();
  for (std::size_t k = 0; k < first.size(); ++k)
    EXPECT_EQ(first[k].is_reference, k < 6) << k;
  const std::vector<CondensedPacket> replay = g->replay();
  ASSERT_EQ(replay.size(), 2u);  // 42 one-slot kernels: 31 + 11
  EXPECT_EQ(replay[0].kernels.size(), 31u);
  EXPECT_EQ(replay[1].kernels.size(), 11u);
  for (std::size_t k = 0; k < launches.size(); ++k)
    EXPECT_EQ(g->ref_of(k), k % 6) << k;
}

TEST(TaskGraph, RecordRejectsBadGraphs) {
  EXPECT_FALSE(TaskGraph::record({}).ok());
  std::vector<DispatchPacket> l = kripke();
  l[1].is_reference = true;
  EXPECT_FALSE(TaskGraph::record(l).ok());
  l = kripke();
  l[3].reserved2 = 1;
  const Result<TaskGraph> r = TaskGraph::record(l);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("launch 3"), std::string::npos);
  l = kripke();
  l[0].header.type = PacketType::kBarrierAnd;
  EXPECT_FALSE(TaskGraph::record(l).ok());
}

TEST(Host, CreateQueueGivesDistinctRingsAndIds) {
  mem::GlobalMemory m;
  Host host(m, 0x4000);
  Result<AqlQueue> a = host.create_queue(4);
  Result<AqlQueue> bad = host.create_queue(6);
  Result<AqlQueue> b = host.create_queue(8);
  ASSERT_TRUE(a.ok());
  EXPECT_FALSE(bad.ok());
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(a->id(), 0u);
  EXPECT_EQ(b->id(), 1u);
  EXPECT_EQ(a->ring_base(), 0x4000u);
  EXPECT_EQ(b->ring_base(), 0x4000u + 4 * 64);  // the failed create took no memory
}

TEST(Host, SubmitWritesBodyHeaderAndDoorbell) {
  mem::GlobalMemory m;
  Host host(m);
  Result<AqlQueue> q = host.create_queue(4);
  ASSERT_TRUE(q.ok());
  DispatchPacket d = kripke()[2];
  const Result<std::uint64_t> i0 = host.submit(*q, d);
  BarrierPacket b;
  b.header.type = PacketType::kBarrierOr;
  b.dep_signal = {0x11, 0x22, 0, 0, 0};
  const Result<std::uint64_t> i1 = host.submit(*q, b);
  ASSERT_TRUE(i0.ok() && i1.ok());
  EXPECT_EQ(*i0, 0u);
  EXPECT_EQ(*i1, 1u);
  EXPECT_EQ(q->doorbell(), 1u);
  EXPECT_EQ(q->doorbell_signal().stores(), 2u);

  PacketBytes in_memory{};
  ASSERT_TRUE(m.read(q->slot_address(0), in_memory).ok());
  EXPECT_EQ(in_memory, encode(d));
  ASSERT_TRUE(m.read(q->slot_address(1), in_memory).ok());
  EXPECT_EQ(in_memory, encode(b));
  ASSERT_TRUE(q->peek().has_value());
  EXPECT_EQ(*decode_dispatch(*q->peek()), d);
  q->consume();
  EXPECT_EQ(*decode_barrier(*q->peek()), b);
}

TEST(Host, SubmitErrorsChangeNothing) {
  mem::GlobalMemory m;
  Host host(m);
  Result<AqlQueue> q = host.create_queue(2);
  ASSERT_TRUE(q.ok());
  PacketBytes invalid{};
  invalid[0] = static_cast<std::byte>(PacketType::kInvalid);
  EXPECT_FALSE(host.submit(*q, invalid).ok());
  EXPECT_EQ(q->write_index(), 0u);
  EXPECT_EQ(q->doorbell_signal().stores(), 0u);

  BarrierPacket not_barrier;
  not_barrier.header.type = PacketType::kKernelDispatch;
  EXPECT_FALSE(host.submit(*q, not_barrier).ok());
  DispatchPacket bad_ref = kripke()[0];
  bad_ref.ref_num = 3;  // ref_num on a standard packet
  EXPECT_FALSE(host.submit(*q, bad_ref).ok());
  EXPECT_FALSE(host.submit(*q, CondensedPacket{}).ok());  // no kernels
  EXPECT_EQ(q->write_index(), 0u);

  // A batch that does not fit is refused whole.
  ASSERT_TRUE(host.submit(*q, kripke()[0]).ok());
  const std::vector<PacketBytes> two = {encode(kripke()[1]), encode(kripke()[2])};
  EXPECT_FALSE(host.submit_all(*q, two).ok());
  EXPECT_EQ(q->write_index(), 1u);
  EXPECT_EQ(q->doorbell(), 0u);
  EXPECT_FALSE(host.submit_all(*q, std::span<const PacketBytes>{}).ok());
}

TEST(Host, ErrorOnOneQueueLeavesTheOtherWorking) {
  mem::GlobalMemory m;
  Host host(m);
  Result<AqlQueue> a = host.create_queue(4);
  Result<AqlQueue> b = host.create_queue(4);
  ASSERT_TRUE(a.ok() && b.ok());
  a->set_error(Error{"queue 0: malformed packet at index 0"});
  EXPECT_FALSE(host.submit(*a, kripke()[0]).ok());
  EXPECT_EQ(a->write_index(), 0u);
  ASSERT_TRUE(host.submit(*b, kripke()[0]).ok());
  ReferenceTable rst;
  EXPECT_EQ(drain(*b, rst), std::vector<DispatchPacket>{kripke()[0]});
}

}  // namespace
}  // namespace xpusim::cp
