// ChipSpec: the immutable description of one chip, loaded from configs/chips/NAME.yaml.
// Every quantity is an integer in base units (Hz, bytes, bytes/s); see docs/config.md.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "sim/result.h"

namespace xpusim::config {

struct ClockSpec {
  std::uint64_t sm_hz = 0;
  std::uint64_t l2_hz = 0;
};

struct TopologySpec {
  std::uint32_t gpcs = 0;
  std::vector<std::uint32_t> tpcs_per_gpc;  // floor-sweep pattern, one entry per GPC
  std::uint32_t sms_per_tpc = 0;
  std::uint32_t max_cluster_size = 0;  // CTAs per cluster (CGA); a cluster lives in one GPC
  std::uint32_t cpcs_per_gpc = 1;      // CPCs a GPC's TPCs are split into (seed1 ¶169)
  std::uint32_t ugpus = 1;             // µGPUs the GPCs are split into (seed1 ¶101–114)
};

struct TensorSpec {
  std::uint32_t cores = 0;               // per SM, an equal share per sub-partition
  std::uint32_t bf16_fma_per_cycle = 0;  // per SM, dense
  std::uint32_t int8_fma_per_cycle = 0;  // per SM, dense INT8 multiply-accumulates
  std::uint32_t tf32_fma_per_cycle = 0;  // per SM, dense
  // FP32 mm: not a tensor-core format on H100; the model runs it on the FP32 pipes (our choice).
  std::uint32_t f32_fma_per_cycle = 0;  // per SM
  // Per-thread register file holding the mm instruction's A/C operands (the model's, not the
  // architectural 255-register limit; seed2's examples address r256 and up).
  std::uint32_t registers_per_thread = 0;
  // Entries of each SM's cache of page-table translations for mm B through a segment (seed2
  // ¶61–63); 0: every page an mm touches costs a PTE load.
  std::uint32_t translation_cache_entries = 16;
};

struct SmSpec {
  std::uint32_t sub_partitions = 0;
  std::uint32_t max_warps = 0;
  std::uint32_t max_threads = 0;
  std::uint32_t max_threads_per_block = 0;
  std::uint32_t max_blocks = 0;
  std::uint32_t registers = 0;  // 32-bit registers per SM
  std::uint32_t max_registers_per_thread = 0;
  std::uint64_t l1_shared_bytes = 0;      // the unified L1 / shared-memory array
  std::uint64_t shared_memory_bytes = 0;  // max shared-memory carve-out per SM
  std::uint64_t shared_memory_per_block_bytes = 0;
  std::uint32_t shared_memory_banks = 0;
  std::uint32_t shared_memory_bank_bytes = 0;
  std::uint32_t store_queue = 0;  // posted global stores in flight (0: stores block)
  TensorSpec tensor;
};

// Latency classes of the SM's pipes, in SM cycles (core::SmTiming; docs/sm.md has sources).
struct SmLatencySpec {
  std::uint32_t alu_cycles = 0;
  std::uint32_t sfu_cycles = 0;
  std::uint32_t sfu_issue_cycles = 0;
  std::uint32_t mma_cycles = 0;        // PTX mma.sync: latency after its tensor-pipe cycles
  std::uint32_t mma_issue_cycles = 0;  // tensor-pipe cycles per 1024 f16 FMAs
  std::uint32_t shared_cycles = 0;
  std::uint32_t lsu_issue_cycles = 0;
  std::uint32_t barrier_cycles = 0;
  std::uint32_t mbarrier_cycles = 0;
  std::uint32_t cluster_barrier_cycles = 0;
};

// The L1 data cache's size is what shared memory leaves of sm.l1_shared_bytes (a run-time
// carve-out); its line and sector sizes are the L2's (docs/memory-hierarchy.md).
struct L1Spec {
  std::uint32_t ways = 0;
  std::uint32_t hit_latency_cycles = 0;  // SM cycles
};

// The SM-to-SM (distributed shared memory) network inside a GPC.
struct DsmemSpec {
  std::uint32_t latency_cycles = 0;   // SM cycles, one way
  std::uint32_t bytes_per_cycle = 0;  // per SM port
};

// The TMA units (seed0 §2; docs/tma-unit.md).
struct TmaSpec {
  std::uint32_t sms_per_unit = 1;  // SMs sharing one unit through an arbiter (seed0 ¶50)
  std::uint32_t queue_depth = 16;  // requests waiting per SM
  std::uint32_t descriptor_cache_entries = 16;
  std::uint32_t descriptor_lookahead = 1;  // 0/1: fetch the next request's descriptor ahead
  std::uint32_t setup_cycles = 8;
  std::uint32_t requests_per_cycle = 1;  // <= 128 B global requests per SM cycle
  std::uint32_t max_outstanding = 256;   // global requests in flight per unit
  std::uint32_t split_queues = 0;        // 0/1: separate tensor and non-tensor queues (seed0 ¶86)
};

// The SM <-> L2-slice crossbar.
struct CrossbarSpec {
  std::uint32_t latency_cycles = 0;  // L2 cycles, one way
};

struct L2Spec {
  std::uint64_t size_bytes = 0;
  std::uint32_t partitions = 0;
  std::uint32_t line_bytes = 0;
  std::uint32_t sector_bytes = 0;
  std::uint32_t slices = 0;  // an equal number per partition
  std::uint32_t ways = 0;
  std::uint32_t hit_latency_cycles = 0;  // L2 cycles
  std::uint32_t mshrs_per_slice = 0;
  std::uint32_t writeback_buffers_per_slice = 0;  // 0: no limit
  std::string set_index;  // "hash" | "modulo": how a line picks its set in its slice
  std::uint32_t slice_bytes_per_cycle = 0;   // crossbar port width per slice and direction
  std::uint32_t cross_partition_cycles = 0;  // extra L2 cycles to reach the far partition
};

struct HbmSpec {
  std::string generation;  // HBM2, HBM2e, HBM3, HBM3e
  std::uint32_t stacks = 0;
  std::uint64_t capacity_bytes = 0;
  std::uint64_t bandwidth_bytes_per_s = 0;
  std::uint32_t channels = 0;       // independent channels sharing the bandwidth equally
  std::uint64_t latency_ps = 0;     // fixed access latency of a channel
  std::uint64_t turnaround_ps = 0;  // bus dead time when a channel changes direction
  // Extra read latency (ns) at 10 %, 20 %, ... 90 % of a channel's bandwidth, for reads alone,
  // an even mix and writes alone (empty: none), over the load of the last window.
  std::vector<std::uint32_t> loaded_reads_ns, loaded_mixed_ns, loaded_writes_ns;
  std::uint64_t loaded_window_ps = 0;
  std::uint64_t interleave_bytes = 0;  // consecutive blocks of this size go to different channels
};

// Command-processor (kernel agent) costs in SM cycles; the defaults are ours (seed3 gives none).
struct CommandProcessorSpec {
  std::uint32_t doorbell_cycles = 0;
  std::uint32_t fetch_cycles = 0;
  std::uint32_t decode_cycles = 0;
  std::uint32_t setup_cycles = 0;
  std::uint32_t diff_cycles = 0;
  std::uint32_t cleanup_cycles = 0;
};

struct ChipSpec {
  std::string name;
  std::string description;
  ClockSpec clocks;
  TopologySpec topology;
  SmSpec sm;
  SmLatencySpec sm_latency;
  L1Spec l1;
  DsmemSpec dsmem;
  TmaSpec tma;
  CrossbarSpec crossbar;
  L2Spec l2;
  HbmSpec hbm;
  CommandProcessorSpec command_processor;

  std::uint32_t num_gpcs() const { return topology.gpcs; }
  std::uint32_t num_tpcs() const;
  std::uint32_t num_sms() const { return num_tpcs() * topology.sms_per_tpc; }
  std::uint32_t sms_in_gpc(std::uint32_t gpc) const;
  // SM ids are numbered GPC-major: GPC 0's SMs are 0..sms_in_gpc(0)-1, then GPC 1's, ...
  std::uint32_t first_sm_of_gpc(std::uint32_t gpc) const;
  std::uint32_t gpc_of_sm(std::uint32_t sm) const;
  // TPC ids follow the same order, so the SMs of one TPC are adjacent.
  std::uint32_t tpc_of_sm(std::uint32_t sm) const { return sm / topology.sms_per_tpc; }
  std::uint32_t tensor_cores() const { return num_sms() * sm.tensor.cores; }
  // sms x bf16_fma_per_cycle x 2 flops/FMA x SM clock, in flop/s.
  std::uint64_t peak_bf16_dense_flops() const;
  double peak_bf16_dense_tflops() const {
    return static_cast<double>(peak_bf16_dense_flops()) / 1e12;
  }
  // sms x int8_fma_per_cycle x 2 ops/MAC x SM clock, in op/s.
  std::uint64_t peak_int8_dense_ops() const;
  double peak_int8_dense_tops() const { return static_cast<double>(peak_int8_dense_ops()) / 1e12; }
  std::uint64_t hbm_bandwidth_bytes_per_s() const { return hbm.bandwidth_bytes_per_s; }
  std::uint64_t l2_bytes_per_partition() const { return l2.size_bytes / l2.partitions; }
};

// Loads and validates a chip file; all problems come back at once, one line each.
Result<ChipSpec> load_chip_file(const std::filesystem::path& path);
// Same, from text; `source_name` is the file name used in error messages.
Result<ChipSpec> load_chip_string(std::string_view yaml, std::string_view source_name);

// A value containing '/' or ending in ".yaml" is a path; otherwise it names
// `config_dir/chips/NAME.yaml`. An unknown name is an error listing the available chips.
Result<std::filesystem::path> resolve_chip(std::string_view name_or_path,
                                           const std::filesystem::path& config_dir);
// Names of the chip files in `config_dir/chips`, sorted.
std::vector<std::string> list_chips(const std::filesystem::path& config_dir);

}  // namespace xpusim::config
