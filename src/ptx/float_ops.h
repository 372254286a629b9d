// Bit-exact floating-point helpers for the PTX interpreter: IEEE rounding modes the host
// does not switch cheaply (PTX .rz/.rm/.rp), half/bfloat16 conversions, subnormal flushing.
// Directed rounding is derived from the round-to-nearest result and the sign of the exact
// error (error-free transformations), so no host rounding mode is ever changed.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "ptx/module.h"

namespace xpusim::ptx::fp {

// Rounds the nearest-even result `r` to mode `m` given the sign of (exact - r): -1, 0 or +1.
template <class F>
F directed(F r, int err_sign, Round m) {
  if (err_sign == 0 || std::isnan(r) || std::isinf(r)) {
    if (!std::isinf(r) || err_sign == 0) return r;
    // An overflow to infinity under rz / toward the other infinity gives the largest finite.
    const F big = std::numeric_limits<F>::max();
    if (m == Round::kRz) return r > 0 ? big : -big;
    if (m == Round::kRm && r > 0) return big;
    if (m == Round::kRp && r < 0) return -big;
    return r;
  }
  switch (m) {
    case Round::kRz:
      if ((r > 0 && err_sign < 0) || (r < 0 && err_sign > 0)) return std::nextafter(r, F{0});
      if (r == 0) return r;
      return r;
    case Round::kRm:
      return err_sign < 0 ? std::nextafter(r, -std::numeric_limits<F>::infinity()) : r;
    case Round::kRp:
      return err_sign > 0 ? std::nextafter(r, std::numeric_limits<F>::infinity()) : r;
    default:
      return r;
  }
}

template <class F>
int sign_of(F v) {
  return v > 0 ? 1 : v < 0 ? -1 : 0;
}

template <class F>
F add(F a, F b, Round m) {
  const F s = a + b;
  if (m == Round::kRn || m == Round::kNone || !std::isfinite(s)) {
    if (std::isinf(s) && std::isfinite(a) && std::isfinite(b) && m != Round::kRn &&
        m != Round::kNone)
      return directed(s, s > 0 ? 1 : -1, m);
    return s;
  }
  // TwoSum: s + e == a + b exactly.
  const F bb = s - a;
  const F e = (a - (s - bb)) + (b - bb);
  F r = directed(s, sign_of(e), m);
  if (r == 0 && e == 0 && m == Round::kRm && (std::signbit(a) || std::signbit(b))) r = -F{0};
  return r;
}

template <class F>
F mul(F a, F b, Round m) {
  const F p = a * b;
  if (m == Round::kRn || m == Round::kNone || !std::isfinite(p)) {
    if (std::isinf(p) && std::isfinite(a) && std::isfinite(b) && m != Round::kRn &&
        m != Round::kNone)
      return directed(p, p > 0 ? 1 : -1, m);
    return p;
  }
  const F e = std::fma(a, b, -p);  // exact unless p is subnormal-tiny
  return directed(p, sign_of(e), m);
}

template <class F>
F fma(F a, F b, F c, Round m) {
  const F r = std::fma(a, b, c);
  if (m == Round::kRn || m == Round::kNone || !std::isfinite(r)) return r;
  if constexpr (sizeof(F) == 4) {
    // a*b is exact in double; the residual's sign from a double TwoSum.
    const double p = static_cast<double>(a) * b;
    const double s = p + c;
    const double bb = s - p;
    const double e = (p - (s - bb)) + (static_cast<double>(c) - bb);
    const double d = s - static_cast<double>(r);
    const int sg = d != 0 ? sign_of(d) : sign_of(e);
    return directed(r, sg, m);
  } else {
    // f64: the residual a*b + c - r in long double (64-bit mantissa on x86-64) gives its sign
    // whenever it is not smaller than 2^-11 ulp of r.
    const long double d = static_cast<long double>(a) * b + c - r;
    return directed(r, sign_of(d), m);
  }
}

template <class F>
F div(F a, F b, Round m) {
  const F q = a / b;
  if (m == Round::kRn || m == Round::kNone || !std::isfinite(q) || q == 0) return q;
  const F rem = std::fma(-q, b, a);  // a - q*b exactly
  return directed(q, sign_of(rem) * sign_of(b), m);
}

template <class F>
F sqrt(F a, Round m) {
  const F s = std::sqrt(a);
  if (m == Round::kRn || m == Round::kNone || !std::isfinite(s) || s == 0) return s;
  const F rem = std::fma(-s, s, a);
  return directed(s, sign_of(rem), m);
}

// f32 subnormals flushed to sign-preserving zero (.ftz).
inline float flush(float v) {
  return std::fpclassify(v) == FP_SUBNORMAL ? std::copysign(0.0f, v) : v;
}

// PTX's canonical NaN results.
inline constexpr std::uint32_t kCanonicalNanF32 = 0x7FFF'FFFFu;
inline constexpr std::uint64_t kCanonicalNanF64 = 0x7FFF'FFFF'FFFF'FFFFull;
inline constexpr std::uint16_t kCanonicalNanF16 = 0x7FFF;

// f64 → f32 under mode m.
inline float narrow(double v, Round m) {
  const float r = static_cast<float>(v);
  if (m == Round::kRn || m == Round::kNone || std::isnan(v)) return r;
  if (std::isinf(r) && !std::isinf(v)) return directed(r, v > 0 ? 1 : -1, m);
  const double d = v - static_cast<double>(r);
  return directed(r, sign_of(d), m);
}

// A value exactly in long double (every 64-bit integer) → F under mode m.
template <class F>
F from_exact(long double v, Round m) {
  const F r = static_cast<F>(v);
  if (m == Round::kRn || m == Round::kNone) return r;
  const long double d = v - static_cast<long double>(r);
  return directed(r, d > 0 ? 1 : d < 0 ? -1 : 0, m);
}

// Round a float to an integral value (cvt .rni/.rzi/.rmi/.rpi between float types).
template <class F>
F integral(F v, Round m) {
  switch (m) {
    case Round::kRni:
      return std::nearbyint(v);  // the host's default mode is round-to-nearest-even
    case Round::kRzi:
      return std::trunc(v);
    case Round::kRmi:
      return std::floor(v);
    case Round::kRpi:
      return std::ceil(v);
    default:
      return v;
  }
}

// f32 → IEEE half (binary16) bits under mode m (.rn / .rz / .rm / .rp); NaN → canonical.
inline std::uint16_t f32_to_f16(float f, Round m) {
  const std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  const std::uint16_t sign = static_cast<std::uint16_t>((x >> 16) & 0x8000u);
  if (std::isnan(f)) return kCanonicalNanF16;
  const bool neg = sign != 0;
  const double a = std::fabs(static_cast<double>(f));
  // Rounding increments away from zero when the mode says so.
  auto round_up = [&](double frac, bool odd) {
    switch (m) {
      case Round::kRz:
        return false;
      case Round::kRm:
        return neg && frac > 0;
      case Round::kRp:
        return !neg && frac > 0;
      default:
        return frac > 0.5 || (frac == 0.5 && odd);
    }
  };
  if (std::isinf(f) || a >= 65520.0 * 2) {
    if (std::isinf(f)) return static_cast<std::uint16_t>(sign | 0x7C00u);
  }
  // Scale to the half grid: subnormal step 2^-24, normal step 2^(e-10).
  int e = 0;
  (void)std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1)
  int exp = e - 1;          // a in [2^exp, 2^(exp+1))
  if (a == 0) return sign;
  if (exp < -14) exp = -14;  // subnormal range: step 2^-24
  const double step = std::ldexp(1.0, exp - 10);
  const double q = a / step;  // exact: a has 24 bits, step a power of two
  double whole = std::floor(q);
  const double frac = q - whole;
  if (round_up(frac, std::fmod(whole, 2.0) != 0)) whole += 1;
  const double v = whole * step;
  if (v >= 65536.0) {  // overflow
    const bool to_inf = m == Round::kRn || m == Round::kNone || (m == Round::kRp && !neg) ||
                        (m == Round::kRm && neg);
    return static_cast<std::uint16_t>(sign | (to_inf ? 0x7C00u : 0x7BFFu));
  }
  if (v == 0) return sign;
  int ve = 0;
  (void)std::frexp(v, &ve);
  const int vexp = ve - 1;
  if (vexp < -14) {  // subnormal
    return static_cast<std::uint16_t>(sign | static_cast<std::uint16_t>(v / std::ldexp(1.0, -24)));
  }
  const auto mant = static_cast<std::uint32_t>(v / std::ldexp(1.0, vexp - 10)) - 1024u;
  return static_cast<std::uint16_t>(sign | static_cast<std::uint32_t>((vexp + 15) << 10) | mant);
}

inline float f16_to_f32(std::uint16_t h) {
  const std::uint32_t sign = (h & 0x8000u) << 16;
  const std::uint32_t exp = (h >> 10) & 0x1Fu;
  const std::uint32_t mant = h & 0x3FFu;
  if (exp == 0x1F) return std::bit_cast<float>(sign | 0x7F80'0000u | (mant << 13));
  if (exp == 0) {
    const float v = std::ldexp(static_cast<float>(mant), -24);
    return sign != 0 ? -v : v;
  }
  return std::bit_cast<float>(sign | ((exp + 112) << 23) | (mant << 13));
}

// f32 → bfloat16 bits under mode m; NaN → canonical 0x7FFF.
inline std::uint16_t f32_to_bf16(float f, Round m) {
  if (std::isnan(f)) return 0x7FFF;
  const std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  const bool neg = (x >> 31) != 0;
  const std::uint32_t lower = x & 0xFFFFu;
  std::uint32_t upper = x >> 16;
  bool up = false;
  switch (m) {
    case Round::kRz:
      break;
    case Round::kRm:
      up = neg && lower != 0;
      break;
    case Round::kRp:
      up = !neg && lower != 0;
      break;
    default:
      up = lower > 0x8000u || (lower == 0x8000u && (upper & 1u) != 0);
  }
  if (up) ++upper;  // carries into the exponent; 0x7F7F.. + 1 → infinity as IEEE says
  // Directed modes never round a finite value to infinity.
  if ((upper & 0x7FFFu) == 0x7F80u && (x & 0x7FFF'FFFFu) != 0x7F80'0000u &&
      (m == Round::kRz || (m == Round::kRm && !neg) || (m == Round::kRp && neg)))
    --upper;
  return static_cast<std::uint16_t>(upper);
}

inline float bf16_to_f32(std::uint16_t b) {
  return std::bit_cast<float>(std::uint32_t{b} << 16);
}

// A 16-bit float format: f16 (10 fraction bits, 5 exponent bits) or bf16 (7, 8).
struct Half16 {
  int frac_bits, bias;
};
inline constexpr Half16 kF16Format{10, 15};
inline constexpr Half16 kBF16Format{7, 127};

inline double half16_to_double(std::uint16_t h, Half16 f) {
  return f.frac_bits == 10 ? static_cast<double>(f16_to_f32(h)) : bf16_to_f32(h);
}

// Rounds v + t to format f under mode m, where t is a residual far below one ulp of v in
// double (from an error-free transformation) whose sign is err_sign: one correct rounding of
// the exact value, whatever v's magnitude (f16/bf16 arithmetic computes in double first).
inline std::uint16_t round_half16(double v, int err_sign, Half16 f, Round m) {
  const int exp_bits = f.frac_bits == 10 ? 5 : 8;
  const std::uint32_t inf_bits = ((1u << exp_bits) - 1) << f.frac_bits;
  if (std::isnan(v)) return kCanonicalNanF16;
  const bool neg = std::signbit(v);
  const std::uint16_t sign = neg ? 0x8000 : 0;
  if (std::isinf(v)) return static_cast<std::uint16_t>(sign | inf_bits);
  const double a = std::fabs(v);
  if (a == 0) return sign;  // a zero sum or product has no residual
  // The residual's sign relative to the magnitude.
  const int mag_err = neg ? -err_sign : err_sign;
  int e = 0;
  (void)std::frexp(a, &e);
  const int emin = 1 - f.bias;
  int exp = a == 0 ? emin : std::max(e - 1, emin);
  double step = std::ldexp(1.0, exp - f.frac_bits);
  const double q = a / step;  // exact: a power-of-two scaling
  double whole = std::floor(q);
  const double frac = q - whole;
  // Where the exact remainder lies: 0 none, 1 below half, 2 half, 3 above half.
  int rem = 0;
  if (frac == 0) {
    if (mag_err > 0) rem = 1;
    if (mag_err < 0) {
      // Just below a grid point; at a binade's bottom the grid below is twice as fine.
      if (whole == std::ldexp(1.0, f.frac_bits) && exp > emin) {
        step /= 2;
        whole = 2 * whole;
      }
      whole -= 1;
      rem = 3;
    }
  } else if (frac == 0.5) {
    rem = mag_err > 0 ? 3 : mag_err < 0 ? 1 : 2;
  } else {
    rem = frac < 0.5 ? 1 : 3;
  }
  bool up = false;
  switch (m) {
    case Round::kRz:
      break;
    case Round::kRm:
      up = neg && rem != 0;
      break;
    case Round::kRp:
      up = !neg && rem != 0;
      break;
    default:
      up = rem == 3 || (rem == 2 && std::fmod(whole, 2.0) != 0);
  }
  if (up) whole += 1;
  const double r = whole * step;
  const double max_finite =
      std::ldexp(2.0 - std::ldexp(1.0, -f.frac_bits), (1 << exp_bits) - 2 - f.bias);
  if (r > max_finite) {
    const bool to_inf = m == Round::kRn || m == Round::kNone || (m == Round::kRp && !neg) ||
                        (m == Round::kRm && neg);
    return static_cast<std::uint16_t>(sign | (to_inf ? inf_bits : inf_bits - 1));
  }
  if (r == 0) return sign;
  int re = 0;
  (void)std::frexp(r, &re);
  const int rexp = re - 1;
  if (rexp < emin)  // subnormal: the fraction alone, in units of the smallest step
    return static_cast<std::uint16_t>(
        sign | static_cast<std::uint32_t>(r / std::ldexp(1.0, emin - f.frac_bits)));
  const auto mant =
      static_cast<std::uint32_t>(r / std::ldexp(1.0, rexp - f.frac_bits)) - (1u << f.frac_bits);
  return static_cast<std::uint16_t>(
      sign | (static_cast<std::uint32_t>(rexp + f.bias) << f.frac_bits) | mant);
}

// The exact error of s = a + b in double (TwoSum), as a sign.
inline int two_sum_err_sign(double a, double b, double s) {
  const double bb = s - a;
  const double e = (a - (s - bb)) + (b - bb);
  return sign_of(e);
}

// setp / set on floats: the ordered comparisons are false and the unordered true when an
// operand is NaN.
template <class F>
bool compare(Cmp c, F a, F b) {
  const bool unordered = std::isnan(a) || std::isnan(b);
  switch (c) {
    case Cmp::kEq:
      return !unordered && a == b;
    case Cmp::kNe:
      return !unordered && a != b;
    case Cmp::kLt:
      return !unordered && a < b;
    case Cmp::kLe:
      return !unordered && a <= b;
    case Cmp::kGt:
      return !unordered && a > b;
    case Cmp::kGe:
      return !unordered && a >= b;
    case Cmp::kEqu:
      return unordered || a == b;
    case Cmp::kNeu:
      return unordered || a != b;
    case Cmp::kLtu:
      return unordered || a < b;
    case Cmp::kLeu:
      return unordered || a <= b;
    case Cmp::kGtu:
      return unordered || a > b;
    case Cmp::kGeu:
      return unordered || a >= b;
    case Cmp::kNum:
      return !unordered;
    case Cmp::kNan:
      return unordered;
    default:
      return false;
  }
}

}  // namespace xpusim::ptx::fp
