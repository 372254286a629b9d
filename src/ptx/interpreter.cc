#include "ptx/interpreter.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstring>

namespace xpusim::ptx {
namespace {

using kernel::kWarpSize;
using kernel::LaneMask;

std::uint64_t mask_of(std::uint32_t bytes) {
  return bytes >= 8 ? ~std::uint64_t{0} : (std::uint64_t{1} << (8 * bytes)) - 1;
}

std::uint32_t align16(std::uint32_t v) {
  return (v + 15) & ~15u;
}

// A long run of arithmetic is handed to the timing model in pieces, so other warps interleave.
constexpr std::uint32_t kAluBatch = 64;

}  // namespace

WarpInterpreter::WarpInterpreter(const Program& program, const kernel::Warp& warp)
    : program_(program), module_(program.module), warp_(warp), profile_(warp.line_profile) {
  if (profile_ != nullptr)
    profile_->add_source(module_.source.c_str(), module_.source, module_.text);
  const Function& entry = module_.functions[program.entry];
  Frame f;
  f.fn = &entry;
  f.fn_index = program.entry;
  f.lanes = warp.thread_mask();
  f.entered = f.lanes;
  f.own_params = 0;
  frames_.push_back(f);
  regs_.assign(std::size_t{entry.registers} * kWarpSize, 0);
  depth_.assign(entry.registers, 0);
  depth_gen_.assign(entry.registers, 0);
  mma_gen_.assign(entry.registers, 0);
  // The kernel's param block, as the launch packed it (little-endian, at each .param's offset).
  params_.assign(entry.param_bytes, 0);
  const kernel::KernelArgs& args = warp.args();
  for (std::size_t k = 0; k < entry.params.size() && k < args.size(); ++k) {
    const Param& p = entry.params[k];
    if (args.kind(k) == kernel::ArgKind::kTensorMap) {
      const auto blob = args.blob(k);
      std::memcpy(params_.data() + p.offset, blob.data(),
                  std::min<std::size_t>(p.bytes, blob.size()));
      continue;
    }
    const std::uint64_t v = args.bits(k);
    std::memcpy(params_.data() + p.offset, &v, std::min<std::uint32_t>(p.bytes, 8));
  }
  local_.assign(std::size_t{align16(entry.local_bytes)} * kWarpSize, 0);
  local_stride_ = align16(entry.local_bytes);
  frame_param_stride_ = align16(entry.local_param_bytes);
  frame_params_.assign(std::size_t{frame_param_stride_} * kWarpSize, 0);
}

WarpInterpreter::AluWork WarpInterpreter::take_alu() {
  AluWork w = alu_;
  w.chain = std::min(chain_, std::max<std::uint32_t>(w.issues, 1));
  alu_ = {};
  chain_ = 0;
  ++gen_;  // results of the batch are ready when it has been timed
  return w;
}

bool WarpInterpreter::fail(const Instruction& in, const std::string& what) {
  fault_ = fmt::format("{}:{}: {}", module_.source, in.line, what);
  return false;
}

WarpInterpreter::Stop WarpInterpreter::run() {
  if (followup_) {  // the second half of an instruction (cp.async's shared store)
    followup_ = false;
    return Stop::kOp;
  }
  op_in_ = nullptr;
  while (true) {
    if (frames_.empty() || (frames_.size() == 1 && frame().lanes == 0)) return Stop::kDone;
    if (!step()) {
      if (mma_flush_) {  // an mma that needs the batch's mma results: time the batch first
        mma_flush_ = false;
        return Stop::kAlu;
      }
      if (!fault_.empty()) return Stop::kFault;
      if (op_in_ != nullptr) return Stop::kOp;
      if (frames_.empty() || (frames_.size() == 1 && frame().lanes == 0)) return Stop::kDone;
    }
    if (alu_.issues >= kAluBatch) return Stop::kAlu;
  }
}

void WarpInterpreter::reconverge(Frame& f) {
  if (!f.diverged || f.lanes == 0) return;
  const std::uint32_t first = f.lane_pc[static_cast<std::uint32_t>(std::countr_zero(f.lanes))];
  bool same = true;
  for_lanes(f.lanes, [&](std::uint32_t l) { same = same && f.lane_pc[l] == first; });
  if (same) {
    f.diverged = false;
    f.pc = first;
  }
}

void WarpInterpreter::advance(LaneMask mask, std::uint32_t pc) {
  Frame& f = frame();
  if (!f.diverged) {
    f.pc = pc + 1;
    return;
  }
  for_lanes(mask, [&](std::uint32_t l) { f.lane_pc[l] = pc + 1; });
  reconverge(f);
}

void WarpInterpreter::branch(LaneMask taken, LaneMask all, std::uint32_t pc, std::uint32_t target) {
  Frame& f = frame();
  if (!f.diverged) {
    if (taken == all) {
      f.pc = target;
      return;
    }
    if (taken == 0) {
      f.pc = pc + 1;
      return;
    }
    f.diverged = true;
    for_lanes(f.lanes, [&](std::uint32_t l) { f.lane_pc[l] = pc; });
  }
  for_lanes(all,
            [&](std::uint32_t l) { f.lane_pc[l] = ((taken >> l) & 1) != 0 ? target : pc + 1; });
  reconverge(f);
}

void WarpInterpreter::exit_lanes(LaneMask m) {
  exited_ |= m;
  for (Frame& f : frames_)
    f.lanes &= ~m;
  while (!frames_.empty() && frame().lanes == 0 && frames_.size() > 1)
    pop_frame();
}

// A call's callee operand: the function it names, or else its first register (an indirect call
// through a function's address); -1 if neither. Before it: the return list, if any.
std::int32_t WarpInterpreter::callee_operand(const Instruction& call) const {
  for (std::uint32_t k = 0; k < call.count; ++k)
    if (operand(call, k).kind == Operand::Kind::kFunc) return static_cast<std::int32_t>(k);
  for (std::uint32_t k = 0; k < call.count; ++k)
    if (operand(call, k).kind == Operand::Kind::kReg) return static_cast<std::int32_t>(k);
  return -1;
}

void WarpInterpreter::pop_frame() {
  const Frame callee = frames_.back();
  frames_.pop_back();
  Frame& caller = frame();
  const LaneMask back = callee.entered & ~exited_;
  // Return values into the caller's .param variables named by the call.
  const Instruction& call = caller.fn->code[callee.call_pc];
  if (callee_operand(call) > 0) {
    const Operand& rets = operand(call, 0);
    for (std::uint32_t k = 0; k < rets.count && k < callee.fn->returns.size(); ++k) {
      const Operand& r = member(rets, k);
      const Param& p = callee.fn->returns[k];
      const Variable& v = module_.variables[static_cast<std::size_t>(r.symbol)];
      for_lanes(back, [&](std::uint32_t l) {
        const std::uint8_t* from = frame_params_.data() + std::size_t{l} * frame_param_stride_ +
                                   callee.return_base + p.offset;
        std::uint8_t* to = param_bytes(v, l);
        std::memcpy(to, from, std::min<std::uint64_t>(p.bytes, v.bytes));
      });
    }
  }
  caller.lanes |= back;
  reconverge(caller);
}

bool WarpInterpreter::step() {
  Frame& f = frame();
  const std::uint32_t pc = [&] {
    if (!f.diverged) return f.pc;
    std::uint32_t lo = ~0u;
    for_lanes(f.lanes, [&](std::uint32_t l) { lo = std::min(lo, f.lane_pc[l]); });
    return lo;
  }();
  LaneMask mask = f.lanes;
  if (f.diverged) {
    mask = 0;
    for_lanes(f.lanes, [&](std::uint32_t l) {
      if (f.lane_pc[l] == pc) mask |= LaneMask{1} << l;
    });
  }
  const Function& fn = *f.fn;
  if (pc >= fn.code.size()) {
    fault_ =
        fmt::format("{}: function '{}' ran past its last instruction", module_.source, fn.name);
    return false;
  }
  const Instruction& in = fn.code[pc];
  if ((in.op == Opcode::kMma || (in.op == Opcode::kWmma && in.sub == Sub::kWmmaMma)) &&
      alu_.mma > 0 && reads_pending_mma(in)) {
    mma_flush_ = true;
    return false;
  }
  ++instructions_;
  line_ = in.line;
  LaneMask active = mask;
  if (in.guard != Operand::kNoReg) {
    active = 0;
    for_lanes(mask, [&](std::uint32_t l) {
      const bool p = (reg(in.guard, l) & 1) != 0;
      if (p != in.guard_negate) active |= LaneMask{1} << l;
    });
  }
  if (profile_ != nullptr) {
    kernel::LineCounts& c = profile_->at(module_.source.c_str(), in.line);
    ++c.warp_instructions;
    c.active_lanes += static_cast<std::uint64_t>(std::popcount(mask));
    c.predicated_on += static_cast<std::uint64_t>(std::popcount(active));
  }
  switch (in.op) {
    case Opcode::kBra: {
      const Operand& t = operand(in, 0);
      if (t.kind != Operand::Kind::kLabel) return fail(in, "bra needs a label");
      count_alu(in, 1);
      branch(active, mask, pc, static_cast<std::uint32_t>(t.imm));
      return true;
    }
    case Opcode::kExit:
      advance(mask & ~active, pc);
      exit_lanes(active);
      return true;
    case Opcode::kRet:
      if (fn.is_entry) {
        advance(mask & ~active, pc);
        exit_lanes(active);
        return true;
      }
      advance(mask & ~active, pc);
      f.lanes &= ~active;
      if (f.lanes == 0) pop_frame();
      return true;
    case Opcode::kCall:
      return exec_call(in, active, mask, pc) || !fault_.empty() ? fault_.empty() : false;
    case Opcode::kTrap:
      if (active == 0) {
        advance(mask, pc);
        return true;
      }
      return fail(in, "trap");
    default:
      break;
  }
  if (active == 0) {  // every lane's guard is false: the instruction still takes its slot
    count_alu(in, 1);
    advance(mask, pc);
    return true;
  }
  const bool go_on = exec(in, active);
  if (!fault_.empty()) return false;
  advance(mask, pc);
  return go_on;
}

std::uint64_t WarpInterpreter::read(const Operand& o, std::uint32_t lane) {
  switch (o.kind) {
    case Operand::Kind::kReg:
      return reg(o.reg, lane);
    case Operand::Kind::kImm:
      return static_cast<std::uint64_t>(o.imm);
    case Operand::Kind::kSpecial:
      return special(o.special, lane);
    case Operand::Kind::kFunc:
      return kFunctionAddressBase + 16 * static_cast<std::uint64_t>(o.imm);
    case Operand::Kind::kSymbol: {
      // A variable's address in its own state space (cvta makes it generic).
      const Variable& v = module_.variables[static_cast<std::size_t>(o.symbol)];
      if (v.space == Space::kShared)
        return v.extern_shared ? align16(frames_.front().fn->shared_bytes) : v.offset;
      if (v.space == Space::kLocal) return frame().local_base + v.offset;
      // .global/.const: in the module's region the chip placed (a global address).
      if (v.space == Space::kGlobal || v.space == Space::kConst)
        return warp_.args().globals_address() + v.offset;
      return v.offset;
    }
    default:
      return 0;
  }
}

void WarpInterpreter::write(const Operand& o, std::uint32_t lane, std::uint64_t v) {
  if (o.kind != Operand::Kind::kReg) return;  // `_` sinks and the like
  const Type rt = frame().fn->register_types[o.reg];
  reg(o.reg, lane) = rt == Type::kPred ? (v & 1) : v & mask_of(type_bytes(rt));
}

std::uint64_t WarpInterpreter::special(Special s, std::uint32_t lane) const {
  const kernel::LaunchParams& p = warp_.params();
  const kernel::WarpCoords& c = warp_.coords();
  const std::uint32_t t = c.first_thread() + lane;
  const kernel::Dim3& b = p.block;
  switch (s) {
    case Special::kTidX:
      return t % b.x;
    case Special::kTidY:
      return (t / b.x) % b.y;
    case Special::kTidZ:
      return t / (b.x * b.y);
    case Special::kNtidX:
      return b.x;
    case Special::kNtidY:
      return b.y;
    case Special::kNtidZ:
      return b.z;
    case Special::kCtaidX:
      return c.block_id.x;
    case Special::kCtaidY:
      return c.block_id.y;
    case Special::kCtaidZ:
      return c.block_id.z;
    case Special::kNctaidX:
      return p.grid.x;
    case Special::kNctaidY:
      return p.grid.y;
    case Special::kNctaidZ:
      return p.grid.z;
    case Special::kLaneid:
      return lane;
    case Special::kWarpid:
      return c.warp;
    case Special::kNwarpid:
      return p.warps_per_block();
    case Special::kSmid:
      return c.sm;
    case Special::kGridid:
      return 0;
    case Special::kLanemaskEq:
      return std::uint64_t{1} << lane;
    case Special::kLanemaskLt:
      return (std::uint64_t{1} << lane) - 1;
    case Special::kLanemaskLe:
      return (std::uint64_t{2} << lane) - 1;
    case Special::kLanemaskGt:
      return ~((std::uint64_t{2} << lane) - 1) & 0xFFFF'FFFFu;
    case Special::kLanemaskGe:
      return ~((std::uint64_t{1} << lane) - 1) & 0xFFFF'FFFFu;
    case Special::kClusterCtarank:
      return c.cluster_rank;
    case Special::kClusterNctarank:
      return p.cluster.count();
    case Special::kClusterCtaidX:
      return c.block_id.x % p.cluster.x;
    case Special::kClusterCtaidY:
      return c.block_id.y % p.cluster.y;
    case Special::kClusterCtaidZ:
      return c.block_id.z % p.cluster.z;
    case Special::kClusterNctaidX:
      return p.cluster.x;
    case Special::kClusterNctaidY:
      return p.cluster.y;
    case Special::kClusterNctaidZ:
      return p.cluster.z;
    case Special::kClusteridX:
      return c.cluster_id.x;
    case Special::kClusteridY:
      return c.cluster_id.y;
    case Special::kClusteridZ:
      return c.cluster_id.z;
    case Special::kNclusteridX:
      return p.grid.x / std::max<std::uint32_t>(p.cluster.x, 1);
    case Special::kNclusteridY:
      return p.grid.y / std::max<std::uint32_t>(p.cluster.y, 1);
    case Special::kNclusteridZ:
      return p.grid.z / std::max<std::uint32_t>(p.cluster.z, 1);
    case Special::kIsExplicitCluster:
      return p.cluster.count() > 1 ? 1 : 0;
    case Special::kDynamicSmemSize:
      return p.dynamic_shared_bytes;
    case Special::kTotalSmemSize:
      return align16(frames_.front().fn->shared_bytes) + p.dynamic_shared_bytes;
    default:
      return 0;
  }
}

std::uint8_t* WarpInterpreter::param_bytes(const Variable& v, std::uint32_t lane) {
  const Frame& f = frame();
  std::uint8_t* lane_block = frame_params_.data() + std::size_t{lane} * frame_param_stride_;
  switch (v.param_role) {
    case Variable::ParamRole::kInput:
      if (f.fn->is_entry) return params_.data() + v.offset;
      return lane_block + f.param_base + v.offset;
    case Variable::ParamRole::kReturn:
      return lane_block + f.return_base + v.offset;
    case Variable::ParamRole::kLocal:
      return lane_block + f.own_params + v.offset;
  }
  return nullptr;
}

bool WarpInterpreter::exec_call(const Instruction& in, LaneMask active, LaneMask at_pc,
                                std::uint32_t pc) {
  // The callee: a function named in the call, or (indirect) the address in its first register
  // operand, per lane; the lanes of the lowest active lane's target call now, the others with
  // another target stay at the call and take their turn next.
  const std::int32_t func_at = callee_operand(in);
  if (func_at < 0) return fail(in, "a call needs a function or a register holding its address");
  LaneMask mask = active;
  std::uint32_t fi = 0;
  if (operand(in, static_cast<std::uint32_t>(func_at)).kind == Operand::Kind::kFunc) {
    fi = static_cast<std::uint32_t>(operand(in, static_cast<std::uint32_t>(func_at)).imm);
  } else if (active != 0) {
    const Operand& target = operand(in, static_cast<std::uint32_t>(func_at));
    const auto first = static_cast<std::uint32_t>(std::countr_zero(active));
    const std::uint64_t address = read(target, first);
    const std::uint64_t index = (address - kFunctionAddressBase) / 16;
    if (address < kFunctionAddressBase || address % 16 != 0 || index >= module_.functions.size())
      return fail(in, fmt::format("lane {}: call through {:#x}, which is no function's address",
                                  first, address));
    fi = static_cast<std::uint32_t>(index);
    mask = 0;
    for_lanes(active, [&](std::uint32_t l) {
      if (read(target, l) == address) mask |= LaneMask{1} << l;
    });
  }
  const LaneMask later = active & ~mask;
  if (later == 0) {
    advance(frame().diverged ? at_pc : frame().lanes, pc);
  } else {
    branch(later, at_pc, pc, pc);  // these lanes stay at the call; the others go past it
  }
  if (mask == 0) return true;
  const Function& callee = module_.functions[fi];
  if (callee.code.empty())
    return fail(in, fmt::format("call of '{}', which has no body in this module", callee.name));
  if (frames_.size() >= 64) return fail(in, "call depth above 64 (recursion?)");
  const Frame& caller = frame();
  Frame nf;
  nf.fn = &callee;
  nf.fn_index = fi;
  nf.reg_base = caller.reg_base + caller.fn->registers;
  nf.local_base = caller.local_base + align16(caller.fn->local_bytes);
  nf.param_base = caller.own_params + align16(caller.fn->local_param_bytes);
  nf.return_base = nf.param_base + align16(callee.param_bytes);
  nf.own_params = nf.return_base + align16(callee.return_bytes);
  nf.call_pc = pc;
  nf.lanes = mask;
  nf.entered = mask;
  nf.pc = 0;
  // Grow the per-lane areas (their layout keeps each lane's bytes together).
  const std::size_t regs_needed = std::size_t{nf.reg_base + callee.registers} * kWarpSize;
  if (regs_.size() < regs_needed) regs_.resize(regs_needed, 0);
  if (depth_.size() < nf.reg_base + callee.registers) {
    depth_.resize(nf.reg_base + callee.registers, 0);
    depth_gen_.resize(nf.reg_base + callee.registers, 0);
    mma_gen_.resize(nf.reg_base + callee.registers, 0);
  }
  const std::uint32_t local_need = align16(nf.local_base + callee.local_bytes);
  if (local_need > local_stride_) {
    std::vector<std::uint8_t> grown(std::size_t{local_need} * kWarpSize, 0);
    for (std::uint32_t l = 0; l < kWarpSize; ++l)
      std::memcpy(grown.data() + std::size_t{l} * local_need,
                  local_.data() + std::size_t{l} * local_stride_, local_stride_);
    local_.swap(grown);
    local_stride_ = local_need;
  }
  const std::uint32_t param_need = align16(nf.own_params + callee.local_param_bytes);
  if (param_need > frame_param_stride_) {
    std::vector<std::uint8_t> grown(std::size_t{param_need} * kWarpSize, 0);
    for (std::uint32_t l = 0; l < kWarpSize; ++l)
      std::memcpy(grown.data() + std::size_t{l} * param_need,
                  frame_params_.data() + std::size_t{l} * frame_param_stride_, frame_param_stride_);
    frame_params_.swap(grown);
    frame_param_stride_ = param_need;
  }
  // Arguments: the caller's .param variables after the function name.
  if (static_cast<std::uint32_t>(func_at) + 1 < in.count) {
    const Operand& args = operand(in, static_cast<std::uint32_t>(func_at) + 1);
    if (args.count != callee.params.size())
      return fail(in, fmt::format("call of '{}' with {} arguments; it takes {}", callee.name,
                                  args.count, callee.params.size()));
    for (std::uint32_t k = 0; k < args.count; ++k) {
      const Operand& a = member(args, k);
      if (a.kind != Operand::Kind::kSymbol)
        return fail(in, "call arguments must be .param variables");
      const Variable& v = module_.variables[static_cast<std::size_t>(a.symbol)];
      const Param& p = callee.params[k];
      for_lanes(mask, [&](std::uint32_t l) {
        const std::uint8_t* from = param_bytes(v, l);
        std::uint8_t* to =
            frame_params_.data() + std::size_t{l} * frame_param_stride_ + nf.param_base + p.offset;
        std::memcpy(to, from, std::min<std::uint64_t>(p.bytes, v.bytes));
      });
    }
  } else if (!callee.params.empty()) {
    return fail(in, fmt::format("call of '{}' without its {} arguments", callee.name,
                                callee.params.size()));
  }
  frame().lanes &= ~mask;
  count_alu(in, 2);
  frames_.push_back(nf);
  return true;
}

bool WarpInterpreter::resolve(const Instruction& in, const Operand& a, LaneMask mask, Space& space,
                              kernel::Lanes<kernel::Addr>& addr, Space forced) {
  if (a.kind != Operand::Kind::kAddr) return fail(in, "expected an address operand [..]");
  const Space named = forced != Space::kNone ? forced : in.space;
  space = named == Space::kNone ? Space::kGeneric : named;
  std::uint64_t base = 0;
  if (a.symbol >= 0) {
    const Variable& v = module_.variables[static_cast<std::size_t>(a.symbol)];
    // A named space must be the variable's own (shared::cluster also reaches this CTA's .shared).
    if (named != Space::kNone && named != Space::kGeneric && named != v.space &&
        !(named == Space::kSharedCluster && v.space == Space::kShared))
      return fail(in, fmt::format("'{}' is a {} variable; this access names {}", v.name,
                                  space_name(v.space), space_name(named)));
    if (v.space == Space::kParam) {
      space = Space::kParam;
      for_lanes(mask, [&](std::uint32_t l) { addr[l] = static_cast<kernel::Addr>(a.imm); });
      return true;
    }
    if ((v.space == Space::kGlobal || v.space == Space::kConst) &&
        warp_.args().globals_address() == 0)
      return fail(in, fmt::format("'{}': the module's variables have no device address (launch "
                                  "the kernel on a chip)",
                                  v.name));
    Operand sym;
    sym.kind = Operand::Kind::kSymbol;
    sym.symbol = a.symbol;
    base = read(sym, 0);
    if (space == Space::kGeneric) {
      space = v.space;  // a variable named directly is in its own space
    }
  }
  bool mixed = false;
  Space lane_space = Space::kNone;
  for_lanes(mask, [&](std::uint32_t l) {
    std::uint64_t x = base + static_cast<std::uint64_t>(a.imm);
    if (a.reg != Operand::kNoReg) x += reg(a.reg, l);
    if (space == Space::kGeneric) {
      Space s = Space::kGlobal;
      if (x >= kSharedWindow && x < kSharedWindow + kWindowBytes) {
        x -= kSharedWindow;
        // mapa's generic addresses carry the target CTA: a shared::cluster access.
        s = (x >> kClusterRankShift) != 0 ? Space::kSharedCluster : Space::kShared;
      } else if (x >= kLocalWindow && x < kLocalWindow + kWindowBytes) {
        s = Space::kLocal;
        x -= kLocalWindow;
      }
      if (lane_space != Space::kNone && s != lane_space) mixed = true;
      lane_space = s;
    }
    addr[l] = x;
  });
  if (mixed) return fail(in, "a generic access whose lanes point into different state spaces");
  if (space == Space::kGeneric) space = lane_space;
  // .const addresses are global ones (the module's region), timed as global loads.
  if (space == Space::kConst) space = Space::kGlobal;
  return true;
}

const Variable* WarpInterpreter::const_variable_at(LaneMask mask) const {
  const std::uint64_t base = warp_.args().globals_address();
  if (base == 0 || !program_.has_const) return nullptr;
  bool in_region = false;  // most stores are to buffers: one range check per lane
  for_lanes(mask, [&](std::uint32_t l) {
    in_region = in_region || (op_addr_[l] >= base && op_addr_[l] < base + module_.globals_bytes);
  });
  if (!in_region) return nullptr;
  const Variable* hit = nullptr;
  for (const Variable& v : module_.variables) {
    if (v.space != Space::kConst) continue;
    for_lanes(mask, [&](std::uint32_t l) {
      if (op_addr_[l] >= base + v.offset && op_addr_[l] < base + v.offset + v.bytes) hit = &v;
    });
    if (hit != nullptr) return hit;
  }
  return nullptr;
}

// A param or local access of lane `l` at host bytes `p`: stores the lane's values there, or
// loads them (sign-extended for signed types) into its registers.
void WarpInterpreter::move_lane(const Instruction& in, const Operand& vals, std::uint32_t l,
                                std::uint8_t* p, bool store) {
  const std::uint32_t eb = type_bytes(in.type);
  for (std::uint32_t k = 0; k < in.vec; ++k) {
    const Operand& r = vals.kind == Operand::Kind::kVector ? member(vals, k) : vals;
    if (store) {
      const std::uint64_t v = read(r, l);
      std::memcpy(p + k * eb, &v, eb);
      continue;
    }
    std::uint64_t v = 0;
    std::memcpy(&v, p + k * eb, eb);
    if (is_signed(in.type) && eb < 8)
      v = static_cast<std::uint64_t>(static_cast<std::int64_t>(v << (64 - 8 * eb)) >>
                                     (64 - 8 * eb));
    write(r, l, v);
  }
}

bool WarpInterpreter::exec_memory(const Instruction& in, LaneMask mask) {
  const bool store = in.op == Opcode::kSt;
  const bool atomic = in.op == Opcode::kAtom || in.op == Opcode::kRed;
  const Operand& a = operand(in, store || in.op == Opcode::kRed ? 0 : 1);
  Space space = Space::kNone;
  if ((store || atomic) && a.kind == Operand::Kind::kAddr) {
    // PTX has no st.const: a store or atomic on a .const variable, named or by address.
    const Variable* cv =
        a.symbol >= 0 ? &module_.variables[static_cast<std::size_t>(a.symbol)] : nullptr;
    if (cv != nullptr && cv->space != Space::kConst) cv = nullptr;
    if (cv == nullptr && in.space == Space::kConst)
      return fail(in, "the .const state space is read-only");
    if (cv != nullptr) return fail(in, fmt::format("'{}' is a .const variable", cv->name));
  }
  if (!resolve(in, a, mask, space, op_addr_)) return false;
  if ((store || atomic) && space == Space::kGlobal) {
    if (const Variable* cv = const_variable_at(mask); cv != nullptr)
      return fail(in, fmt::format("'{}' is a .const variable", cv->name));
  }
  const std::uint32_t eb = type_bytes(in.type);
  const std::uint32_t bytes = eb * in.vec;
  if (bytes > 16 || (bytes & (bytes - 1)) != 0)
    return fail(in, fmt::format("a {}-byte access per thread", bytes));
  const Operand& vals = operand(in, store || in.op == Opcode::kRed ? 1 : 0);
  auto value_of = [&](const Operand& v, std::uint32_t k, std::uint32_t l) -> std::uint64_t {
    if (v.kind == Operand::Kind::kVector) return read(member(v, k), l);
    return read(v, l);
  };
  // Misaligned addresses fault with the lane named (the SM checks timed accesses too).
  std::string bad;
  for_lanes(mask, [&](std::uint32_t l) {
    if (bad.empty() && op_addr_[l] % bytes != 0)
      bad = fmt::format("lane {} address {:#x} is not {}-byte aligned", l, op_addr_[l], bytes);
  });
  if (!bad.empty()) return fail(in, bad);

  if (space == Space::kSharedCluster) {
    // Per lane: the CTA and offset. All this CTA's: a plain shared access; else over DSMEM
    // with kernel::cluster_address.
    bool remote = false;
    std::string bad;
    for_lanes(mask, [&](std::uint32_t l) {
      std::uint32_t rank = 0, off = 0;
      if (!split_cluster(op_addr_[l], rank, off) && bad.empty())
        bad = fmt::format("lane {}: shared::cluster address {:#x} is outside the window", l,
                          op_addr_[l]);
      if (rank >= warp_.params().cluster.count() && bad.empty())
        bad = fmt::format("lane {}: rank {} outside the cluster of {}", l, rank,
                          warp_.params().cluster.count());
      remote = remote || rank != warp_.coords().cluster_rank;
      op_addr_[l] = kernel::cluster_address(rank, off);
    });
    if (!bad.empty()) return fail(in, bad);
    if (!remote) {
      for_lanes(mask,
                [&](std::uint32_t l) { op_addr_[l] = kernel::cluster_offset_of(op_addr_[l]); });
      space = Space::kShared;
    }
  }
  if (atomic && space != Space::kSharedCluster) {
    if (in.vec != 1) return fail(in, "vector atomics are not supported");
    kernel::AtomType at{};
    switch (in.type) {
      case Type::kU32:
        at = kernel::AtomType::kU32;
        break;
      case Type::kS32:
        at = kernel::AtomType::kS32;
        break;
      case Type::kU64:
        at = kernel::AtomType::kU64;
        break;
      case Type::kS64:
        at = kernel::AtomType::kS64;
        break;
      case Type::kF32:
        at = kernel::AtomType::kF32;
        break;
      case Type::kF64:
        at = kernel::AtomType::kF64;
        break;
      case Type::kB32:
        at = kernel::AtomType::kB32;
        break;
      case Type::kB64:
        at = kernel::AtomType::kB64;
        break;
      default:
        return fail(in, fmt::format("atom on .{} is not supported by this front end yet",
                                    type_name(in.type)));
    }
    kernel::AtomOp ao{};
    switch (in.mode) {
      case Mode::kAtomAdd:
        ao = kernel::AtomOp::kAdd;
        break;
      case Mode::kAtomMin:
        ao = kernel::AtomOp::kMin;
        break;
      case Mode::kAtomMax:
        ao = kernel::AtomOp::kMax;
        break;
      case Mode::kAtomInc:
        ao = kernel::AtomOp::kInc;
        break;
      case Mode::kAtomDec:
        ao = kernel::AtomOp::kDec;
        break;
      case Mode::kAtomAnd:
        ao = kernel::AtomOp::kAnd;
        break;
      case Mode::kAtomOr:
        ao = kernel::AtomOp::kOr;
        break;
      case Mode::kAtomXor:
        ao = kernel::AtomOp::kXor;
        break;
      case Mode::kAtomExch:
        ao = kernel::AtomOp::kExch;
        break;
      default:
        ao = kernel::AtomOp::kCas;
        break;
    }
    if (!kernel::atom_valid(ao, at))
      return fail(in, fmt::format("atom.{}.{} is not a PTX atomic", kernel::to_string(ao),
                                  kernel::to_string(at)));
    if (space != Space::kGlobal && space != Space::kShared)
      return fail(in, "atomics on this state space are not supported by this front end yet");
    auto* data = reinterpret_cast<std::byte*>(op_data_.data());
    const std::uint32_t first = in.op == Opcode::kRed ? 1 : 2;
    for_lanes(mask, [&](std::uint32_t l) {
      const std::uint64_t b = read(operand(in, first), l);
      std::memcpy(data + std::size_t{l} * eb, &b, eb);
      if (ao == kernel::AtomOp::kCas) {
        const std::uint64_t c = read(operand(in, first + 1), l);
        std::memcpy(data + std::size_t{kWarpSize + l} * eb, &c, eb);
      }
    });
    op_ = kernel::Op{.kind = space == Space::kGlobal ? kernel::OpKind::kAtomicGlobal
                                                     : kernel::OpKind::kAtomicShared,
                     .atom = ao,
                     .atom_type = at,
                     .mask = mask,
                     .bytes = eb,
                     .addr = &op_addr_,
                     .data = data};
    op_in_ = &in;
    op_mask_ = mask;
    return false;
  }

  // Param and local memory live in the interpreter; their accesses are charged as ALU work
  // (param: the constant cache; local: an L1 hit — docs/ptx.md).
  if (space == Space::kParam || space == Space::kLocal) {
    if (space == Space::kParam) {
      const Variable* var =
          a.symbol >= 0 ? &module_.variables[static_cast<std::size_t>(a.symbol)] : nullptr;
      if (var == nullptr) {
        // A kernel parameter's address taken with mov (nvcc does so for a struct parameter
        // copied whole, e.g. a CUtensorMap): an offset into the entry's parameter block.
        if (!frame().fn->is_entry)
          return fail(in, "a device function's .param access through a register is not supported");
        if (store) return fail(in, "a kernel's parameters are read-only");
        std::string oob;
        for_lanes(mask, [&](std::uint32_t l) {
          if (oob.empty() && op_addr_[l] + bytes > params_.size())
            oob = fmt::format(
                "lane {}: .param address {:#x} + {} bytes is past the kernel's {} "
                "bytes of parameters",
                l, op_addr_[l], bytes, params_.size());
        });
        if (!oob.empty()) return fail(in, oob);
        for_lanes(mask, [&](std::uint32_t l) {
          move_lane(in, vals, l, params_.data() + op_addr_[l], store);
        });
        count_alu(in, 1);
        return true;
      }
      if (store && var->param_role == Variable::ParamRole::kInput && frame().fn->is_entry)
        return fail(in, "a kernel's parameters are read-only");
      bool oob = false;
      for_lanes(mask, [&](std::uint32_t l) { oob = oob || op_addr_[l] + bytes > var->bytes; });
      if (oob)
        return fail(in, fmt::format("access past the end of .param '{}' ({} bytes)", var->name,
                                    var->bytes));
      for_lanes(mask, [&](std::uint32_t l) {
        move_lane(in, vals, l, param_bytes(*var, l) + op_addr_[l], store);
      });
    } else {
      std::string oob;
      for_lanes(mask, [&](std::uint32_t l) {
        if (oob.empty() && op_addr_[l] + bytes > local_stride_)
          oob =
              fmt::format("lane {}: local address {:#x} is outside the thread's {} bytes of .local",
                          l, op_addr_[l], local_stride_);
      });
      if (!oob.empty()) return fail(in, oob);
      for_lanes(mask, [&](std::uint32_t l) {
        move_lane(in, vals, l, local_.data() + std::size_t{l} * local_stride_ + op_addr_[l], store);
      });
    }
    count_alu(in, 1);
    return true;
  }
  if (space == Space::kSharedCluster) {
    auto* data = reinterpret_cast<std::byte*>(op_data_.data());
    kernel::OpKind kind = store ? kernel::OpKind::kStoreDsmem : kernel::OpKind::kLoadDsmem;
    if (atomic) {
      if (in.mode != Mode::kAtomAdd ||
          (in.type != Type::kU32 && in.type != Type::kU64 && in.type != Type::kS32))
        return fail(in, "over DSMEM only atom.add.u32/.u64 is modelled");
      kind = kernel::OpKind::kAtomicAddDsmem;
      for_lanes(mask, [&](std::uint32_t l) {
        const std::uint64_t b = read(operand(in, in.op == Opcode::kRed ? 1 : 2), l);
        std::memcpy(data + std::size_t{l} * eb, &b, eb);
      });
    } else if (store) {
      for_lanes(mask, [&](std::uint32_t l) {
        for (std::uint32_t k = 0; k < in.vec; ++k) {
          const std::uint64_t v = value_of(vals, k, l);
          std::memcpy(data + std::size_t{l} * bytes + k * eb, &v, eb);
        }
      });
    }
    op_ = kernel::Op{
        .kind = kind, .mask = mask, .bytes = atomic ? eb : bytes, .addr = &op_addr_, .data = data};
    op_in_ = &in;
    op_mask_ = mask;
    return false;
  }
  if (space == Space::kShared) {
    std::string bad;
    for_lanes(mask, [&](std::uint32_t l) {
      if ((op_addr_[l] >> kClusterRankShift) != 0 && bad.empty())
        bad = fmt::format("lane {}: shared address {:#x} is not in this CTA's window", l,
                          op_addr_[l]);
    });
    if (!bad.empty()) return fail(in, bad);
  }
  if (space != Space::kGlobal && space != Space::kShared)
    return fail(in, "loads and stores of this state space are not supported by this front end yet");
  kernel::OpKind kind = space == Space::kGlobal
                            ? (store ? kernel::OpKind::kStoreGlobal : kernel::OpKind::kLoadGlobal)
                            : (store ? kernel::OpKind::kStoreShared : kernel::OpKind::kLoadShared);
  auto* data = reinterpret_cast<std::byte*>(op_data_.data());
  if (store) {
    for_lanes(mask, [&](std::uint32_t l) {
      for (std::uint32_t k = 0; k < in.vec; ++k) {
        const std::uint64_t v = value_of(vals, k, l);
        std::memcpy(data + std::size_t{l} * bytes + k * eb, &v, eb);
      }
    });
  }
  op_ = kernel::Op{.kind = kind, .mask = mask, .bytes = bytes, .addr = &op_addr_, .data = data};
  op_in_ = &in;
  op_mask_ = mask;
  return false;
}

void WarpInterpreter::complete() {
  if (op_in_ == nullptr) return;
  const Instruction& in = *op_in_;
  if (in.count == 0) {  // fences, commit groups, barrier.cluster: nothing comes back
    op_in_ = nullptr;
    return;
  }
  // The instruction's frame is the current one: nothing ran since it was issued.
  const Operand& dst = operand(in, 0);
  if (in.op == Opcode::kCpAsync) {
    if (op_.kind == kernel::OpKind::kLoadGlobal) {
      // Now the shared store of the loaded bytes (zeros past each lane's src-size).
      auto* data = reinterpret_cast<std::byte*>(op_data_.data());
      for_lanes(op_mask_, [&](std::uint32_t l) {
        if (!warp_.moves_data()) return;
        std::memset(data + std::size_t{l} * op_.bytes + ldgsts_src_size_[l], 0,
                    op_.bytes - ldgsts_src_size_[l]);
      });
      op_addr_ = ldgsts_dst_;
      op_ = kernel::Op{.kind = kernel::OpKind::kStoreShared,
                       .mask = op_mask_,
                       .bytes = op_.bytes,
                       .addr = &op_addr_,
                       .data = data};
      followup_ = true;
      return;
    }
    op_in_ = nullptr;
    return;
  }
  if (in.op == Opcode::kMbarrier) {
    if ((in.sub == Sub::kTryWait || in.sub == Sub::kTestWait)) {
      for_lanes(op_mask_, [&](std::uint32_t l) { write(dst, l, wait_result_ ? 1 : 0); });
    } else if (in.sub == Sub::kArrive && dst.kind == Operand::Kind::kReg) {
      for_lanes(op_mask_, [&](std::uint32_t l) { write(dst, l, clock_value_); });
    }
    op_in_ = nullptr;
    return;
  }
  if (in.op == Opcode::kWmma) {
    complete_wmma(in);
    return;
  }
  if (in.op == Opcode::kLdmatrix) {
    complete_ldmatrix(in);
    op_in_ = nullptr;
    return;
  }
  if (in.op == Opcode::kStmatrix) {
    op_in_ = nullptr;
    return;
  }
  if (op_.kind == kernel::OpKind::kClock || op_.kind == kernel::OpKind::kGlobalTimer ||
      op_.kind == kernel::OpKind::kBarrierRed) {
    for_lanes(op_mask_, [&](std::uint32_t l) { write(dst, l, clock_value_); });
  } else if (op_.kind == kernel::OpKind::kLoadGlobal || op_.kind == kernel::OpKind::kLoadShared ||
             op_.kind == kernel::OpKind::kLoadDsmem || op_.kind == kernel::OpKind::kAtomicGlobal ||
             op_.kind == kernel::OpKind::kAtomicShared ||
             op_.kind == kernel::OpKind::kAtomicAddDsmem) {
    if (!(in.op == Opcode::kRed)) {
      const auto* data = reinterpret_cast<const std::byte*>(op_data_.data());
      const std::uint32_t eb = type_bytes(in.type);
      const std::uint32_t stride = op_.kind == kernel::OpKind::kAtomicGlobal ||
                                           op_.kind == kernel::OpKind::kAtomicShared ||
                                           op_.kind == kernel::OpKind::kAtomicAddDsmem
                                       ? eb
                                       : eb * in.vec;
      const bool moves = warp_.moves_data();
      for_lanes(op_mask_, [&](std::uint32_t l) {
        for (std::uint32_t k = 0; k < in.vec; ++k) {
          std::uint64_t v = 0;
          if (moves) std::memcpy(&v, data + std::size_t{l} * stride + k * eb, eb);
          if (is_signed(in.type) && eb < 8)
            v = static_cast<std::uint64_t>(static_cast<std::int64_t>(v << (64 - 8 * eb)) >>
                                           (64 - 8 * eb));
          write(dst.kind == Operand::Kind::kVector ? member(dst, k) : dst, l, v);
        }
      });
    }
  }
  // Results are in: their consumers need not wait on the batch before.
  op_in_ = nullptr;
}

}  // namespace xpusim::ptx
