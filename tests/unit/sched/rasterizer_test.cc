#include "sched/rasterizer.h"

#include <random>
#include <vector>

#include <gtest/gtest.h>

namespace xpusim::sched {
namespace {

TEST(RasterDecode, MatchesNestedLoopsOnSmallGrids) {
  for (std::uint32_t gx = 1; gx <= 5; ++gx) {
    for (std::uint32_t gy = 1; gy <= 4; ++gy) {
      for (std::uint32_t gz = 1; gz <= 3; ++gz) {
        const GridDims g{gx, gy, gz};
        std::uint64_t linear = 0;
        // Independent reference: x innermost (seed1 ¶177).
        for (std::uint32_t z = 0; z < gz; ++z) {
          for (std::uint32_t y = 0; y < gy; ++y) {
            for (std::uint32_t x = 0; x < gx; ++x, ++linear) {
              ASSERT_EQ(decode_linear(g, linear), (CtaId{x, y, z})) << linear;
              ASSERT_EQ(encode_linear(g, CtaId{x, y, z}), linear);
            }
          }
        }
        EXPECT_EQ(linear, g.count());
      }
    }
  }
}

TEST(RasterDecode, LargeGridCorners) {
  const GridDims g{(1u << 31) - 1, 65535, 65535};
  EXPECT_EQ(decode_linear(g, g.count() - 1), (CtaId{g.x - 1, g.y - 1, g.z - 1}));
  EXPECT_EQ(decode_linear(g, g.x), (CtaId{0, 1, 0}));
  EXPECT_EQ(decode_linear(g, std::uint64_t{g.x} * g.y), (CtaId{0, 0, 1}));
}

TEST(RasterDecode, CheckGridDims) {
  EXPECT_TRUE(check_grid_dims({1, 1, 1}).ok());
  EXPECT_TRUE(check_grid_dims({(1u << 31) - 1, 65535, 65535}).ok());
  const Status zero = check_grid_dims({4, 0, 1});
  ASSERT_FALSE(zero.ok());
  EXPECT_EQ(zero.error().message,
            "grid.y = 0: must be in [1, 65535] (32b-16b-16b CTA id, seed1 ¶175)");
  EXPECT_FALSE(check_grid_dims({1u << 31, 1, 1}).ok());
  EXPECT_FALSE(check_grid_dims({1, 1, 65536}).ok());
}

// seed1 ¶229: CTA (7,3,0) of the 18×12 grid of 3×2 CGAs has cga_cta_id 4.
TEST(CgaCtaId, PatentExample) {
  const GridDims cluster{3, 2, 1};
  EXPECT_EQ(cga_cta_id(cluster, {7, 3, 0}), 4u);
  EXPECT_EQ(cluster_id(cluster, {7, 3, 0}), (CtaId{2, 1, 0}));
}

TEST(CgaCtaId, EveryClusterOf18x12HasRanks0To5Once) {
  const GridDims grid{18, 12, 1}, cluster{3, 2, 1};
  std::vector<int> seen(6 * 6 * 6, 0);  // cluster (6×6) × rank (6)
  for (std::uint64_t i = 0; i < grid.count(); ++i) {
    const CtaId cta = decode_linear(grid, i);
    const CtaId c = cluster_id(cluster, cta);
    const std::uint32_t rank = cga_cta_id(cluster, cta);
    ASSERT_LT(c.x, 6u);
    ASSERT_LT(c.y, 6u);
    ASSERT_LT(rank, 6u);
    ++seen[(c.y * 6 + c.x) * 6 + rank];
  }
  for (int n : seen)
    EXPECT_EQ(n, 1);
}

TEST(RasterSm, CarryChainAcrossYAndZ) {
  const GridDims g{5, 3, 4};
  // x carry into y, and y's carry into z, in one decode: 28 + 3 = 31.
  SmRasterizer a(g, CtaId{3, 2, 1});
  a.observe(3);
  EXPECT_EQ(a.launch_own(), (CtaId{1, 0, 2}));
  // A delta over a whole x·y plane: zdelta 1 plus both carries, 14 + 16 = 30.
  SmRasterizer b(g, CtaId{4, 2, 0});
  b.observe(16);
  EXPECT_EQ(b.launch_own(), (CtaId{0, 0, 2}));
  // After our own launch the next is one further.
  b.observe(0);
  EXPECT_EQ(b.launch_own(), (CtaId{1, 0, 2}));
}

TEST(RasterSm, OverflowDecodesAreLazy) {
  SmRasterizer r(GridDims{100, 1, 1}, 2);  // delta counter 0..3
  r.observe(3);
  EXPECT_EQ(r.overflow_decodes(), 0u);  // full, but nothing more arrived yet
  r.observe(7);                         // 3 + 7 = 10 = 3 + 3 + 3 + 1
  EXPECT_EQ(r.overflow_decodes(), 3u);
  EXPECT_EQ(r.pending_delta(), 1u);
  EXPECT_EQ(r.launch_own(), (CtaId{10, 0, 0}));
  EXPECT_EQ(r.decodes(), 4u);
  EXPECT_EQ(r.launches_seen(), 11u);
}

TEST(RasterSm, OverrunDies) {
  EXPECT_DEATH(
      {
        SmRasterizer r(GridDims{2, 2, 1});
        r.observe(4);
        r.launch_own();
      },
      "past the end");
  EXPECT_DEATH(
      {
        SmRasterizer r(GridDims{2, 2, 1});
        r.observe(5);
      },
      "more launches");
}

GridDims random_grid(std::mt19937_64& rng) {
  const auto upto = [&](std::uint32_t n) { return 1 + static_cast<std::uint32_t>(rng() % n); };
  switch (rng() % 5) {
    case 0:
      return {upto(12), upto(12), upto(12)};
    case 1:  // 1-wide dims
      return {rng() % 2 ? 1u : upto(40), rng() % 2 ? 1u : upto(40), rng() % 2 ? 1u : upto(8)};
    case 2:  // large x
      return {rng() % 2 ? 1u << 20 : upto(1u << 20), upto(2), 1};
    case 3:  // tall y and z
      return {upto(4), upto(600), upto(300)};
    default:
      return {upto(300), upto(300), upto(4)};
  }
}

// Distributed rasterization equals the centralized decode (digest §5 item 15): 8 tracked SMs
// launch in a random interleaving with the "rest of the GPU", whose launches arrive in random
// bursts; half the grids deliver every broadcast at once, half lazily on the SM's next launch.
TEST(RasterSm, EqualsCentralDecodeOnRandomGrids) {
  std::mt19937_64 rng(0x5eed1);
  constexpr std::uint32_t kSms = 8;
  std::uint64_t overflows = 0, own = 0;
  for (int trial = 0; trial < 600; ++trial) {
    const GridDims g = random_grid(rng);
    // Overflow decodes cost O(CTAs / 2^bits): the narrowest counters only on smaller grids.
    const std::uint32_t bits = g.count() <= 50000
                                   ? std::vector<std::uint32_t>{1, 2, 3, 3, 5, 8, 16}[rng() % 7]
                                   : std::vector<std::uint32_t>{5, 8, 16}[rng() % 3];
    const bool eager = rng() % 2;
    std::vector<SmRasterizer> sms(kSms, SmRasterizer(g, bits));
    std::vector<std::uint64_t> synced(kSms, 0);
    const auto catch_up = [&](std::uint32_t s, std::uint64_t upto) {
      sms[s].observe(static_cast<std::uint32_t>(upto - synced[s]));
      synced[s] = upto;
    };
    const std::uint64_t total = g.count();
    const std::uint64_t burst = 1 + total / 64;
    std::uint64_t i = 0;
    while (i < total) {
      if (rng() % 10 < 6) {
        const auto s = static_cast<std::uint32_t>(rng() % kSms);
        catch_up(s, i);
        ASSERT_EQ(sms[s].launch_own(), decode_linear(g, i))
            << "grid " << g.x << "x" << g.y << "x" << g.z << " bits " << bits << " i " << i;
        synced[s] = ++i;
      } else {
        i += std::min(total - i, 1 + rng() % (rng() % 2 ? 16 : burst));
      }
      if (eager) {
        for (std::uint32_t s = 0; s < kSms; ++s)
          catch_up(s, i);
      }
    }
    for (std::uint32_t s = 0; s < kSms; ++s) {
      catch_up(s, total);
      EXPECT_EQ(sms[s].launches_seen(), total);
      overflows += sms[s].overflow_decodes();
      own += sms[s].decodes() - sms[s].overflow_decodes();
    }
  }
  EXPECT_GT(overflows, 1000u);  // small delta_bits did force overflow decodes
  EXPECT_GT(own, 10000u);
}

// Hand-worked: 64 CTAs round-robin on 16 SMs, 4 CTAs per packet. Packet = 4 B header + 2 B mask.
//  centralized: min(decode 1/1, issue 1, bus 32/8 = 4) = 1 id/cycle, 8 B/CTA.
//  distributed: 16 packets, 96 B; min(decode 64/4 = 16, issue 64·1/16 = 4, bus 64·32/96) = 4.
TEST(RasterCost, HandWorkedRoundRobin) {
  std::vector<std::uint32_t> order(64);
  for (std::uint32_t i = 0; i < 64; ++i)
    order[i] = i % 16;
  RasterCostModel m;
  m.ctas_per_packet = 4;
  const RasterComparison r = compare_rasterization({16, 4, 1}, 16, order, m);
  EXPECT_EQ(r.ctas, 64u);
  EXPECT_EQ(r.central_bytes, 64u * 8);
  EXPECT_DOUBLE_EQ(r.central_bytes_per_cta, 8.0);
  EXPECT_EQ(r.packets, 16u);
  EXPECT_EQ(r.packet_bytes, 6u);
  EXPECT_EQ(r.distributed_bytes, 96u);
  EXPECT_DOUBLE_EQ(r.distributed_bytes_per_cta, 1.5);
  EXPECT_DOUBLE_EQ(r.central_ids_per_cycle, 1.0);
  EXPECT_EQ(r.central_bound, RasterBound::kDecode);
  EXPECT_DOUBLE_EQ(r.distributed_ids_per_cycle, 4.0);
  EXPECT_EQ(r.distributed_bound, RasterBound::kPacketIssue);
  EXPECT_DOUBLE_EQ(r.speedup(), 4.0);
  ASSERT_EQ(r.decodes_per_sm.size(), 16u);
  for (std::uint64_t d : r.decodes_per_sm)
    EXPECT_EQ(d, 4u);
  EXPECT_EQ(r.overflow_decodes, 0u);

  // 3-bit delta: SM0 sees 15 others between its launches and 15 after its last, 2 overflow
  // decodes each time (7 + 7 + 1): 4 own + 8 overflow.
  m.delta_bits = 3;
  const RasterComparison small = compare_rasterization({16, 4, 1}, 16, order, m);
  EXPECT_EQ(small.decodes_per_sm[0], 12u);
  EXPECT_DOUBLE_EQ(small.distributed_ids_per_cycle, 4.0);
  // Decode-bound once packets are free: 64 / (12 decodes · 1 cycle).
  m.cwd_packets_per_cycle = 16;
  m.bus_bytes_per_cycle = 1024;
  const RasterComparison dec = compare_rasterization({16, 4, 1}, 16, order, m);
  EXPECT_EQ(dec.distributed_bound, RasterBound::kDecode);
  EXPECT_DOUBLE_EQ(dec.distributed_ids_per_cycle, 64.0 / 12.0);
}

TEST(RasterCost, BytesPerCtaBelowIdOnlyWhenPacketsCarrySeveral) {
  std::vector<std::uint32_t> order(144 * 8);
  for (std::size_t i = 0; i < order.size(); ++i)
    order[i] = static_cast<std::uint32_t>(i % 144);
  RasterCostModel m;
  // One CTA per packet on 144 SMs: 4 + 18 B per CTA, worse than the 8 B id.
  const RasterComparison one = compare_rasterization({144, 8, 1}, 144, order, m);
  EXPECT_DOUBLE_EQ(one.central_bytes_per_cta, 8.0);
  EXPECT_DOUBLE_EQ(one.distributed_bytes_per_cta, 22.0);
  m.ctas_per_packet = 4;
  const RasterComparison four = compare_rasterization({144, 8, 1}, 144, order, m);
  EXPECT_DOUBLE_EQ(four.distributed_bytes_per_cta, 5.5);
  EXPECT_LT(four.distributed_bytes_per_cta, four.central_bytes_per_cta);
}

// The patent's ×36 (¶191) comes out when a packet carries 36 CTAs: issue-bound at 36 ids/cycle
// (bus 32·1152/(32·22) ≈ 52, decoders 144).
TEST(RasterCost, Times36NeedsThirtySixCtasPerPacket) {
  std::vector<std::uint32_t> order(144 * 8);
  for (std::size_t i = 0; i < order.size(); ++i)
    order[i] = static_cast<std::uint32_t>(i % 144);
  RasterCostModel m;
  m.ctas_per_packet = 36;
  const RasterComparison r = compare_rasterization({144, 8, 1}, 144, order, m);
  EXPECT_EQ(r.packets, 32u);
  EXPECT_DOUBLE_EQ(r.speedup(), 36.0);
  EXPECT_EQ(r.distributed_bound, RasterBound::kPacketIssue);
}

TEST(RasterCost, PacketsBreakWhenSmsDoNotAscend) {
  const std::vector<std::uint32_t> order{3, 1, 2, 2, 0};
  RasterCostModel m;
  m.ctas_per_packet = 4;
  // [3] [1 2] [2] [0]: a mask cannot say which of two CTAs comes first, nor hold one SM twice.
  EXPECT_EQ(compare_rasterization({5, 1, 1}, 4, order, m).packets, 4u);
}

TEST(RasterCost, CheckCostModel) {
  EXPECT_TRUE(check_cost_model({}, 1).ok());
  RasterCostModel m;
  m.ctas_per_packet = 17;
  const Status s = check_cost_model(m, 16);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message,
            "raster cost model ctas_per_packet = 17: must be <= num_sms = 16 (one sm_mask bit per "
            "CTA, seed1 ¶195)");
  m = {};
  m.bus_bytes_per_cycle = 0;
  EXPECT_EQ(check_cost_model(m, 16).error().message,
            "raster cost model bus_bytes_per_cycle = 0: must be >= 1");
  m = {};
  m.delta_bits = 32;
  EXPECT_FALSE(check_cost_model(m, 16).ok());
  EXPECT_FALSE(check_cost_model({}, 0).ok());
}

}  // namespace
}  // namespace xpusim::sched
