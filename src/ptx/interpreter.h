// The PTX interpreter: one warp of a decoded program (module.h) executed lane by lane,
// emitting the same kernel::Op records the C++ kernels emit (src/kernel/op.h) for everything
// the timing model times — memory, barriers, clocks, and the ALU/SFU work in between as
// batches — so the SM, memory and TMA timing are shared by both front ends.
//
// SIMT: each lane has its own PC; the warp issues the lowest PC among its live lanes (the
// "min-PC" policy), so lanes that branched apart reconverge at the first instruction they
// share, which for the structured code nvcc emits is the immediate post-dominator. A call
// runs its lanes to the callee's return before the caller's other lanes go on. docs/ptx.md.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kernel/line_profile.h"
#include "kernel/op.h"
#include "kernel/warp.h"
#include "ptx/module.h"
#include "sim/task.h"

namespace xpusim::ptx {

// Generic-address windows (cvta): shared and local addresses sit above any device address.
inline constexpr std::uint64_t kSharedWindow = 0xFF00'0000'0000'0000ull;
inline constexpr std::uint64_t kLocalWindow = 0xFE00'0000'0000'0000ull;
inline constexpr std::uint64_t kWindowBytes = 0x1'0000'0000ull;
// A shared::cluster address: the target CTA's rank + 1 above bit 24 (0: the executing CTA).
inline constexpr std::uint32_t kClusterRankShift = 24;
inline constexpr std::uint64_t kClusterOffsetMask = (std::uint64_t{1} << kClusterRankShift) - 1;

// Calls f(lane) for each lane set in m, lowest first.
template <class F>
void for_lanes(kernel::LaneMask m, F&& f) {
  while (m != 0) {
    const auto l = static_cast<std::uint32_t>(std::countr_zero(m));
    m &= m - 1;
    f(l);
  }
}

// A module with the entry a launch runs.
struct Program {
  Module module;
  std::uint32_t entry = 0;  // index in module.functions
  bool has_const = false;   // the module has .const variables (a store's address is checked)
};

class WarpInterpreter {
 public:
  WarpInterpreter(const Program& program, const kernel::Warp& warp);

  enum class Stop : std::uint8_t {
    kOp,     // op() is to be timed (pending ALU work first)
    kAlu,    // only the pending ALU work (a long run of arithmetic)
    kDone,   // every lane has exited
    kFault,  // fault() says what
  };
  Stop run();
  const kernel::Op& op() const { return op_; }
  // After op() completed: loads' and atomics' values into their registers.
  void complete();
  const std::string& fault() const { return fault_; }

  // The ALU work executed since the last take: issue slots, the longest dependent chain in
  // them, SFU instructions, and tensor-pipe work of mma.sync (units of 1024 f16 FMAs).
  struct AluWork {
    std::uint32_t issues = 0, chain = 0, sfu = 0, mma = 0;
  };
  AluWork take_alu();

  std::uint64_t instructions() const { return instructions_; }
  // The PTX line of the instruction executed last (the op's, when run() returned kOp).
  std::uint32_t line() const { return line_; }

 private:
  struct Frame {
    const Function* fn = nullptr;
    std::uint32_t fn_index = 0;
    std::uint32_t reg_base = 0;     // in regs_ (× kWarpSize)
    std::uint32_t local_base = 0;   // in each lane's local memory
    std::uint32_t param_base = 0;   // its inputs' block in each lane's param memory
    std::uint32_t return_base = 0;  // its returns' block
    std::uint32_t own_params = 0;   // its body's .param variables (call arguments)
    std::uint32_t call_pc = 0;      // the caller's call instruction
    kernel::LaneMask lanes = 0;     // live lanes not yet returned
    kernel::LaneMask entered = 0;   // lanes that called it
    bool diverged = false;
    std::uint32_t pc = 0;  // when converged
    std::array<std::uint32_t, kernel::kWarpSize> lane_pc{};
  };

  bool step();  // one instruction; false: stop (op pending, done or fault)
  bool exec(const Instruction& in, kernel::LaneMask mask);
  bool exec_carry(const Instruction& in, kernel::LaneMask mask);  // alu.cc
  bool exec_memory(const Instruction& in, kernel::LaneMask mask);
  // The .const variable one of `mask`'s lanes of op_addr_ (global addresses) points into.
  const Variable* const_variable_at(kernel::LaneMask mask) const;
  void move_lane(const Instruction& in, const Operand& vals, std::uint32_t lane, std::uint8_t* p,
                 bool store);
  std::int32_t callee_operand(const Instruction& call) const;
  bool exec_call(const Instruction& in, kernel::LaneMask active, kernel::LaneMask at_pc,
                 std::uint32_t pc);
  bool exec_warp_level(const Instruction& in, kernel::LaneMask mask);
  bool exec_half(const Instruction& in, kernel::LaneMask mask);        // half_ops.cc
  bool exec_cvt_pack(const Instruction& in, kernel::LaneMask mask);    // half_ops.cc
  bool exec_compare_x2(const Instruction& in, kernel::LaneMask mask);  // half_ops.cc
  bool exec_matrix(const Instruction& in, kernel::LaneMask mask);      // mma_ops.cc
  bool exec_mma(const Instruction& in);
  void complete_ldmatrix(const Instruction& in);
  bool exec_wmma(const Instruction& in);
  void wmma_part_op(bool store);
  void complete_wmma(const Instruction& in);
  bool exec_async(const Instruction& in, kernel::LaneMask mask);
  bool exec_bulk(const Instruction& in, kernel::LaneMask mask);
  bool exec_ldgsts(const Instruction& in, kernel::LaneMask mask);
  bool tensor_operand(const Instruction& in, const Operand& t, kernel::LaneMask mask);
  // One shared address for every active lane (a barrier, a bulk copy's buffer): its offset and,
  // given `rank`, its CTA in the cluster (else it must be this CTA's).
  bool uniform_shared(const Instruction& in, const Operand& a, kernel::LaneMask mask,
                      std::uint32_t& offset, std::uint32_t* rank, Space forced = Space::kNone);
  static std::uint64_t cluster_shared(std::uint32_t rank, std::uint64_t offset);
  bool split_cluster(std::uint64_t a, std::uint32_t& rank, std::uint32_t& offset) const;
  void advance(kernel::LaneMask mask, std::uint32_t pc);
  void branch(kernel::LaneMask taken, kernel::LaneMask all, std::uint32_t pc, std::uint32_t target);
  void exit_lanes(kernel::LaneMask m);
  void pop_frame();
  void reconverge(Frame& f);
  bool fail(const Instruction& in, const std::string& what);

  std::uint64_t& reg(std::uint32_t r, std::uint32_t lane) {
    return regs_[(frame().reg_base + r) * kernel::kWarpSize + lane];
  }
  std::uint64_t read(const Operand& o, std::uint32_t lane);
  void write(const Operand& o, std::uint32_t lane, std::uint64_t v);
  std::uint64_t special(Special s, std::uint32_t lane) const;
  const Operand& operand(const Instruction& in, std::uint32_t k) const {
    return frame().fn->operands[in.first + k];
  }
  const Operand& member(const Operand& v, std::uint32_t k) const {
    return frame().fn->operands[v.first + k];
  }
  Frame& frame() { return frames_.back(); }
  const Frame& frame() const { return frames_.back(); }

  // Dependency depth of the batch (the register scoreboard): a result's depth is one more
  // than its deepest source's.
  void count_alu(const Instruction& in, std::uint32_t issues, std::uint32_t sfu = 0,
                 std::uint32_t mma = 0);

  // Where a memory operand points: its space and per-lane addresses.
  // `forced`: the operand's own state space where the instruction names one per operand (the
  // cp.async family); else the instruction's.
  bool resolve(const Instruction& in, const Operand& a, kernel::LaneMask mask, Space& space,
               kernel::Lanes<kernel::Addr>& addr, Space forced = Space::kNone);
  std::uint8_t* param_bytes(const Variable& v, std::uint32_t lane);

  const Program& program_;
  const Module& module_;
  const kernel::Warp& warp_;
  kernel::LineProfile* profile_;  // --ptx-profile: null when off
  std::vector<Frame> frames_;
  std::vector<std::uint64_t> regs_;
  std::vector<std::uint32_t> depth_;      // per register slot of the frame stack
  std::vector<std::uint32_t> depth_gen_;  // the batch that set depth_
  // The batch whose mma.sync wrote the register: an mma reading it ends the batch first, so
  // dependent mmas wait out each other's latency (independent ones share the pipe back to back).
  std::vector<std::uint32_t> mma_gen_;
  bool mma_flush_ = false;
  bool reads_pending_mma(const Instruction& in) const;
  std::uint32_t gen_ = 1;
  AluWork alu_{};
  std::uint32_t chain_ = 0;
  // Per lane: local memory (frames stacked) and param memory (kernel params, then frames).
  std::vector<std::uint8_t> local_;
  std::uint32_t local_stride_ = 0;
  std::vector<std::uint8_t> params_;  // the kernel's param block, shared by the lanes
  std::vector<std::uint8_t> frame_params_;
  std::uint32_t frame_param_stride_ = 0;
  kernel::LaneMask exited_ = 0;

  // The pending timed operation.
  kernel::Op op_{};
  kernel::Lanes<kernel::Addr> op_addr_{};
  std::array<std::uint64_t, 2 * kernel::kWarpSize * 2> op_data_{};  // 16 B a lane (×2: cas)
  const Instruction* op_in_ = nullptr;
  kernel::LaneMask op_mask_ = 0;
  std::uint64_t clock_value_ = 0;  // kClock's cycle, kMbarArrive's state
  bool wait_result_ = false;
  kernel::TmaOp tma_{};
  // cp.async: the shared destinations and bytes per lane of the copy in flight; its store
  // follows its load.
  kernel::Lanes<kernel::Addr> ldgsts_dst_{};
  std::array<std::uint32_t, kernel::kWarpSize> ldgsts_src_size_{};
  std::array<std::uint8_t, kernel::kWarpSize> carry_{};  // CC.CF per lane (.cc, addc ...)
  bool followup_ = false;
  // wmma.load / wmma.store in flight: each fragment element's address and value per lane, and
  // the accesses (runs of elements contiguous in every lane) still to issue.
  std::array<kernel::Lanes<kernel::Addr>, 8> wmma_addr_{};
  std::array<std::array<std::uint32_t, 8>, kernel::kWarpSize> wmma_vals_{};
  std::vector<std::pair<std::uint32_t, std::uint32_t>> wmma_parts_;  // first element, count
  std::uint32_t wmma_part_ = 0, wmma_elem_bytes_ = 0;
  std::string fault_;
  std::uint64_t instructions_ = 0;
  std::uint32_t line_ = 0;
};

// The kernel body of every PTX kernel (kernel::KernelBody): reads its Program from
// Warp::context().
sim::Task<> run_ptx_warp(kernel::Warp& w);

}  // namespace xpusim::ptx
