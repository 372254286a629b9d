// Integer, bit, float, compare/select, move and convert instructions: per-lane semantics as
// the PTX ISA defines them (chapter 9.7), bit-exact.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "ptx/float_ops.h"
#include "ptx/interpreter.h"

namespace xpusim::ptx {
namespace {

using kernel::LaneMask;

float f32(std::uint64_t v) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(v));
}
double f64(std::uint64_t v) {
  return std::bit_cast<double>(v);
}
std::uint64_t bits(float v) {
  return std::bit_cast<std::uint32_t>(v);
}
std::uint64_t bits(double v) {
  return std::bit_cast<std::uint64_t>(v);
}

std::uint64_t mask_of(std::uint32_t bytes) {
  return bytes >= 8 ? ~std::uint64_t{0} : (std::uint64_t{1} << (8 * bytes)) - 1;
}

// Sign-extends the low `bytes` bytes of v.
std::int64_t sext(std::uint64_t v, std::uint32_t bytes) {
  if (bytes >= 8) return static_cast<std::int64_t>(v);
  const std::uint32_t shift = 64 - 8 * bytes;
  return static_cast<std::int64_t>(v << shift) >> shift;
}

// Calls fn(T{}) with T the C++ integer type of PTX type t; false when t is not an integer.
template <class Fn>
bool with_int(Type t, Fn&& fn) {
  switch (t) {
    case Type::kU8:
    case Type::kB8:
      fn(std::uint8_t{});
      return true;
    case Type::kS8:
      fn(std::int8_t{});
      return true;
    case Type::kU16:
    case Type::kB16:
      fn(std::uint16_t{});
      return true;
    case Type::kS16:
      fn(std::int16_t{});
      return true;
    case Type::kU32:
    case Type::kB32:
      fn(std::uint32_t{});
      return true;
    case Type::kS32:
      fn(std::int32_t{});
      return true;
    case Type::kU64:
    case Type::kB64:
      fn(std::uint64_t{});
      return true;
    case Type::kS64:
      fn(std::int64_t{});
      return true;
    default:
      return false;
  }
}

template <class T>
T as(std::uint64_t v) {
  return static_cast<T>(v);
}
template <class T>
std::uint64_t out(T v) {
  return static_cast<std::uint64_t>(static_cast<std::make_unsigned_t<T>>(v));
}

// 128-bit products for mul.hi.{s,u}64 (a GCC/Clang extension; __extension__ keeps -Wpedantic
// quiet).
__extension__ using Int128 = __int128;
__extension__ using Uint128 = unsigned __int128;
template <class T>
using Wide =
    std::conditional_t<sizeof(T) == 8, std::conditional_t<std::is_signed_v<T>, Int128, Uint128>,
                       std::conditional_t<std::is_signed_v<T>, std::int64_t, std::uint64_t>>;

// PTX min/max on floats: NaN operands are ignored (the other is returned); both NaN → NaN.
template <class F>
F fmin_ptx(F a, F b) {
  if (std::isnan(a)) return b;
  if (std::isnan(b)) return a;
  if (a == 0 && b == 0) return std::signbit(a) ? a : b;  // -0 < +0
  return a < b ? a : b;
}
template <class F>
F fmax_ptx(F a, F b) {
  if (std::isnan(a)) return b;
  if (std::isnan(b)) return a;
  if (a == 0 && b == 0) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}

template <class T>
bool compare_int(Cmp c, T a, T b) {
  using U = std::make_unsigned_t<T>;
  switch (c) {
    case Cmp::kEq:
      return a == b;
    case Cmp::kNe:
      return a != b;
    case Cmp::kLt:
      return a < b;
    case Cmp::kLe:
      return a <= b;
    case Cmp::kGt:
      return a > b;
    case Cmp::kGe:
      return a >= b;
    case Cmp::kLo:
      return static_cast<U>(a) < static_cast<U>(b);
    case Cmp::kLs:
      return static_cast<U>(a) <= static_cast<U>(b);
    case Cmp::kHi:
      return static_cast<U>(a) > static_cast<U>(b);
    case Cmp::kHs:
      return static_cast<U>(a) >= static_cast<U>(b);
    default:
      return false;
  }
}

// Float → integer with PTX cvt rules: rounded per mode, NaN → 0, saturated to the range.
template <class I, class F>
I float_to_int(F v, Round m) {
  if (std::isnan(v)) return 0;
  const F r = fp::integral(v, m == Round::kNone ? Round::kRzi : m);
  if (r <= static_cast<F>(std::numeric_limits<I>::lowest()))
    return std::numeric_limits<I>::lowest();
  // max + 1 is a power of two, exact in F: compare against it.
  const F top = static_cast<F>(std::numeric_limits<I>::max() / 2 + 1) * F{2};
  if (r >= top) return std::numeric_limits<I>::max();
  return static_cast<I>(r);
}

// Reads a float operand of type t (f16/bf16 as their 16 bits, f32, f64) as double.
double read_float(Type t, std::uint64_t v) {
  switch (t) {
    case Type::kF16:
      return fp::f16_to_f32(static_cast<std::uint16_t>(v));
    case Type::kBF16:
      return fp::bf16_to_f32(static_cast<std::uint16_t>(v));
    case Type::kF32:
    case Type::kTF32:
      return f32(v);
    default:
      return f64(v);
  }
}

// cvt (PTX ISA 9.7.9.21): every integer/float pairing with its rounding and saturation.
bool convert(const Instruction& in, std::uint64_t src, std::uint64_t& dst, std::string& err) {
  const Type d = in.type, s = in.stype;
  const Round m = in.round;
  const bool fd = is_float(d), fs = is_float(s);
  if (!fd && !fs) {  // integer ↔ integer: sign- or zero-extend the source, clamp with .sat
    const std::uint32_t sb = type_bytes(s), db = type_bytes(d);
    std::int64_t sv = is_signed(s) ? sext(src, sb) : 0;
    const std::uint64_t uv = src & mask_of(sb);
    if (!is_signed(s)) sv = static_cast<std::int64_t>(uv);
    if (in.sat) {
      // Saturate the source's value into the destination's range.
      const bool src_neg = is_signed(s) && sv < 0;
      if (is_signed(d)) {
        const std::int64_t lo =
            db >= 8 ? std::numeric_limits<std::int64_t>::min() : -(std::int64_t{1} << (8 * db - 1));
        const std::int64_t hi = db >= 8 ? std::numeric_limits<std::int64_t>::max()
                                        : (std::int64_t{1} << (8 * db - 1)) - 1;
        if (!is_signed(s) && uv > static_cast<std::uint64_t>(hi)) {
          dst = static_cast<std::uint64_t>(hi) & mask_of(db);
        } else {
          dst = static_cast<std::uint64_t>(std::clamp(sv, lo, hi)) & mask_of(db);
        }
      } else {
        const std::uint64_t hi = mask_of(db);
        dst = src_neg ? 0 : std::min(is_signed(s) ? static_cast<std::uint64_t>(sv) : uv, hi);
      }
      return true;
    }
    const std::uint64_t v = is_signed(s) ? static_cast<std::uint64_t>(sv) : uv;
    dst = is_signed(d) ? static_cast<std::uint64_t>(sext(v, db)) & mask_of(db) : v & mask_of(db);
    return true;
  }
  if (fd && !fs) {  // integer → float, rounded per .rn/.rz/.rm/.rp
    const std::uint32_t sb = type_bytes(s);
    const long double v = is_signed(s) ? static_cast<long double>(sext(src, sb))
                                       : static_cast<long double>(src & mask_of(sb));
    if (d == Type::kF64) {
      dst = bits(fp::from_exact<double>(v, m));
    } else {
      float f = fp::from_exact<float>(v, m);
      if (d == Type::kF32) {
        dst = bits(f);
      } else if (d == Type::kF16) {
        // Through f32 is exact for |v| < 2^24; beyond, a half is infinite or rounds the same.
        dst = fp::f32_to_f16(f, m);
      } else if (d == Type::kBF16) {
        dst = fp::f32_to_bf16(f, m);
      } else {
        err = "integer to this float type";
        return false;
      }
    }
    return true;
  }
  if (!fd && fs) {  // float → integer: .rni/.rzi/.rmi/.rpi, NaN → 0, saturating
    const double v = read_float(s, src);
    Round r = m;
    if (r == Round::kNone) {
      err = "a float-to-integer cvt needs .rni, .rzi, .rmi or .rpi";
      return false;
    }
    std::uint64_t res = 0;
    with_int(d, [&](auto t) {
      using I = decltype(t);
      res = out<I>(s == Type::kF64 ? float_to_int<I, double>(v, r)
                                   : float_to_int<I, float>(static_cast<float>(v), r));
    });
    dst = res;
    return true;
  }
  // float → float.
  if (s == Type::kF64 && d == Type::kF32) {
    float f =
        std::isnan(f64(src)) ? std::bit_cast<float>(fp::kCanonicalNanF32) : fp::narrow(f64(src), m);
    if (in.ftz) f = fp::flush(f);
    if (in.sat) f = std::isnan(f) ? 0.0f : std::clamp(f, 0.0f, 1.0f);
    dst = bits(f);
    return true;
  }
  if (d == Type::kF64) {
    double v = read_float(s, src);
    if (s == Type::kF32 && in.ftz) v = fp::flush(static_cast<float>(v));
    if (s == Type::kF64) v = fp::integral(v, m);
    if (std::isnan(v)) v = std::bit_cast<double>(fp::kCanonicalNanF64);
    if (in.sat) v = std::isnan(v) ? 0.0 : std::clamp(v, 0.0, 1.0);
    dst = bits(v);
    return true;
  }
  float f = static_cast<float>(read_float(s, src));
  if (s == Type::kF32 && in.ftz) f = fp::flush(f);
  if (d == Type::kF32) {
    if (s == Type::kF32) f = fp::integral(f, m);
    if (std::isnan(f)) f = std::bit_cast<float>(fp::kCanonicalNanF32);
    if (in.ftz) f = fp::flush(f);
    if (in.sat) f = std::isnan(f) ? 0.0f : std::clamp(f, 0.0f, 1.0f);
    dst = bits(f);
    return true;
  }
  if (in.sat) f = std::isnan(f) ? 0.0f : std::clamp(f, 0.0f, 1.0f);
  if (in.relu && !std::isnan(f) && f < 0) f = 0;
  const Round rm = m == Round::kNone ? Round::kRn : m;
  if (d == Type::kF16) {
    dst = fp::f32_to_f16(f, rm);
  } else if (d == Type::kBF16) {
    dst = fp::f32_to_bf16(f, rm);
  } else if (d == Type::kTF32) {
    // tf32: f32 with 10 mantissa bits, rounded (rna: to nearest, ties away).
    std::uint32_t x = std::bit_cast<std::uint32_t>(f);
    if (!std::isnan(f)) x = (x + (rm == Round::kRz ? 0u : 0x1000u)) & 0xFFFF'E000u;
    dst = x;
  } else {
    err = "this float conversion";
    return false;
  }
  return true;
}

}  // namespace

void WarpInterpreter::count_alu(const Instruction& in, std::uint32_t issues, std::uint32_t sfu,
                                std::uint32_t mma) {
  const Function& fn = *frame().fn;
  std::uint32_t d = 0;
  for (std::uint32_t k = 0; k < in.count; ++k) {
    const Operand& o = fn.operands[in.first + k];
    if (o.kind == Operand::Kind::kReg) {
      const std::uint32_t slot = frame().reg_base + o.reg;
      if (depth_gen_[slot] == gen_) d = std::max(d, depth_[slot]);
    }
  }
  d += std::max<std::uint32_t>(issues, 1);
  // The destination (operand 0, or a vector's members) gets the depth.
  if (in.count > 0) {
    const Operand& o = fn.operands[in.first];
    auto mark = [&](const Operand& r) {
      if (r.kind != Operand::Kind::kReg) return;
      const std::uint32_t slot = frame().reg_base + r.reg;
      depth_[slot] = d;
      depth_gen_[slot] = gen_;
    };
    if (o.kind == Operand::Kind::kVector) {
      for (std::uint32_t k = 0; k < o.count; ++k)
        mark(member(o, k));
    } else {
      mark(o);
    }
  }
  chain_ = std::max(chain_, d);
  alu_.issues += issues;
  alu_.sfu += sfu;
  alu_.mma += mma;
}

// add.cc / addc / sub.cc / subc / mad.cc / madc (PTX ISA 9.7.2): each lane's carry flag
// (CC.CF) is the carry out of an add and the borrow out of a subtract, so that a multi-word
// subtract chains sub.cc, subc.cc ..., subc as a multi-word add chains add.cc, addc.cc ...
bool WarpInterpreter::exec_carry(const Instruction& in, LaneMask m) {
  const auto A = [&](std::uint32_t k, std::uint32_t l) { return read(operand(in, k), l); };
  const bool wide = type_bytes(in.type) == 8;
  const bool is_signed = in.type == Type::kS32 || in.type == Type::kS64;
  const std::uint32_t bits = wide ? 64 : 32;
  const Uint128 mask = (Uint128{1} << bits) - 1;
  const bool carry_in = in.op == Opcode::kAddc || in.op == Opcode::kSubc || in.op == Opcode::kMadc;
  for_lanes(m, [&](std::uint32_t l) {
    const Uint128 a = A(1, l) & mask, b = A(2, l) & mask;
    const Uint128 cin = carry_in ? carry_[l] : 0;
    Uint128 sum = 0;
    bool carry = false;
    if (in.op == Opcode::kSub || in.op == Opcode::kSubc) {
      sum = (a - b - cin) & mask;
      carry = a < b + cin;  // the borrow
    } else {
      Uint128 x = a;
      if (in.op == Opcode::kMad || in.op == Opcode::kMadc) {
        // The low or high half of the full product, signed or not, then + c.
        Uint128 product = a * b;
        if (is_signed) {
          const auto sx = [&](Uint128 v) {
            return static_cast<Int128>(v << (128 - bits)) >> (128 - bits);
          };
          product = static_cast<Uint128>(sx(a) * sx(b));
        }
        x = (in.mode == Mode::kHi ? product >> bits : product) & mask;
        const Uint128 c = A(3, l) & mask;
        sum = x + c + cin;
      } else {
        sum = a + b + cin;
      }
      carry = (sum >> bits) != 0;
      sum &= mask;
    }
    write(operand(in, 0), l, static_cast<std::uint64_t>(sum));
    if (in.cc) carry_[l] = carry ? 1 : 0;
  });
  count_alu(in, 1);
  return true;
}

bool WarpInterpreter::exec(const Instruction& in, LaneMask m) {
  const auto A = [&](std::uint32_t k, std::uint32_t l) { return read(operand(in, k), l); };
  const auto D = [&](std::uint32_t l, std::uint64_t v) { write(operand(in, 0), l, v); };
  const Type t = in.type;
  const std::uint32_t tb = type_bytes(t);
  const std::uint64_t tm = mask_of(tb);

  if (in.cc || in.op == Opcode::kAddc || in.op == Opcode::kSubc || in.op == Opcode::kMadc)
    return exec_carry(in, m);
  switch (in.op) {
    case Opcode::kAdd:
    case Opcode::kSub:
    case Opcode::kMul:
    case Opcode::kMin:
    case Opcode::kMax:
    case Opcode::kDiv:
    case Opcode::kRem:
    case Opcode::kMad:
    case Opcode::kFma:
    case Opcode::kAbs:
    case Opcode::kNeg:
    case Opcode::kCopysign:
      break;
    default:
      goto not_arith;
  }
  if (t == Type::kF32) {
    const Round r = in.round;
    const bool ftz = in.ftz;
    auto in32 = [&](std::uint32_t k, std::uint32_t l) {
      const float v = f32(A(k, l));
      return ftz ? fp::flush(v) : v;
    };
    auto fin = [&](float v) {
      if (ftz) v = fp::flush(v);
      if (in.sat) v = std::isnan(v) ? 0.0f : std::clamp(v, 0.0f, 1.0f);
      if (std::isnan(v)) v = std::bit_cast<float>(fp::kCanonicalNanF32);
      return bits(v);
    };
    std::uint32_t cost = 1, sfu = 0;
    for_lanes(m, [&](std::uint32_t l) {
      float res = 0;
      switch (in.op) {
        case Opcode::kAdd:
          res = fp::add(in32(1, l), in32(2, l), r);
          break;
        case Opcode::kSub:
          res = fp::add(in32(1, l), -in32(2, l), r);
          break;
        case Opcode::kMul:
          res = fp::mul(in32(1, l), in32(2, l), r);
          break;
        case Opcode::kFma:
        case Opcode::kMad:
          res = fp::fma(in32(1, l), in32(2, l), in32(3, l), r == Round::kNone ? Round::kRn : r);
          break;
        case Opcode::kMin:
          res = fmin_ptx(in32(1, l), in32(2, l));
          if (in.nan && (std::isnan(in32(1, l)) || std::isnan(in32(2, l)))) res = NAN;
          break;
        case Opcode::kMax:
          res = fmax_ptx(in32(1, l), in32(2, l));
          if (in.nan && (std::isnan(in32(1, l)) || std::isnan(in32(2, l)))) res = NAN;
          break;
        case Opcode::kDiv:
          // div.approx / div.full: within 2 ulp by the ISA; we return the exact quotient.
          res = fp::div(in32(1, l), in32(2, l), in.approx ? Round::kRn : r);
          break;
        case Opcode::kAbs:
          res = std::fabs(in32(1, l));
          break;
        case Opcode::kNeg:
          res = -in32(1, l);
          break;
        case Opcode::kCopysign:
          res = std::copysign(in32(2, l), in32(1, l));
          break;
        default:
          break;
      }
      // abs/neg/copysign change only the sign bit, NaN payloads included.
      if (in.op == Opcode::kAbs || in.op == Opcode::kNeg || in.op == Opcode::kCopysign) {
        D(l, bits(ftz ? fp::flush(res) : res));
      } else {
        D(l, fin(res));
      }
    });
    if (in.op == Opcode::kDiv) cost = in.approx ? 2 : 8, sfu = 1;
    count_alu(in, cost, sfu);
    return true;
  }
  if (t == Type::kF64) {
    if (in.nan) return fail(in, ".NaN is not defined on f64 min/max");
    const Round r = in.round;
    std::uint32_t cost = 2, sfu = 0;
    for_lanes(m, [&](std::uint32_t l) {
      const double a = f64(A(1, l));
      double res = 0;
      switch (in.op) {
        case Opcode::kAdd:
          res = fp::add(a, f64(A(2, l)), r);
          break;
        case Opcode::kSub:
          res = fp::add(a, -f64(A(2, l)), r);
          break;
        case Opcode::kMul:
          res = fp::mul(a, f64(A(2, l)), r);
          break;
        case Opcode::kFma:
        case Opcode::kMad:
          res = fp::fma(a, f64(A(2, l)), f64(A(3, l)), r == Round::kNone ? Round::kRn : r);
          break;
        case Opcode::kMin:
          res = fmin_ptx(a, f64(A(2, l)));
          break;
        case Opcode::kMax:
          res = fmax_ptx(a, f64(A(2, l)));
          break;
        case Opcode::kDiv:
          res = fp::div(a, f64(A(2, l)), r);
          break;
        case Opcode::kAbs:
          D(l, A(1, l) & 0x7FFF'FFFF'FFFF'FFFFull);
          return;
        case Opcode::kNeg:
          D(l, A(1, l) ^ 0x8000'0000'0000'0000ull);
          return;
        case Opcode::kCopysign:
          res = std::copysign(f64(A(2, l)), a);
          D(l, bits(res));
          return;
        default:
          break;
      }
      if (std::isnan(res)) res = std::bit_cast<double>(fp::kCanonicalNanF64);
      D(l, bits(res));
    });
    if (in.op == Opcode::kDiv) cost = 20, sfu = 1;
    count_alu(in, cost, sfu);
    return true;
  }
  if (t == Type::kF16 || t == Type::kF16x2 || t == Type::kBF16 || t == Type::kBF16x2)
    return exec_half(in, m);
  if (is_float(t))
    return fail(
        in, fmt::format("arithmetic on .{} is not supported by this front end yet", type_name(t)));
  {
    std::string err;
    std::uint32_t cost = 1;
    const bool ok = with_int(t, [&](auto tag) {
      using T = decltype(tag);
      using U = std::make_unsigned_t<T>;
      for_lanes(m, [&](std::uint32_t l) {
        const T a = as<T>(A(1, l));
        switch (in.op) {
          case Opcode::kAdd:
            if (in.sat) {  // add.sat.s32: clamps
              const std::int64_t s = std::int64_t{static_cast<std::int32_t>(a)} +
                                     static_cast<std::int32_t>(as<T>(A(2, l)));
              D(l, out<std::int32_t>(static_cast<std::int32_t>(
                       std::clamp<std::int64_t>(s, INT32_MIN, INT32_MAX))));
            } else {
              D(l, out<T>(static_cast<T>(static_cast<U>(a) + static_cast<U>(as<T>(A(2, l))))));
            }
            break;
          case Opcode::kSub:
            if (in.sat) {
              const std::int64_t s = std::int64_t{static_cast<std::int32_t>(a)} -
                                     static_cast<std::int32_t>(as<T>(A(2, l)));
              D(l, out<std::int32_t>(static_cast<std::int32_t>(
                       std::clamp<std::int64_t>(s, INT32_MIN, INT32_MAX))));
            } else {
              D(l, out<T>(static_cast<T>(static_cast<U>(a) - static_cast<U>(as<T>(A(2, l))))));
            }
            break;
          case Opcode::kMul:
          case Opcode::kMad: {
            const T b = as<T>(A(2, l));
            const Wide<T> p = static_cast<Wide<T>>(a) * static_cast<Wide<T>>(b);
            std::uint64_t res = 0;
            if (in.mode == Mode::kLo) {
              res = out<T>(static_cast<T>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b))));
            } else if (in.mode == Mode::kHi) {
              res = out<T>(static_cast<T>(p >> (8 * sizeof(T))));
            } else {  // wide: a 2×-width result
              if constexpr (sizeof(T) <= 4) {
                res = static_cast<std::uint64_t>(p) & mask_of(2 * sizeof(T));
              } else {
                err = "mul.wide on 64-bit operands";
                return;
              }
            }
            if (in.op == Opcode::kMad) {
              const std::uint64_t c = A(3, l);
              if (in.mode == Mode::kWide) {
                res = (res + c) & mask_of(2 * sizeof(T));
              } else if (in.sat && in.mode == Mode::kHi) {  // mad.hi.sat.s32
                const std::int64_t s = static_cast<std::int64_t>(static_cast<std::int32_t>(res)) +
                                       static_cast<std::int32_t>(c);
                res = out<std::int32_t>(
                    static_cast<std::int32_t>(std::clamp<std::int64_t>(s, INT32_MIN, INT32_MAX)));
              } else {
                res = (res + c) & mask_of(sizeof(T));
              }
            }
            D(l, res);
            break;
          }
          case Opcode::kMin:
            D(l, out<T>(std::min(a, as<T>(A(2, l)))));
            break;
          case Opcode::kMax:
            D(l, out<T>(std::max(a, as<T>(A(2, l)))));
            break;
          case Opcode::kDiv:
          case Opcode::kRem: {
            const T b = as<T>(A(2, l));
            // Division by zero is unspecified by PTX; we return what sm_90 does (all ones for
            // the quotient, the dividend for the remainder) so runs are reproducible.
            if (b == 0) {
              D(l, in.op == Opcode::kDiv ? tm : out<T>(a));
            } else if (std::is_signed_v<T> && b == T(-1)) {
              D(l, in.op == Opcode::kDiv ? out<T>(static_cast<T>(U{0} - static_cast<U>(a))) : 0);
            } else {
              D(l, out<T>(in.op == Opcode::kDiv ? static_cast<T>(a / b) : static_cast<T>(a % b)));
            }
            break;
          }
          case Opcode::kAbs:
            D(l, out<T>(a < 0 ? static_cast<T>(U{0} - static_cast<U>(a)) : a));
            break;
          case Opcode::kNeg:
            D(l, out<T>(static_cast<T>(U{0} - static_cast<U>(a))));
            break;
          default:
            err = "this instruction on integers";
            return;
        }
      });
    });
    if (!ok || !err.empty())
      return fail(in,
                  fmt::format("unsupported: {} on .{}", err.empty() ? "type" : err, type_name(t)));
    if (in.op == Opcode::kDiv || in.op == Opcode::kRem) cost = tb == 8 ? 40 : 20;
    count_alu(in, cost);
    return true;
  }

not_arith:
  switch (in.op) {
    case Opcode::kAnd:
    case Opcode::kOr:
    case Opcode::kXor:
      for_lanes(m, [&](std::uint32_t l) {
        const std::uint64_t a = A(1, l), b = A(2, l);
        const std::uint64_t v = in.op == Opcode::kAnd  ? a & b
                                : in.op == Opcode::kOr ? a | b
                                                       : a ^ b;
        D(l, t == Type::kPred ? (v & 1) : v & tm);
      });
      count_alu(in, 1);
      return true;
    case Opcode::kNot:
      for_lanes(
          m, [&](std::uint32_t l) { D(l, t == Type::kPred ? (A(1, l) & 1) ^ 1 : ~A(1, l) & tm); });
      count_alu(in, 1);
      return true;
    case Opcode::kCnot:
      for_lanes(m, [&](std::uint32_t l) { D(l, (A(1, l) & tm) == 0 ? 1 : 0); });
      count_alu(in, 1);
      return true;
    case Opcode::kShl:
    case Opcode::kShr:
      for_lanes(m, [&](std::uint32_t l) {
        const std::uint64_t a = A(1, l) & tm;
        const std::uint32_t s = static_cast<std::uint32_t>(A(2, l) & 0xFFFF'FFFFu);  // u32 amount
        const std::uint32_t w = 8 * tb;
        std::uint64_t v = 0;
        if (in.op == Opcode::kShl) {
          v = s >= w ? 0 : (a << s) & tm;
        } else if (is_signed(t)) {  // arithmetic shift: clamps to the sign
          const std::int64_t sa = sext(a, tb);
          v = static_cast<std::uint64_t>(sa >> std::min<std::uint32_t>(s, 63)) & tm;
        } else {
          v = s >= w ? 0 : a >> s;
        }
        D(l, v);
      });
      count_alu(in, 1);
      return true;
    case Opcode::kPopc:
      for_lanes(m, [&](std::uint32_t l) {
        D(l, static_cast<std::uint64_t>(std::popcount(A(1, l) & tm)));
      });
      count_alu(in, 1);
      return true;
    case Opcode::kClz:
      for_lanes(m, [&](std::uint32_t l) {
        const std::uint64_t a = A(1, l) & tm;
        D(l, static_cast<std::uint64_t>(std::countl_zero(a) - (64 - 8 * tb)));
      });
      count_alu(in, 1);
      return true;
    case Opcode::kBrev:
      for_lanes(m, [&](std::uint32_t l) {
        std::uint64_t a = A(1, l) & tm, r = 0;
        for (std::uint32_t k = 0; k < 8 * tb; ++k)
          r |= ((a >> k) & 1) << (8 * tb - 1 - k);
        D(l, r);
      });
      count_alu(in, 1);
      return true;
    case Opcode::kBfind:
      // The bit position of the most significant non-sign bit; 0xFFFFFFFF when none.
      for_lanes(m, [&](std::uint32_t l) {
        std::uint64_t a = A(1, l) & tm;
        if (is_signed(t) && sext(a, tb) < 0) a = ~a & tm;
        std::uint64_t r = 0xFFFF'FFFFu;
        if (a != 0) {
          const auto msb = static_cast<std::uint32_t>(63 - std::countl_zero(a));
          r = in.mode == Mode::kShiftAmt ? 8 * tb - 1 - msb : msb;
        }
        D(l, r);
      });
      count_alu(in, 1);
      return true;
    case Opcode::kBfe:
      // bfe: pos and len from the low 8 bits; signed fills with the field's (or the source's
      // sign bit when the field is past it) sign.
      for_lanes(m, [&](std::uint32_t l) {
        const std::uint64_t a = A(1, l) & tm;
        const std::uint32_t pos = static_cast<std::uint32_t>(A(2, l) & 0xFF);
        const std::uint32_t len = static_cast<std::uint32_t>(A(3, l) & 0xFF);
        const std::uint32_t w = 8 * tb;
        std::uint64_t r = 0;
        bool sbit = false;
        if (is_signed(t)) {
          sbit = len == 0 ? false : ((a >> std::min(pos + len - 1, w - 1)) & 1) != 0;
        }
        for (std::uint32_t i = 0; i < w; ++i) {
          const bool bit = i < len && pos + i < w ? ((a >> (pos + i)) & 1) != 0 : sbit;
          if (bit) r |= std::uint64_t{1} << i;
        }
        D(l, r);
      });
      count_alu(in, 1);
      return true;
    case Opcode::kBfi:
      for_lanes(m, [&](std::uint32_t l) {
        const std::uint64_t a = A(1, l), b = A(2, l) & tm;
        const std::uint32_t pos = static_cast<std::uint32_t>(A(3, l) & 0xFF);
        const std::uint32_t len = static_cast<std::uint32_t>(A(4, l) & 0xFF);
        const std::uint32_t w = 8 * tb;
        std::uint64_t r = b;
        for (std::uint32_t i = 0; i < len && pos + i < w; ++i) {
          const std::uint64_t bit = std::uint64_t{1} << (pos + i);
          r = ((a >> i) & 1) != 0 ? r | bit : r & ~bit;
        }
        D(l, r);
      });
      count_alu(in, 1);
      return true;
    case Opcode::kPrmt:
      for_lanes(m, [&](std::uint32_t l) {
        const std::uint64_t a = A(1, l) & 0xFFFF'FFFFu, b = A(2, l) & 0xFFFF'FFFFu;
        const std::uint32_t c = static_cast<std::uint32_t>(A(3, l));
        const std::uint64_t src = a | (b << 32);  // bytes 0-7
        auto byte = [&](std::uint32_t i) {
          return static_cast<std::uint32_t>((src >> (8 * (i & 7))) & 0xFF);
        };
        std::uint32_t r = 0;
        if (in.mode == Mode::kNone) {
          for (std::uint32_t k = 0; k < 4; ++k) {
            const std::uint32_t sel = (c >> (4 * k)) & 0xF;
            std::uint32_t v = byte(sel & 7);
            if ((sel & 8) != 0) v = (v & 0x80) != 0 ? 0xFF : 0;  // replicate the sign
            r |= v << (8 * k);
          }
        } else {
          const std::uint32_t s = c & 3;
          std::uint32_t idx[4] = {0, 1, 2, 3};
          switch (in.mode) {
            case Mode::kPrmtF4e:
              for (std::uint32_t k = 0; k < 4; ++k)
                idx[k] = (s + k) & 7;
              break;
            case Mode::kPrmtB4e:
              for (std::uint32_t k = 0; k < 4; ++k)
                idx[k] = (s + 8 - k) & 7;
              break;
            case Mode::kPrmtRc8:
              for (auto& k : idx)
                k = s;
              break;
            case Mode::kPrmtEcl: {
              const std::uint32_t e[4][4] = {
                  {0, 1, 2, 3}, {1, 1, 2, 3}, {2, 2, 2, 3}, {3, 3, 3, 3}};
              for (int k = 0; k < 4; ++k)
                idx[k] = e[s][k];
              break;
            }
            case Mode::kPrmtEcr: {
              const std::uint32_t e[4][4] = {
                  {0, 0, 0, 0}, {0, 1, 1, 1}, {0, 1, 2, 2}, {0, 1, 2, 3}};
              for (int k = 0; k < 4; ++k)
                idx[k] = e[s][k];
              break;
            }
            case Mode::kPrmtRc16: {
              const std::uint32_t e[2][4] = {{0, 1, 0, 1}, {2, 3, 2, 3}};
              for (int k = 0; k < 4; ++k)
                idx[k] = e[s & 1][k];
              break;
            }
            default:
              break;
          }
          for (std::uint32_t k = 0; k < 4; ++k)
            r |= byte(idx[k]) << (8 * k);
        }
        D(l, r);
      });
      count_alu(in, 1);
      return true;
    case Opcode::kShf:
      for_lanes(m, [&](std::uint32_t l) {
        const std::uint64_t a = A(1, l) & 0xFFFF'FFFFu, b = A(2, l) & 0xFFFF'FFFFu;
        std::uint32_t n = static_cast<std::uint32_t>(A(3, l));
        n = in.mode2 == Mode::kClamp ? std::min(n, 32u) : n & 31;
        const std::uint64_t both = (b << 32) | a;
        const std::uint64_t r = in.mode == Mode::kL ? (both << n) >> 32 : both >> n;
        D(l, r & 0xFFFF'FFFFu);
      });
      count_alu(in, 1);
      return true;
    case Opcode::kLop3:
      for_lanes(m, [&](std::uint32_t l) {
        const std::uint64_t a = A(1, l), b = A(2, l), c = A(3, l);
        const std::uint32_t lut = static_cast<std::uint32_t>(A(4, l)) & 0xFF;
        std::uint64_t r = 0;
        for (std::uint32_t k = 0; k < 8; ++k) {
          if (((lut >> k) & 1) == 0) continue;
          r |= ((k & 4) != 0 ? a : ~a) & ((k & 2) != 0 ? b : ~b) & ((k & 1) != 0 ? c : ~c);
        }
        D(l, r & tm);
      });
      count_alu(in, 1);
      return true;
    case Opcode::kMul24:
    case Opcode::kMad24:
      for_lanes(m, [&](std::uint32_t l) {
        const std::int64_t a =
            is_signed(t) ? sext(A(1, l), 3) : static_cast<std::int64_t>(A(1, l) & 0xFFFFFF);
        const std::int64_t b =
            is_signed(t) ? sext(A(2, l), 3) : static_cast<std::int64_t>(A(2, l) & 0xFFFFFF);
        const std::uint64_t p = static_cast<std::uint64_t>(a * b);
        std::uint64_t r = in.mode == Mode::kHi ? (p >> 16) : p;
        if (in.op == Opcode::kMad24) r += A(3, l);
        D(l, r & 0xFFFF'FFFFu);
      });
      count_alu(in, 1);
      return true;
    case Opcode::kSad:
      for_lanes(m, [&](std::uint32_t l) {
        std::uint64_t d = 0;
        if (is_signed(t)) {
          const std::int64_t a = sext(A(1, l), tb), b = sext(A(2, l), tb);
          d = static_cast<std::uint64_t>(a > b ? a - b : b - a);
        } else {
          const std::uint64_t a = A(1, l) & tm, b = A(2, l) & tm;
          d = a > b ? a - b : b - a;
        }
        D(l, (d + A(3, l)) & tm);
      });
      count_alu(in, 1);
      return true;
    case Opcode::kDp4a:
    case Opcode::kDp2a:
      if (in.op == Opcode::kDp2a) return fail(in, "dp2a is not supported by this front end yet");
      for_lanes(m, [&](std::uint32_t l) {
        const std::uint64_t a = A(1, l), b = A(2, l);
        std::int64_t acc = is_signed(t) ? static_cast<std::int32_t>(A(3, l))
                                        : static_cast<std::int64_t>(A(3, l) & 0xFFFF'FFFFu);
        for (std::uint32_t k = 0; k < 4; ++k) {
          const std::int64_t x = is_signed(in.type)
                                     ? sext(a >> (8 * k), 1)
                                     : static_cast<std::int64_t>((a >> (8 * k)) & 0xFF);
          const std::int64_t y = is_signed(in.stype)
                                     ? sext(b >> (8 * k), 1)
                                     : static_cast<std::int64_t>((b >> (8 * k)) & 0xFF);
          acc += x * y;
        }
        D(l, static_cast<std::uint64_t>(acc) & 0xFFFF'FFFFu);
      });
      count_alu(in, 1);
      return true;
    case Opcode::kRcp:
    case Opcode::kSqrt:
    case Opcode::kRsqrt:
    case Opcode::kSin:
    case Opcode::kCos:
    case Opcode::kLg2:
    case Opcode::kEx2:
    case Opcode::kTanh: {
      // The .approx forms return the correctly rounded value of the function (within every
      // bound the ISA states); the IEEE forms (.rn ...) are exact. docs/ptx.md.
      const bool approx = in.approx || in.op == Opcode::kSin || in.op == Opcode::kCos ||
                          in.op == Opcode::kLg2 || in.op == Opcode::kEx2 ||
                          in.op == Opcode::kTanh || in.op == Opcode::kRsqrt;
      if (t == Type::kF32) {
        for_lanes(m, [&](std::uint32_t l) {
          float a = f32(A(1, l));
          if (in.ftz) a = fp::flush(a);
          float r = 0;
          switch (in.op) {
            case Opcode::kRcp:
              r = fp::div(1.0f, a, approx ? Round::kRn : in.round);
              break;
            case Opcode::kSqrt:
              r = fp::sqrt(a, approx ? Round::kRn : in.round);
              break;
            case Opcode::kRsqrt:
              r = static_cast<float>(1.0 / std::sqrt(static_cast<double>(a)));
              break;
            case Opcode::kSin:
              r = static_cast<float>(std::sin(static_cast<double>(a)));
              break;
            case Opcode::kCos:
              r = static_cast<float>(std::cos(static_cast<double>(a)));
              break;
            case Opcode::kLg2:
              r = static_cast<float>(std::log2(static_cast<double>(a)));
              break;
            case Opcode::kEx2:
              r = static_cast<float>(std::exp2(static_cast<double>(a)));
              break;
            case Opcode::kTanh:
              r = static_cast<float>(std::tanh(static_cast<double>(a)));
              break;
            default:
              break;
          }
          if (in.ftz) r = fp::flush(r);
          if (std::isnan(r)) r = std::bit_cast<float>(fp::kCanonicalNanF32);
          D(l, bits(r));
        });
      } else if (t == Type::kF64) {
        for_lanes(m, [&](std::uint32_t l) {
          const double a = f64(A(1, l));
          double r = 0;
          switch (in.op) {
            case Opcode::kRcp:
              r = fp::div(1.0, a, approx ? Round::kRn : in.round);
              break;
            case Opcode::kSqrt:
              r = fp::sqrt(a, approx ? Round::kRn : in.round);
              break;
            case Opcode::kRsqrt:
              r = 1.0 / std::sqrt(a);
              break;
            default:
              r = std::nan("");
              break;
          }
          if (std::isnan(r)) r = std::bit_cast<double>(fp::kCanonicalNanF64);
          D(l, bits(r));
        });
      } else {
        return fail(in, fmt::format("{} on .{} is not supported", "this function", type_name(t)));
      }
      if (approx) {
        count_alu(in, 1, 1);
      } else {
        count_alu(in, t == Type::kF64 ? 20 : 8, 1);
      }
      return true;
    }
    case Opcode::kSetp:
    case Opcode::kSet: {
      const Type ct = in.op == Opcode::kSetp ? t : in.stype;
      if (ct == Type::kF16x2 || ct == Type::kBF16x2) return exec_compare_x2(in, m);
      const Operand& d0 = operand(in, 0);
      const bool two = d0.kind == Operand::Kind::kVector;  // setp p|q
      const std::uint32_t src = 1;
      for_lanes(m, [&](std::uint32_t l) {
        bool r = false;
        const std::uint64_t a = A(src, l), b = A(src + 1, l);
        if (ct == Type::kF32) {
          float x = f32(a), y = f32(b);
          if (in.ftz) x = fp::flush(x), y = fp::flush(y);
          r = fp::compare(in.cmp, x, y);
        } else if (ct == Type::kF64) {
          r = fp::compare(in.cmp, f64(a), f64(b));
        } else if (ct == Type::kF16 || ct == Type::kBF16) {
          // .ftz (f16): subnormal halves compare as zeros of their sign.
          const auto h = [&](std::uint64_t v) {
            const double x = read_float(ct, v);
            return in.ftz && ct == Type::kF16 && (v & 0x7C00) == 0 ? std::copysign(0.0, x) : x;
          };
          r = fp::compare(in.cmp, h(a), h(b));
        } else {
          with_int(ct, [&](auto tag) {
            using T = decltype(tag);
            r = compare_int<T>(in.cmp, as<T>(a), as<T>(b));
          });
        }
        bool q = !r;
        if (in.bool_op != BoolOp::kNone) {
          const Operand& c = operand(in, src + 2);
          bool cv = (read(c, l) & 1) != 0;
          if (c.negate) cv = !cv;
          const auto combine = [&](bool x) {
            return in.bool_op == BoolOp::kAnd  ? x && cv
                   : in.bool_op == BoolOp::kOr ? x || cv
                                               : x != cv;
          };
          q = combine(!r);
          r = combine(r);
        }
        if (in.op == Opcode::kSetp) {
          if (two) {
            write(member(d0, 0), l, r ? 1 : 0);
            write(member(d0, 1), l, q ? 1 : 0);
          } else {
            D(l, r ? 1 : 0);
          }
        } else {
          // set: all ones (integer) or 1.0f (f32) when true.
          D(l,
            in.type == Type::kF32 ? (r ? bits(1.0f) : 0) : (r ? mask_of(type_bytes(in.type)) : 0));
        }
      });
      count_alu(in, 1);
      return true;
    }
    case Opcode::kTestp:
      for_lanes(m, [&](std::uint32_t l) {
        const double v = in.type == Type::kF32 ? static_cast<double>(f32(A(1, l))) : f64(A(1, l));
        // The class of the operand's own format: a subnormal f32 is normal as a double.
        const int c = in.type == Type::kF32 ? std::fpclassify(f32(A(1, l))) : std::fpclassify(v);
        bool r = false;
        switch (in.mode) {
          case Mode::kFinite:
            r = std::isfinite(v);
            break;
          case Mode::kInfinite:
            r = std::isinf(v);
            break;
          case Mode::kNumber:
            r = !std::isnan(v);
            break;
          case Mode::kNotANumber:
            r = std::isnan(v);
            break;
          case Mode::kNormal:
            r = c == FP_NORMAL;
            break;
          case Mode::kSubnormal:
            r = c == FP_SUBNORMAL;
            break;
          default:
            break;
        }
        D(l, r ? 1 : 0);
      });
      count_alu(in, 1);
      return true;
    case Opcode::kSelp:
      for_lanes(m, [&](std::uint32_t l) {
        const Operand& c = operand(in, 3);
        bool p = (read(c, l) & 1) != 0;
        if (c.negate) p = !p;
        D(l, p ? A(1, l) : A(2, l));
      });
      count_alu(in, 1);
      return true;
    case Opcode::kSlct:
      for_lanes(m, [&](std::uint32_t l) {
        const std::uint64_t c = A(3, l);
        const bool ge = in.stype == Type::kF32 ? f32(c) >= 0.0f : static_cast<std::int32_t>(c) >= 0;
        D(l, ge ? A(1, l) : A(2, l));
      });
      count_alu(in, 1);
      return true;
    case Opcode::kMov: {
      const Operand& d0 = operand(in, 0);
      const Operand& s0 = operand(in, 1);
      if (s0.kind == Operand::Kind::kSpecial &&
          (s0.special == Special::kClock || s0.special == Special::kClock64 ||
           s0.special == Special::kGlobaltimer)) {
        // Timed: the SM cycle (or the simulated time in ns) at issue.
        op_ = kernel::Op{.kind = s0.special == Special::kGlobaltimer ? kernel::OpKind::kGlobalTimer
                                                                     : kernel::OpKind::kClock,
                         .mask = m,
                         .value = &clock_value_};
        op_in_ = &in;
        op_mask_ = m;
        return false;
      }
      if (d0.kind == Operand::Kind::kVector) {  // mov.b64 {lo, hi}, %rd: unpack
        const std::uint32_t n = d0.count, w = 64 / std::max<std::uint32_t>(n, 1);
        for_lanes(m, [&](std::uint32_t l) {
          const std::uint64_t v = A(1, l);
          for (std::uint32_t k = 0; k < n; ++k)
            write(member(d0, k), l, (v >> (w * k)) & mask_of(w / 8));
        });
      } else if (s0.kind == Operand::Kind::kVector) {  // mov.b64 %rd, {lo, hi}: pack
        const std::uint32_t n = s0.count, w = 8 * tb / std::max<std::uint32_t>(n, 1);
        for_lanes(m, [&](std::uint32_t l) {
          std::uint64_t v = 0;
          for (std::uint32_t k = 0; k < n; ++k)
            v |= (read(member(s0, k), l) & mask_of(w / 8)) << (w * k);
          D(l, v);
        });
      } else {
        for_lanes(m, [&](std::uint32_t l) { D(l, A(1, l) & (t == Type::kPred ? 1 : tm)); });
      }
      count_alu(in, 1);
      return true;
    }
    case Opcode::kCvt: {
      if (in.type == Type::kF16x2 || in.type == Type::kBF16x2) return exec_cvt_pack(in, m);
      std::string err;
      bool ok = true;
      for_lanes(m, [&](std::uint32_t l) {
        std::uint64_t v = 0;
        if (!convert(in, A(1, l), v, err)) {
          ok = false;
          return;
        }
        D(l, v);
      });
      if (!ok)
        return fail(in, fmt::format("cvt.{}.{}: {} is not supported", type_name(in.type),
                                    type_name(in.stype), err));
      count_alu(in, 1);
      return true;
    }
    case Opcode::kCvta: {
      // cvta.SPACE: a SPACE address → generic; cvta.to.SPACE: generic → SPACE.
      const bool to = in.mode == Mode::kLo;
      std::uint64_t window = 0;
      if (in.space == Space::kShared || in.space == Space::kSharedCluster) window = kSharedWindow;
      if (in.space == Space::kLocal) window = kLocalWindow;
      if (in.space == Space::kParam) {
        // A kernel parameter's generic address: where the launch's kernarg segment holds it.
        if (!frame().fn->is_entry)
          return fail(in, "cvta.param of a device function's parameter is not supported");
        window = warp_.args().segment_address();
        if (window == 0)
          return fail(in,
                      "cvta.param: the kernel's parameters have no device address (launch it "
                      "through the command processor)");
      }
      // cvta.const: a .const variable's address is a global one already (window 0).
      for_lanes(m, [&](std::uint32_t l) {
        const std::uint64_t a = A(1, l);
        D(l, (to ? a - window : a + window) & tm);
      });
      count_alu(in, 1);
      return true;
    }
    case Opcode::kFns:
      for_lanes(m, [&](std::uint32_t l) {
        // fns.b32 d, mask, base, offset: the n-th set bit of mask from base.
        const std::uint32_t mask = static_cast<std::uint32_t>(A(1, l));
        const std::uint32_t base = static_cast<std::uint32_t>(A(2, l)) & 31;
        const std::int32_t off = static_cast<std::int32_t>(A(3, l));
        std::uint32_t r = 0xFFFF'FFFFu;
        if (off == 0) {
          r = base;  // PTX: offset 0 returns base
        } else if (off > 0) {
          std::int32_t n = off;
          for (std::uint32_t b = base; b < 32; ++b)
            if (((mask >> b) & 1) != 0 && --n == 0) {
              r = b;
              break;
            }
        } else {
          std::int32_t n = -off;
          for (std::int32_t b = static_cast<std::int32_t>(base); b >= 0; --b)
            if (((mask >> b) & 1) != 0 && --n == 0) {
              r = static_cast<std::uint32_t>(b);
              break;
            }
        }
        D(l, r);
      });
      count_alu(in, 1);
      return true;
    default:
      return exec_warp_level(in, m);
  }
}

}  // namespace xpusim::ptx
