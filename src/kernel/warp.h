// Warp: what a kernel sees. A kernel is a C++ coroutine run once per warp (DESIGN.md "Kernel
// model"); it reads its coordinates, launch parameters and arguments here and `co_await`s
// operations, each functional (real bytes) and timed by whatever WarpExecutor runs it (the SM
// model in src/core/). Plain scalar work is charged with alu(n) / sfu(n).
//
//   sim::Task<> axpy(kernel::Warp& w) {
//     const auto i = w.global_thread_ids();
//     auto x = co_await w.load_global<float>(w.lane_addresses(w.args().get_ptr(0), 4, i));
//     ...
//   }
//
// Functional-first: an operation's data effect happens when the executor accepts it (loads
// read, stores write at issue); the warp resumes when the timing model says it completed.
#pragma once

#include <array>
#include <coroutine>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

#include "kernel/kernel_args.h"
#include "kernel/lanes.h"
#include "kernel/launch.h"
#include "kernel/mm_instruction.h"
#include "kernel/op.h"
#include "sim/task.h"

namespace xpusim::kernel {

class Warp;
class LineProfile;

// The timing side: accepts an operation of a suspended warp, applies its functional effect,
// and later calls warp.resume() (through its event queue, never from inside execute()).
class WarpExecutor {
 public:
  virtual ~WarpExecutor() = default;
  virtual void execute(Warp& warp, const Op& op) = 0;
  // The warp's mm register file (kWarpSize threads), made on first use.
  virtual RegisterFile& registers(Warp& warp) = 0;
  // The warp found an error in its own execution (an interpreted kernel's bad address or
  // instruction, `what`): the executor reports it as a fault of this warp, which stays parked.
  virtual void fault(Warp& warp, const std::string& what) = 0;
};

class Warp {
 public:
  // `moves_data` false: the executor moves no data (a timing-only run), and loads return 0.
  // `context`: the kernel definition's (KernelDef::context), e.g. an interpreted program.
  Warp(WarpExecutor& executor, const LaunchParams& params, const KernelArgs& args,
       const WarpCoords& coords, bool moves_data = true, const void* context = nullptr)
      : moves_data_(moves_data),
        executor_(&executor),
        params_(&params),
        args_(&args),
        coords_(coords),
        context_(context) {}
  Warp(const Warp&) = delete;
  Warp& operator=(const Warp&) = delete;

  const LaunchParams& params() const { return *params_; }
  const KernelArgs& args() const { return *args_; }
  const WarpCoords& coords() const { return coords_; }
  const void* context() const { return context_; }
  // Whether operations move data (false: a timing-only run; loads read 0).
  bool moves_data() const { return moves_data_; }
  std::uint32_t warp_id() const { return coords_.warp; }
  const Dim3& block_id() const { return coords_.block_id; }
  std::uint32_t cluster_rank() const { return coords_.cluster_rank; }
  std::uint32_t cluster_size() const {
    return static_cast<std::uint32_t>(params_->cluster.count());
  }

  // Lanes that are threads of the CTA (the last warp of a block may be partial).
  LaneMask thread_mask() const {
    const std::uint32_t threads = params_->threads_per_block();
    const std::uint32_t first = coords_.first_thread();
    if (first + kWarpSize <= threads) return kAllLanes;
    return first >= threads ? 0 : (LaneMask{1} << (threads - first)) - 1;
  }
  // Linear thread index inside the CTA, per lane (threadIdx linearised x-fastest).
  Lanes<std::uint32_t> thread_ids() const {
    return lanes<std::uint32_t>([&](std::uint32_t l) { return coords_.first_thread() + l; });
  }
  // blockIdx linear × threads per block + thread id: the usual 1-D global index.
  Lanes<std::uint64_t> global_thread_ids() const {
    const Dim3& b = coords_.block_id;
    const Dim3& g = params_->grid;
    const std::uint64_t block = (std::uint64_t{b.z} * g.y + b.y) * g.x + b.x;
    return lanes<std::uint64_t>([&](std::uint32_t l) {
      return block * params_->threads_per_block() + coords_.first_thread() + l;
    });
  }
  // base + stride × index, per lane.
  static Lanes<Addr> lane_addresses(Addr base, std::uint64_t stride,
                                    const Lanes<std::uint64_t>& index) {
    return lanes<Addr>([&](std::uint32_t l) { return base + stride * index[l]; });
  }

  // --- timed operations -----------------------------------------------------------------
  // A load's or store's kind, active lanes and bytes per lane (access<T>() checks the size).
  struct Access {
    OpKind kind;
    LaneMask mask;
    std::uint32_t bytes;
  };
  class OpAwaiter {
   public:
    // Field by field: `op` was built a moment ago (copy_of).
    OpAwaiter(Warp& w, const Op& op) : warp_(w), op_(copy_of(op)) {}
    // A load's or store's Op built in place.
    OpAwaiter(Warp& w, Access a)
        : warp_(w), op_{.kind = a.kind, .mask = a.mask, .bytes = a.bytes} {}
    bool await_ready() const noexcept { return false; }
    template <class P>
    void await_suspend(std::coroutine_handle<P> h) {
      // The size sits in front of the frame, in a host line nothing else reads: read once
      // per frame, not at every suspension (it missed there). A hint only: a new frame at a
      // freed one's address keeps the old size.
      if (h.address() != warp_.sized_frame_) {
        warp_.sized_frame_ = h.address();
        warp_.frame_bytes_ = sim::frame_bytes(h);
      }
      warp_.suspend(h, op_);
    }
    void await_resume() const noexcept {}

   protected:
    Warp& warp_;
    Op op_;
  };

  // Without data (timing-only) the values are never written or read: the result is zeros
  // made in place, not 512 B (16 B a lane) cleared into the frame and copied out again.
  template <class T>
  class LoadAwaiter : public OpAwaiter {
   public:
    LoadAwaiter(Warp& w, Access a, const Lanes<Addr>& addr) : OpAwaiter(w, a), addr_(addr) {
      op_.addr = &addr_;
      if (!w.moves_data_) return;
      values_ = {};  // lanes the load does not write read 0
      op_.data = reinterpret_cast<std::byte*>(values_.data());
    }
    LoadAwaiter(const LoadAwaiter&) = delete;
    Lanes<T> await_resume() const noexcept {
      if (!warp_.moves_data_) return {};
      return values_;
    }

   private:
    Lanes<Addr> addr_;
    Lanes<T> values_;  // set only when data moves
  };

  template <class T>
  class StoreAwaiter : public OpAwaiter {
   public:
    StoreAwaiter(Warp& w, Access a, const Lanes<Addr>& addr, const Lanes<T>& values)
        : OpAwaiter(w, a), addr_(addr), values_(values) {
      op_.addr = &addr_;
      op_.data = reinterpret_cast<std::byte*>(values_.data());
    }
    StoreAwaiter(const StoreAwaiter&) = delete;

   private:
    Lanes<Addr> addr_;
    Lanes<T> values_;
  };

  class BoolAwaiter : public OpAwaiter {
   public:
    BoolAwaiter(Warp& w, const Op& op) : OpAwaiter(w, op) { op_.result = &result_; }
    BoolAwaiter(const BoolAwaiter&) = delete;
    bool await_resume() const noexcept { return result_; }

   private:
    bool result_ = false;
  };

  // Atomic read-modify-write: operands in, old values out.
  template <class T>
  class AtomicAwaiter : public OpAwaiter {
   public:
    AtomicAwaiter(Warp& w, Access a, const Lanes<Addr>& addr, const Lanes<T>& values)
        : OpAwaiter(w, a), addr_(addr), values_(values) {
      op_.addr = &addr_;
      op_.data = reinterpret_cast<std::byte*>(values_.data());
    }
    AtomicAwaiter(const AtomicAwaiter&) = delete;
    Lanes<T> await_resume() const noexcept { return values_; }

   private:
    Lanes<Addr> addr_;
    Lanes<T> values_;
  };

  class ClockAwaiter : public OpAwaiter {
   public:
    ClockAwaiter(Warp& w, const Op& op) : OpAwaiter(w, op) { op_.value = &value_; }
    ClockAwaiter(const ClockAwaiter&) = delete;
    std::uint64_t await_resume() const noexcept { return value_; }

   private:
    std::uint64_t value_ = 0;
  };

  OpAwaiter alu(std::uint32_t n = 1) { return {*this, Op{.kind = OpKind::kAlu, .count = n}}; }
  // n dependent ALU instructions (index arithmetic, a compare and its branch): one issue slot
  // each, n ALU latencies in all.
  OpAwaiter alu_chain(std::uint32_t n) {
    return {*this, Op{.kind = OpKind::kAluChain, .count = n}};
  }
  OpAwaiter sfu(std::uint32_t n = 1) { return {*this, Op{.kind = OpKind::kSfu, .count = n}}; }

  template <class T>
  LoadAwaiter<T> load_global(const Lanes<Addr>& addr, LaneMask mask = kAllLanes) {
    return {*this, access<T>(OpKind::kLoadGlobal, mask), addr};
  }
  template <class T>
  StoreAwaiter<T> store_global(const Lanes<Addr>& addr, const Lanes<T>& v,
                               LaneMask mask = kAllLanes) {
    return {*this, access<T>(OpKind::kStoreGlobal, mask), addr, v};
  }
  template <class T>
  LoadAwaiter<T> load_shared(const Lanes<Addr>& offset, LaneMask mask = kAllLanes) {
    return {*this, access<T>(OpKind::kLoadShared, mask), offset};
  }
  template <class T>
  StoreAwaiter<T> store_shared(const Lanes<Addr>& offset, const Lanes<T>& v,
                               LaneMask mask = kAllLanes) {
    return {*this, access<T>(OpKind::kStoreShared, mask), offset, v};
  }

  // Distributed shared memory: per-lane cluster_address(rank, offset) (PTX mapa), rank
  // 0..cluster size - 1; a plain launch is a cluster of one.
  template <class T>
  LoadAwaiter<T> load_dsmem(const Lanes<Addr>& addr, LaneMask mask = kAllLanes) {
    return {*this, access<T>(OpKind::kLoadDsmem, mask), addr};
  }
  template <class T>
  StoreAwaiter<T> store_dsmem(const Lanes<Addr>& addr, const Lanes<T>& v,
                              LaneMask mask = kAllLanes) {
    return {*this, access<T>(OpKind::kStoreDsmem, mask), addr, v};
  }
  // atom.shared::cluster.add.u32 / .u64: returns each lane's old value. Lanes hitting one
  // address are applied in lane order.
  template <class T>
  AtomicAwaiter<T> atomic_add_dsmem(const Lanes<Addr>& addr, const Lanes<T>& v,
                                    LaneMask mask = kAllLanes) {
    static_assert(std::is_same_v<T, std::uint32_t> || std::is_same_v<T, std::uint64_t>);
    return {*this, access<T>(OpKind::kAtomicAddDsmem, mask), addr, v};
  }
  // cluster.sync(): every thread of every CTA of the cluster (barrier.cluster.arrive+wait).
  OpAwaiter cluster_sync() { return {*this, Op{.kind = OpKind::kClusterSync}}; }

  // The mm register file of this warp's threads (seed2 ¶95): plain reads and writes cost
  // nothing (charge them with alu()); registers a load_registers_* fills hold the data from
  // issue on, but an mm reading them waits for the load's write-back (its token).
  RegisterFile& registers() { return executor_->registers(*this); }
  // ld.global / ld.shared of `count` (1, 2 or 4) consecutive 32-bit registers per lane into
  // reg.. : asynchronous, the warp goes on after the issue slot.
  OpAwaiter load_registers_global(std::uint32_t reg, std::uint32_t count, const Lanes<Addr>& addr,
                                  LaneMask mask = kAllLanes) {
    return {*this, Op{.kind = OpKind::kLoadRegsGlobal,
                      .mask = mask,
                      .bytes = 4 * count,
                      .addr = &addr,
                      .reg = reg}};
  }
  OpAwaiter load_registers_shared(std::uint32_t reg, std::uint32_t count, const Lanes<Addr>& offset,
                                  LaneMask mask = kAllLanes) {
    return {*this, Op{.kind = OpKind::kLoadRegsShared,
                      .mask = mask,
                      .bytes = 4 * count,
                      .addr = &offset,
                      .reg = reg}};
  }
  // The mm instruction (seed2): the second thread set is this warp's 32 threads. Returns when
  // its math issues have completed (C is final).
  OpAwaiter mm(const MmInstruction& instr) {
    return {*this, Op{.kind = OpKind::kMm, .mm = &instr}};
  }
  // Reports `what` as this warp's fault; the warp never resumes (an interpreter's trap).
  class FaultAwaiter {
   public:
    FaultAwaiter(Warp& w, std::string what) : warp_(w), what_(std::move(what)) {}
    bool await_ready() const noexcept { return false; }
    void await_suspend(std::coroutine_handle<> h) {
      warp_.handle_ = h;
      warp_.executor_->fault(warp_, what_);
    }
    void await_resume() const noexcept {}

   private:
    Warp& warp_;
    std::string what_;
  };
  FaultAwaiter fault(std::string what) { return {*this, std::move(what)}; }

  // clock64(): the SM cycle at which this instruction issues.
  ClockAwaiter clock() { return {*this, Op{.kind = OpKind::kClock}}; }

  // __syncthreads() (bar.sync 0 over every thread of the CTA) and named barriers.
  OpAwaiter sync_threads() { return bar_sync(0, 0); }
  OpAwaiter bar_sync(std::uint32_t id, std::uint32_t threads) {
    return {*this, Op{.kind = OpKind::kBarrierSync, .count = threads, .barrier = id}};
  }

  // elect.sync: the lowest active lane of `mask` (PTX: one leader lane is elected).
  static std::uint32_t elect_one(LaneMask mask = kAllLanes) {
    return mask == 0 ? kWarpSize : static_cast<std::uint32_t>(std::countr_zero(mask));
  }

  // The mbarrier family (PTX ISA "Parallel Synchronization and Communication Instructions:
  // mbarrier"); `mbar` is the barrier's offset in the CTA's shared window. Executed by one
  // thread each (the kernel elects it), as CUTLASS pipelines do.
  OpAwaiter mbarrier_init(std::uint32_t mbar, std::uint32_t count) {
    return {*this, Op{.kind = OpKind::kMbarInit, .count = count, .mbar = mbar}};
  }
  OpAwaiter mbarrier_arrive(std::uint32_t mbar, std::uint32_t count = 1) {
    return {*this, Op{.kind = OpKind::kMbarArrive, .count = count, .mbar = mbar}};
  }
  OpAwaiter mbarrier_arrive_expect_tx(std::uint32_t mbar, std::uint32_t tx_bytes) {
    return {*this, Op{.kind = OpKind::kMbarArrive, .count = 1, .mbar = mbar, .tx_bytes = tx_bytes}};
  }
  OpAwaiter mbarrier_expect_tx(std::uint32_t mbar, std::uint32_t tx_bytes) {
    return {*this, Op{.kind = OpKind::kMbarExpectTx, .mbar = mbar, .tx_bytes = tx_bytes}};
  }
  OpAwaiter mbarrier_complete_tx(std::uint32_t mbar, std::uint32_t tx_bytes) {
    return {*this, Op{.kind = OpKind::kMbarCompleteTx, .mbar = mbar, .tx_bytes = tx_bytes}};
  }
  BoolAwaiter mbarrier_try_wait_parity(std::uint32_t mbar, std::uint32_t parity) {
    return {*this, Op{.kind = OpKind::kMbarTryWait, .mbar = mbar, .parity = parity & 1}};
  }
  // Waits until the phase with `parity` has completed (returns at once if it already has).
  OpAwaiter mbarrier_wait_parity(std::uint32_t mbar, std::uint32_t parity) {
    return {*this, Op{.kind = OpKind::kMbarWait, .mbar = mbar, .parity = parity & 1}};
  }

  // mbarrier.arrive on the barrier at `mbar` of the cluster's CTA `rank` (shared::cluster).
  OpAwaiter mbarrier_arrive_cluster(std::uint32_t rank, std::uint32_t mbar,
                                    std::uint32_t count = 1) {
    return {*this,
            Op{.kind = OpKind::kMbarArriveRemote, .count = count, .mbar = mbar, .rank = rank}};
  }

  // --- TMA (tma_op.h; docs/tma-unit.md) ----------------------------------------------------
  // Asynchronous: the warp goes on after the issue slot (it waits only while the TMA unit's
  // request queue is full). Loads complete_tx their bytes on `mbar` in every destination CTA;
  // stores and reductions complete through commit_group / wait_group. Executed by one thread
  // (the kernel elects it), as CUTLASS producers do.
  class TmaAwaiter : public OpAwaiter {
   public:
    TmaAwaiter(Warp& w, const TmaOp& t) : OpAwaiter(w, Op{.kind = OpKind::kTma}), tma_(t) {
      op_.tma = &tma_;
    }
    TmaAwaiter(const TmaAwaiter&) = delete;

   private:
    TmaOp tma_;
  };
  // Tensor coordinates, dim 0 first: `{x, y}` at a call site. Not an initializer_list: GCC 12
  // rejects braced-list temporaries inside co_await ("array used as initializer").
  struct Coords {
    Coords(std::int32_t c0) : rank(1) { v[0] = c0; }  // NOLINT: implicit by design
    Coords(std::int32_t c0, std::int32_t c1) : rank(2) { v[0] = c0, v[1] = c1; }
    Coords(std::int32_t c0, std::int32_t c1, std::int32_t c2) : rank(3) {
      v[0] = c0, v[1] = c1, v[2] = c2;
    }
    Coords(std::int32_t c0, std::int32_t c1, std::int32_t c2, std::int32_t c3) : rank(4) {
      v[0] = c0, v[1] = c1, v[2] = c2, v[3] = c3;
    }
    Coords(std::int32_t c0, std::int32_t c1, std::int32_t c2, std::int32_t c3, std::int32_t c4)
        : rank(5) {
      v[0] = c0, v[1] = c1, v[2] = c2, v[3] = c3, v[4] = c4;
    }
    std::array<std::int32_t, 5> v{};
    std::uint32_t rank = 0;
  };
  // im2col filter offsets {W, (H, (D))}.
  struct Offsets {
    Offsets(std::uint16_t w) : count(1) { v[0] = w; }  // NOLINT: implicit by design
    Offsets(std::uint16_t w, std::uint16_t h) : count(2) { v[0] = w, v[1] = h; }
    Offsets(std::uint16_t w, std::uint16_t h, std::uint16_t d) : count(3) {
      v[0] = w, v[1] = h, v[2] = d;
    }
    std::array<std::uint16_t, 3> v{};
    std::uint32_t count = 0;
  };

  // Tile load of the box at `coords` of the tensor map at global `map` into shared `smem`;
  // `cta_mask` != 0 multicasts to those ranks of the cluster (same smem and mbar offsets).
  TmaAwaiter tma_load_tile(Addr map, Coords coords, std::uint32_t smem, std::uint32_t mbar,
                           std::uint16_t cta_mask = 0) {
    TmaOp t = tensor_op(TmaKind::kLoadTile, map, coords);
    t.smem = smem;
    t.mbar = mbar;
    t.cta_mask = cta_mask;
    return {*this, t};
  }
  // im2col load: coords {C, W, (H, (D,)) N}, offsets {W, (H, (D))} (rank - 2 of them).
  TmaAwaiter tma_load_im2col(Addr map, Coords coords, Offsets offsets, std::uint32_t smem,
                             std::uint32_t mbar, std::uint16_t cta_mask = 0) {
    TmaOp t = tensor_op(TmaKind::kLoadIm2col, map, coords);
    t.offsets = offsets.v;
    t.offset_count = offsets.count;
    t.smem = smem;
    t.mbar = mbar;
    t.cta_mask = cta_mask;
    return {*this, t};
  }
  TmaAwaiter tma_store(Addr map, Coords coords, std::uint32_t smem) {
    TmaOp t = tensor_op(TmaKind::kStoreTile, map, coords);
    t.smem = smem;
    return {*this, t};
  }
  TmaAwaiter tma_reduce(Addr map, TmaReduce op, Coords coords, std::uint32_t smem) {
    TmaOp t = tensor_op(TmaKind::kReduceTile, map, coords);
    t.smem = smem;
    t.reduce = op;
    return {*this, t};
  }
  // im2col-mode store / reduction of the column at shared `smem` (an im2col map; coords as
  // tma_load_im2col's, no offsets: PTX .im2col_no_offs).
  TmaAwaiter tma_store_im2col(Addr map, Coords coords, std::uint32_t smem) {
    TmaOp t = tensor_op(TmaKind::kStoreIm2col, map, coords);
    t.smem = smem;
    return {*this, t};
  }
  TmaAwaiter tma_reduce_im2col(Addr map, TmaReduce op, Coords coords, std::uint32_t smem) {
    TmaOp t = tensor_op(TmaKind::kReduceIm2col, map, coords);
    t.smem = smem;
    t.reduce = op;
    return {*this, t};
  }
  TmaAwaiter tma_prefetch(Addr map, Coords coords) {
    return {*this, tensor_op(TmaKind::kPrefetchTile, map, coords)};
  }
  TmaAwaiter tma_prefetch_descriptor(Addr map) {
    return {*this, TmaOp{.kind = TmaKind::kPrefetchDescriptor, .descriptor = map}};
  }
  // After rewriting the tensor map at `map` in memory (seed0 ¶73: descriptors may be built on
  // the GPU at run time): the TMA unit drops its cached copy, in order with this warp's TMA
  // operations (PTX fence.proxy.tensormap::generic.acquire).
  TmaAwaiter tma_invalidate_descriptor(Addr map) {
    return {*this, TmaOp{.kind = TmaKind::kInvalidateDescriptor, .descriptor = map}};
  }
  // Bulk (descriptor-less) copies, sizes and addresses multiples of 16.
  TmaAwaiter tma_bulk_load(Addr global, std::uint32_t bytes, std::uint32_t smem, std::uint32_t mbar,
                           std::uint16_t cta_mask = 0) {
    return {*this, TmaOp{.kind = TmaKind::kBulkLoad,
                         .smem = smem,
                         .mbar = mbar,
                         .cta_mask = cta_mask,
                         .global = global,
                         .bytes = bytes}};
  }
  TmaAwaiter tma_bulk_store(std::uint32_t smem, Addr global, std::uint32_t bytes) {
    return {*this,
            TmaOp{.kind = TmaKind::kBulkStore, .smem = smem, .global = global, .bytes = bytes}};
  }
  // This CTA's shared [smem, +bytes) to offset `dst` of the cluster's CTA `rank`, crediting
  // that CTA's barrier at `mbar`.
  TmaAwaiter tma_bulk_copy_to_cluster(std::uint32_t smem, std::uint32_t rank, std::uint32_t dst,
                                      std::uint32_t mbar, std::uint32_t bytes) {
    return {*this, TmaOp{.kind = TmaKind::kBulkSharedToCluster,
                         .smem = smem,
                         .mbar = mbar,
                         .global = dst,
                         .bytes = bytes,
                         .dst_rank = rank}};
  }
  // Bulk reduction shared -> global: global[i] = op(global[i], smem[i]) for `bytes` of
  // `element`s (seed0 ¶159); completes through the bulk group.
  TmaAwaiter tma_bulk_reduce(std::uint32_t smem, Addr global, std::uint32_t bytes, TmaReduce op,
                             TmaElement element) {
    return {*this, TmaOp{.kind = TmaKind::kBulkReduce,
                         .smem = smem,
                         .global = global,
                         .bytes = bytes,
                         .reduce = op,
                         .element = element}};
  }
  // Bulk reduction into another CTA's shared memory (shared::cta -> shared::cluster): its
  // `dst` = op(dst, smem); complete_tx on that CTA's `mbar`.
  TmaAwaiter tma_bulk_reduce_to_cluster(std::uint32_t smem, std::uint32_t rank, std::uint32_t dst,
                                        std::uint32_t mbar, std::uint32_t bytes, TmaReduce op,
                                        TmaElement element) {
    return {*this, TmaOp{.kind = TmaKind::kBulkReduceToCluster,
                         .smem = smem,
                         .mbar = mbar,
                         .global = dst,
                         .bytes = bytes,
                         .dst_rank = rank,
                         .reduce = op,
                         .element = element}};
  }
  // A global -> global copy by the TMA unit (seed0 ¶48; PTX has no form of it): overlapping
  // ranges behave like memmove; completes through the bulk group.
  TmaAwaiter tma_bulk_copy_global(Addr src, Addr dst, std::uint32_t bytes) {
    return {
        *this,
        TmaOp{.kind = TmaKind::kBulkGlobalToGlobal, .global = dst, .source = src, .bytes = bytes}};
  }
  TmaAwaiter tma_bulk_prefetch(Addr global, std::uint32_t bytes) {
    return {*this, TmaOp{.kind = TmaKind::kBulkPrefetch, .global = global, .bytes = bytes}};
  }
  // The stores and reductions issued since the last commit become one bulk group.
  TmaAwaiter tma_commit_group() { return {*this, TmaOp{.kind = TmaKind::kCommitGroup}}; }
  // Waits until at most `pending` of this warp's committed groups are in flight; `read`: only
  // until their shared-memory sources have been read (the buffer may be reused).
  TmaAwaiter tma_wait_group(std::uint32_t pending, bool read = false) {
    return {*this, TmaOp{.kind = TmaKind::kWaitGroup, .pending = pending, .read = read}};
  }

  // Executor side: resume the warp's coroutine (from an event, at the completion tick).
  void resume() {
    const std::coroutine_handle<> h = handle_;
    handle_ = {};
    h.resume();
  }
  bool suspended() const { return static_cast<bool>(handle_); }
  // The suspended coroutine's frame (null when none) and its size (0: not known), for
  // prefetch hints.
  const void* frame() const { return handle_ ? handle_.address() : nullptr; }
  std::size_t frame_bytes() const { return frame_bytes_; }
  // An executor may keep its per-warp state here (no lookup per operation).
  void* executor_slot = nullptr;
  // Where an interpreted kernel stands (its source file and line; null/0: a C++ kernel): a
  // fault or a hang report names it.
  const char* source = nullptr;
  std::uint32_t source_line = 0;
  // Where an interpreted kernel counts its per-line work (--ptx-profile); null: not profiled.
  LineProfile* line_profile = nullptr;

 private:
  template <class T>
  static Access access(OpKind kind, LaneMask mask) {
    static_assert(std::is_trivially_copyable_v<T>);
    static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8 ||
                  sizeof(T) == 16);
    return Access{.kind = kind, .mask = mask, .bytes = sizeof(T)};
  }
  static TmaOp tensor_op(TmaKind kind, Addr map, const Coords& coords) {
    TmaOp t{.kind = kind, .descriptor = map};
    t.coords = coords.v;
    t.rank = coords.rank;
    return t;
  }
  void suspend(std::coroutine_handle<> h, const Op& op) {
    handle_ = h;
    executor_->execute(*this, op);
  }

  // First, what every resume reads: an SM prefetches the start of its warp slot, and its
  // prefetch hint reads the handle and the frame's size.
  std::coroutine_handle<> handle_;
  std::size_t frame_bytes_ = 0;
  const void* sized_frame_ = nullptr;  // the frame frame_bytes_ is the size of
  bool moves_data_;
  WarpExecutor* executor_;
  const LaunchParams* params_;
  const KernelArgs* args_;
  WarpCoords coords_;
  const void* context_;
};

}  // namespace xpusim::kernel
