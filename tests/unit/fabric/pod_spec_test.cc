// The strict pod reader (src/fabric/pod_spec.h): defaults, every class of bad input reported
// as "FILE:LINE:COL: key: message" (all of them, not just the first), and every shipped pod file
// loading cleanly.
#include "fabric/pod_spec.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "fabric/topology.h"

namespace xpusim::fabric {
namespace {

const std::filesystem::path kConfigDir = XPUSIM_CONFIG_DIR;

std::string joined(const Result<PodSpec>& r) {
  if (r.ok()) return "(loaded without error)";
  std::string out;
  for (const Error& e : r.errors())
    out += e.message + "\n";
  return out;
}

Result<PodSpec> load(const std::string& yaml) {
  return load_pod_string(yaml, "t.yaml");
}

// A valid 4x4x4 TPU v4 cube with everything on its defaults; the tests append to it.
const std::string kCube = "name: cube\nshape: tpuv4\ndims: [4, 4, 4]\n";  // lines 1-3

#define EXPECT_LOAD_ERROR(yaml, needle)                                  \
  do {                                                                   \
    const Result<PodSpec> r_ = load(yaml);                               \
    EXPECT_FALSE(r_.ok());                                               \
    EXPECT_NE(joined(r_).find(needle), std::string::npos) << joined(r_); \
  } while (0)

TEST(PodSpec, DefaultsMatchTheDocumentedValues) {
  const Result<PodSpec> r = load(kCube);
  ASSERT_TRUE(r.ok()) << joined(r);
  const PodSpec& s = *r;
  EXPECT_EQ(s.name, "cube");
  EXPECT_EQ(s.source, "t.yaml");
  EXPECT_EQ(s.shape, Shape::kTpuV4);
  EXPECT_EQ(s.dims, (std::vector<std::uint32_t>{4, 4, 4}));
  EXPECT_EQ(s.cube, 4u);
  EXPECT_EQ(s.tray, (std::array<std::uint32_t, 3>{2, 2, 1}));
  EXPECT_EQ(s.ports_per_chip, 6u);
  EXPECT_EQ(s.electrical_medium, Medium::kCopper);
  const MediumSpec& pcb = s.media[static_cast<int>(Medium::kPcb)];
  const MediumSpec& cu = s.media[static_cast<int>(Medium::kCopper)];
  const MediumSpec& op = s.media[static_cast<int>(Medium::kOptical)];
  EXPECT_EQ(pcb.latency_ps, 30'000u);
  EXPECT_EQ(cu.latency_ps, 60'000u);
  EXPECT_EQ(op.latency_ps, 200'000u);
  EXPECT_EQ(cu.per_metre_ps, 5'000u);
  EXPECT_EQ(op.bandwidth_bytes_per_s, 50'000'000'000u);
  EXPECT_DOUBLE_EQ(op.bit_error_rate, 1e-12);
  EXPECT_DOUBLE_EQ(pcb.bit_error_rate, 0.0);
  EXPECT_DOUBLE_EQ(pcb.default_length_m, 0.3);
  EXPECT_DOUBLE_EQ(cu.default_length_m, 1.0);
  EXPECT_DOUBLE_EQ(op.default_length_m, 20.0);
  EXPECT_EQ(s.router_latency_ps, 50'000u);
  EXPECT_EQ(s.max_packet_bytes, 512u);
  EXPECT_EQ(s.header_bytes, 32u);
  EXPECT_EQ(s.buffer.bytes, 128u * 1024);
  EXPECT_EQ(s.buffer.unit_bytes, 32u);
  EXPECT_EQ(s.buffer.outbound_bytes, 2048u);
  EXPECT_EQ(s.buffer.inbound_bytes, 4096u);
  EXPECT_EQ(s.buffer.vcs, 2u);
  EXPECT_EQ(s.buffer.min_bytes_per_vc, 0u);
  EXPECT_EQ(s.buffer.policy, "rtt");
  EXPECT_EQ(s.buffer.line, 1);
  EXPECT_EQ(s.rtt_source, RttSource::kTable);
  EXPECT_TRUE(s.slice_origin.empty());
  EXPECT_TRUE(s.links.empty());
}

TEST(PodSpec, ReadsEveryKey) {
  const Result<PodSpec> r = load(kCube +
                                 "description: a cube\n"
                                 "cube: 2\n"
                                 "tray: [1, 2, 1]\n"
                                 "ports_per_chip: 8\n"
                                 "electrical_medium: pcb\n"
                                 "media:\n"
                                 "  optical: {latency: 1us, per_metre: 4ns, bandwidth: 25GB/s, "
                                 "bit_error_rate: 1e-9, length: 7.5}\n"
                                 "router: {latency: 20ns, max_packet: 1KiB, header: 16B}\n"
                                 "buffer:\n"
                                 "  bytes: 256KiB\n"  // line 13
                                 "  unit: 64B\n"
                                 "  vcs: 4\n"
                                 "  min_per_vc: 2KiB\n"
                                 "  policy: my-policy\n"
                                 "rtt: measured\n"
                                 "slice: {origin: [0, 0, 2], extent: [4, 4, 2]}\n"
                                 "failed_chips: [[1, 1, 2]]\n"
                                 "failed_links:\n"
                                 "  - {chip: [0, 0, 2], port: 4}\n");  // line 22
  ASSERT_TRUE(r.ok()) << joined(r);
  const PodSpec& s = *r;
  EXPECT_EQ(s.description, "a cube");
  EXPECT_EQ(s.cube, 2u);
  EXPECT_EQ(s.tray, (std::array<std::uint32_t, 3>{1, 2, 1}));
  EXPECT_EQ(s.ports_per_chip, 8u);
  EXPECT_EQ(s.electrical_medium, Medium::kPcb);
  const MediumSpec& op = s.media[static_cast<int>(Medium::kOptical)];
  EXPECT_EQ(op.latency_ps, 1'000'000u);
  EXPECT_EQ(op.per_metre_ps, 4'000u);
  EXPECT_EQ(op.bandwidth_bytes_per_s, 25'000'000'000u);
  EXPECT_DOUBLE_EQ(op.bit_error_rate, 1e-9);
  EXPECT_DOUBLE_EQ(op.default_length_m, 7.5);
  EXPECT_EQ(s.router_latency_ps, 20'000u);
  EXPECT_EQ(s.max_packet_bytes, 1024u);
  EXPECT_EQ(s.header_bytes, 16u);
  EXPECT_EQ(s.buffer.bytes, 256u * 1024);
  EXPECT_EQ(s.buffer.unit_bytes, 64u);
  EXPECT_EQ(s.buffer.vcs, 4u);
  EXPECT_EQ(s.buffer.min_bytes_per_vc, 2048u);
  EXPECT_EQ(s.buffer.policy, "my-policy");  // not checked here: the policy registry is elsewhere
  EXPECT_EQ(s.buffer.line, 13);
  EXPECT_EQ(s.rtt_source, RttSource::kMeasured);
  EXPECT_EQ(s.slice_origin, (std::vector<std::uint32_t>{0, 0, 2}));
  EXPECT_EQ(s.slice_extent, (std::vector<std::uint32_t>{4, 4, 2}));
  ASSERT_EQ(s.failed_chips.size(), 1u);
  EXPECT_EQ(s.failed_chips[0], (std::array<std::uint32_t, 3>{1, 1, 2}));
  ASSERT_EQ(s.failed_links.size(), 1u);
  EXPECT_EQ(s.failed_links[0].coord, (std::array<std::uint32_t, 3>{0, 0, 2}));
  EXPECT_EQ(s.failed_links[0].port, 4u);
  EXPECT_EQ(s.failed_links[0].line, 22);
}

TEST(PodSpec, BufferLineFallsBackToTheBufferKey) {
  const Result<PodSpec> r = load(kCube + "buffer: {vcs: 1}\n");
  ASSERT_TRUE(r.ok()) << joined(r);
  EXPECT_EQ(r->buffer.line, 4);
}

TEST(PodSpec, ExplicitLinks) {
  const Result<PodSpec> r = load(
      "name: e\nshape: explicit\ndims: [3]\nports_per_chip: 2\nelectrical_medium: pcb\n"
      "links:\n"
      "  - {a: [0, 0], b: [1, 1], medium: optical, length: 2.5}\n"  // line 7
      "  - {a: [1, 0], b: [2, 1]}\n");
  ASSERT_TRUE(r.ok()) << joined(r);
  ASSERT_EQ(r->links.size(), 2u);
  const ExplicitLink& l0 = r->links[0];
  EXPECT_EQ(l0.chip_a, 0u);
  EXPECT_EQ(l0.port_a, 0u);
  EXPECT_EQ(l0.chip_b, 1u);
  EXPECT_EQ(l0.port_b, 1u);
  EXPECT_EQ(l0.medium, Medium::kOptical);
  EXPECT_DOUBLE_EQ(l0.length_m, 2.5);
  EXPECT_EQ(l0.line, 7);
  EXPECT_EQ(r->links[1].medium, Medium::kPcb);  // electrical_medium is the default
  EXPECT_LT(r->links[1].length_m, 0.0);         // the medium's default length
  EXPECT_EQ(r->links[1].line, 8);
}

TEST(PodSpec, UnknownKeysAreErrorsWithPositions) {
  EXPECT_LOAD_ERROR(kCube + "bogus: 1\n", "t.yaml:4:1: bogus: unknown key 'bogus'");
  EXPECT_LOAD_ERROR(kCube + "router: {latncy: 5ns}\n", "t.yaml:4:10: router.latncy: unknown key");
  EXPECT_LOAD_ERROR(kCube + "router: {latncy: 5ns}\n", "did you mean 'latency'");
  EXPECT_LOAD_ERROR(kCube + "buffer:\n  bytes: 1MiB\n  sizes: 2\n",
                    "t.yaml:6:3: buffer.sizes: unknown key");
  EXPECT_LOAD_ERROR(kCube + "media:\n  copper: {lat: 5ns}\n",
                    "t.yaml:5:12: media.copper.lat: unknown key");
  EXPECT_LOAD_ERROR(kCube + "name: again\n",
                    "t.yaml:4:1: name: duplicate key; first given at line 1");
}

TEST(PodSpec, MissingRequiredKeys) {
  EXPECT_LOAD_ERROR("shape: torus\ndims: [4]\n", "t.yaml:1:1: name: missing required key");
  EXPECT_LOAD_ERROR("name: x\ndims: [4]\n", "t.yaml:1:1: shape: missing required key");
  EXPECT_LOAD_ERROR("name: x\nshape: torus\n", "t.yaml:1:1: dims: missing required key");
  EXPECT_LOAD_ERROR("name: x\nshape: explicit\ndims: [2]\n", "links: missing required key");
  EXPECT_LOAD_ERROR("", "t.yaml:1:1: empty document");
  EXPECT_LOAD_ERROR("[1, 2]\n", "expected a mapping at the top level");
  EXPECT_LOAD_ERROR("name: [unclosed\n", "YAML syntax error");
}

TEST(PodSpec, TopologiesRegistryNamesEveryShapeAndEachLoads) {
  const ShapeRegistry r = topologies();
  EXPECT_EQ(r.names(), (std::vector<std::string>{"ring", "mesh", "torus", "tpuv4", "explicit"}));
  // A smallest pod per shape: the name in a file selects the entry's shape.
  const std::map<std::string, std::string> body{
      {"ring", "dims: [4]\n"},
      {"mesh", "dims: [2, 2]\n"},
      {"torus", "dims: [2, 2]\n"},
      {"tpuv4", "dims: [4, 4, 4]\n"},
      {"explicit", "dims: [2]\nlinks:\n  - {a: [0, 0], b: [1, 0]}\n"}};
  for (const auto& e : r.entries()) {
    EXPECT_FALSE(e.description.empty()) << e.name;
    EXPECT_EQ(shape_name(e.make), e.name);
    ASSERT_EQ(body.count(e.name), 1u) << e.name;
    const Result<PodSpec> spec = load("name: p\nshape: " + e.name + "\n" + body.at(e.name));
    ASSERT_TRUE(spec.ok()) << e.name << ": " << joined(spec);
    EXPECT_EQ(spec->shape, e.make) << e.name;
    const Result<Topology> topo = build_topology(*spec);
    ASSERT_TRUE(topo.ok()) << e.name;
    EXPECT_EQ(topo->is_grid(), e.name != "explicit");
  }
}

TEST(PodSpec, UnknownShapeAndMedium) {
  EXPECT_LOAD_ERROR("name: x\nshape: hypercube\ndims: [4]\n",
                    "t.yaml:2:8: shape: shape 'hypercube' is unknown; known shapes: ring, mesh, "
                    "torus, tpuv4, explicit");
  EXPECT_LOAD_ERROR("name: x\nshape: tourus\ndims: [4]\n",
                    "t.yaml:2:8: shape: shape 'tourus' is unknown (did you mean 'torus'?)");
  EXPECT_LOAD_ERROR(kCube + "electrical_medium: copprr\n",
                    "t.yaml:4:20: electrical_medium: unknown medium \"copprr\"");
  EXPECT_LOAD_ERROR(kCube + "electrical_medium: copprr\n", "valid media: pcb, copper, optical");
  EXPECT_LOAD_ERROR(kCube + "electrical_medium: optical\n",
                    "t.yaml:4:20: electrical_medium: \"optical\" is not an electrical medium");
  EXPECT_LOAD_ERROR(kCube + "media:\n  fiber: {latency: 5ns}\n",
                    "t.yaml:5:3: media.fiber: unknown key 'fiber'");
  EXPECT_LOAD_ERROR(
      "name: e\nshape: explicit\ndims: [2]\nlinks:\n  - {a: [0, 0], b: [1, 0], "
      "medium: laser}\n",
      "t.yaml:5:36: links[0].medium: unknown medium \"laser\"");
}

TEST(PodSpec, BadMediumProperties) {
  const std::string m = kCube + "media:\n  copper: ";  // the value starts at 5:11
  EXPECT_LOAD_ERROR(m + "{length: -1}\n", "t.yaml:5:20: media.copper.length: -1 is out of range");
  EXPECT_LOAD_ERROR(m + "{length: nan}\n", "t.yaml:5:20: media.copper.length: nan is out of range");
  EXPECT_LOAD_ERROR(m + "{length: inf}\n", "media.copper.length: inf is out of range");
  EXPECT_LOAD_ERROR(m + "{length: far}\n", "media.copper.length: expected a number, got \"far\"");
  EXPECT_LOAD_ERROR(m + "{bit_error_rate: 1}\n",
                    "t.yaml:5:28: media.copper.bit_error_rate: 1 is out of range [0, 1)");
  EXPECT_LOAD_ERROR(m + "{bit_error_rate: -1e-9}\n", "media.copper.bit_error_rate: -1e-9 is out");
  EXPECT_LOAD_ERROR(m + "{bandwidth: 0GB/s}\n",
                    "t.yaml:5:23: media.copper.bandwidth: \"0GB/s\" must be at least");
  EXPECT_LOAD_ERROR(m + "{latency: 0ns}\n",
                    "t.yaml:5:21: media.copper.latency: \"0ns\" must be at least");
  EXPECT_LOAD_ERROR(m + "{latency: -5ns}\n", "t.yaml:5:21: media.copper.latency: ");
  EXPECT_LOAD_ERROR(m + "{latency: 5 parsecs}\n", "t.yaml:5:21: media.copper.latency: ");
  EXPECT_LOAD_ERROR(m + "{per_metre: [1]}\n", "media.copper.per_metre: expected a time");
  EXPECT_LOAD_ERROR(kCube + "media: copper\n", "t.yaml:4:8: media: expected a mapping");
}

TEST(PodSpec, BadRouterAndBuffer) {
  EXPECT_LOAD_ERROR(kCube + "router: {max_packet: 0B}\n",
                    "t.yaml:4:22: router.max_packet: \"0B\" must be at least 1 B");
  EXPECT_LOAD_ERROR(kCube + "buffer: {vcs: 0}\n",
                    "t.yaml:4:15: buffer.vcs: 0 is out of range [1, 8]");
  EXPECT_LOAD_ERROR(kCube + "buffer: {vcs: 9}\n", "buffer.vcs: 9 is out of range [1, 8]");
  EXPECT_LOAD_ERROR(kCube + "buffer: {unit: 48B}\n",
                    "t.yaml:4:16: buffer.unit: 48 B is not a power of two");
  EXPECT_LOAD_ERROR(kCube + "buffer: {bytes: 0}\n",
                    "t.yaml:4:17: buffer.bytes: \"0\" must be at least");
  EXPECT_LOAD_ERROR(kCube + "rtt: guessed\n",
                    "t.yaml:4:6: rtt: \"guessed\" is not one of table, measured");
  EXPECT_LOAD_ERROR(kCube + "ports_per_chip: 17\n",
                    "t.yaml:4:17: ports_per_chip: 17 is out of range [1, 16]");
  EXPECT_LOAD_ERROR(kCube + "ports_per_chip: 4\n",
                    "t.yaml:4:17: ports_per_chip: 4 is below 2 x rank = 6");
}

TEST(PodSpec, BufferBelowOnePacketPerVc) {
  // 6 used ports: 2 KiB x 6 + 4 KiB + 6 x 2 x roundup(512 + 32, 32) = 12288 + 4096 + 6528.
  const Result<PodSpec> r = load(kCube + "buffer:\n  bytes: 4KiB\n");
  EXPECT_NE(joined(r).find("t.yaml:5: buffer.bytes: 4 KiB is below 2 KiB x 6 outbound + 4 KiB "
                           "inbound + 6 used ports x 2 VCs x 544 B (one maximum packet per VC)"),
            std::string::npos)
      << joined(r);
  EXPECT_TRUE(load(kCube + "buffer:\n  bytes: 22912\n").ok());
  EXPECT_FALSE(load(kCube + "buffer:\n  bytes: 22911\n").ok());
  EXPECT_LOAD_ERROR(kCube + "buffer:\n  bytes: 22912\n  min_per_vc: 1KiB\n",
                    "x 2 VCs x 1 KiB (buffer.min_per_vc)");
  // A mesh corner chip has only 2 used ports, but the check uses the busiest chip (4).
  EXPECT_LOAD_ERROR("name: m\nshape: mesh\ndims: [3, 3]\nbuffer: {bytes: 8KiB}\n",
                    "t.yaml:4: buffer.bytes: 8 KiB is below 2 KiB x 4 outbound");
}

TEST(PodSpec, BadDims) {
  EXPECT_LOAD_ERROR("name: x\nshape: tpuv4\ndims: [4, 4]\n",
                    "t.yaml:3:7: dims: shape tpuv4 takes 3 entries, got 2");
  EXPECT_LOAD_ERROR("name: x\nshape: ring\ndims: [4, 4]\n",
                    "t.yaml:3:7: dims: shape ring takes one entry");
  EXPECT_LOAD_ERROR("name: x\nshape: mesh\ndims: [2, 2, 2, 2]\n",
                    "dims: shape mesh takes 1 to 3 entries, got 4");
  EXPECT_LOAD_ERROR("name: x\nshape: torus\ndims: []\n",
                    "dims: shape torus takes 1 to 3 entries, got 0");
  EXPECT_LOAD_ERROR("name: x\nshape: torus\ndims: [4, 1]\n",
                    "t.yaml:3:7: dims[1]: 1 is out of range");
  EXPECT_LOAD_ERROR("name: x\nshape: torus\ndims: [4, -1]\n",
                    "t.yaml:3:11: dims[1]: -1 is out of range");
  EXPECT_LOAD_ERROR("name: x\nshape: torus\ndims: 4\n", "t.yaml:3:7: dims: expected a sequence");
  EXPECT_LOAD_ERROR("name: x\nshape: tpuv4\ndims: [4, 4, 6]\n",
                    "t.yaml:3:7: dims[2]: 6 is not a multiple of the cube edge 4");
  EXPECT_LOAD_ERROR("name: x\nshape: tpuv4\ncube: 3\ndims: [3, 3, 3]\n",
                    "tray: ");  // the default tray [2, 2, 1] does not divide a cube of 3
  EXPECT_LOAD_ERROR("name: x\nshape: torus\ndims: [64, 64, 64]\n",
                    "chips is above the limit of 65536");
  EXPECT_LOAD_ERROR("name: x\nshape: torus\ndims: [4]\ncube: 4\n",
                    "t.yaml:4:1: cube: only shape tpuv4 takes a cube (shape is torus)");
  EXPECT_LOAD_ERROR("name: x\nshape: mesh\ndims: [4]\ntray: [1, 1, 1]\n",
                    "t.yaml:4:1: tray: only shape tpuv4 takes a tray");
  EXPECT_LOAD_ERROR(kCube + "tray: [3, 1, 1]\n",
                    "t.yaml:4:7: tray: [3, 1, 1] does not divide the cube");
}

TEST(PodSpec, BadCoordinatesAndPorts) {
  EXPECT_LOAD_ERROR(kCube + "failed_chips: [[4, 0, 0]]\n",
                    "t.yaml:4:16: failed_chips[0]: chip [4, 0, 0] is outside the pod");
  EXPECT_LOAD_ERROR(kCube + "failed_chips: [[1, 0]]\n",
                    "failed_chips[0]: a chip coordinate has 3 entries");
  EXPECT_LOAD_ERROR(
      kCube + "failed_links:\n  - {chip: [0, 0, 0], port: 6}\n",
      "t.yaml:5:29: failed_links[0].port: port 6 does not exist: ports_per_chip is 6");
  EXPECT_LOAD_ERROR(kCube + "failed_links:\n  - {chip: [0, 9, 0], port: 1}\n",
                    "t.yaml:5:12: failed_links[0].chip: chip [0, 9, 0] is outside the pod");
  EXPECT_LOAD_ERROR(kCube + "failed_links:\n  - {chip: [0, 0, 0]}\n",
                    "t.yaml:5:5: failed_links[0].port: missing required key 'port'");
  EXPECT_LOAD_ERROR("name: r\nshape: ring\ndims: [4]\nfailed_chips: [4]\n",
                    "t.yaml:4:16: failed_chips[0]: chip [4] is outside the pod");
  EXPECT_LOAD_ERROR(kCube + "slice: {origin: [0, 0, 3], extent: [4, 4, 2]}\n",
                    "t.yaml:4:36: slice: slice outside the pod");
  EXPECT_LOAD_ERROR(kCube + "slice: {origin: [0, 0], extent: [4, 4, 2]}\n",
                    "t.yaml:4:17: slice.origin: expected 3 entries");
  EXPECT_LOAD_ERROR(kCube + "slice: {origin: [0, 0, 0], extent: [4, 4, 0]}\n",
                    "slice.extent[2]: 0 is out of range");
  EXPECT_LOAD_ERROR(kCube + "slice: {origin: [0, 0, 0]}\n", "slice.extent: missing required key");
}

TEST(PodSpec, BadExplicitLinks) {
  const std::string e = "name: e\nshape: explicit\ndims: [4]\nports_per_chip: 2\nlinks:\n";
  EXPECT_LOAD_ERROR(e + "  - {a: [0, 0], b: [4, 0]}\n",
                    "t.yaml:6:20: links[0].b: dangling link: chip 4 does not exist");
  EXPECT_LOAD_ERROR(e + "  - {a: [0, 2], b: [1, 0]}\n",
                    "t.yaml:6:13: links[0].a[1]: port 2 does not exist: ports_per_chip is 2");
  EXPECT_LOAD_ERROR(e + "  - {a: [0, 0], b: [1, 0]}\n  - {a: [2, 0], b: [1, 0]}\n",
                    "t.yaml:7:20: links[1].b: dangling link: chip 1 port 0 is already cabled by "
                    "the link at line 6");
  EXPECT_LOAD_ERROR(e + "  - {a: [0, 0], b: [0, 1]}\n",
                    "links[0]: a link must join two different chips");
  EXPECT_LOAD_ERROR(e + "  - {a: [0, 0], b: [1, 0], length: -2}\n",
                    "links[0].length: -2 is out of range");
  EXPECT_LOAD_ERROR(e + "  - {a: [0, 0]}\n", "t.yaml:6:5: links[0].b: missing required key");
  EXPECT_LOAD_ERROR(e + "  - {a: 0, b: [1, 0]}\n", "links[0].a: expected [chip, port]");
  EXPECT_LOAD_ERROR(kCube + "links:\n  - {a: [0, 0], b: [1, 1]}\n",
                    "t.yaml:4:1: links: only shape explicit takes a links list (shape is tpuv4)");
  EXPECT_LOAD_ERROR(e + "  []\n", "all ports unused");
}

TEST(PodSpec, TopologyErrorsAreLoadErrors) {
  // Port 1 of chip [0, 0] is -x on a mesh edge: no cable, so it cannot fail.
  EXPECT_LOAD_ERROR(
      "name: m\nshape: mesh\ndims: [4, 4]\nfailed_links:\n  - {chip: [0, 0], port: 1}\n",
      "t.yaml:5: failed_links[0]: chip [0, 0] port 1 is not connected");
  // Port 5 is -z: beyond 2 x rank on a 2-D mesh of 6-port chips.
  EXPECT_LOAD_ERROR(
      "name: m\nshape: mesh\ndims: [4, 4]\nfailed_links:\n  - {chip: [1, 1], port: 5}\n",
      "port 5 is not connected");
  EXPECT_LOAD_ERROR(kCube + "slice: {origin: [1, 1, 1], extent: [1, 1, 1]}\n",
                    "t.yaml: failed_links: all ports unused");
  EXPECT_LOAD_ERROR("name: r\nshape: ring\ndims: [2]\nfailed_chips: [0]\n", "all ports unused");
}

TEST(PodSpec, ReportsAllErrorsSortedByPosition) {
  const Result<PodSpec> r = load(kCube +
                                 "bogus: 1\n"                     // 4
                                 "buffer: {vcs: 0, unit: 3B}\n"   // 5
                                 "media: {pcb: {length: -1}}\n"   // 6
                                 "failed_chips: [[9, 9, 9]]\n");  // 7
  ASSERT_FALSE(r.ok());
  ASSERT_EQ(r.errors().size(), 5u) << joined(r);
  EXPECT_NE(r.errors()[0].message.find("t.yaml:4:"), std::string::npos);
  EXPECT_NE(r.errors()[1].message.find("t.yaml:5:"), std::string::npos);
  EXPECT_NE(r.errors()[3].message.find("t.yaml:6:"), std::string::npos);
  EXPECT_NE(r.errors()[4].message.find("t.yaml:7:"), std::string::npos);
}

TEST(PodSpec, MalformedInputIsAnErrorNeverACrash) {
  const std::vector<std::string> bad{
      kCube + "failed_links: [5, ~, [1, 2]]\n",
      kCube + "failed_links: {chip: 1}\n",
      kCube + "failed_chips: [~, {a: 1}, [1, 2, 3, 4]]\n",
      kCube + "media: {pcb: ~, copper: [1], optical: {latency: ~}}\n",
      kCube + "slice: {origin: ~, extent: ~}\n",
      kCube + "slice: [1, 2]\n",
      kCube + "router: ~\nbuffer: []\n",
      kCube + "dims: [4, 4, 4]\n",
      kCube + "? [complex, key]\n: 1\n",
      "name: e\nshape: explicit\ndims: [2]\nlinks: [~, 1, {a: ~, b: [[1], 2]}, {a: [0, 0, 0], b: "
      "[]}]\n",
      "name: e\nshape: explicit\ndims: [99999999999999999999]\nlinks: []\n",
      "name: t\nshape: torus\ndims: [18446744073709551615, 2]\n",
      "name: t\nshape: ~\ndims: ~\nports_per_chip: ~\n",
      "name: t\nshape: tpuv4\ncube: 0\ndims: [0, 0, 0]\n",
      "name: &a t\nshape: *a\ndims: [2]\n",
      "\t\x01 {",
  };
  for (const std::string& yaml : bad) {
    SCOPED_TRACE(yaml);
    const Result<PodSpec> r = load(yaml);
    EXPECT_FALSE(r.ok());
    for (const Error& e : r.errors())
      EXPECT_EQ(e.message.rfind("t.yaml", 0), 0u) << e.message;
  }
}

TEST(PodSpec, ResolvePod) {
  const Result<std::filesystem::path> p = resolve_pod("tpuv4-4x4x4", kConfigDir);
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(*p, kConfigDir / "pods" / "tpuv4-4x4x4.yaml");
  const Result<std::filesystem::path> typo = resolve_pod("tpuv4-4x4x5", kConfigDir);
  ASSERT_FALSE(typo.ok());
  EXPECT_NE(typo.error().message.find("did you mean 'tpuv4-4x4x4'"), std::string::npos)
      << typo.error().message;
  EXPECT_NE(typo.error().message.find("ring-8"), std::string::npos);
  EXPECT_FALSE(resolve_pod("no/such/pod.yaml", kConfigDir).ok());
  const Result<PodSpec> missing = load_pod_file(kConfigDir / "pods" / "missing.yaml");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("cannot open the pod file"), std::string::npos);
}

TEST(PodSpec, MediumNames) {
  for (Medium m : {Medium::kPcb, Medium::kCopper, Medium::kOptical}) {
    const Result<Medium> back = parse_medium(medium_name(m));
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(*back, m);
  }
  const Result<Medium> bad = parse_medium("Copper");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("\"Copper\""), std::string::npos);
  EXPECT_NE(bad.error().message.find("pcb, copper, optical"), std::string::npos);
  EXPECT_EQ(shape_name(Shape::kTpuV4), "tpuv4");
  EXPECT_EQ(shape_name(Shape::kExplicit), "explicit");
}

TEST(PodSpec, EveryShippedPodLoadsAndBuilds) {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(kConfigDir / "pods")) {
    if (entry.path().extension() == ".yaml") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  ASSERT_GE(files.size(), 7u);
  for (const std::filesystem::path& f : files) {
    SCOPED_TRACE(f.string());
    const Result<PodSpec> spec = load_pod_file(f);
    ASSERT_TRUE(spec.ok()) << joined(spec);
    EXPECT_EQ(spec->name, f.stem().string());
    const Result<Topology> topo = build_topology(*spec);
    ASSERT_TRUE(topo.ok()) << topo.error().message;
    EXPECT_GT(topo->active_chips(), 0u);
  }
}

}  // namespace
}  // namespace xpusim::fabric
