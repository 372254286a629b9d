// build_topology (src/fabric/topology.h): grid port numbering and wrap-around, the TPU v4 media
// rule counted independently, slices and failures marking ports unused, the latency table,
// and port symmetry for every shipped pod.
#include "fabric/topology.h"

#include <algorithm>
#include <array>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "fabric_test_util.h"

namespace xpusim::fabric {
namespace {

using namespace testutil;

using Coord = std::array<std::uint32_t, 3>;

std::array<std::uint32_t, kMediumCount> count_media(const Topology& t) {
  std::array<std::uint32_t, kMediumCount> n{};
  for (const LinkInfo& l : t.links())
    ++n[static_cast<std::size_t>(l.medium)];
  return n;
}

// The TPU v4 media rule, counted from scratch: walk every chip's + neighbour in every
// dimension of an X x Y x Z torus; a wrap-around or a cube-face crossing is optical, two
// chips on one tray are PCB, anything else is copper.
std::array<std::uint32_t, kMediumCount> expected_tpuv4_media(Coord dims, std::uint32_t cube,
                                                             Coord tray) {
  std::array<std::uint32_t, kMediumCount> n{};
  for (std::uint32_t z = 0; z < dims[2]; ++z) {
    for (std::uint32_t y = 0; y < dims[1]; ++y) {
      for (std::uint32_t x = 0; x < dims[0]; ++x) {
        const Coord a{x, y, z};
        for (int d = 0; d < 3; ++d) {
          Coord b = a;
          b[d] = (a[d] + 1) % dims[d];
          Medium m = Medium::kCopper;
          if (b[d] == 0 || a[d] / cube != b[d] / cube) {
            m = Medium::kOptical;
          } else if (a[0] / tray[0] == b[0] / tray[0] && a[1] / tray[1] == b[1] / tray[1] &&
                     a[2] / tray[2] == b[2] / tray[2]) {
            m = Medium::kPcb;
          }
          ++n[static_cast<std::size_t>(m)];
        }
      }
    }
  }
  return n;
}

constexpr auto kPcb = static_cast<std::size_t>(Medium::kPcb);
constexpr auto kCopper = static_cast<std::size_t>(Medium::kCopper);
constexpr auto kOptical = static_cast<std::size_t>(Medium::kOptical);

TEST(Topology, TpuV4CubeCountsAndMedia) {
  const Topology t = pod_file("tpuv4-4x4x4");
  ASSERT_EQ(t.chips(), 64u);
  EXPECT_EQ(t.active_chips(), 64u);
  EXPECT_EQ(t.rank(), 3u);
  EXPECT_TRUE(t.wraps(0) && t.wraps(1) && t.wraps(2));
  ASSERT_EQ(t.links().size(), 192u);
  const auto media = count_media(t);
  EXPECT_EQ(media, expected_tpuv4_media({4, 4, 4}, 4, {2, 2, 1}));
  // By hand: 48 wrap-arounds (3 dims x 16 rings), 16 trays x 4 PCB links, the rest copper.
  EXPECT_EQ(media[kOptical], 48u);
  EXPECT_EQ(media[kPcb], 64u);
  EXPECT_EQ(media[kCopper], 80u);
  std::uint32_t wraps = 0;
  for (const LinkInfo& l : t.links()) {
    EXPECT_TRUE(l.used);
    EXPECT_FALSE(l.failed);
    if (l.wraps) {
      ++wraps;
      EXPECT_EQ(l.medium, Medium::kOptical);
      EXPECT_EQ(t.coord(l.chip_a)[l.dim], 3u);
      EXPECT_EQ(t.coord(l.chip_b)[l.dim], 0u);
    }
    EXPECT_EQ(l.port_a, 2u * l.dim);
    EXPECT_EQ(l.port_b, 2u * l.dim + 1);
  }
  EXPECT_EQ(wraps, 48u);
  for (std::uint32_t c = 0; c < t.chips(); ++c)
    EXPECT_EQ(t.used_ports(c), 6u) << "chip " << c;
  EXPECT_EQ(t.summary(),
            "tpuv4 4x4x4: 64 chips (64 active), 192 links (64 pcb, 80 copper, 48 optical; 192 "
            "used, 0 failed), 384 used ports of 384");
}

TEST(Topology, TpuV4FullPodMedia) {
  const Topology t = pod_file("tpuv4-16x16x16");
  ASSERT_EQ(t.chips(), 4096u);
  ASSERT_EQ(t.links().size(), 3u * 4096);
  const auto media = count_media(t);
  EXPECT_EQ(media, expected_tpuv4_media({16, 16, 16}, 4, {2, 2, 1}));
  // Per ring of 16 chips: 1 wrap + 3 cube crossings optical; 8 PCB in x and y, 0 in z.
  EXPECT_EQ(media[kOptical], 3u * 256 * 4);
  EXPECT_EQ(media[kPcb], 2u * 256 * 8);
  EXPECT_EQ(media[kCopper], 12288u - 3072 - 4096);
  const LinkInfo& l = t.links()[t.port(t.chip_at({3, 0, 0}), 0).link];  // crosses a cube face
  EXPECT_EQ(l.medium, Medium::kOptical);
  EXPECT_FALSE(l.wraps);
}

TEST(Topology, GridPortNumberingAndCoordinates) {
  const Topology t = pod_file("tpuv4-4x4x4");
  for (std::uint32_t c = 0; c < t.chips(); ++c)
    EXPECT_EQ(t.chip_at(t.coord(c)), c);
  EXPECT_EQ(t.chip_at({1, 2, 3}), 1u + 4 * (2 + 4 * 3));
  EXPECT_EQ(t.chip_at({4, 0, 0}), kNoChip);
  const std::uint32_t c = t.chip_at({1, 2, 3});
  const std::array<Coord, 6> peers{Coord{2, 2, 3}, Coord{0, 2, 3}, Coord{1, 3, 3},
                                   Coord{1, 1, 3}, Coord{1, 2, 0}, Coord{1, 2, 2}};
  for (std::uint32_t p = 0; p < 6; ++p) {
    const PortInfo& info = t.port(c, p);
    ASSERT_TRUE(info.connected);
    EXPECT_EQ(info.peer_chip, t.chip_at(peers[p])) << "port " << p;
    EXPECT_EQ(info.peer_port, p ^ 1u) << "port " << p;
  }
  EXPECT_EQ(t.port(c, 4).medium, Medium::kOptical);  // z = 3 -> 0 wraps
  EXPECT_DOUBLE_EQ(t.port(c, 4).length_m, 20.0);
  // [0,0,0] +x -> [1,0,0]: same 2x2x1 tray -> PCB; [1,0,0] +x -> [2,0,0]: next tray -> copper.
  EXPECT_EQ(t.port(t.chip_at({0, 0, 0}), 0).medium, Medium::kPcb);
  EXPECT_EQ(t.port(t.chip_at({1, 0, 0}), 0).medium, Medium::kCopper);
  EXPECT_EQ(t.port(t.chip_at({0, 0, 0}), 4).medium, Medium::kCopper);  // tray is 1 chip in z
}

TEST(Topology, MeshEdgesAreUnconnected) {
  const Topology t = pod_file("mesh-4x4");
  ASSERT_EQ(t.chips(), 16u);
  EXPECT_FALSE(t.wraps(0));
  EXPECT_FALSE(t.wraps(1));
  EXPECT_EQ(t.links().size(), 2u * 4 * 3);
  for (std::uint32_t c = 0; c < t.chips(); ++c) {
    const Coord xy = t.coord(c);
    EXPECT_EQ(t.port(c, 0).connected, xy[0] != 3);
    EXPECT_EQ(t.port(c, 1).connected, xy[0] != 0);
    EXPECT_EQ(t.port(c, 2).connected, xy[1] != 3);
    EXPECT_EQ(t.port(c, 3).connected, xy[1] != 0);
    EXPECT_FALSE(t.port(c, 4).connected);  // z ports of a 2-D mesh
    EXPECT_FALSE(t.port(c, 5).connected);
    EXPECT_EQ(t.table_rtt(c, 4), 0u);
  }
  EXPECT_EQ(t.used_ports(t.chip_at({0, 0, 0})), 2u);
  EXPECT_EQ(t.used_ports(t.chip_at({1, 0, 0})), 3u);
  EXPECT_EQ(t.used_ports(t.chip_at({1, 1, 0})), 4u);
  for (const LinkInfo& l : t.links())
    EXPECT_FALSE(l.wraps);
}

TEST(Topology, V5eLikeMesh) {
  const Topology t = pod_file("torus-4x4-v5e");
  EXPECT_EQ(t.ports_per_chip(), 4u);
  EXPECT_EQ(t.links().size(), 24u);
  for (const LinkInfo& l : t.links()) {
    EXPECT_EQ(l.medium, Medium::kCopper);
    EXPECT_EQ(l.bandwidth_bytes_per_s, 50'000'000'000u);
  }
}

TEST(Topology, RingWrapsOnce) {
  const Topology t = pod_file("ring-8");
  ASSERT_EQ(t.chips(), 8u);
  ASSERT_EQ(t.links().size(), 8u);
  EXPECT_TRUE(t.wraps(0));
  const auto wrapping =
      std::count_if(t.links().begin(), t.links().end(), [](const LinkInfo& l) { return l.wraps; });
  EXPECT_EQ(wrapping, 1);
  EXPECT_EQ(t.port(7, 0).peer_chip, 0u);
  EXPECT_EQ(t.port(0, 1).peer_chip, 7u);
  EXPECT_TRUE(t.links()[t.port(7, 0).link].wraps);
  for (std::uint32_t c = 0; c < 8; ++c)
    EXPECT_EQ(t.used_ports(c), 2u);
}

TEST(Topology, TorusOfTwoHasTwoSeparateLinks) {
  const Topology t = pod_yaml("name: t\nshape: torus\ndims: [2]\nports_per_chip: 2\n");
  ASSERT_EQ(t.links().size(), 2u);
  EXPECT_NE(t.port(0, 0).link, t.port(0, 1).link);
  EXPECT_EQ(t.port(0, 0).peer_chip, 1u);
  EXPECT_EQ(t.port(0, 0).peer_port, 1u);
  EXPECT_EQ(t.port(0, 1).peer_chip, 1u);
  EXPECT_EQ(t.port(0, 1).peer_port, 0u);
  EXPECT_EQ(t.used_ports(0), 2u);
}

TEST(Topology, SliceLeavesOutwardPortsUnused) {
  const Topology t = pod_file("slice-4x4-failed-link");
  EXPECT_EQ(t.chips(), 64u);
  EXPECT_EQ(t.active_chips(), 16u);
  for (std::uint32_t c = 0; c < t.chips(); ++c) {
    const bool in = t.coord(c)[2] == 0;
    EXPECT_EQ(t.active(c), in);
    // z ports are cabled but carry no job traffic.
    EXPECT_TRUE(t.port(c, 4).connected);
    EXPECT_FALSE(t.port(c, 4).used);
    EXPECT_FALSE(t.port(c, 5).used);
    if (!in) {
      EXPECT_EQ(t.used_ports(c), 0u);
    }
  }
  // The slice spans the cube in x and y, so their wrap-arounds stay in the job.
  const std::uint32_t corner = t.chip_at({3, 3, 0});
  EXPECT_TRUE(t.port(corner, 0).used);
  EXPECT_TRUE(t.links()[t.port(corner, 0).link].wraps);
  EXPECT_TRUE(t.port(corner, 2).used);
  // The failed copper link [1,1,0] +x <-> [2,1,0] -x.
  const std::uint32_t a = t.chip_at({1, 1, 0});
  const std::uint32_t b = t.chip_at({2, 1, 0});
  const LinkInfo& l = t.links()[t.port(a, 0).link];
  EXPECT_TRUE(l.failed);
  EXPECT_FALSE(l.used);
  EXPECT_EQ(l.medium, Medium::kCopper);
  EXPECT_TRUE(t.port(a, 0).connected);
  EXPECT_FALSE(t.port(a, 0).used);
  EXPECT_FALSE(t.port(b, 1).used);
  EXPECT_EQ(t.used_ports(a), 3u);
  EXPECT_EQ(t.used_ports(b), 3u);
  EXPECT_EQ(t.used_ports(t.chip_at({0, 0, 0})), 4u);
  EXPECT_EQ(t.table_rtt(a, 0), 0u);
  EXPECT_NE(t.summary().find("16 active"), std::string::npos) << t.summary();
  EXPECT_NE(t.summary().find("1 failed"), std::string::npos) << t.summary();
}

TEST(Topology, PartialSliceDropsTheWrapAround) {
  const Topology t =
      pod_yaml("name: s\nshape: torus\ndims: [4, 4]\nslice: {origin: [1, 0], extent: [2, 4]}\n");
  EXPECT_EQ(t.active_chips(), 8u);
  for (const LinkInfo& l : t.links()) {
    const bool both_in = t.active(l.chip_a) && t.active(l.chip_b);
    EXPECT_EQ(l.used, both_in);
    if (l.wraps && l.dim == 0) {
      EXPECT_FALSE(l.used);  // x: the slice does not span the ring
    }
    if (l.wraps && l.dim == 1 && both_in) {
      EXPECT_TRUE(l.used);
    }
  }
  const std::uint32_t c = t.chip_at({1, 0, 0});
  EXPECT_FALSE(t.port(c, 1).used);  // -x leaves the slice
  EXPECT_TRUE(t.port(c, 0).used);
  EXPECT_TRUE(t.port(c, 3).used);  // -y wraps inside the slice
  EXPECT_EQ(t.used_ports(c), 3u);
}

TEST(Topology, FailedChipTakesItsNeighboursPortsOutOfTheJob) {
  const Topology t =
      pod_yaml("name: f\nshape: tpuv4\ndims: [4, 4, 4]\nfailed_chips: [[1, 1, 1]]\n");
  const std::uint32_t dead = t.chip_at({1, 1, 1});
  EXPECT_FALSE(t.active(dead));
  EXPECT_EQ(t.active_chips(), 63u);
  EXPECT_EQ(t.used_ports(dead), 0u);
  for (std::uint32_t p = 0; p < 6; ++p) {
    const PortInfo& info = t.port(dead, p);
    EXPECT_TRUE(info.connected);
    EXPECT_FALSE(t.port(info.peer_chip, info.peer_port).used);
    EXPECT_EQ(t.used_ports(info.peer_chip), 5u);
    EXPECT_FALSE(t.links()[info.link].failed);  // the cable is fine; its chip is not
  }
  EXPECT_EQ(t.used_ports(t.chip_at({3, 3, 3})), 6u);
}

TEST(Topology, TableRttArithmetic) {
  const Topology t = pod_file("tpuv4-4x4x4");
  const std::uint32_t c = t.chip_at({0, 0, 0});
  // PCB +x: 30 ns + round(0.3 m x 5 ns) = 31.5 ns one way; RTT 2 x 31.5 + 2 x 50 ns router.
  EXPECT_EQ(t.links()[t.port(c, 0).link].latency_ps, 31'500u);
  EXPECT_EQ(t.table_rtt(c, 0), 163'000u);
  // Copper +z: 60 + 1 x 5 = 65 ns -> 130 + 100.
  EXPECT_EQ(t.table_rtt(c, 4), 230'000u);
  // Optical -x wrap: 200 + 20 x 5 = 300 ns -> 600 + 100.
  EXPECT_EQ(t.table_rtt(c, 1), 700'000u);
  EXPECT_EQ(t.table_rtt(c, 1), t.table_rtt(t.port(c, 1).peer_chip, t.port(c, 1).peer_port));
  EXPECT_EQ(t.table_rtt(c, 6), 0u);    // no such port
  EXPECT_EQ(t.table_rtt(999, 0), 0u);  // no such chip

  const Topology e = pod_file("explicit-example");
  // Link 1 is copper with an explicit 2 m: 60 + 10 = 70 ns; RTT 140 + 100.
  const LinkInfo& l1 = e.links()[1];
  EXPECT_EQ(l1.medium, Medium::kCopper);
  EXPECT_DOUBLE_EQ(l1.length_m, 2.0);
  EXPECT_EQ(l1.latency_ps, 70'000u);
  EXPECT_EQ(e.table_rtt(1, 0), 240'000u);
  // Link 0 is PCB at its default 0.3 m.
  EXPECT_DOUBLE_EQ(e.links()[0].length_m, 0.3);
  EXPECT_EQ(e.links()[4].medium, Medium::kOptical);
  EXPECT_EQ(e.links()[4].latency_ps, 350'000u);
  EXPECT_DOUBLE_EQ(e.links()[4].bit_error_rate, 1e-12);
}

TEST(Topology, ExplicitGraph) {
  const Topology t = pod_file("explicit-example");
  EXPECT_FALSE(t.is_grid());
  EXPECT_EQ(t.chips(), 4u);
  EXPECT_EQ(t.dims(), (Coord{4, 1, 1}));
  EXPECT_EQ(t.links().size(), 5u);
  EXPECT_EQ(t.used_ports(0), 3u);
  EXPECT_EQ(t.used_ports(1), 2u);
  EXPECT_EQ(t.used_ports(2), 3u);
  EXPECT_FALSE(t.port(1, 2).connected);
  EXPECT_EQ(t.port(0, 2).peer_chip, 2u);
  EXPECT_EQ(t.port(0, 2).medium, Medium::kOptical);
}

TEST(Topology, PortPeersAreSymmetricInEveryShippedPod) {
  for (const auto& entry : std::filesystem::directory_iterator(kConfigDir / "pods")) {
    if (entry.path().extension() != ".yaml") continue;
    SCOPED_TRACE(entry.path().string());
    const Topology t = pod_file(entry.path().stem().string());
    ASSERT_GT(t.chips(), 0u);
    std::uint32_t connected = 0;
    for (std::uint32_t c = 0; c < t.chips(); ++c) {
      for (std::uint32_t p = 0; p < t.ports_per_chip(); ++p) {
        const PortInfo& info = t.port(c, p);
        if (!info.connected) {
          EXPECT_FALSE(info.used);
          EXPECT_EQ(info.peer_chip, kNoChip);
          continue;
        }
        ++connected;
        ASSERT_LT(info.peer_chip, t.chips());
        ASSERT_LT(info.peer_port, t.ports_per_chip());
        const PortInfo& back = t.port(info.peer_chip, info.peer_port);
        EXPECT_EQ(back.peer_chip, c);
        EXPECT_EQ(back.peer_port, p);
        EXPECT_EQ(back.link, info.link);
        EXPECT_EQ(back.used, info.used);
        EXPECT_EQ(back.medium, info.medium);
        const LinkInfo& l = t.links()[info.link];
        EXPECT_TRUE((l.chip_a == c && l.port_a == p) || (l.chip_b == c && l.port_b == p));
        EXPECT_EQ(info.used, l.used);
        EXPECT_EQ(info.used, t.active(c) && t.active(info.peer_chip) && !l.failed);
        EXPECT_EQ(t.table_rtt(c, p) > 0, info.used);
      }
    }
    EXPECT_EQ(connected, 2 * t.links().size());
  }
}

TEST(Topology, BadProgrammaticSpecsAreErrorsNotCrashes) {
  auto expect_error = [](const PodSpec& s, const std::string& needle) {
    const Result<Topology> t = build_topology(s);
    ASSERT_FALSE(t.ok()) << needle;
    EXPECT_NE(joined(t.errors()).find(needle), std::string::npos) << joined(t.errors());
  };
  PodSpec base = *load_pod_string("name: x\nshape: torus\ndims: [4, 4]\n", "x.yaml");
  PodSpec s = base;
  s.dims.clear();
  expect_error(s, "x.yaml: dims: shape torus takes 1 to 3 entries, got 0");
  s = base;
  s.dims = {100000, 100000};
  expect_error(s, "above the limit");
  s = base;
  s.ports_per_chip = 0;
  expect_error(s, "ports_per_chip: 0 is out of range");
  s = base;
  s.shape = Shape::kTpuV4;
  s.dims = {4, 4, 4};
  s.tray = {0, 1, 1};
  expect_error(s, "tray[0]");
  s = base;
  s.slice_origin = {3, 0};
  s.slice_extent = {2, 4};
  expect_error(s, "slice outside the pod");
  s = base;
  s.failed_chips = {{0, 0, 1}};
  expect_error(s, "failed_chips[0]: chip [0, 0, 1] is outside the pod");
  s = base;
  s.failed_links = {LinkEnd{{0, 0, 0}, 5, 9}};
  expect_error(s, "x.yaml:9: failed_links[0]: chip [0, 0] port 5 is not connected");
  s = base;
  s.buffer.unit_bytes = 0;
  expect_error(s, "buffer.unit");
  s = base;
  s.media[kCopper].default_length_m = std::numeric_limits<double>::quiet_NaN();
  expect_error(s, "media.copper.length");
  s = base;
  s.media[kCopper].per_metre_ps = ~std::uint64_t{0};
  s.media[kCopper].default_length_m = 1e6;
  expect_error(s, "does not fit");
  s = base;
  s.buffer.outbound_bytes = ~std::uint64_t{0};  // saturates rather than wraps
  expect_error(s, "buffer.bytes");
  PodSpec e = *load_pod_string(
      "name: e\nshape: explicit\ndims: [3]\nlinks:\n  - {a: [0, 0], b: [1, 0]}\n", "e.yaml");
  s = e;
  s.links.push_back(ExplicitLink{0, 0, 2, 0, Medium::kCopper, -1.0, 6});
  expect_error(s, "e.yaml:6: links[1]: dangling link: chip 0 port 0 is already cabled");
  s = e;
  s.links.push_back(ExplicitLink{0, 1, 3, 0, Medium::kCopper, -1.0, 6});
  expect_error(s, "dangling link: chip 3 does not exist");
  s = e;
  s.links.clear();
  expect_error(s, "all ports unused");
}

}  // namespace
}  // namespace xpusim::fabric
