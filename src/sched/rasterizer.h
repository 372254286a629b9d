// CTA-id rasterization (seed1 ¶176–190): the centralized x-fastest decode, cluster-relative ids,
// one SM's distributed delta decoder, and the experiment-4 cost model that compares the two
// (digest §5 items 15, 18b, 18c).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "sim/result.h"

namespace xpusim::sched {

struct CtaId {
  std::uint32_t x = 0, y = 0, z = 0;
  friend bool operator==(const CtaId&, const CtaId&) = default;
};

// Kept independent of grid.h's Dim3 so the rasterizer has no scheduler dependencies.
struct GridDims {
  std::uint32_t x = 1, y = 1, z = 1;
  std::uint64_t count() const { return std::uint64_t{x} * y * z; }
  friend bool operator==(const GridDims&, const GridDims&) = default;
};

// Every dim >= 1 and fits the 32b-16b-16b id tuple (seed1 ¶175): x <= 2^31-1 (CUDA gridDim.x),
// y, z <= 65535. One line naming the dim, value and rule.
Status check_grid_dims(const GridDims& grid);

// Centralized decode: the linear launch index → (x,y,z), x fastest (¶177). linear < count().
CtaId decode_linear(const GridDims& grid, std::uint64_t linear);
// The inverse, x fastest.
std::uint64_t encode_linear(const GridDims& grid, const CtaId& cta);

// Cluster-relative ids (¶228–229, PTX %cluster_ctarank / %clusterid): the CTA's rank inside its
// cluster, x fastest, and the cluster's own coordinates in the grid of clusters.
std::uint32_t cga_cta_id(const GridDims& cluster, const CtaId& cta);
CtaId cluster_id(const GridDims& cluster, const CtaId& cta);

// One SM's distributed rasterizer. It sees every broadcast launch (its own and others'), counts a
// delta_bits-wide delta since its last decode, and decodes incrementally with the ¶179 carry
// chain when it launches a CTA itself or when one more launch would overflow the delta counter.
class SmRasterizer {
 public:
  // delta_bits in [1, 31]; grid dims >= 1 (validate user input with check_grid_dims).
  explicit SmRasterizer(const GridDims& grid, std::uint32_t delta_bits = 8);
  // An SM that joins a running grid is told the current offset (digest §3.8): `next` is the id of
  // the next CTA in global order.
  SmRasterizer(const GridDims& grid, const CtaId& next, std::uint32_t delta_bits = 8);

  // CTAs launched on other SMs since the last call. XPUSIM_CHECKs the grid is not overrun.
  void observe(std::uint32_t launched_elsewhere);
  // The id of the CTA this SM launches now (the next one in global order).
  CtaId launch_own();

  std::uint64_t decodes() const { return decodes_; }  // all decodes, overflow ones included
  std::uint64_t overflow_decodes() const { return overflow_decodes_; }
  std::uint32_t pending_delta() const { return delta_; }
  std::uint64_t launches_seen() const { return seen_; }  // own + observed, since construction
  std::uint32_t delta_bits() const { return delta_bits_; }

 private:
  void decode();  // position_ += delta_, delta_ = 0

  GridDims grid_;
  CtaId position_;  // next CTA in global order as of the last decode
  std::uint32_t delta_bits_;
  std::uint64_t remaining_ = 0;  // CTAs of the grid not yet launched anywhere; guards overrun
  std::uint64_t seen_ = 0;
  std::uint32_t delta_ = 0;
  std::uint32_t delta_max_ = 0;
  std::uint64_t decodes_ = 0;
  std::uint64_t overflow_decodes_ = 0;
};

// Experiment 4 cost model (digest §5 items 18b/c). Every default is our assumption: the patent
// claims ×36 peak launch throughput with no conditions (¶191).
//  Centralized: the CWD decodes one id per central_decode_cycles and sends an id_bytes id per
//    CTA over the shared CWD→SM bus.
//  Distributed: the CWD only broadcasts launch packets (¶194–195): header (sequence number,
//    end_of_cga, CGA id) + an sm_mask of num_sms bits, one CTA per set bit, up to
//    ctas_per_packet CTAs; every SM decodes its own ids in parallel.
struct RasterCostModel {
  std::uint32_t central_decode_cycles = 1;  // one incrementing decoder in the CWD
  std::uint32_t id_bytes = 8;               // 32b-16b-16b tuple (¶175)
  std::uint32_t ctas_per_packet = 1;        // ¶195 allows several; 1 = the conservative case
  std::uint32_t packet_header_bytes = 4;    // seq number + end_of_cga + CGA id, rounded up
  std::uint32_t bus_bytes_per_cycle = 32;   // CWD→SM crossbar port, shared by both schemes
  std::uint32_t cwd_packets_per_cycle = 1;  // the CWD emits at most one packet per cycle
  std::uint32_t sm_decode_cycles = 1;       // one low-precision div/mod + carry chain (¶179)
  std::uint32_t delta_bits = 8;             // SM delta counter width (¶179 "low precision")
};

// Every knob >= 1, ctas_per_packet <= num_sms (one mask bit per SM), delta_bits <= 31.
Status check_cost_model(const RasterCostModel& m, std::uint32_t num_sms);

// What bounds a scheme's throughput; ties go to the first in enum order.
enum class RasterBound : std::uint8_t { kDecode, kPacketIssue, kBus };
std::string_view name(RasterBound b);

struct RasterComparison {
  std::uint64_t ctas = 0;
  // Peak = steady-state bound for this launch order: the slowest of decoder, packet issue and
  // bus, fully pipelined, with no fill latency and launch decisions taken as free.
  double central_ids_per_cycle = 0;
  double distributed_ids_per_cycle = 0;
  RasterBound central_bound = RasterBound::kDecode;
  RasterBound distributed_bound = RasterBound::kDecode;
  std::uint64_t central_bytes = 0;
  std::uint64_t distributed_bytes = 0;
  double central_bytes_per_cta = 0;
  double distributed_bytes_per_cta = 0;
  std::uint64_t packets = 0;
  std::uint32_t packet_bytes = 0;
  std::vector<std::uint64_t> decodes_per_sm;  // own + overflow decodes, by SM
  std::uint64_t overflow_decodes = 0;         // over all SMs
  double speedup() const { return distributed_ids_per_cycle / central_ids_per_cycle; }
};

// sm_of_launch: which SM each successive CTA goes to (1..grid.count() entries, each < num_sms).
// Consecutive launches share a packet while the SMs strictly ascend (the mask then implies the
// order) and the packet holds fewer than ctas_per_packet. Runs one SmRasterizer per SM and
// XPUSIM_CHECKs every id against decode_linear. Validate knobs with check_cost_model first.
RasterComparison compare_rasterization(const GridDims& grid, std::uint32_t num_sms,
                                       std::span<const std::uint32_t> sm_of_launch,
                                       const RasterCostModel& m = {});

}  // namespace xpusim::sched
