// PodSpec: the immutable description of a pod of chips joined by the chip-to-chip fabric,
// loaded from configs/pods/NAME.yaml (docs/fabric-pods.md has the key reference). Quantities are
// integers in base units (bytes, bytes/s, ps); lengths are metres.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "fabric/medium.h"
#include "sim/registry.h"
#include "sim/result.h"
#include "sim/tick.h"

namespace xpusim::fabric {

enum class Shape : std::uint8_t {
  kRing,      // dims {n}; wraps
  kMesh,      // dims of rank 1-3; never wraps
  kTorus,     // dims of rank 1-3; every dimension wraps
  kTpuV4,     // 3-D torus of `cube`^3 cubes: electrical inside a cube, optical between cubes
              // and on every wrap-around link (TPU v4, ISCA 2023)
  kExplicit,  // `chips` and a `links` list; routed by shortest path with hop-indexed VCs
};
std::string_view shape_name(Shape s);

// The pod shapes by name, for the reader, `xpusim list topologies` and did-you-mean. Unlike the
// policies the set is closed: a shape has its own YAML keys (cube, tray, links) and checks in the
// reader and build_topology, so it is an enum and an entry's factory is the Shape it selects.
using ShapeRegistry = sim::Registry<Shape>;
// Built on each call: ring, mesh, torus, tpuv4, explicit.
ShapeRegistry topologies();

// Per-medium link properties: the offline-calibrated latency table (seed4 ¶48-¶49) plus a
// per-metre term, the serial bandwidth and the bit error rate that drives link-level retries.
struct MediumSpec {
  sim::Tick latency_ps = 0;                 // one-way, fixed part (SerDes, FEC, switch)
  sim::Tick per_metre_ps = 0;               // one-way, per metre of cable
  std::uint64_t bandwidth_bytes_per_s = 0;  // per direction
  double bit_error_rate = 0.0;              // 0 disables retries
  double default_length_m = 0.0;            // used when a link does not give a length
};

struct ExplicitLink {
  std::uint32_t chip_a = 0, port_a = 0, chip_b = 0, port_b = 0;
  Medium medium = Medium::kCopper;
  double length_m = 0.0;  // < 0 means "the medium's default_length_m"
  int line = 0;           // 1-based source line, for errors found after loading
};

// A link named by one of its ends: chip coordinates (or index for ring/explicit) and port.
struct LinkEnd {
  std::array<std::uint32_t, 3> coord{};  // unused dimensions are 0
  std::uint32_t port = 0;
  int line = 0;
};

struct BufferSpec {
  std::uint64_t bytes = 0;             // the shared buffer memory per chip (seed4 ¶44)
  std::uint64_t unit_bytes = 0;        // allocation / alignment unit; queue bounds are multiples
  std::uint64_t outbound_bytes = 0;    // per used port: the outbound-to-port (injection) queue
  std::uint64_t inbound_bytes = 0;     // the port-to-inbound (ejection) queue, one per chip
  std::uint32_t vcs = 0;               // virtual channels per port
  std::uint64_t min_bytes_per_vc = 0;  // floor for each used (port, VC); 0 = one max packet
  std::string policy;                  // default allocation policy name
  int line = 0;                        // 1-based line of `buffer.bytes`, for later errors
};

enum class RttSource : std::uint8_t { kTable, kMeasured };  // seed4 ¶48 vs ¶15

struct PodSpec {
  std::string name;
  std::string description;
  std::string source;  // file path or source name, for messages
  Shape shape = Shape::kTorus;
  std::vector<std::uint32_t> dims;  // ring: {n}; mesh/torus/tpuv4: 1-3 entries; explicit: {chips}
  std::uint32_t cube = 4;           // tpuv4: cube edge; every dim must be a multiple
  std::array<std::uint32_t, 3> tray{2, 2, 1};  // tpuv4: chips on one tray (PCB links)
  std::uint32_t ports_per_chip = 6;
  std::array<MediumSpec, kMediumCount> media{};  // indexed by Medium
  Medium electrical_medium = Medium::kCopper;    // mesh/torus/ring links, tpuv4 in-cube links
  std::vector<ExplicitLink> links;               // explicit shape only
  // A slice of the pod taking part in the job: origin and extent per dimension (empty = all).
  // Ports whose link leaves the slice are connected but unused (seed4 ¶41).
  std::vector<std::uint32_t> slice_origin, slice_extent;
  std::vector<std::array<std::uint32_t, 3>> failed_chips;  // coordinates
  std::vector<LinkEnd> failed_links;                       // seed4 ¶42
  sim::Tick router_latency_ps = 0;                         // input queue to output port, per hop
  std::uint64_t max_packet_bytes = 0;  // messages are cut into packets of at most this
  std::uint64_t header_bytes = 0;      // per packet on the wire
  // Link-level retry: replays of one packet after bit errors before its link is declared failed
  // (PCIe retrains a link when its REPLAY_NUM counter rolls over after 4 replays).
  std::uint32_t max_replays = 4;
  BufferSpec buffer;
  RttSource rtt_source = RttSource::kTable;
};

// Strict load: unknown keys, bad types, unknown media, negative/NaN lengths or latencies,
// out-of-range ports, dangling explicit links, a buffer below one max packet per used (port,
// VC)... every problem as "FILE:LINE:COL: key.path: message", all collected.
Result<PodSpec> load_pod_file(const std::filesystem::path& path);
Result<PodSpec> load_pod_string(std::string_view yaml, std::string_view source_name);
// "tpuv4-4x4x4" -> configs/pods/tpuv4-4x4x4.yaml under `config_dir`; a path is taken as is.
Result<std::filesystem::path> resolve_pod(std::string_view name_or_path,
                                          const std::filesystem::path& config_dir);

}  // namespace xpusim::fabric
