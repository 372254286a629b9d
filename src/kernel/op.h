// One warp operation as the timing model receives it: what the warp asked for, with its
// operands. Kernels written against warp.h produce these; a PTX front end would produce the
// same records, so the SM timing (src/core/) never sees how the kernel was written.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernel/atomic.h"
#include "kernel/lanes.h"
#include "kernel/mm_instruction.h"
#include "kernel/tma_op.h"

namespace xpusim::kernel {

using Addr = std::uint64_t;

enum class OpKind : std::uint8_t {
  kAlu,          // `count` independent ALU instructions (issue slots, ALU latency)
  kAluChain,     // `count` dependent ALU instructions: each waits for the last one's result
  kSfu,          // `count` SFU instructions (transcendentals; their own pipe and latency)
  kLoadGlobal,   // per-lane ld.global of `bytes` each into `data`
  kStoreGlobal,  // per-lane st.global of `bytes` each from `data`
  kLoadShared,   // per-lane ld.shared (addresses are CTA shared-window offsets)
  kStoreShared,
  kBarrierSync,  // bar.sync `barrier`, `count` threads (0: all the CTA's threads)
  // bar.arrive `barrier`, `count` threads: counts as the warp's arrival; the warp goes on.
  kBarrierArrive,
  // bar.red: bar.sync that also reduces each warp's `tx_bytes` (popc: its lanes' count; and /
  // or: 0 or 1) over the arrivals by `atom` (kAdd, kAnd, kOr); *value gets the result.
  kBarrierRed,
  kMbarInit,        // mbarrier.init [mbar], count
  kMbarArrive,      // mbarrier.arrive[.expect_tx] [mbar], tx = `tx_bytes` (0: plain arrive)
  kMbarExpectTx,    // mbarrier.expect_tx [mbar], tx
  kMbarCompleteTx,  // mbarrier.complete_tx [mbar], tx (what a bulk copy does on landing)
  kMbarTryWait,     // mbarrier.try_wait.parity [mbar], parity → *result
  kMbarWait,        // try_wait.parity in a loop until it succeeds (the warp parks)
  kClock,           // read %clock64 → *value (the SM cycle the instruction issues)
  kGlobalTimer,     // read %globaltimer → *value (the simulated time at issue, in ns)
  // Distributed shared memory (ld/st/atom .shared::cluster): per-lane cluster addresses
  // cluster_address(rank, offset), i.e. the target CTA's rank above bit 32 (PTX mapa).
  kLoadDsmem,
  kStoreDsmem,
  kAtomicAddDsmem,  // atom.shared::cluster.add: `data` in = operands, out = old values
  kClusterSync,     // barrier.cluster.arrive + wait: every thread of every CTA of the cluster
  // Loads into the mm register file (seed2 ¶111): per-lane `bytes` (4, 8 or 16) into registers
  // reg.. of each lane. Asynchronous: the warp goes on after issue; the registers' token stays
  // pending until the data lands, and an mm reading them waits for it (¶101).
  kLoadRegsGlobal,
  kLoadRegsShared,  // addresses are CTA shared-window offsets
  kMm,              // the mm instruction `*mm` (mm_instruction.h): B fetch, then math issues
  // mbarrier.arrive.release.cluster.shared::cluster [cluster_address(rank, mbar)]: an arrive
  // on another CTA's barrier (`rank`), as a consumer releasing a multicast stage does.
  kMbarArriveRemote,
  kTma,  // a TMA operation `*tma` (tma_op.h), handed to the SM's TMA unit
  // Atomic read-modify-write `atom` on `atom_type` (atomic.h), per lane in lane order: `data`
  // in = operands, out = old values; a compare-and-swap's new values follow the compares
  // (data + 32 × bytes). Global: performed at L2, timed as a load; shared: in the SM.
  kAtomicGlobal,
  kAtomicShared,
  // PTX mma.sync work: `count` units of 1024 f16 multiply-adds (one m16n8k8.f16) on the
  // sub-partition's tensor pipe, after the pipe's earlier work; the warp waits for the result.
  kMmaSync,
};

inline constexpr bool is_dsmem(OpKind k) {
  return k == OpKind::kLoadDsmem || k == OpKind::kStoreDsmem || k == OpKind::kAtomicAddDsmem;
}

// A cluster shared-memory address (what PTX mapa returns): rank in the high word.
inline constexpr Addr cluster_address(std::uint32_t rank, std::uint32_t offset) {
  return (Addr{rank} << 32) | offset;
}
inline constexpr std::uint32_t cluster_rank_of(Addr a) {
  return static_cast<std::uint32_t>(a >> 32);
}
inline constexpr std::uint32_t cluster_offset_of(Addr a) {
  return static_cast<std::uint32_t>(a);
}

struct Op {
  OpKind kind = OpKind::kAlu;
  AtomOp atom = AtomOp::kAdd;  // kAtomic*: the operation
  AtomType atom_type = AtomType::kU32;
  LaneMask mask = kAllLanes;
  std::uint32_t count = 1;            // instructions (alu/sfu), mbarrier count, or bar.sync threads
  std::uint32_t bytes = 4;            // per-lane access size: 1, 2, 4, 8 or 16
  const Lanes<Addr>* addr = nullptr;  // loads/stores: per-lane addresses (or shared offsets)
  std::byte* data = nullptr;          // loads: lane values out, stores: in (lane-major)
  std::uint32_t barrier = 0;          // bar.sync id
  std::uint32_t mbar = 0;             // mbarrier: its shared-window offset (8 B aligned)
  std::uint32_t tx_bytes = 0;
  std::uint32_t parity = 0;
  bool* result = nullptr;          // try_wait's answer
  std::uint64_t* value = nullptr;  // clock's answer
  std::uint32_t reg = 0;           // register loads: the first register written per lane
  const MmInstruction* mm = nullptr;
  std::uint32_t rank = 0;  // kMbarArriveRemote: the target CTA's cluster rank
  const TmaOp* tma = nullptr;
  // A field added here must be added to copy_of() too (its size check fails otherwise).
};

// A copy of `from` read field by field: what an awaiter and an executor do with an Op built a
// moment ago in a coroutine frame. A plain copy read it back with 16-byte loads over the
// narrower stores still in flight, a store-forwarding stall on every warp instruction
// (docs/performance.md, "Host techniques"); each field read alone (volatile: the compiler
// may not merge them) forwards from the store that wrote it. Returned as a prvalue, so an Op
// initialized from it is built in place.
inline Op copy_of(const Op& from) {
  static_assert(sizeof(Op) == 96, "a field added to Op must be copied here too");
  const volatile Op& f = from;
  return Op{.kind = f.kind,
            .atom = f.atom,
            .atom_type = f.atom_type,
            .mask = f.mask,
            .count = f.count,
            .bytes = f.bytes,
            .addr = f.addr,
            .data = f.data,
            .barrier = f.barrier,
            .mbar = f.mbar,
            .tx_bytes = f.tx_bytes,
            .parity = f.parity,
            .result = f.result,
            .value = f.value,
            .reg = f.reg,
            .mm = f.mm,
            .rank = f.rank,
            .tma = f.tma};
}

// The same into an existing Op (the loads stay field by field; the stores may merge).
inline void copy_op(Op& to, const Op& from) {
  to = copy_of(from);
}

}  // namespace xpusim::kernel
