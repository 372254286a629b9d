#include "config/chip_schema.h"

#include <array>
#include <variant>

#include <fmt/format.h>

#include "config/key_schema.h"

namespace xpusim::config {
namespace {

// Where a field's value lands in ChipSpec.
using U64Ref = std::uint64_t& (*)(ChipSpec&);
using U32Ref = std::uint32_t& (*)(ChipSpec&);
using StringRef = std::string& (*)(ChipSpec&);
using ListRef = std::vector<std::uint32_t>& (*)(ChipSpec&);
using Binding = std::variant<U64Ref, U32Ref, StringRef, ListRef>;

struct ChipField {
  FieldDecl decl;
  Binding bind;
};

#define XPUSIM_CHIP_MEMBER(member) \
  +[](ChipSpec & c) -> auto& {     \
    return c.member;               \
  }

using enum ValueKind;
constexpr std::uint64_t kMHz = 1'000'000;
constexpr std::uint64_t kGHz = 1'000'000'000;
constexpr std::uint64_t kKiB = 1024;
constexpr std::uint64_t kMiB = 1024 * kKiB;
constexpr std::uint64_t kGiB = 1024 * kMiB;
constexpr std::uint64_t kTiB = 1024 * kGiB;
constexpr std::uint64_t kU32Max = 0xFFFF'FFFF;
constexpr std::uint64_t kNs = 1000;  // picoseconds
constexpr std::uint64_t kUs = 1000 * kNs;
constexpr std::uint64_t kMs = 1000 * kUs;

constexpr std::array kChipFields{
    ChipField{{.path = "name",
               .kind = kString,
               .description = "Chip name shown by `xpusim info`; by convention the file name"},
              XPUSIM_CHIP_MEMBER(name)},
    ChipField{{.path = "description",
               .kind = kString,
               .required = false,
               .default_yaml = "\"\"",
               .description = "One-line human description"},
              XPUSIM_CHIP_MEMBER(description)},

    ChipField{{.path = "clocks.sm",
               .kind = kFrequency,
               .min = kMHz,
               .max = 10 * kGHz,
               .description = "SM clock (issue, tensor cores, shared memory)"},
              XPUSIM_CHIP_MEMBER(clocks.sm_hz)},
    ChipField{{.path = "clocks.l2",
               .kind = kFrequency,
               .min = kMHz,
               .max = 10 * kGHz,
               .description = "L2 and crossbar clock"},
              XPUSIM_CHIP_MEMBER(clocks.l2_hz)},

    ChipField{{.path = "topology.gpcs",
               .kind = kInteger,
               .min = 1,
               .max = 64,
               .description = "Graphics processing clusters (GPCs) enabled on the part"},
              XPUSIM_CHIP_MEMBER(topology.gpcs)},
    ChipField{{.path = "topology.tpcs_per_gpc",
               .kind = kIntegerList,
               .min = 1,
               .max = 64,
               .description = "Enabled TPCs in each GPC (the floor-sweep pattern), one per GPC"},
              XPUSIM_CHIP_MEMBER(topology.tpcs_per_gpc)},
    ChipField{{.path = "topology.sms_per_tpc",
               .kind = kInteger,
               .min = 1,
               .max = 8,
               .required = false,
               .default_yaml = "2",
               .description = "SMs in each texture processing cluster (TPC)"},
              XPUSIM_CHIP_MEMBER(topology.sms_per_tpc)},
    ChipField{{.path = "topology.max_cluster_size",
               .kind = kInteger,
               .min = 1,
               .max = 64,
               .required = false,
               .default_yaml = "8",
               .description = "Most CTAs in one cluster (CGA); all of them run in one GPC"},
              XPUSIM_CHIP_MEMBER(topology.max_cluster_size)},
    ChipField{{.path = "topology.cpcs_per_gpc",
               .kind = kInteger,
               .min = 1,
               .max = 16,
               .required = false,
               .default_yaml = "1",
               .description = "CPCs in each GPC: its TPCs split into this many contiguous groups, "
                              "the lower ones taking the extra TPCs; a CPC_CGA runs in one "
                              "(seed1 ¶169)"},
              XPUSIM_CHIP_MEMBER(topology.cpcs_per_gpc)},
    ChipField{
        {.path = "topology.ugpus",
         .kind = kInteger,
         .min = 1,
         .max = 64,
         .required = false,
         .default_yaml = "1",
         .description = "µGPUs: the GPCs split into this many contiguous groups, the lower "
                        "ones taking the extra GPCs; a µGPU_CGA runs in one (seed1 ¶101-114)"},
        XPUSIM_CHIP_MEMBER(topology.ugpus)},

    ChipField{{.path = "sm.sub_partitions",
               .kind = kInteger,
               .min = 1,
               .max = 16,
               .description = "SM sub-partitions (SMSPs), each with a warp scheduler"},
              XPUSIM_CHIP_MEMBER(sm.sub_partitions)},
    ChipField{{.path = "sm.max_warps",
               .kind = kInteger,
               .min = 1,
               .max = 1024,
               .description = "Resident warps per SM"},
              XPUSIM_CHIP_MEMBER(sm.max_warps)},
    ChipField{{.path = "sm.max_threads",
               .kind = kInteger,
               .min = 1,
               .max = 32768,
               .description = "Resident threads per SM"},
              XPUSIM_CHIP_MEMBER(sm.max_threads)},
    ChipField{{.path = "sm.max_threads_per_block",
               .kind = kInteger,
               .min = 1,
               .max = 32768,
               .required = false,
               .default_yaml = "1024",
               .description = "Threads in one thread block (CTA)"},
              XPUSIM_CHIP_MEMBER(sm.max_threads_per_block)},
    ChipField{{.path = "sm.max_blocks",
               .kind = kInteger,
               .min = 1,
               .max = 1024,
               .description = "Resident thread blocks (CTAs) per SM"},
              XPUSIM_CHIP_MEMBER(sm.max_blocks)},
    ChipField{{.path = "sm.registers",
               .kind = kInteger,
               .min = 1,
               .max = 1 << 24,
               .description = "32-bit registers per SM"},
              XPUSIM_CHIP_MEMBER(sm.registers)},
    ChipField{{.path = "sm.max_registers_per_thread",
               .kind = kInteger,
               .min = 1,
               .max = 1024,
               .required = false,
               .default_yaml = "255",
               .description = "Registers one thread may use"},
              XPUSIM_CHIP_MEMBER(sm.max_registers_per_thread)},
    ChipField{{.path = "sm.l1_shared_bytes",
               .kind = kSize,
               .min = kKiB,
               .max = kGiB,
               .description = "Unified L1 data cache / shared memory array per SM"},
              XPUSIM_CHIP_MEMBER(sm.l1_shared_bytes)},
    ChipField{{.path = "sm.shared_memory_bytes",
               .kind = kSize,
               .min = 0,
               .max = kGiB,
               .description = "Largest shared-memory carve-out per SM"},
              XPUSIM_CHIP_MEMBER(sm.shared_memory_bytes)},
    ChipField{{.path = "sm.shared_memory_per_block_bytes",
               .kind = kSize,
               .min = 0,
               .max = kGiB,
               .description = "Largest shared memory one thread block may use (dynamic opt-in)"},
              XPUSIM_CHIP_MEMBER(sm.shared_memory_per_block_bytes)},
    ChipField{{.path = "sm.shared_memory_banks",
               .kind = kInteger,
               .min = 1,
               .max = 256,
               .power_of_two = true,
               .required = false,
               .default_yaml = "32",
               .description = "Shared-memory banks"},
              XPUSIM_CHIP_MEMBER(sm.shared_memory_banks)},
    ChipField{{.path = "sm.shared_memory_bank_bytes",
               .kind = kInteger,
               .min = 1,
               .max = 64,
               .power_of_two = true,
               .required = false,
               .default_yaml = "4",
               .description = "Width of one shared-memory bank"},
              XPUSIM_CHIP_MEMBER(sm.shared_memory_bank_bytes)},
    ChipField{{.path = "sm.store_queue",
               .kind = kInteger,
               .min = 0,
               .max = 1 << 20,
               .required = false,
               .default_yaml = "32",
               .description = "Global stores in flight per SM, issue to the L2's acknowledgement; "
                              "a store is posted (its warp goes on) while an entry is free. 0: "
                              "every store holds its warp until acknowledged"},
              XPUSIM_CHIP_MEMBER(sm.store_queue)},
    ChipField{{.path = "sm.tensor.cores",
               .kind = kInteger,
               .min = 1,
               .max = 64,
               .description = "Tensor cores per SM, an equal number in each sub-partition"},
              XPUSIM_CHIP_MEMBER(sm.tensor.cores)},
    ChipField{{.path = "sm.tensor.bf16_fma_per_cycle",
               .kind = kInteger,
               .min = 1,
               .max = 1 << 20,
               .description = "Dense BF16 fused multiply-adds per SM per SM clock"},
              XPUSIM_CHIP_MEMBER(sm.tensor.bf16_fma_per_cycle)},
    ChipField{{.path = "sm.tensor.int8_fma_per_cycle",
               .kind = kInteger,
               .min = 1,
               .max = 1 << 20,
               .description = "Dense INT8 multiply-accumulates per SM per SM clock"},
              XPUSIM_CHIP_MEMBER(sm.tensor.int8_fma_per_cycle)},
    ChipField{{.path = "sm.tensor.tf32_fma_per_cycle",
               .kind = kInteger,
               .min = 1,
               .max = 1 << 20,
               .description = "Dense TF32 fused multiply-adds per SM per SM clock"},
              XPUSIM_CHIP_MEMBER(sm.tensor.tf32_fma_per_cycle)},
    ChipField{{.path = "sm.tensor.f32_fma_per_cycle",
               .kind = kInteger,
               .min = 1,
               .max = 1 << 20,
               .description = "FP32 mm fused multiply-adds per SM per SM clock (FP32 pipes)"},
              XPUSIM_CHIP_MEMBER(sm.tensor.f32_fma_per_cycle)},
    ChipField{
        {.path = "sm.tensor.registers_per_thread",
         .kind = kInteger,
         .min = 8,
         .max = 65536,
         .description = "Per-thread registers of the mm register file (A/C operands of `mm`)"},
        XPUSIM_CHIP_MEMBER(sm.tensor.registers_per_thread)},
    ChipField{{.path = "sm.tensor.translation_cache_entries",
               .kind = kInteger,
               .min = 0,
               .max = 4096,
               .required = false,
               .default_yaml = "16",
               .description = "Entries of each SM's page-table translation cache (LRU) for `mm` "
                              "B through a segment; a miss loads the page's PTE through L1/L2 "
                              "(seed2 ¶61-63). 0: every page an mm touches loads its PTE"},
              XPUSIM_CHIP_MEMBER(sm.tensor.translation_cache_entries)},

    ChipField{{.path = "sm_latency.alu_cycles",
               .kind = kInteger,
               .min = 0,
               .max = 100'000,
               .required = false,
               .default_yaml = "4",
               .description = "Dependent issue latency of an ALU instruction (FFMA, IADD3)"},
              XPUSIM_CHIP_MEMBER(sm_latency.alu_cycles)},
    ChipField{{.path = "sm_latency.sfu_cycles",
               .kind = kInteger,
               .min = 0,
               .max = 100'000,
               .required = false,
               .default_yaml = "18",
               .description = "Latency of an SFU (MUFU) instruction after its issue slots"},
              XPUSIM_CHIP_MEMBER(sm_latency.sfu_cycles)},
    ChipField{
        {.path = "sm_latency.sfu_issue_cycles",
         .kind = kInteger,
         .min = 1,
         .max = 100'000,
         .required = false,
         .default_yaml = "2",
         .description = "Issue slots per SFU warp instruction (16 SFU lanes per sub-partition)"},
        XPUSIM_CHIP_MEMBER(sm_latency.sfu_issue_cycles)},
    ChipField{{.path = "sm_latency.mma_cycles",
               .kind = kInteger,
               .min = 0,
               .max = 100'000,
               .required = false,
               .default_yaml = "22",
               .description = "Latency of a PTX mma.sync after its tensor-pipe cycles"},
              XPUSIM_CHIP_MEMBER(sm_latency.mma_cycles)},
    ChipField{{.path = "sm_latency.mma_issue_cycles",
               .kind = kInteger,
               .min = 1,
               .max = 100'000,
               .required = false,
               .default_yaml = "6",
               .description = "Tensor-pipe cycles of a sub-partition per 1024 f16 FMAs of PTX "
                              "mma.sync (an m16n8k16.f16 takes two such units)"},
              XPUSIM_CHIP_MEMBER(sm_latency.mma_issue_cycles)},
    ChipField{{.path = "sm_latency.shared_cycles",
               .kind = kInteger,
               .min = 0,
               .max = 100'000,
               .required = false,
               .default_yaml = "29",
               .description = "Shared-memory load, no bank conflict, issue to data"},
              XPUSIM_CHIP_MEMBER(sm_latency.shared_cycles)},
    ChipField{{.path = "sm_latency.lsu_issue_cycles",
               .kind = kInteger,
               .min = 1,
               .max = 100'000,
               .required = false,
               .default_yaml = "1",
               .description = "Issue slots of a memory instruction"},
              XPUSIM_CHIP_MEMBER(sm_latency.lsu_issue_cycles)},
    ChipField{{.path = "sm_latency.barrier_cycles",
               .kind = kInteger,
               .min = 0,
               .max = 100'000,
               .required = false,
               .default_yaml = "20",
               .description = "Last arrival at bar.sync to the waiting warps issuing again"},
              XPUSIM_CHIP_MEMBER(sm_latency.barrier_cycles)},
    ChipField{{.path = "sm_latency.mbarrier_cycles",
               .kind = kInteger,
               .min = 0,
               .max = 100'000,
               .required = false,
               .default_yaml = "12",
               .description = "One mbarrier operation (init, arrive, test_wait), issue to done"},
              XPUSIM_CHIP_MEMBER(sm_latency.mbarrier_cycles)},
    ChipField{{.path = "sm_latency.cluster_barrier_cycles",
               .kind = kInteger,
               .min = 0,
               .max = 100'000,
               .required = false,
               .default_yaml = "190",
               .description = "Last arrival at cluster.sync to the waiting warps issuing again"},
              XPUSIM_CHIP_MEMBER(sm_latency.cluster_barrier_cycles)},

    ChipField{
        {.path = "l1.ways",
         .kind = kInteger,
         .min = 1,
         .max = 64,
         .required = false,
         .default_yaml = "4",
         .description = "L1 data cache associativity (its size is what shared memory leaves)"},
        XPUSIM_CHIP_MEMBER(l1.ways)},
    ChipField{{.path = "l1.hit_latency_cycles",
               .kind = kInteger,
               .min = 1,
               .max = 100'000,
               .required = false,
               .default_yaml = "32",
               .description = "Global load that hits L1, issue to data, in SM cycles"},
              XPUSIM_CHIP_MEMBER(l1.hit_latency_cycles)},

    ChipField{{.path = "dsmem.latency_cycles",
               .kind = kInteger,
               .min = 1,
               .max = 100'000,
               .required = false,
               .default_yaml = "180",
               .description =
                   "SM-to-SM (distributed shared memory) message latency, one way, in SM cycles"},
              XPUSIM_CHIP_MEMBER(dsmem.latency_cycles)},
    ChipField{{.path = "dsmem.bytes_per_cycle",
               .kind = kInteger,
               .min = 1,
               .max = 4096,
               .required = false,
               .default_yaml = "32",
               .description = "SM-to-SM network bandwidth of one SM's port, bytes per SM cycle"},
              XPUSIM_CHIP_MEMBER(dsmem.bytes_per_cycle)},

    ChipField{{.path = "tma.sms_per_unit",
               .kind = kInteger,
               .min = 1,
               .max = 64,
               .required = false,
               .default_yaml = "1",
               .description = "SMs sharing one TMA unit through a round-robin arbiter (seed0 ¶50)"},
              XPUSIM_CHIP_MEMBER(tma.sms_per_unit)},
    ChipField{
        {.path = "tma.queue_depth",
         .kind = kInteger,
         .min = 1,
         .max = 4096,
         .required = false,
         .default_yaml = "16",
         .description = "TMA requests waiting per SM; a warp issuing into a full queue waits"},
        XPUSIM_CHIP_MEMBER(tma.queue_depth)},
    ChipField{
        {.path = "tma.descriptor_cache_entries",
         .kind = kInteger,
         .min = 1,
         .max = 4096,
         .required = false,
         .default_yaml = "16",
         .description = "Tensor-map descriptors a TMA unit caches (LRU, tagged by global address)"},
        XPUSIM_CHIP_MEMBER(tma.descriptor_cache_entries)},
    ChipField{
        {.path = "tma.descriptor_lookahead",
         .kind = kInteger,
         .min = 0,
         .max = 1,
         .required = false,
         .default_yaml = "1",
         .description =
             "1: fetch the next queued request's descriptor during the current setup (seed0 ¶74)"},
        XPUSIM_CHIP_MEMBER(tma.descriptor_lookahead)},
    ChipField{
        {.path = "tma.split_queues",
         .kind = kInteger,
         .min = 0,
         .max = 1,
         .required = false,
         .default_yaml = "0",
         .description = "1: separate queues for tensor and non-tensor requests, picked by type in "
                        "turn; non-tensor ones pass a tensor request waiting for its descriptor "
                        "(seed0 ¶85-86). 0: one FIFO per SM"},
        XPUSIM_CHIP_MEMBER(tma.split_queues)},
    ChipField{
        {.path = "tma.setup_cycles",
         .kind = kInteger,
         .min = 0,
         .max = 100000,
         .required = false,
         .default_yaml = "8",
         .description = "Per-request validation and address setup in the TMA unit, in SM cycles"},
        XPUSIM_CHIP_MEMBER(tma.setup_cycles)},
    ChipField{{.path = "tma.requests_per_cycle",
               .kind = kInteger,
               .min = 1,
               .max = 64,
               .required = false,
               .default_yaml = "1",
               .description = "Global requests (<= 128 B each) a TMA unit generates per SM cycle"},
              XPUSIM_CHIP_MEMBER(tma.requests_per_cycle)},
    ChipField{{.path = "tma.max_outstanding",
               .kind = kInteger,
               .min = 1,
               .max = 65536,
               .required = false,
               .default_yaml = "256",
               .description = "Global requests a TMA unit keeps in flight"},
              XPUSIM_CHIP_MEMBER(tma.max_outstanding)},

    ChipField{{.path = "crossbar.latency_cycles",
               .kind = kInteger,
               .min = 0,
               .max = 100'000,
               .required = false,
               .default_yaml = "70",
               .description = "SM <-> L2-slice crossbar latency, one way, in L2 cycles"},
              XPUSIM_CHIP_MEMBER(crossbar.latency_cycles)},

    ChipField{{.path = "l2.size",
               .kind = kSize,
               .min = kKiB,
               .max = kTiB,
               .description = "L2 cache capacity"},
              XPUSIM_CHIP_MEMBER(l2.size_bytes)},
    ChipField{{.path = "l2.partitions",
               .kind = kInteger,
               .min = 1,
               .max = 64,
               .description = "L2 partitions; each SM reaches the far one through the crossbar"},
              XPUSIM_CHIP_MEMBER(l2.partitions)},
    ChipField{{.path = "l2.line_bytes",
               .kind = kInteger,
               .min = 16,
               .max = 1024,
               .power_of_two = true,
               .required = false,
               .default_yaml = "128",
               .description = "L2 line (tag) size"},
              XPUSIM_CHIP_MEMBER(l2.line_bytes)},
    ChipField{{.path = "l2.sector_bytes",
               .kind = kInteger,
               .min = 8,
               .max = 1024,
               .power_of_two = true,
               .required = false,
               .default_yaml = "32",
               .description = "L2 sector, the unit of fill and of DRAM access"},
              XPUSIM_CHIP_MEMBER(l2.sector_bytes)},

    ChipField{{.path = "l2.slices",
               .kind = kInteger,
               .min = 1,
               .max = 4096,
               .required = false,
               .default_yaml = "16",
               .description =
                   "L2 slices, an equal number per partition; lines are spread by an address hash"},
              XPUSIM_CHIP_MEMBER(l2.slices)},
    ChipField{{.path = "l2.ways",
               .kind = kInteger,
               .min = 1,
               .max = 256,
               .required = false,
               .default_yaml = "16",
               .description = "L2 associativity"},
              XPUSIM_CHIP_MEMBER(l2.ways)},
    ChipField{{.path = "l2.hit_latency_cycles",
               .kind = kInteger,
               .min = 1,
               .max = 100'000,
               .required = false,
               .default_yaml = "80",
               .description = "L2 slice lookup (tag + data) latency, in L2 cycles"},
              XPUSIM_CHIP_MEMBER(l2.hit_latency_cycles)},
    ChipField{{.path = "l2.mshrs_per_slice",
               .kind = kInteger,
               .min = 1,
               .max = 65536,
               .required = false,
               .default_yaml = "64",
               .description = "Lines with misses in flight per L2 slice; more misses wait"},
              XPUSIM_CHIP_MEMBER(l2.mshrs_per_slice)},
    ChipField{{.path = "l2.writeback_buffers_per_slice",
               .kind = kInteger,
               .min = 0,
               .max = 65536,
               .required = false,
               .default_yaml = "0",
               .description = "Dirty victims per L2 slice whose HBM write may be in flight at "
                              "once; a write that evicts one with all held is acknowledged "
                              "when the first frees. 0: no limit"},
              XPUSIM_CHIP_MEMBER(l2.writeback_buffers_per_slice)},
    ChipField{{.path = "l2.set_index",
               .kind = kString,
               .choices = "hash|modulo",
               .required = false,
               .default_yaml = "hash",
               .description = "A line's set in its slice: a hash of the line number, or the "
                              "line number, modulo the slice's sets"},
              XPUSIM_CHIP_MEMBER(l2.set_index)},
    ChipField{
        {.path = "l2.slice_bytes_per_cycle",
         .kind = kInteger,
         .min = 1,
         .max = 4096,
         .required = false,
         .default_yaml = "64",
         .description = "Crossbar port width of one L2 slice, per direction, bytes per L2 cycle"},
        XPUSIM_CHIP_MEMBER(l2.slice_bytes_per_cycle)},
    ChipField{{.path = "l2.cross_partition_cycles",
               .kind = kInteger,
               .min = 0,
               .max = 100'000,
               .required = false,
               .default_yaml = "100",
               .description = "Extra L2 cycles for a request to the SM's far L2 partition"},
              XPUSIM_CHIP_MEMBER(l2.cross_partition_cycles)},

    ChipField{{.path = "hbm.generation",
               .kind = kString,
               .choices = "HBM2|HBM2e|HBM3|HBM3e",
               .description = "HBM generation"},
              XPUSIM_CHIP_MEMBER(hbm.generation)},
    ChipField{{.path = "hbm.stacks",
               .kind = kInteger,
               .min = 1,
               .max = 16,
               .description = "Enabled HBM stacks"},
              XPUSIM_CHIP_MEMBER(hbm.stacks)},
    ChipField{{.path = "hbm.capacity",
               .kind = kSize,
               .min = kMiB,
               .max = 64 * kTiB,
               .description = "Device memory capacity"},
              XPUSIM_CHIP_MEMBER(hbm.capacity_bytes)},
    ChipField{{.path = "hbm.bandwidth",
               .kind = kBandwidth,
               .min = kMHz,
               .max = 1'000'000 * kGHz,
               .description = "Peak device memory bandwidth"},
              XPUSIM_CHIP_MEMBER(hbm.bandwidth_bytes_per_s)},

    ChipField{{.path = "hbm.channels",
               .kind = kInteger,
               .min = 1,
               .max = 4096,
               .required = false,
               .default_yaml = "16",
               .description = "Independent HBM channels; each gets hbm.bandwidth / channels"},
              XPUSIM_CHIP_MEMBER(hbm.channels)},
    ChipField{{.path = "hbm.latency",
               .kind = kTime,
               .min = kNs,
               .max = 10 * kUs,
               .required = false,
               .default_yaml = "150ns",
               .description = "Fixed access latency of an HBM channel (controller + DRAM)"},
              XPUSIM_CHIP_MEMBER(hbm.latency_ps)},
    ChipField{{.path = "hbm.turnaround",
               .kind = kTime,
               .min = 0,
               .max = kUs,
               .required = false,
               .default_yaml = "0ns",
               .description = "Bus dead time of a channel's access that goes the other way "
                              "(read after write, write after read) from the one booked before "
                              "it: an effective figure, since controllers batch writes"},
              XPUSIM_CHIP_MEMBER(hbm.turnaround_ps)},
    ChipField{{.path = "hbm.loaded_latency.reads",
               .kind = kIntegerList,
               .min = 0,
               .max = 100'000,
               .required = false,
               .default_yaml = "[]",
               .description = "Extra read latency in ns at 10 %, 20 %, ... 90 % of a channel's "
                              "bandwidth when it carries reads alone (9 entries; empty: none)"},
              XPUSIM_CHIP_MEMBER(hbm.loaded_reads_ns)},
    ChipField{{.path = "hbm.loaded_latency.mixed",
               .kind = kIntegerList,
               .min = 0,
               .max = 100'000,
               .required = false,
               .default_yaml = "[]",
               .description = "The same when it carries as many bytes of writes as of reads"},
              XPUSIM_CHIP_MEMBER(hbm.loaded_mixed_ns)},
    ChipField{{.path = "hbm.loaded_latency.writes",
               .kind = kIntegerList,
               .min = 0,
               .max = 100'000,
               .required = false,
               .default_yaml = "[]",
               .description = "The same when it carries writes alone (a read between them)"},
              XPUSIM_CHIP_MEMBER(hbm.loaded_writes_ns)},
    ChipField{{.path = "hbm.loaded_latency.window",
               .kind = kTime,
               .min = kNs,
               .max = kMs,
               .required = false,
               .default_yaml = "1us",
               .description = "Span over which a channel's load and write share are measured "
                              "for hbm.loaded_latency"},
              XPUSIM_CHIP_MEMBER(hbm.loaded_window_ps)},
    ChipField{{.path = "hbm.interleave_bytes",
               .kind = kInteger,
               .min = 8,
               .max = 1 << 20,
               .power_of_two = true,
               .required = false,
               .default_yaml = "256",
               .description = "Consecutive blocks of this many bytes go to different HBM channels"},
              XPUSIM_CHIP_MEMBER(hbm.interleave_bytes)},

    ChipField{{.path = "command_processor.doorbell_cycles",
               .kind = kInteger,
               .min = 0,
               .max = 1'000'000,
               .required = false,
               .default_yaml = "40",
               .description = "Doorbell write to the kernel agent starting to fetch, in SM cycles"},
              XPUSIM_CHIP_MEMBER(command_processor.doorbell_cycles)},
    ChipField{{.path = "command_processor.fetch_cycles",
               .kind = kInteger,
               .min = 0,
               .max = 1'000'000,
               .required = false,
               .default_yaml = "30",
               .description = "Reading one 64-byte AQL packet from its queue, in SM cycles"},
              XPUSIM_CHIP_MEMBER(command_processor.fetch_cycles)},
    ChipField{
        {.path = "command_processor.decode_cycles",
         .kind = kInteger,
         .min = 0,
         .max = 1'000'000,
         .required = false,
         .default_yaml = "20",
         .description =
             "Decoding a packet's header and fields into dispatch and cleanup info, in SM cycles"},
        XPUSIM_CHIP_MEMBER(command_processor.decode_cycles)},
    ChipField{{.path = "command_processor.setup_cycles",
               .kind = kInteger,
               .min = 0,
               .max = 1'000'000,
               .required = false,
               .default_yaml = "60",
               .description = "Programming the work distributor for one kernel, in SM cycles"},
              XPUSIM_CHIP_MEMBER(command_processor.setup_cycles)},
    ChipField{{.path = "command_processor.diff_cycles",
               .kind = kInteger,
               .min = 0,
               .max = 1'000'000,
               .required = false,
               .default_yaml = "6",
               .description =
                   "Applying one condensed kernel's diff to its reference (seed3), in SM cycles"},
              XPUSIM_CHIP_MEMBER(command_processor.diff_cycles)},
    ChipField{
        {.path = "command_processor.cleanup_cycles",
         .kind = kInteger,
         .min = 0,
         .max = 1'000'000,
         .required = false,
         .default_yaml = "120",
         .description = "Release fence plus completion-signal write after a kernel, in SM cycles"},
        XPUSIM_CHIP_MEMBER(command_processor.cleanup_cycles)},
};

#undef XPUSIM_CHIP_MEMBER

void store(const Binding& bind, const FieldValue& v, ChipSpec& spec) {
  std::visit(
      [&](auto ref) {
        using Ref = decltype(ref);
        if constexpr (std::is_same_v<Ref, U64Ref>) {
          ref(spec) = v.number;
        } else if constexpr (std::is_same_v<Ref, U32Ref>) {
          XPUSIM_CHECK(v.number <= kU32Max, "a 32-bit field's declared max exceeds 32 bits");
          ref(spec) = static_cast<std::uint32_t>(v.number);
        } else if constexpr (std::is_same_v<Ref, StringRef>) {
          ref(spec) = v.text;
        } else {
          auto& list = ref(spec);
          list.clear();
          for (std::uint64_t x : v.list) {
            XPUSIM_CHECK(x <= kU32Max, "a 32-bit list's declared max exceeds 32 bits");
            list.push_back(static_cast<std::uint32_t>(x));
          }
        }
      },
      bind);
}

}  // namespace

std::vector<FieldDecl> chip_fields() {
  std::vector<FieldDecl> out;
  out.reserve(kChipFields.size());
  for (const ChipField& f : kChipFields)
    out.push_back(f.decl);
  return out;
}

ChipSpec bind_chip_fields(const FieldValues& values) {
  ChipSpec spec;
  for (const ChipField& f : kChipFields) {
    const FieldValue& v = values.at(f.decl.path);
    if (v.ok()) store(f.bind, v, spec);
  }
  return spec;
}

nlohmann::json chip_to_json(const ChipSpec& spec) {
  ChipSpec copy = spec;  // the bindings hand out mutable references
  nlohmann::json j = nlohmann::json::object();
  for (const ChipField& f : kChipFields) {
    nlohmann::json* at = &j;
    std::string_view path = f.decl.path;
    for (auto dot = path.find('.'); dot != std::string_view::npos; dot = path.find('.')) {
      at = &(*at)[std::string(path.substr(0, dot))];
      path.remove_prefix(dot + 1);
    }
    std::visit([&](auto ref) { (*at)[std::string(path)] = ref(copy); }, f.bind);
  }
  return j;
}

std::string chip_schema_markdown() {
  const std::vector<FieldDecl> fields = chip_fields();
  return schema_markdown(fields) + "\n" + chip_rules_markdown();
}

nlohmann::ordered_json chip_json_schema() {
  const std::vector<FieldDecl> fields = chip_fields();
  return fields_json_schema("xpusim chip",
                            "A chip file in configs/chips (docs/config.md); the cross-field rules "
                            "are in `xpusim schema chip --markdown`",
                            fields);
}

}  // namespace xpusim::config
