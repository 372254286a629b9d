// f16 / bf16 arithmetic, scalar and packed (.f16x2 / .bf16x2: two halves of a .b32, each
// computed on its own): add, sub, mul, fma, min, max, neg, abs, and cvt packing two f32s.
// Each result is computed in double (products of halves are exact there, sums exact up to a
// residual whose sign TwoSum gives) and rounded once to the 16-bit format: bit-exact.
#include <fmt/format.h>

#include <cmath>

#include "ptx/float_ops.h"
#include "ptx/interpreter.h"

namespace xpusim::ptx {
namespace {

using kernel::LaneMask;

bool is_subnormal(std::uint16_t x, fp::Half16 f) {
  const std::uint32_t frac_mask = (1u << f.frac_bits) - 1;
  const std::uint32_t exp_mask = 0x7FFFu & ~frac_mask;
  return (x & exp_mask) == 0 && (x & frac_mask) != 0;
}

bool is_nan(std::uint16_t x, fp::Half16 f) {
  const std::uint32_t frac_mask = (1u << f.frac_bits) - 1;
  const std::uint32_t exp_mask = 0x7FFFu & ~frac_mask;
  return (x & exp_mask) == exp_mask && (x & frac_mask) != 0;
}

// One half of one lane.
std::uint16_t half_op(const Instruction& in, fp::Half16 f, std::uint16_t a, std::uint16_t b,
                      std::uint16_t c) {
  const bool ftz = in.ftz;
  if (ftz) {
    for (std::uint16_t* x : {&a, &b, &c})
      if (is_subnormal(*x, f)) *x &= 0x8000;
  }
  const double da = fp::half16_to_double(a, f), db = fp::half16_to_double(b, f),
               dc = fp::half16_to_double(c, f);
  const Round r = Round::kRn;  // the only rounding PTX defines here
  std::uint16_t res = 0;
  switch (in.op) {
    case Opcode::kNeg:
      return static_cast<std::uint16_t>(a ^ 0x8000u);
    case Opcode::kAbs:
      return static_cast<std::uint16_t>(a & 0x7FFFu);
    case Opcode::kMin:
    case Opcode::kMax: {
      // NaN operands are ignored (both NaN: NaN) unless .NaN; -0 < +0.
      if (is_nan(a, f) && is_nan(b, f)) return fp::kCanonicalNanF16;
      if (is_nan(a, f) || is_nan(b, f)) {
        if (in.nan) return fp::kCanonicalNanF16;
        res = is_nan(a, f) ? b : a;
      } else {
        const bool a_less = da < db || (da == 0 && db == 0 && (a & 0x8000u) != 0);
        res = (in.op == Opcode::kMin) == a_less ? a : b;
      }
      break;
    }
    case Opcode::kAdd:
    case Opcode::kSub: {
      const double y = in.op == Opcode::kSub ? -db : db;
      const double s = da + y;
      res = fp::round_half16(s, fp::two_sum_err_sign(da, y, s), f, r);
      break;
    }
    case Opcode::kMul:
      res = fp::round_half16(da * db, 0, f, r);  // 22 significant bits at most: exact
      break;
    default: {  // fma: the product is exact, the sum's residual from TwoSum
      const double p = da * db;
      const double s = p + dc;
      res = fp::round_half16(s, fp::two_sum_err_sign(p, dc, s), f, r);
      break;
    }
  }
  if (ftz && is_subnormal(res, f)) res &= 0x8000;
  if (in.sat) {
    if (is_nan(res, f)) return 0;
    const double v = fp::half16_to_double(res, f);
    if (v < 0) return 0;
    if (v > 1) return f.frac_bits == 10 ? 0x3C00 : 0x3F80;
  }
  if (in.relu && !is_nan(res, f) && (res & 0x8000u) != 0) return 0;
  return res;
}

}  // namespace

bool WarpInterpreter::exec_half(const Instruction& in, LaneMask m) {
  const Type t = in.type;
  const bool bf = t == Type::kBF16 || t == Type::kBF16x2;
  const bool x2 = t == Type::kF16x2 || t == Type::kBF16x2;
  const fp::Half16 f = bf ? fp::kBF16Format : fp::kF16Format;
  std::uint32_t srcs = 2;
  switch (in.op) {
    case Opcode::kNeg:
    case Opcode::kAbs:
      srcs = 1;
      break;
    case Opcode::kAdd:
    case Opcode::kSub:
    case Opcode::kMul:
    case Opcode::kMin:
    case Opcode::kMax:
      break;
    case Opcode::kFma:
      srcs = 3;
      break;
    default:
      return fail(in, fmt::format("{} on .{} is not a PTX instruction or not supported yet",
                                  in.op == Opcode::kMad ? "mad" : "this operation", type_name(t)));
  }
  // decode.cc has checked the modifiers (.rn only; no .ftz/.sat on bf16).
  if (in.nan && in.op != Opcode::kMin && in.op != Opcode::kMax)
    return fail(in, ".NaN is defined on min/max only");
  for_lanes(m, [&](std::uint32_t l) {
    std::uint64_t v[3] = {0, 0, 0};
    for (std::uint32_t k = 0; k < srcs; ++k)
      v[k] = read(operand(in, k + 1), l);
    std::uint64_t res = 0;
    for (std::uint32_t h = 0; h < (x2 ? 2u : 1u); ++h) {
      const auto part = [&](std::uint64_t x) { return static_cast<std::uint16_t>(x >> (16 * h)); };
      res |= std::uint64_t{half_op(in, f, part(v[0]), part(v[1]), part(v[2]))} << (16 * h);
    }
    write(operand(in, 0), l, res);
  });
  count_alu(in, 1);
  return true;
}

// setp.CmpOp{.BoolOp}{.ftz}.{f16x2,bf16x2} p|q, a, b{, {!}c}: p from the low halves, q from the
// high ones (PTX ISA "setp", half precision); set.CmpOp{.BoolOp}{.ftz}.dtype.{f16x2,bf16x2}
// d, a, b: each half of d 1.0 (.f16x2) or all ones (.u32/.s32) where its comparison held.
bool WarpInterpreter::exec_compare_x2(const Instruction& in, LaneMask m) {
  const bool setp = in.op == Opcode::kSetp;
  const Type ct = setp ? in.type : in.stype;
  const fp::Half16 f = ct == Type::kBF16x2 ? fp::kBF16Format : fp::kF16Format;
  const Operand& d0 = operand(in, 0);
  if (setp && d0.kind != Operand::Kind::kVector)
    return fail(in, "setp on two halves writes two predicates (p|q)");
  if (!setp && in.type != Type::kF16x2 && in.type != Type::kU32 && in.type != Type::kS32)
    return fail(in, fmt::format("set on .{} writes .f16x2, .u32 or .s32", type_name(ct)));
  for_lanes(m, [&](std::uint32_t l) {
    const std::uint64_t a = read(operand(in, 1), l), b = read(operand(in, 2), l);
    bool c = true;
    if (in.bool_op != BoolOp::kNone) {
      const Operand& co = operand(in, 3);
      c = ((read(co, l) & 1) != 0) != co.negate;
    }
    bool t[2] = {false, false};
    for (std::uint32_t h = 0; h < 2; ++h) {
      auto x = static_cast<std::uint16_t>(a >> (16 * h));
      auto y = static_cast<std::uint16_t>(b >> (16 * h));
      if (in.ftz) {  // subnormal halves compare as zeros of their sign
        if (is_subnormal(x, f)) x &= 0x8000;
        if (is_subnormal(y, f)) y &= 0x8000;
      }
      const bool r = fp::compare(in.cmp, fp::half16_to_double(x, f), fp::half16_to_double(y, f));
      t[h] = in.bool_op == BoolOp::kAnd   ? r && c
             : in.bool_op == BoolOp::kOr  ? r || c
             : in.bool_op == BoolOp::kXor ? r != c
                                          : r;
    }
    if (setp) {
      write(member(d0, 0), l, t[0] ? 1 : 0);
      write(member(d0, 1), l, t[1] ? 1 : 0);
      return;
    }
    const std::uint64_t one = in.type == Type::kF16x2 ? 0x3C00 : 0xFFFF;
    write(d0, l, (t[0] ? one : 0) | (t[1] ? one : 0) << 16);
  });
  count_alu(in, 1);
  return true;
}

// cvt{.rnd}{.relu}{.satfinite}.{f16x2,bf16x2}.f32 d, a, b: a into the upper half, b the lower.
bool WarpInterpreter::exec_cvt_pack(const Instruction& in, LaneMask m) {
  if (in.stype != Type::kF32 || in.count != 3)
    return fail(in, fmt::format("cvt.{}.{}: only the two-f32 packing form is supported",
                                type_name(in.type), type_name(in.stype)));
  const bool bf = in.type == Type::kBF16x2;
  const Round r = in.round == Round::kNone ? Round::kRn : in.round;
  if (r != Round::kRn && r != Round::kRz && r != Round::kRm && r != Round::kRp)
    return fail(in, "this cvt takes .rn, .rz, .rm or .rp");
  const auto one = [&](std::uint64_t x) -> std::uint64_t {
    float v = std::bit_cast<float>(static_cast<std::uint32_t>(x));
    if (in.relu && !std::isnan(v) && v < 0) v = 0;
    std::uint16_t h = bf ? fp::f32_to_bf16(v, r) : fp::f32_to_f16(v, r);
    if (in.sat && !std::isnan(v)) {  // .satfinite: infinities become the largest finite
      const std::uint16_t inf = bf ? 0x7F80 : 0x7C00;
      if ((h & 0x7FFFu) == inf) h = static_cast<std::uint16_t>((h & 0x8000u) | (inf - 1));
    }
    return h;
  };
  for_lanes(m, [&](std::uint32_t l) {
    write(operand(in, 0), l, (one(read(operand(in, 1), l)) << 16) | one(read(operand(in, 2), l)));
  });
  count_alu(in, 1);
  return true;
}

}  // namespace xpusim::ptx
