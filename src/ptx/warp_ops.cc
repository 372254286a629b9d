// Warp-level and synchronisation instructions (shfl, vote, redux, activemask, elect, bar,
// membar/fence) and the dispatch of memory instructions.
#include <fmt/format.h>

#include <bit>

#include "ptx/interpreter.h"

namespace xpusim::ptx {
namespace {

using kernel::kWarpSize;
using kernel::LaneMask;

}  // namespace

bool WarpInterpreter::exec_warp_level(const Instruction& in, LaneMask m) {
  const auto A = [&](std::uint32_t k, std::uint32_t l) { return read(operand(in, k), l); };
  switch (in.op) {
    case Opcode::kLd:
    case Opcode::kLdu:
    case Opcode::kSt:
    case Opcode::kAtom:
    case Opcode::kRed:
      return exec_memory(in, m);
    case Opcode::kLdmatrix:
    case Opcode::kStmatrix:
    case Opcode::kMma:
    case Opcode::kWmma:
      return exec_matrix(in, m);
    case Opcode::kPrefetch:
    case Opcode::kPrefetchu:
      count_alu(in, 1);  // a hint: no data moves, no completion to wait for
      return true;
    case Opcode::kMbarrier:
    case Opcode::kCpAsyncBulk:
    case Opcode::kCpAsync:
    case Opcode::kPrefetchTensormap:
    case Opcode::kFenceTensormap:
    case Opcode::kMapa:
    case Opcode::kGetctarank:
    case Opcode::kIsspacep:
      return exec_async(in, m);
    case Opcode::kShfl: {
      // shfl.sync.mode.b32 d[|p], a, b, c, membermask (PTX ISA 9.7.8.6).
      const Operand& d0 = operand(in, 0);
      const Operand dst = d0.kind == Operand::Kind::kVector ? member(d0, 0) : d0;
      const bool has_p = d0.kind == Operand::Kind::kVector;
      std::array<std::uint64_t, kWarpSize> src{};
      for (std::uint32_t l = 0; l < kWarpSize; ++l)
        src[l] = A(1, l);  // every lane's value
      std::array<std::uint64_t, kWarpSize> res{}, ok{};
      for_lanes(m, [&](std::uint32_t l) {
        const std::uint32_t b = static_cast<std::uint32_t>(A(2, l)) & 31;
        const std::uint32_t c = static_cast<std::uint32_t>(A(3, l));
        const std::uint32_t clamp = c & 31, seg = (c >> 8) & 31;
        const std::uint32_t max_lane = (l & seg) | (clamp & ~seg);
        const std::uint32_t min_lane = l & seg;
        std::int32_t j = static_cast<std::int32_t>(l);
        bool pval = false;
        switch (in.mode) {
          case Mode::kUp:  // maxLane is the lower bound here (PTX ISA, shfl.sync)
            j = static_cast<std::int32_t>(l) - static_cast<std::int32_t>(b);
            pval = j >= static_cast<std::int32_t>(max_lane);
            break;
          case Mode::kDown:
            j = static_cast<std::int32_t>(l + b);
            pval = j <= static_cast<std::int32_t>(max_lane);
            break;
          case Mode::kBfly:
            j = static_cast<std::int32_t>(l ^ b);
            pval = j <= static_cast<std::int32_t>(max_lane);
            break;
          default:
            j = static_cast<std::int32_t>(min_lane | (b & ~seg));
            pval = j <= static_cast<std::int32_t>(max_lane);
            break;
        }
        if (!pval) j = static_cast<std::int32_t>(l);
        res[l] = src[static_cast<std::uint32_t>(j) & 31];
        ok[l] = pval ? 1 : 0;
      });
      for_lanes(m, [&](std::uint32_t l) {
        write(dst, l, res[l]);
        if (has_p) write(member(d0, 1), l, ok[l]);
      });
      count_alu(in, 1);
      return true;
    }
    case Opcode::kMatch: {
      // match.any: each lane gets the lanes holding its value; match.all: the executing lanes
      // if all hold one value, else 0, and the predicate says which (over the executing lanes).
      const Operand& v = operand(in, 1);
      const Operand& d = operand(in, 0);
      std::array<std::uint64_t, kWarpSize> value{};
      for_lanes(m, [&](std::uint32_t l) { value[l] = read(v, l); });
      const std::uint32_t first = static_cast<std::uint32_t>(std::countr_zero(m));
      bool all = true;
      for_lanes(m, [&](std::uint32_t l) { all = all && value[l] == value[first]; });
      for_lanes(m, [&](std::uint32_t l) {
        LaneMask same = 0;
        for_lanes(m, [&](std::uint32_t k) {
          if (value[k] == value[l]) same |= LaneMask{1} << k;
        });
        const std::uint64_t r = in.mode == Mode::kAny ? same : all ? m : 0;
        if (d.kind == Operand::Kind::kVector) {
          write(member(d, 0), l, r);
          write(member(d, 1), l, all ? 1 : 0);
        } else {
          write(d, l, r);
        }
      });
      count_alu(in, 1);
      return true;
    }
    case Opcode::kVote: {
      // vote.sync.mode d, {!}a, membermask: over the executing lanes.
      const Operand& p = operand(in, 1);
      LaneMask ballot = 0;
      for_lanes(m, [&](std::uint32_t l) {
        bool v = (read(p, l) & 1) != 0;
        if (p.negate) v = !v;
        if (v) ballot |= LaneMask{1} << l;
      });
      for_lanes(m, [&](std::uint32_t l) {
        std::uint64_t r = 0;
        switch (in.mode) {
          case Mode::kAll:
            r = ballot == m ? 1 : 0;
            break;
          case Mode::kAny:
            r = ballot != 0 ? 1 : 0;
            break;
          case Mode::kUni:
            r = ballot == 0 || ballot == m ? 1 : 0;
            break;
          default:
            r = ballot;
            break;
        }
        write(operand(in, 0), l, r);
      });
      count_alu(in, 1);
      return true;
    }
    case Opcode::kRedux: {
      // redux.sync.op.type d, a, membermask: add/min/max (u32/s32), and/or/xor (b32).
      std::uint64_t acc = 0;
      bool first = true;
      const bool sgn = in.type == Type::kS32;
      for_lanes(m, [&](std::uint32_t l) {
        const std::uint32_t v = static_cast<std::uint32_t>(A(1, l));
        if (first) {
          acc = v;
          first = false;
          return;
        }
        const std::uint32_t a = static_cast<std::uint32_t>(acc);
        switch (in.mode) {
          case Mode::kAtomAdd:
            acc = a + v;
            break;
          case Mode::kAtomMin:
            acc = sgn ? static_cast<std::uint32_t>(
                            std::min(static_cast<std::int32_t>(a), static_cast<std::int32_t>(v)))
                      : std::min(a, v);
            break;
          case Mode::kAtomMax:
            acc = sgn ? static_cast<std::uint32_t>(
                            std::max(static_cast<std::int32_t>(a), static_cast<std::int32_t>(v)))
                      : std::max(a, v);
            break;
          case Mode::kAtomAnd:
            acc = a & v;
            break;
          case Mode::kAtomOr:
            acc = a | v;
            break;
          case Mode::kAtomXor:
            acc = a ^ v;
            break;
          default:
            break;
        }
      });
      if (in.mode != Mode::kAtomAdd && in.mode != Mode::kAtomMin && in.mode != Mode::kAtomMax &&
          in.mode != Mode::kAtomAnd && in.mode != Mode::kAtomOr && in.mode != Mode::kAtomXor)
        return fail(in, "redux supports add, min, max, and, or, xor");
      for_lanes(m, [&](std::uint32_t l) { write(operand(in, 0), l, acc & 0xFFFF'FFFFu); });
      count_alu(in, 1);
      return true;
    }
    case Opcode::kActivemask:
      for_lanes(m, [&](std::uint32_t l) { write(operand(in, 0), l, m); });
      count_alu(in, 1);
      return true;
    case Opcode::kElect: {
      // elect.sync d|p, membermask: the lowest active lane of the member mask.
      const Operand& d0 = operand(in, 0);
      const LaneMask members =
          m & static_cast<LaneMask>(A(1, static_cast<std::uint32_t>(std::countr_zero(m))));
      const std::uint32_t leader =
          members == 0 ? kWarpSize : static_cast<std::uint32_t>(std::countr_zero(members));
      for_lanes(m, [&](std::uint32_t l) {
        if (d0.kind == Operand::Kind::kVector) {
          write(member(d0, 0), l, leader);
          write(member(d0, 1), l, l == leader ? 1 : 0);
        } else {
          write(d0, l, l == leader ? 1 : 0);
        }
      });
      count_alu(in, 1);
      return true;
    }
    case Opcode::kBarWarpSync:
    case Opcode::kMembar:
    case Opcode::kFence:
    case Opcode::kSetmaxnreg:
      // One copy of memory and in-order warps: ordering needs nothing more (docs/ptx.md).
      count_alu(in, 1);
      return true;
    case Opcode::kNanosleep:
      count_alu(in, 1);
      return true;
    case Opcode::kBarSync: {
      const std::uint32_t id =
          static_cast<std::uint32_t>(A(0, static_cast<std::uint32_t>(std::countr_zero(m))));
      std::uint32_t threads = 0;
      if (in.count > 1)
        threads = static_cast<std::uint32_t>(A(1, static_cast<std::uint32_t>(std::countr_zero(m))));
      if (id >= 16) return fail(in, fmt::format("barrier {}: PTX has barriers 0 to 15", id));
      if (threads % kWarpSize != 0)
        return fail(in, fmt::format("bar.sync with {} threads: a multiple of 32", threads));
      op_ = kernel::Op{
          .kind = kernel::OpKind::kBarrierSync, .mask = m, .count = threads, .barrier = id};
      op_in_ = &in;
      op_mask_ = m;
      return false;
    }
    case Opcode::kBarArrive:
    case Opcode::kBarRed: {
      // bar.arrive a, b (the warp goes on) / bar.red.{popc,and,or} d, a{, b}, {!}c.
      const std::uint32_t first = static_cast<std::uint32_t>(std::countr_zero(m));
      const bool red = in.op == Opcode::kBarRed;
      const std::uint32_t at = red ? 1 : 0;
      const auto id = static_cast<std::uint32_t>(A(at, first));
      std::uint32_t threads = 0;
      if (in.count > at + (red ? 2u : 1u)) threads = static_cast<std::uint32_t>(A(at + 1, first));
      if (id >= 16) return fail(in, fmt::format("barrier {}: PTX has barriers 0 to 15", id));
      if (threads % kWarpSize != 0)
        return fail(in, fmt::format("{} with {} threads: a multiple of 32",
                                    red ? "bar.red" : "bar.arrive", threads));
      if (!red && threads == 0) return fail(in, "bar.arrive needs a thread count");
      kernel::Op op{.kind = red ? kernel::OpKind::kBarrierRed : kernel::OpKind::kBarrierArrive,
                    .mask = m,
                    .count = threads,
                    .barrier = id};
      if (red) {
        const Operand& c = operand(in, in.count - 1);
        std::uint32_t set = 0;
        for_lanes(m, [&](std::uint32_t l) { set += ((read(c, l) & 1) != 0) != c.negate ? 1 : 0; });
        const auto lanes = static_cast<std::uint32_t>(std::popcount(m));
        op.atom = in.mode == Mode::kAtomAnd  ? kernel::AtomOp::kAnd
                  : in.mode == Mode::kAtomOr ? kernel::AtomOp::kOr
                                             : kernel::AtomOp::kAdd;
        op.tx_bytes = in.mode == Mode::kAtomAnd  ? (set == lanes ? 1 : 0)
                      : in.mode == Mode::kAtomOr ? (set > 0 ? 1 : 0)
                                                 : set;
        op.value = &clock_value_;
      }
      op_ = op;
      op_in_ = &in;
      op_mask_ = m;
      return false;
    }
    case Opcode::kBarrierCluster:
      if (in.mode == Mode::kWait) {
        count_alu(in, 1);  // the arrive did the waiting (barrier.cluster.arrive + wait pair)
        return true;
      }
      op_ = kernel::Op{.kind = kernel::OpKind::kClusterSync, .mask = m};
      op_in_ = &in;
      op_mask_ = m;
      return false;
    default:
      return fail(in, "this instruction is not supported by this front end yet");
  }
}

}  // namespace xpusim::ptx
