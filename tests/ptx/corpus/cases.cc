// The PTX corpus case table and its naive C++ references (see cases.h). Each reference restates
// what the CUDA source computes, with CUDA's semantics: wrapping integer arithmetic, fused
// multiply-add exactly where nvcc contracts (checked against the .ptx: fma.rn.f32 / fma.rn.f64),
// saturating float-to-int conversion with NaN -> 0, and conversions to half / bf16 / float
// written here bit by bit (round to nearest even, or toward zero) instead of trusting the host.
#include "cases.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <type_traits>
#include <utility>

namespace xpusim::ptx_corpus {
namespace {

// ---- deterministic inputs ---------------------------------------------------------------------

struct SplitMix64 {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  std::uint32_t u32() { return static_cast<std::uint32_t>(next() >> 32); }
  // Uniform in [0, n) (n small: the modulo bias is irrelevant, and deterministic).
  std::uint32_t below(std::uint32_t n) { return static_cast<std::uint32_t>(next() % n); }
};

// A float with random sign and mantissa and an unbiased exponent in [emin, emax].
float rand_f32(SplitMix64& g, int emin, int emax) {
  const std::uint64_t r = g.next();
  const std::uint32_t sign = static_cast<std::uint32_t>(r >> 63) << 31;
  const int e = emin + static_cast<int>((r >> 32) % static_cast<std::uint64_t>(emax - emin + 1));
  const std::uint32_t mant = static_cast<std::uint32_t>(r) & 0x7fffffu;
  return std::bit_cast<float>(sign | static_cast<std::uint32_t>(e + 127) << 23 | mant);
}

double rand_f64(SplitMix64& g, int emin, int emax) {
  const std::uint64_t r = g.next();
  const std::uint64_t sign = (g.next() >> 63) << 63;
  const int e = emin + static_cast<int>((r >> 52) % static_cast<std::uint64_t>(emax - emin + 1));
  const std::uint64_t mant = r & 0xfffffffffffffull;
  return std::bit_cast<double>(sign | static_cast<std::uint64_t>(e + 1023) << 52 | mant);
}

// ---- bytes <-> typed vectors -------------------------------------------------------------------

template <class T>
Bytes to_bytes(const std::vector<T>& v) {
  static_assert(std::is_trivially_copyable_v<T>);
  Bytes b(v.size() * sizeof(T));
  if (!b.empty()) std::memcpy(b.data(), v.data(), b.size());
  return b;
}

template <class T>
std::vector<T> from_bytes(const Bytes& b) {
  if (b.size() % sizeof(T) != 0) throw std::runtime_error("ptx_corpus: buffer size");
  std::vector<T> v(b.size() / sizeof(T));
  if (!b.empty()) std::memcpy(v.data(), b.data(), b.size());
  return v;
}

template <class T>
std::vector<T> in(const BufferMap& m, const std::string& name) {
  const auto it = m.find(name);
  if (it == m.end()) throw std::runtime_error("ptx_corpus: no input buffer " + name);
  return from_bytes<T>(it->second);
}

// Output buffers start filled with a pattern no kernel writes, so an element a kernel forgot
// to write shows up.
Bytes poison(std::size_t bytes) {
  return Bytes(bytes, 0xcd);
}

Arg ptr(std::string name) {
  return {ArgKind::kPtr, std::move(name), 0};
}
Arg s32(std::int32_t v) {
  return {ArgKind::kS32, {}, static_cast<std::uint64_t>(static_cast<std::int64_t>(v))};
}
Arg u32(std::uint32_t v) {
  return {ArgKind::kU32, {}, v};
}
Arg s64(std::int64_t v) {
  return {ArgKind::kS64, {}, static_cast<std::uint64_t>(v)};
}
Arg f32(float v) {
  return {ArgKind::kF32, {}, std::bit_cast<std::uint32_t>(v)};
}
Arg f64(double v) {
  return {ArgKind::kF64, {}, std::bit_cast<std::uint64_t>(v)};
}

// The rounded value of a float/double operation, kept from being fused with a later addition
// by a host compiler that contracts (GCC in GNU mode on FMA targets): the kernels' PTX has a
// separate mul there.
template <class T>
T rounded(T v) {
  volatile T t = v;
  return t;
}

constexpr std::uint32_t grid_for(std::uint32_t n, std::uint32_t block) {
  return (n + block - 1) / block;
}

// ---- bit-exact conversions ---------------------------------------------------------------------

enum class Round { kNearestEven, kTowardZero };

// A finite nonzero magnitude m * 2^e (m < 2^64) rounded to a binary format with `frac` fraction
// bits, exponent bias `bias` and `ebits` exponent bits (IEEE layout, subnormals, no sign).
// Returns the format's bits without sign; overflow gives infinity (nearest) or the largest
// finite value (toward zero).
std::uint64_t round_magnitude(std::uint64_t m, int e, int frac, int bias, int ebits, Round mode) {
  const int emin = 1 - bias;  // smallest normal unbiased exponent
  const std::uint64_t max_field = (1ull << ebits) - 1;
  const int p = 63 - std::countl_zero(m);
  const int E = p + e;                               // unbiased exponent of the value
  const int q = E >= emin ? E - frac : emin - frac;  // weight of the result's last bit
  const int shift = q - e;
  std::uint64_t r;
  if (shift <= 0) {
    r = m << -shift;  // exact (only when m has few enough bits)
  } else {
    const std::uint64_t kept = shift >= 64 ? 0 : m >> shift;
    const std::uint64_t rem = shift >= 64 ? m : m & ((1ull << shift) - 1);
    r = kept;
    if (mode == Round::kNearestEven && rem != 0) {
      // Compare rem with half of 2^shift without overflow.
      const bool above = shift > 64    ? false
                         : shift == 64 ? rem > (1ull << 63)
                                       : rem > (1ull << (shift - 1));
      const bool tie = shift > 64    ? false
                       : shift == 64 ? rem == (1ull << 63)
                                     : rem == (1ull << (shift - 1));
      if (above || (tie && (kept & 1))) ++r;
    }
  }
  int qq = q;
  if (r >> (frac + 1)) {  // rounding carried into a new bit
    r >>= 1;
    ++qq;
  }
  if (r == 0) return 0;
  if (!(r >> frac)) return r;  // subnormal (qq == emin - frac)
  const std::uint64_t field = static_cast<std::uint64_t>(qq + frac + bias);
  if (qq + frac + bias >= static_cast<int>(max_field)) {
    return mode == Round::kNearestEven ? max_field << frac
                                       : ((max_field - 1) << frac) | ((1ull << frac) - 1);
  }
  return field << frac | (r & ((1ull << frac) - 1));
}

struct Decoded {
  bool sign, nan, inf, zero;
  std::uint64_t m;  // magnitude = m * 2^e
  int e;
};

Decoded decode(float f) {
  const std::uint32_t b = std::bit_cast<std::uint32_t>(f);
  const std::uint32_t ef = (b >> 23) & 0xff, mf = b & 0x7fffff;
  Decoded d{(b >> 31) != 0, ef == 0xff && mf != 0, ef == 0xff && mf == 0, ef == 0 && mf == 0, 0, 0};
  if (ef == 0) {
    d.m = mf;
    d.e = -149;
  } else {
    d.m = mf | 0x800000u;
    d.e = static_cast<int>(ef) - 150;
  }
  return d;
}

Decoded decode(double f) {
  const std::uint64_t b = std::bit_cast<std::uint64_t>(f);
  const std::uint64_t ef = (b >> 52) & 0x7ff, mf = b & 0xfffffffffffffull;
  Decoded d{
      (b >> 63) != 0, ef == 0x7ff && mf != 0, ef == 0x7ff && mf == 0, ef == 0 && mf == 0, 0, 0};
  if (ef == 0) {
    d.m = mf;
    d.e = -1074;
  } else {
    d.m = mf | (1ull << 52);
    d.e = static_cast<int>(ef) - 1075;
  }
  return d;
}

// To a narrower format's bits (with sign): half (10, 15, 5), bf16 (7, 127, 8), float (23, 127, 8).
// NaN gives the format's canonical quiet NaN.
std::uint64_t narrow(const Decoded& d, int frac, int bias, int ebits, Round mode) {
  const std::uint64_t sign = static_cast<std::uint64_t>(d.sign) << (frac + ebits);
  const std::uint64_t inf = ((1ull << ebits) - 1) << frac;
  if (d.nan) return inf | (1ull << (frac - 1));
  if (d.inf) return sign | inf;
  if (d.zero) return sign;
  return sign | round_magnitude(d.m, d.e, frac, bias, ebits, mode);
}

std::uint16_t f32_to_f16(float f, Round mode) {
  return static_cast<std::uint16_t>(narrow(decode(f), 10, 15, 5, mode));
}
std::uint16_t f32_to_bf16(float f) {
  return static_cast<std::uint16_t>(narrow(decode(f), 7, 127, 8, Round::kNearestEven));
}
float f64_to_f32(double d) {
  return std::bit_cast<float>(
      static_cast<std::uint32_t>(narrow(decode(d), 23, 127, 8, Round::kNearestEven)));
}

float f16_to_f32(std::uint16_t h) {
  const bool sign = (h >> 15) != 0;
  const int ef = (h >> 10) & 0x1f, mf = h & 0x3ff;
  float mag;
  if (ef == 0x1f) {
    mag = mf ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
  } else if (ef == 0) {
    mag = std::ldexp(static_cast<float>(mf), -24);
  } else {
    mag = std::ldexp(static_cast<float>(mf | 0x400), ef - 25);
  }
  return sign ? -mag : mag;
}
float bf16_to_f32(std::uint16_t b) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(b) << 16);
}

// An integer (magnitude, sign) to float bits.
float int_to_f32(std::uint64_t mag, bool neg, Round mode) {
  if (mag == 0) return 0.0f;
  const std::uint32_t bits = static_cast<std::uint32_t>(round_magnitude(mag, 0, 23, 127, 8, mode));
  return std::bit_cast<float>(bits | (neg ? 0x80000000u : 0u));
}
float s32_to_f32(std::int32_t k, Round mode) {
  const bool neg = k < 0;
  const std::uint64_t mag = neg ? 0ull - static_cast<std::uint64_t>(static_cast<std::int64_t>(k))
                                : static_cast<std::uint64_t>(k);
  return int_to_f32(mag, neg, mode);
}

// Float (as an exact double) to an integer with PTX cvt rounding (rni/rzi/rmi/rpi) and
// saturation to [lo, hi]; NaN gives 0.
enum class IntRound { kNearestEven, kZero, kDown, kUp };

double round_integral(double v, IntRound mode) {
  if (std::isinf(v)) return v;
  switch (mode) {
    case IntRound::kZero:
      return std::trunc(v);
    case IntRound::kDown:
      return std::floor(v);
    case IntRound::kUp:
      return std::ceil(v);
    case IntRound::kNearestEven: {
      const double fl = std::floor(v);
      const double diff = v - fl;  // exact: |v| < 2^52 or v integral
      if (diff > 0.5) return fl + 1;
      if (diff < 0.5) return fl;
      return std::fmod(fl, 2.0) == 0 ? fl : fl + 1;
    }
  }
  return v;
}

template <class I>
I to_int_sat(double v, IntRound mode) {
  if (std::isnan(v)) return 0;
  const double r = round_integral(v, mode);
  // 2^(bits) boundaries are exact doubles.
  const double hi_bound = std::ldexp(1.0, std::numeric_limits<I>::digits);  // max + 1
  const double lo_bound = std::is_signed_v<I> ? -hi_bound : 0.0;
  if (r >= hi_bound) return std::numeric_limits<I>::max();
  if (r < lo_bound) return std::numeric_limits<I>::min();
  return static_cast<I>(r);
}

// ---- small helpers for the integer kernels
// -------------------------------------------------------

std::uint32_t popc32(std::uint32_t v) {
  std::uint32_t c = 0;
  for (int k = 0; k < 32; ++k)
    c += (v >> k) & 1;
  return c;
}
std::uint32_t popc64(std::uint64_t v) {
  return popc32(static_cast<std::uint32_t>(v)) + popc32(static_cast<std::uint32_t>(v >> 32));
}
std::uint32_t clz32(std::uint32_t v) {
  std::uint32_t c = 0;
  for (int k = 31; k >= 0 && !((v >> k) & 1); --k)
    ++c;
  return c;
}
std::uint32_t clz64(std::uint64_t v) {
  std::uint32_t c = 0;
  for (int k = 63; k >= 0 && !((v >> k) & 1); --k)
    ++c;
  return c;
}
std::uint32_t brev32(std::uint32_t v) {
  std::uint32_t r = 0;
  for (int k = 0; k < 32; ++k)
    r |= ((v >> k) & 1u) << (31 - k);
  return r;
}
std::uint32_t ffs32(std::uint32_t v) {
  for (int k = 0; k < 32; ++k)
    if ((v >> k) & 1) return static_cast<std::uint32_t>(k + 1);
  return 0;
}
std::uint32_t ffs64(std::uint64_t v) {
  for (int k = 0; k < 64; ++k)
    if ((v >> k) & 1) return static_cast<std::uint32_t>(k + 1);
  return 0;
}
// CUDA __byte_perm(x, y, s): byte n of the result is byte (s >> 4n) & 7 of y:x.
std::uint32_t byte_perm(std::uint32_t x, std::uint32_t y, std::uint32_t s) {
  const std::uint64_t src = static_cast<std::uint64_t>(y) << 32 | x;
  std::uint32_t r = 0;
  for (int n = 0; n < 4; ++n) {
    const std::uint32_t sel = (s >> (4 * n)) & 7;
    r |= static_cast<std::uint32_t>((src >> (8 * sel)) & 0xff) << (8 * n);
  }
  return r;
}
// __funnelshift_l/r(lo, hi, shift): hi:lo shifted, shift taken & 31 (wrap) or min(shift, 32).
std::uint32_t funnel_l(std::uint32_t lo, std::uint32_t hi, std::uint32_t sh) {
  const std::uint64_t v = static_cast<std::uint64_t>(hi) << 32 | lo;
  return static_cast<std::uint32_t>((v << sh) >> 32);  // sh <= 32
}
std::uint32_t funnel_r(std::uint32_t lo, std::uint32_t hi, std::uint32_t sh) {
  const std::uint64_t v = static_cast<std::uint64_t>(hi) << 32 | lo;
  return static_cast<std::uint32_t>(v >> sh);  // sh <= 32
}
std::int32_t as_s32(std::uint32_t v) {
  return static_cast<std::int32_t>(v);
}
std::uint32_t as_u32(std::int32_t v) {
  return static_cast<std::uint32_t>(v);
}

// ---- the cases
// -----------------------------------------------------------------------------------

Case saxpy_case() {
  constexpr std::uint32_t n = 1000, block = 128;
  const float a = 1.7f;
  SplitMix64 g{1};
  std::vector<float> x(n), y(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    x[i] = rand_f32(g, -6, 6);
    y[i] = rand_f32(g, -6, 6);
  }
  Case c;
  c.file = c.entry = "saxpy";
  c.grid = {grid_for(n, block)};
  c.block = {block};
  c.buffers = {{"x", to_bytes(x)}, {"y", to_bytes(y)}};
  c.args = {s32(n), f32(a), ptr("x"), ptr("y")};
  c.outputs = {"y"};
  c.element = "f32";
  c.reference = [a](const BufferMap& m) {
    const auto x = in<float>(m, "x");
    auto y = in<float>(m, "y");
    for (std::size_t i = 0; i < y.size(); ++i)
      y[i] = std::fma(a, x[i], y[i]);  // fma.rn.f32
    return BufferMap{{"y", to_bytes(y)}};
  };
  return c;
}

Case vec_add_int_case() {
  constexpr std::uint32_t n = 777, block = 256;
  SplitMix64 g{2};
  std::vector<std::int32_t> a(n), b(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    a[i] = as_s32(g.u32());
    b[i] = as_s32(g.u32());
  }
  a[0] = std::numeric_limits<std::int32_t>::max();
  b[0] = 1;
  a[1] = std::numeric_limits<std::int32_t>::min();
  b[1] = 1;
  a[2] = -1;
  b[2] = std::numeric_limits<std::int32_t>::min();
  Case c;
  c.file = c.entry = "vec_add_int";
  c.grid = {grid_for(n, block)};
  c.block = {block};
  c.buffers = {{"a", to_bytes(a)},
               {"b", to_bytes(b)},
               {"sum", poison(n * 4)},
               {"diff", poison(n * 4)},
               {"prod", poison(n * 4)}};
  c.args = {ptr("a"), ptr("b"), ptr("sum"), ptr("diff"), ptr("prod"), s32(n)};
  c.outputs = {"sum", "diff", "prod"};
  c.element = "s32";
  c.reference = [](const BufferMap& m) {
    const auto a = in<std::uint32_t>(m, "a"), b = in<std::uint32_t>(m, "b");
    std::vector<std::uint32_t> s(a.size()), d(a.size()), p(a.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
      s[i] = a[i] + b[i];
      d[i] = a[i] - b[i];
      p[i] = a[i] * b[i];
    }
    return BufferMap{{"sum", to_bytes(s)}, {"diff", to_bytes(d)}, {"prod", to_bytes(p)}};
  };
  return c;
}

Case bit_tricks_case() {
  constexpr std::uint32_t n = 512, block = 128, outputs = 24;
  SplitMix64 g{3};
  std::vector<std::uint32_t> a(n), b(n), cc(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    a[i] = g.u32();
    b[i] = g.u32();
    cc[i] = g.u32();
    // Sparse values too, so ffs/clz see long runs of zeros.
    if (i % 5 == 1) a[i] &= a[i] << 7 & (0xffffffffu << (g.u32() & 31));
  }
  const std::uint32_t special[] = {0, 1, 0x80000000u, 0xffffffffu, 0x7fffffffu, 0x00010000u};
  for (std::uint32_t k = 0; k < 6; ++k) {
    a[k] = special[k];
    b[5 - k] = special[k];
  }
  cc[0] = 0;   // shifts of 0
  cc[1] = 32;  // funnel shift by exactly 32: wrap -> 0, clamp -> 32
  cc[2] = 31;
  cc[3] = 63;
  cc[4] = 33;
  Case c;
  c.file = c.entry = "bit_tricks";
  c.grid = {grid_for(n, block)};
  c.block = {block};
  c.buffers = {{"a", to_bytes(a)},
               {"b", to_bytes(b)},
               {"c", to_bytes(cc)},
               {"out", poison(outputs * n * 4)}};
  c.args = {ptr("a"), ptr("b"), ptr("c"), ptr("out"), s32(n)};
  c.outputs = {"out"};
  c.element = "u32";
  c.reference = [](const BufferMap& m) {
    const auto a = in<std::uint32_t>(m, "a"), b = in<std::uint32_t>(m, "b"),
               z = in<std::uint32_t>(m, "c");
    std::vector<std::uint32_t> out(outputs * n);
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint32_t x = a[i], y = b[i], s = z[i] & 63;
      std::uint32_t r[outputs];
      r[0] = popc32(x);
      r[1] = clz32(x);
      r[2] = brev32(x);
      r[3] = ffs32(x);
      r[4] = byte_perm(x, y, 0x3210);
      r[5] = byte_perm(x, y, 0x7531);
      r[6] = byte_perm(x, y, 0x0123);
      r[7] = byte_perm(x, y, 0xC0DE);
      r[8] = byte_perm(x, y, z[i]);
      r[9] = funnel_l(x, y, s & 31);
      r[10] = funnel_r(x, y, s & 31);
      r[11] = funnel_l(x, y, s < 32 ? s : 32);
      r[12] = funnel_r(x, y, s < 32 ? s : 32);
      const std::uint32_t pos = z[i] & 31, len = 1 + ((z[i] >> 5) & 15);
      r[13] = (x >> pos) & ((1u << len) - 1u);
      const std::uint32_t sl = (z[i] >> 9) & 31, sr = (z[i] >> 14) & 31;
      r[14] = as_u32(as_s32(x << sl) >> sr);
      r[15] = (x >> 20) & 0xff;
      r[16] = as_u32(as_s32(x << 8) >> 20);
      r[17] = x < y ? x : y;
      r[18] = x < y ? y : x;
      r[19] = as_u32(as_s32(x) < as_s32(y) ? as_s32(x) : as_s32(y));
      r[20] = as_u32(as_s32(x) < as_s32(y) ? as_s32(y) : as_s32(x));
      const std::uint64_t w = static_cast<std::uint64_t>(x) << 32 | y;
      r[21] = popc64(w);
      r[22] = clz64(w >> s);
      r[23] = ffs64(w << s);
      for (std::uint32_t k = 0; k < outputs; ++k)
        out[k * n + i] = r[k];
    }
    return BufferMap{{"out", to_bytes(out)}};
  };
  return c;
}

Case collatz_case() {
  constexpr std::uint32_t n = 1000, block = 64, base = 0, cap = 120;
  Case c;
  c.file = c.entry = "collatz";
  c.grid = {grid_for(n, block)};
  c.block = {block};
  c.buffers = {{"steps", poison(n * 4)}};
  c.args = {ptr("steps"), u32(base), u32(cap), s32(n)};
  c.outputs = {"steps"};
  c.element = "u32";
  c.reference = [](const BufferMap&) {
    std::vector<std::uint32_t> steps(n);
    for (std::uint32_t i = 0; i < n; ++i) {
      std::uint32_t v = base + i, count = 0;  // v == 0 never reaches 1: runs to the cap
      while (v != 1 && count < cap) {
        v = (v & 1) ? 3 * v + 1 : v >> 1;
        ++count;
      }
      steps[i] = count;
    }
    return BufferMap{{"steps", to_bytes(steps)}};
  };
  return c;
}

Case warp_reduce_case() {
  constexpr std::uint32_t n = 1000, block = 128;
  constexpr std::uint32_t grid = grid_for(n, block), warps = grid * block / 32;
  constexpr std::int32_t total0 = 12345;
  SplitMix64 g{5};
  std::vector<std::int32_t> v(n);
  for (auto& e : v)
    e = as_s32(g.u32());  // sums wrap; the result is order independent
  Case c;
  c.file = c.entry = "warp_reduce";
  c.grid = {grid};
  c.block = {block};
  c.buffers = {{"in", to_bytes(v)},
               {"warp_sums", poison(warps * 4)},
               {"total", to_bytes(std::vector<std::int32_t>{total0})}};
  c.args = {ptr("in"), ptr("warp_sums"), ptr("total"), s32(n)};
  c.outputs = {"warp_sums", "total"};
  c.element = "s32";
  c.reference = [](const BufferMap& m) {
    const auto v = in<std::uint32_t>(m, "in");
    auto total = in<std::uint32_t>(m, "total");
    std::vector<std::uint32_t> sums(warps, 0);
    for (std::size_t i = 0; i < v.size(); ++i)
      sums[i / 32] += v[i];
    for (const auto s : sums)
      total[0] += s;
    return BufferMap{{"warp_sums", to_bytes(sums)}, {"total", to_bytes(total)}};
  };
  return c;
}

// Values around 0 (a third each negative, zero, positive) so that every vote differs per CTA;
// CTA 1 has no negative and CTA 2 no zero, so `all` and `any` take both values.
Case block_vote_case() {
  constexpr std::uint32_t block = 256, grid = 4;
  SplitMix64 g{31};
  std::vector<std::int32_t> v(grid * block);
  for (std::uint32_t i = 0; i < v.size(); ++i) {
    const auto r = static_cast<std::int32_t>(g.u32() % 3) - 1;
    v[i] = i / block == 1 ? std::abs(r) : i / block == 2 ? (r == 0 ? 5 : r) : r;
  }
  Case c;
  c.file = "block_barriers";
  c.entry = "block_vote";
  c.grid = {grid};
  c.block = {block};
  c.buffers = {{"in", to_bytes(v)}, {"out", poison(grid * 3 * 4)}};
  c.args = {ptr("in"), ptr("out")};
  c.outputs = {"out"};
  c.element = "s32";
  c.reference = [](const BufferMap& m) {
    const auto v = in<std::int32_t>(m, "in");
    std::vector<std::int32_t> out(grid * 3, 0);
    for (std::uint32_t b = 0; b < grid; ++b) {
      std::int32_t count = 0, all = 1, any = 0;
      for (std::uint32_t t = 0; t < block; ++t) {
        const std::int32_t x = v[b * block + t];
        count += x > 0 ? 1 : 0;
        all = all && x != 0;
        any = any || x < 0;
      }
      out[3 * b] = count;
      out[3 * b + 1] = all;
      out[3 * b + 2] = any;
    }
    return BufferMap{{"out", to_bytes(out)}};
  };
  return c;
}

Case named_handoff_case() {
  constexpr std::uint32_t grid = 3;
  SplitMix64 g{32};
  std::vector<std::int32_t> v(grid * 64);
  for (auto& e : v)
    e = static_cast<std::int32_t>(g.u32() % 100000);
  Case c;
  c.file = "block_barriers";
  c.entry = "named_handoff";
  c.grid = {grid};
  c.block = {192};
  c.buffers = {{"in", to_bytes(v)}, {"out", poison(grid * 64 * 4)}};
  c.args = {ptr("in"), ptr("out")};
  c.outputs = {"out"};
  c.element = "s32";
  c.reference = [](const BufferMap& m) {
    const auto v = in<std::int32_t>(m, "in");
    std::vector<std::int32_t> out(grid * 64);
    for (std::uint32_t b = 0; b < grid; ++b)
      for (std::uint32_t i = 0; i < 64; ++i)
        out[b * 64 + i] = (v[b * 64 + i] * 2 + 1) + (v[b * 64 + (i + 1) % 64] * 2 + 1);
    return BufferMap{{"out", to_bytes(out)}};
  };
  return c;
}

// Keys 0..7 (even keys join the all); the wide values agree in even warps and not in odd ones.
Case warp_match_case() {
  constexpr std::uint32_t grid = 2, block = 128, n = grid * block;
  SplitMix64 g{33};
  std::vector<std::uint32_t> key(n);
  std::vector<std::uint64_t> wide(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    key[i] = g.u32() % 8;
    wide[i] = (i / 32) % 2 == 0 || i % 3 != 0 ? 0x1234'5678'9ABC'DEF0ull : 7;
  }
  Case c;
  c.file = c.entry = "warp_match";
  c.grid = {grid};
  c.block = {block};
  c.buffers = {{"key", to_bytes(key)},
               {"wide", to_bytes(wide)},
               {"any", poison(n * 4)},
               {"all", poison(n * 4)},
               {"pred", poison(n * 4)}};
  c.args = {ptr("key"), ptr("wide"), ptr("any"), ptr("all"), ptr("pred")};
  c.outputs = {"any", "all", "pred"};
  c.element = "u32";
  c.reference = [](const BufferMap& m) {
    const auto key = in<std::uint32_t>(m, "key");
    const auto wide = in<std::uint64_t>(m, "wide");
    auto all = in<std::uint32_t>(m, "all");
    auto pred = in<std::uint32_t>(m, "pred");
    std::vector<std::uint32_t> any(n);
    for (std::uint32_t w = 0; w < n / 32; ++w) {
      std::uint32_t even = 0;
      bool same = true;
      std::int64_t first = -1;
      for (std::uint32_t l = 0; l < 32; ++l) {
        const std::uint32_t i = w * 32 + l;
        std::uint32_t mask = 0;
        for (std::uint32_t k = 0; k < 32; ++k)
          if (key[w * 32 + k] == key[i]) mask |= 1u << k;
        any[i] = mask;
        if (key[i] % 2 != 0) continue;
        even |= 1u << l;
        if (first < 0) first = i;
        same = same && wide[i] == wide[static_cast<std::size_t>(first)];
      }
      for (std::uint32_t l = 0; l < 32; ++l) {
        if (((even >> l) & 1) == 0) continue;
        all[w * 32 + l] = same ? even : 0;
        pred[w * 32 + l] = same ? 1 : 0;
      }
    }
    return BufferMap{{"any", to_bytes(any)}, {"all", to_bytes(all)}, {"pred", to_bytes(pred)}};
  };
  return c;
}

// Inputs 0..999 (non-negative: the table index is in % 3).
Case indirect_calls_case() {
  constexpr std::uint32_t grid = 2, block = 128, n = grid * block;
  SplitMix64 g{34};
  std::vector<std::int32_t> v(n);
  for (auto& e : v)
    e = static_cast<std::int32_t>(g.u32() % 1000);
  Case c;
  c.file = c.entry = "indirect_calls";
  c.grid = {grid};
  c.block = {block};
  c.buffers = {{"in", to_bytes(v)}, {"out", poison(n * 4)}};
  c.args = {ptr("in"), ptr("out")};
  c.outputs = {"out"};
  c.element = "s32";
  c.reference = [](const BufferMap& m) {
    const auto v = in<std::int32_t>(m, "in");
    std::vector<std::int32_t> out(n);
    for (std::uint32_t i = 0; i < n; ++i) {
      const auto a = static_cast<std::uint32_t>(v[i]);
      const std::uint32_t r = v[i] % 3 == 0 ? a + i : v[i] % 3 == 1 ? a * i : a - i;
      out[i] = static_cast<std::int32_t>(r);
    }
    return BufferMap{{"out", to_bytes(out)}};
  };
  return c;
}

Case device_pointers_case() {
  constexpr std::uint32_t n = 96;
  Case c;
  c.file = c.entry = "device_pointers";
  c.grid = {1};
  c.block = {n};
  c.buffers = {{"out", poison(n * 4)}};
  c.args = {ptr("out")};
  c.outputs = {"out"};
  c.element = "s32";
  c.reference = [](const BufferMap&) {
    const std::int32_t pointed[3] = {2, 7, 1};  // a[1], b, a[0]
    std::vector<std::int32_t> out(n);
    for (std::uint32_t i = 0; i < n; ++i)
      out[i] = 2 * pointed[i % 3] + static_cast<std::int32_t>(i);
    return BufferMap{{"out", to_bytes(out)}};
  };
  return c;
}

Case block_reduce_shared_case() {
  constexpr std::uint32_t n = 3000, block = 256;
  constexpr std::uint32_t grid = grid_for(n, block);
  SplitMix64 g{6};
  std::vector<float> v(n);
  for (auto& e : v)
    e = rand_f32(g, -12, 12);  // wide exponents: the order shows in the bits
  Case c;
  c.file = c.entry = "block_reduce_shared";
  c.grid = {grid};
  c.block = {block};
  c.dynamic_shared_bytes = block * 4;
  c.buffers = {{"in", to_bytes(v)}, {"block_sums", poison(grid * 4)}};
  c.args = {ptr("in"), ptr("block_sums"), s32(n)};
  c.outputs = {"block_sums"};
  c.element = "f32";
  c.reference = [](const BufferMap& m) {
    const auto v = in<float>(m, "in");
    std::vector<float> sums(grid);
    for (std::uint32_t b = 0; b < grid; ++b) {
      float s[block];
      for (std::uint32_t t = 0; t < block; ++t) {
        const std::uint32_t i = b * block + t;
        s[t] = i < v.size() ? v[i] : 0.0f;
      }
      for (std::uint32_t stride = block / 2; stride > 0; stride >>= 1)
        for (std::uint32_t t = 0; t < stride; ++t)
          s[t] = s[t] + s[t + stride];
      sums[b] = s[0];
    }
    return BufferMap{{"block_sums", to_bytes(sums)}};
  };
  return c;
}

Case histogram_shared_case() {
  constexpr std::uint32_t n = 4000, block = 256, grid = 8;  // grid-stride: 2 rounds
  SplitMix64 g{7};
  std::vector<std::uint8_t> data(n);
  for (auto& d : data) {
    const std::uint32_t r = g.u32();
    d = static_cast<std::uint8_t>((r & 3) == 0 ? (r >> 8) % 8 : r >> 24);  // some heavy bins
  }
  std::vector<std::uint32_t> hist(256);
  for (std::uint32_t b = 0; b < 256; ++b)
    hist[b] = b * 3;  // adds into existing counts
  Case c;
  c.file = c.entry = "histogram_shared";
  c.grid = {grid};
  c.block = {block};
  c.buffers = {{"data", data}, {"hist", to_bytes(hist)}};
  c.args = {ptr("data"), ptr("hist"), s32(n)};
  c.outputs = {"hist"};
  c.element = "u32";
  c.reference = [](const BufferMap& m) {
    const auto data = in<std::uint8_t>(m, "data");
    auto hist = in<std::uint32_t>(m, "hist");
    for (const auto d : data)
      ++hist[d];
    return BufferMap{{"hist", to_bytes(hist)}};
  };
  return c;
}

Case sgemm_tiled_case() {
  constexpr std::uint32_t M = 32, N = 48, K = 64;
  SplitMix64 g{8};
  std::vector<float> A(M * K), B(K * N);
  for (auto& e : A)
    e = rand_f32(g, -4, 3);
  for (auto& e : B)
    e = rand_f32(g, -4, 3);
  Case c;
  c.file = c.entry = "sgemm_tiled";
  c.grid = {N / 16, M / 16};
  c.block = {16, 16};
  c.buffers = {{"A", to_bytes(A)}, {"B", to_bytes(B)}, {"C", poison(M * N * 4)}};
  c.args = {ptr("A"), ptr("B"), ptr("C"), s32(M), s32(N), s32(K)};
  c.outputs = {"C"};
  c.element = "f32";
  c.reference = [](const BufferMap& m) {
    const auto A = in<float>(m, "A"), B = in<float>(m, "B");
    std::vector<float> C(M * N);
    for (std::uint32_t row = 0; row < M; ++row)
      for (std::uint32_t col = 0; col < N; ++col) {
        float acc = 0.0f;
        for (std::uint32_t k = 0; k < K; ++k)  // one fma.rn.f32 per k, k ascending
          acc = std::fma(A[row * K + k], B[k * N + col], acc);
        C[row * N + col] = acc;
      }
    return BufferMap{{"C", to_bytes(C)}};
  };
  return c;
}

Case transpose_shared_case() {
  constexpr std::uint32_t width = 96, height = 72;  // 72: a partial tile row
  SplitMix64 g{9};
  std::vector<std::uint32_t> v(width * height);
  for (auto& e : v)
    e = g.u32();  // any bits, NaNs included: the kernel only moves them
  Case c;
  c.file = c.entry = "transpose_shared";
  c.grid = {grid_for(width, 32), grid_for(height, 32)};
  c.block = {32, 8};
  c.buffers = {{"in", to_bytes(v)}, {"out", poison(width * height * 4)}};
  c.args = {ptr("in"), ptr("out"), s32(width), s32(height)};
  c.outputs = {"out"};
  c.element = "u32";
  c.reference = [](const BufferMap& m) {
    const auto v = in<std::uint32_t>(m, "in");
    std::vector<std::uint32_t> out(width * height);
    for (std::uint32_t y = 0; y < height; ++y)
      for (std::uint32_t x = 0; x < width; ++x)
        out[x * height + y] = v[y * width + x];
    return BufferMap{{"out", to_bytes(out)}};
  };
  return c;
}

Case daxpy_dot_case() {
  constexpr std::uint32_t n = 1000, block = 128;
  constexpr std::uint32_t grid = grid_for(n, block);
  const double a = -0.7853981633974483;
  SplitMix64 g{10};
  std::vector<double> x(n), y(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    x[i] = rand_f64(g, -8, 8);
    y[i] = rand_f64(g, -8, 8);
  }
  Case c;
  c.file = c.entry = "daxpy_dot";
  c.grid = {grid};
  c.block = {block};
  c.buffers = {{"x", to_bytes(x)}, {"y", to_bytes(y)}, {"partial", poison(grid * 8)}};
  c.args = {f64(a), ptr("x"), ptr("y"), ptr("partial"), s64(n)};
  c.outputs = {"y", "partial"};
  c.element = "f64";
  c.reference = [a](const BufferMap& m) {
    const auto x = in<double>(m, "x");
    auto y = in<double>(m, "y");
    std::vector<double> partial(grid);
    for (std::uint32_t b = 0; b < grid; ++b) {
      double s[block];
      for (std::uint32_t t = 0; t < block; ++t) {
        const std::size_t i = std::size_t{b} * block + t;
        s[t] = 0.0;
        if (i < x.size()) {
          y[i] = std::fma(a, x[i], y[i]);  // fma.rn.f64
          s[t] = rounded(x[i] * y[i]);     // mul.f64, not fused into the sums
        }
      }
      for (std::uint32_t stride = block / 2; stride > 0; stride >>= 1)
        for (std::uint32_t t = 0; t < stride; ++t)
          s[t] = s[t] + s[t + stride];
      partial[b] = s[0];
    }
    return BufferMap{{"y", to_bytes(y)}, {"partial", to_bytes(partial)}};
  };
  return c;
}

Case local_array_case() {
  constexpr std::uint32_t n = 640, block = 64;
  SplitMix64 g{11};
  std::vector<std::uint32_t> v(n);
  for (auto& e : v)
    e = g.u32();
  v[0] = 0;
  v[1] = 0xffffffffu;
  Case c;
  c.file = c.entry = "local_array";
  c.grid = {grid_for(n, block)};
  c.block = {block};
  c.buffers = {{"in", to_bytes(v)}, {"out", poison(n * 4)}};
  c.args = {ptr("in"), ptr("out"), s32(n)};
  c.outputs = {"out"};
  c.element = "s32";
  c.reference = [](const BufferMap& m) {
    const auto v = in<std::uint32_t>(m, "in");
    std::vector<std::uint32_t> out(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) {
      const std::uint32_t s = v[i];
      std::uint32_t arr[16];
      for (std::uint32_t j = 0; j < 16; ++j)
        arr[j] = (s * (j + 1)) ^ j;
      for (std::uint32_t j = 0; j < 16; ++j)
        arr[(s >> j) & 15] += j * j;
      std::uint32_t sum = 0;
      for (std::uint32_t j = 0; j < 8; ++j)
        sum += arr[(s >> (3 * j)) & 15];
      out[i] = sum ^ arr[s >> 28];
    }
    return BufferMap{{"out", to_bytes(out)}};
  };
  return c;
}

Case device_globals_case() {
  // The kernel's module variables, restated (device_globals.cu).
  constexpr std::uint32_t n = 250, block = 64, blocks = grid_for(n, block);
  SplitMix64 g{41};
  std::vector<float> x(n);
  std::vector<std::uint32_t> keys(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    x[i] = rand_f32(g, -3, 2);
    keys[i] = g.u32();
  }
  Case c;
  c.file = c.entry = "device_globals";
  c.grid = {blocks};
  c.block = {block};
  c.buffers = {{"x", to_bytes(x)},
               {"keys", to_bytes(keys)},
               {"y", poison(n * 4)},
               {"z", poison(n * 4)},
               {"totals", poison(blocks * 4)}};
  c.args = {ptr("x"), ptr("keys"), ptr("y"), ptr("z"), ptr("totals"), s32(n)};
  c.outputs = {"y", "z", "totals"};
  c.element = "u32";  // y is f32, compared bit for bit
  c.reference = [](const BufferMap& m) {
    static constexpr float coeff[8] = {1.0f, -0.5f, 0.25f, 0.125f, -2.0f, 3.0f, 0.0625f, -1.5f};
    static constexpr std::uint32_t shifts[4] = {1, 3, 0, 0};
    static constexpr std::uint32_t lut[16] = {0x9e3779b9u, 0x7f4a7c15u, 0xf39cc060u, 0x5ced1b6du,
                                              0x1b873593u, 0xcc9e2d51u, 0x85ebca6bu, 0xc2b2ae35u,
                                              0x27d4eb2fu, 0x165667b1u, 0xd3a2646cu, 0xfd7046c5u,
                                              0xb55a4f09u, 0x3c6ef372u, 0xa54ff53au, 0x510e527fu};
    std::uint32_t counters[4] = {7, 100, 0, 0};
    const auto x = in<float>(m, "x");
    const auto keys = in<std::uint32_t>(m, "keys");
    std::vector<float> y(x.size());
    std::vector<std::uint32_t> z(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
      float acc = coeff[7];
      for (int k = 6; k >= 0; --k)
        acc = std::fma(acc, x[i], coeff[k]);
      const std::uint32_t key = keys[i];
      y[i] = acc + coeff[key & 7];
      z[i] = lut[key & 15] ^ keys[i] ^ (key >> shifts[key & 3]);
      counters[(i / block) & 3] += key & 255;
    }
    std::vector<std::uint32_t> totals(blocks);
    for (std::uint32_t b = 0; b < blocks; ++b)
      totals[b] = counters[b & 3];
    return BufferMap{{"y", to_bytes(y)}, {"z", to_bytes(z)}, {"totals", to_bytes(totals)}};
  };
  return c;
}

std::uint32_t hash32(std::uint32_t v) {
  v ^= v >> 16;
  v *= 0x7feb352du;
  v ^= v >> 15;
  v *= 0x846ca68bu;
  v ^= v >> 16;
  return v;
}

Case device_calls_case() {
  constexpr std::uint32_t n = 300, block = 128;
  constexpr std::int64_t bias = -5'000'000'000;
  SplitMix64 g{12};
  std::vector<std::int32_t> ia(n);
  std::vector<std::uint32_t> ub(n);
  std::vector<float> fx(n);
  std::vector<double> dy(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    ia[i] = as_s32(g.u32());
    ub[i] = g.u32();
    fx[i] = rand_f32(g, -3, 30);  // f * 2 and its truncation stay inside long long
    dy[i] = rand_f64(g, -3, 50);  // (long long)d and (float)d stay finite
  }
  Case c;
  c.file = c.entry = "device_calls";
  c.grid = {grid_for(n, block)};
  c.block = {block};
  c.buffers = {{"ia", to_bytes(ia)},       {"ub", to_bytes(ub)},       {"fx", to_bytes(fx)},
               {"dy", to_bytes(dy)},       {"out_mix", poison(n * 8)}, {"out_scale", poison(n * 4)},
               {"out_hash", poison(n * 4)}};
  c.args = {ptr("ia"),        ptr("ub"),       ptr("fx"), ptr("dy"), ptr("out_mix"),
            ptr("out_scale"), ptr("out_hash"), s64(bias), s32(n)};
  c.outputs = {"out_mix", "out_scale", "out_hash"};
  c.element = "u32";  // mixed s64 / f32 / u32 outputs, compared bytewise (no NaN can occur)
  c.reference = [](const BufferMap& m) {
    const auto ia = in<std::int32_t>(m, "ia");
    const auto ub = in<std::uint32_t>(m, "ub");
    const auto fx = in<float>(m, "fx");
    const auto dy = in<double>(m, "dy");
    std::vector<std::int64_t> mix(n);
    std::vector<float> scale(n);
    std::vector<std::uint32_t> hash(n);
    for (std::size_t i = 0; i < n; ++i) {
      // mix(a, b, c, f, d): (long long)a * b + c, ^ (long long)(f * 2), + (long long)d.
      const std::uint64_t c64 = static_cast<std::uint64_t>(bias + static_cast<std::int64_t>(i));
      std::uint64_t r = static_cast<std::uint64_t>(static_cast<std::int64_t>(ia[i])) *
                            static_cast<std::uint64_t>(ub[i]) +
                        c64;
      r ^= static_cast<std::uint64_t>(
          to_int_sat<std::int64_t>(static_cast<double>(fx[i] + fx[i]), IntRound::kZero));
      r += static_cast<std::uint64_t>(to_int_sat<std::int64_t>(dy[i], IntRound::kZero));
      mix[i] = static_cast<std::int64_t>(r);
      // scale(x, y, k) = x * y + (float)k, contracted: fma.rn.f32(x, (float)d, cvt.rn.f32.s32 k).
      const float yf = f64_to_f32(dy[i]);
      const float kf = s32_to_f32(ia[i] >> 20, Round::kNearestEven);
      scale[i] = std::fma(fx[i], yf, kf);
      hash[i] = hash32(hash32(ub[i]) + static_cast<std::uint32_t>(i));
    }
    return BufferMap{
        {"out_mix", to_bytes(mix)}, {"out_scale", to_bytes(scale)}, {"out_hash", to_bytes(hash)}};
  };
  return c;
}

Case int_divmod_case() {
  constexpr std::uint32_t n = 400, block = 128;
  constexpr std::int32_t kMin32 = std::numeric_limits<std::int32_t>::min();
  constexpr std::int64_t kMin64 = std::numeric_limits<std::int64_t>::min();
  SplitMix64 g{13};
  std::vector<std::int32_t> a(n), b(n);
  std::vector<std::int64_t> c64(n), d64(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    a[i] = as_s32(g.u32());
    switch (i % 4) {
      case 0:
        b[i] = as_s32(g.u32());
        break;
      case 1:
        b[i] = static_cast<std::int32_t>(g.below(41)) - 20;
        break;  // small, 0 included
      case 2:
        b[i] = as_s32(g.u32()) >> (g.u32() & 31);
        break;
      default:
        b[i] = static_cast<std::int32_t>(g.below(1000)) + 1;
        break;
    }
    const std::uint64_t r = g.next();
    switch (i % 5) {
      case 0:
        c64[i] = static_cast<std::int64_t>(r);
        break;
      case 1:
        c64[i] = static_cast<std::int64_t>(r >> 33);
        break;  // fits 32 bits, >= 0
      case 2:
        c64[i] = -static_cast<std::int64_t>(r >> 33);
        break;
      case 3:
        c64[i] = static_cast<std::int64_t>(r) >> (g.u32() & 63);
        break;
      default:
        c64[i] = static_cast<std::int64_t>(r >> 1);
        break;
    }
    switch (i % 3) {
      case 0:
        d64[i] = static_cast<std::int64_t>(g.next()) >> (g.u32() & 63);
        break;
      case 1:
        d64[i] = static_cast<std::int64_t>(g.below(41)) - 20;
        break;
      default:
        d64[i] = static_cast<std::int64_t>(g.next() >> 34) + 1;
        break;  // < 2^30
    }
  }
  // Edges: INT_MIN / -1 (guarded), INT_MIN / 1, x / 0 (divisor becomes 1), INT_MIN divisor,
  // negative operands with every sign combination.
  const std::int32_t ea[] = {kMin32, kMin32, 7, -7, 7, -7, 123, kMin32, -1, 0, kMin32, 5};
  const std::int32_t eb[] = {-1, 1, 2, 2, -2, -2, 0, kMin32, kMin32, -3, 2, -1};
  for (std::uint32_t k = 0; k < 12; ++k) {
    a[k] = ea[k];
    b[k] = eb[k];
  }
  const std::int64_t ec[] = {kMin64,       kMin64,       7, -7, 7, -7, 123, kMin64, -1, 0, kMin64,
                             0xffffffffll, 0x100000000ll};
  const std::int64_t ed[] = {-1, 1, 2, 2, -2, -2, 0, kMin64, kMin64, -3, 2, 0xffffffffll, 3};
  for (std::uint32_t k = 0; k < 13; ++k) {
    c64[k] = ec[k];
    d64[k] = ed[k];
  }
  Case c;
  c.file = c.entry = "int_divmod";
  c.grid = {grid_for(n, block)};
  c.block = {block};
  c.buffers = {{"a", to_bytes(a)},   {"b", to_bytes(b)},           {"c", to_bytes(c64)},
               {"d", to_bytes(d64)}, {"out32", poison(8 * n * 4)}, {"out64", poison(4 * n * 8)}};
  c.args = {ptr("a"), ptr("b"), ptr("c"), ptr("d"), ptr("out32"), ptr("out64"), s32(n)};
  c.outputs = {"out32", "out64"};
  c.element = "u32";  // out32 and out64 (u64 elements) both compared bytewise
  c.reference = [](const BufferMap& m) {
    const auto a = in<std::int32_t>(m, "a"), b = in<std::int32_t>(m, "b");
    const auto cv = in<std::int64_t>(m, "c"), dv = in<std::int64_t>(m, "d");
    std::vector<std::uint32_t> o32(8 * n);
    std::vector<std::uint64_t> o64(4 * n);
    for (std::size_t i = 0; i < n; ++i) {
      const std::int32_t x = a[i], y = b[i] == 0 ? 1 : b[i];
      const bool ovf = x == kMin32 && y == -1;
      const std::int32_t q = ovf ? x : x / y, r = ovf ? 0 : x % y;  // C++: truncating, like PTX
      const std::uint32_t ux = as_u32(x), uy = as_u32(y);
      o32[0 * n + i] = as_u32(q);
      o32[1 * n + i] = as_u32(r);
      o32[2 * n + i] = ux / uy;
      o32[3 * n + i] = ux % uy;
      o32[4 * n + i] = as_u32(x / 7);
      o32[5 * n + i] = as_u32(x % 10);
      o32[6 * n + i] = ux / 3u;
      o32[7 * n + i] = ux % 1000u;
      const std::int64_t X = cv[i], Y = dv[i] == 0 ? 1 : dv[i];
      const bool ovf64 = X == kMin64 && Y == -1;
      const std::int64_t Q = ovf64 ? X : X / Y, R = ovf64 ? 0 : X % Y;
      const std::uint64_t uX = static_cast<std::uint64_t>(X), uY = static_cast<std::uint64_t>(Y);
      o64[0 * n + i] = static_cast<std::uint64_t>(Q);
      o64[1 * n + i] = static_cast<std::uint64_t>(R);
      o64[2 * n + i] = uX / uY;
      o64[3 * n + i] = uX % uY;
    }
    return BufferMap{{"out32", to_bytes(o32)}, {"out64", to_bytes(o64)}};
  };
  return c;
}

// ---- float_convert: shared inputs ------------------------------------------------------------

constexpr std::uint32_t kConvN = 256, kConvBlock = 64;

float f32_bits(std::uint32_t b) {
  return std::bit_cast<float>(b);
}
double f64_bits(std::uint64_t b) {
  return std::bit_cast<double>(b);
}

std::vector<float> convert_floats() {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> f = {
      0.0f, -0.0f, 0.5f, -0.5f, 1.5f, -1.5f, 2.5f, -2.5f, 0.49999997f, -0.49999997f, 1.0f, -1.0f,
      3.5f, -3.5f, 8388607.5f, -8388607.5f, 0.99999994f,
      f32_bits(0x00000001u),                                                // smallest denormal
      f32_bits(0x80000001u), f32_bits(0x007fffffu), f32_bits(0x00800000u),  // denormal, min normal
      f32_bits(0x7fc00000u), f32_bits(0x7f800001u), f32_bits(0xffc00001u),  // NaNs (qNaN, sNaN, -)
      f32_bits(0x7fbfffffu), inf, -inf, 2147483520.0f, 2147483648.0f, -2147483648.0f,
      -2147483904.0f,  // around 2^31
      4294967040.0f, 4294967296.0f, 1e10f, -1e10f, 3e38f, std::numeric_limits<float>::max(),
      -std::numeric_limits<float>::max(), 9.2233715e18f, 9.223372e18f, -9.223372e18f,
      -9.2233725e18f,  // around 2^63
      // half: max finite, the halfway point to infinity and past it, smallest subnormal and ties
      65504.0f, 65519.996f, 65520.0f, -65520.0f, 65536.0f, 0x1p-24f, 0x1p-25f, 0x1.8p-25f,
      0x1.8p-24f, 0x1.4p-24f, 0x1p-14f, 0x1.ff8p-15f, 0x1.ffcp-15f, 0x1p-26f, -0x1p-25f,
      1.0009765625f, 0x1.002p0f, 0x1.006p0f, 0x1.0028p0f, 0x1.0018p0f,
      // bf16 ties and overflow
      f32_bits(0x3f808000u), f32_bits(0x3f818000u), f32_bits(0x3f808001u), f32_bits(0x7f7f7fffu),
      f32_bits(0x7f7f8000u), f32_bits(0x7f7fffffu), f32_bits(0x00008000u), f32_bits(0x00018000u),
      f32_bits(0x80018000u), f32_bits(0x7f800000u - 1), 1234.5678f, -0.75f, 100.5f, -100.5f, 101.5f,
      16777216.0f, 16777215.0f, 33554430.0f};
  SplitMix64 g{14};
  while (f.size() < kConvN) {
    const std::uint32_t k = static_cast<std::uint32_t>(f.size()) % 3;
    if (k == 0) {
      f.push_back(rand_f32(g, -30, 40));
    } else if (k == 1) {
      // Small halves: integers and halves of integers (rounding ties).
      f.push_back(static_cast<float>(static_cast<std::int32_t>(g.below(2001)) - 1000) * 0.5f);
    } else {
      f.push_back(std::bit_cast<float>(g.u32()));  // any bits
    }
  }
  return f;
}

std::vector<double> convert_doubles() {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> d = {
      0.0, -0.0, 0.5, -0.5, 1.5, 2.5, -2.5, 2147483647.0, 2147483647.4, 2147483647.5, 2147483648.0,
      -2147483648.0, -2147483648.5, -2147483648.6, -2147483649.0, 1e300, -1e300, 1e-300, -1e-300,
      f64_bits(1), f64_bits(0x7ff8000000000000ull), f64_bits(0x7ff0000000000001ull),
      f64_bits(0xfff8000000000123ull), inf, -inf,
      // double -> float: ties at 24 bits, float overflow boundary, float subnormal ties
      1.0 + 0x1p-24, 1.0 + 0x1.8p-23, 1.0 + 0x1p-23, 1.0 + 0x1.0000000000001p-24,
      static_cast<double>(std::numeric_limits<float>::max()), 0x1.ffffffp127, 0x1.fffffefffffffp127,
      0x1p128, 0x1p-149, 0x1p-150, 0x1.8p-150, 0x1.8p-149, 0x1.0000000000001p-150, 0x1p-126,
      0x1.fffffcp-127, 0x1.fffffep-127, -0x1.fffffep-127, 3.141592653589793, -2.718281828459045};
  SplitMix64 g{15};
  while (d.size() < kConvN) {
    if (d.size() % 2) {
      d.push_back(rand_f64(g, -160, 140));
    } else {
      d.push_back(rand_f64(g, -2, 33));
    }
  }
  return d;
}

std::vector<std::int32_t> convert_ints() {
  constexpr std::int32_t kMax = std::numeric_limits<std::int32_t>::max();
  constexpr std::int32_t kMin = std::numeric_limits<std::int32_t>::min();
  std::vector<std::int32_t> k = {0,          1,           -1,         kMax,       kMin,
                                 kMin + 1,   16777216,    16777217,   16777218,   16777219,
                                 -16777217,  -16777219,   0x7fffffc0, 0x7fffff80, 0x7fffffbf,
                                 0x7fffffc1, -0x7fffffc0, 33554435,   100,        -100};
  SplitMix64 g{16};
  while (k.size() < kConvN)
    k.push_back(as_s32(g.u32()) >> (g.u32() & 15));
  return k;
}

Case float_to_int_case() {
  constexpr std::uint32_t n = kConvN;
  Case c;
  c.file = "float_convert";
  c.entry = "float_to_int";
  c.grid = {grid_for(n, kConvBlock)};
  c.block = {kConvBlock};
  c.buffers = {{"f", to_bytes(convert_floats())},
               {"d", to_bytes(convert_doubles())},
               {"out", poison(9 * n * 4)}};
  c.args = {ptr("f"), ptr("d"), ptr("out"), s32(n)};
  c.outputs = {"out"};
  c.element = "s32";
  c.reference = [](const BufferMap& m) {
    const auto f = in<float>(m, "f");
    const auto d = in<double>(m, "d");
    std::vector<std::int32_t> out(9 * n);
    for (std::uint32_t i = 0; i < n; ++i) {
      const double x = f[i];                                                 // exact
      out[0 * n + i] = to_int_sat<std::int32_t>(x, IntRound::kNearestEven);  // cvt.rni.s32.f32
      out[1 * n + i] = to_int_sat<std::int32_t>(x, IntRound::kZero);
      out[2 * n + i] = to_int_sat<std::int32_t>(x, IntRound::kDown);
      out[3 * n + i] = to_int_sat<std::int32_t>(x, IntRound::kUp);
      out[4 * n + i] = static_cast<std::int32_t>(to_int_sat<std::uint32_t>(x, IntRound::kZero));
      // x * 0.5f: halving is exact except for denormals, whose truncation is 0 either way.
      out[5 * n + i] = to_int_sat<std::int32_t>(x * 0.5, IntRound::kZero);
      out[6 * n + i] = to_int_sat<std::int32_t>(d[i], IntRound::kNearestEven);
      out[7 * n + i] = to_int_sat<std::int32_t>(d[i], IntRound::kZero);
      out[8 * n + i] = static_cast<std::int32_t>(static_cast<std::uint32_t>(
          static_cast<std::uint64_t>(to_int_sat<std::int64_t>(x, IntRound::kZero))));
    }
    return BufferMap{{"out", to_bytes(out)}};
  };
  return c;
}

Case float_results_case() {
  constexpr std::uint32_t n = kConvN;
  Case c;
  c.file = "float_convert";
  c.entry = "float_results";
  c.grid = {grid_for(n, kConvBlock)};
  c.block = {kConvBlock};
  c.buffers = {{"f", to_bytes(convert_floats())},
               {"d", to_bytes(convert_doubles())},
               {"k", to_bytes(convert_ints())},
               {"out", poison(8 * n * 4)}};
  c.args = {ptr("f"), ptr("d"), ptr("k"), ptr("out"), s32(n)};
  c.outputs = {"out"};
  c.element = "f32";
  c.reference = [](const BufferMap& m) {
    const auto f = in<float>(m, "f");
    const auto d = in<double>(m, "d");
    const auto k = in<std::int32_t>(m, "k");
    std::vector<float> out(8 * n);
    for (std::uint32_t i = 0; i < n; ++i) {
      out[0 * n + i] = s32_to_f32(k[i], Round::kNearestEven);
      out[1 * n + i] = s32_to_f32(k[i], Round::kTowardZero);
      out[2 * n + i] = int_to_f32(as_u32(k[i]), false, Round::kNearestEven);
      out[3 * n + i] = f16_to_f32(f32_to_f16(f[i], Round::kNearestEven));
      out[4 * n + i] = bf16_to_f32(f32_to_bf16(f[i]));
      out[5 * n + i] = f64_to_f32(d[i]);
      // (float)((double)x * 3.0): the double product is exact (NaN stays NaN), one rounding.
      out[6 * n + i] = f64_to_f32(static_cast<double>(f[i]) * 3.0);
      out[7 * n + i] = f16_to_f32(f32_to_f16(f[i], Round::kTowardZero));
    }
    return BufferMap{{"out", to_bytes(out)}};
  };
  return c;
}

Case half_bits_case() {
  constexpr std::uint32_t n = kConvN;
  Case c;
  c.file = "float_convert";
  c.entry = "half_bits";
  c.grid = {grid_for(n, kConvBlock)};
  c.block = {kConvBlock};
  c.buffers = {{"f", to_bytes(convert_floats())}, {"out", poison(2 * n * 2)}};
  c.args = {ptr("f"), ptr("out"), s32(n)};
  c.outputs = {"out"};
  c.element = "u16";
  c.reference = [](const BufferMap& m) {
    const auto f = in<float>(m, "f");
    std::vector<std::uint16_t> out(2 * n);
    for (std::uint32_t i = 0; i < n; ++i) {
      out[0 * n + i] = f32_to_f16(f[i], Round::kNearestEven);  // NaN -> 0x7e00, as the kernel
      out[1 * n + i] = f32_to_bf16(f[i]);                      // NaN -> 0x7fc0, as the kernel
    }
    return BufferMap{{"out", to_bytes(out)}};
  };
  return c;
}

// ---- Hopper (sm_90a) cases: TMA, clusters, distributed shared memory, async copies ------------

std::vector<std::uint32_t> random_u32(std::uint64_t seed, std::size_t n) {
  SplitMix64 g{seed};
  std::vector<std::uint32_t> v(n);
  for (auto& x : v)
    x = g.u32();
  return v;
}

// A rank-2 u32 tensor map over `buffer`: width x height elements, rows `width * 4` bytes apart,
// box box_w x box_h, no interleave / swizzle / L2 promotion, out-of-bounds elements read as 0.
Arg tensor_map_2d_u32(std::string buffer, std::uint64_t width, std::uint64_t height,
                      std::uint32_t box_w, std::uint32_t box_h) {
  Arg a{ArgKind::kTensorMap, {}, 0};
  a.tensor_map.buffer = std::move(buffer);
  a.tensor_map.data_type = "UINT32";
  a.tensor_map.rank = 2;
  a.tensor_map.global_dim = {width, height};
  a.tensor_map.global_strides = {width * 4};
  a.tensor_map.box_dim = {box_w, box_h};
  a.tensor_map.element_strides = {1, 1};
  return a;
}

// tma_tile_load: CTA (bx, by) of a 4 x 3 grid loads the 32 x 8 boxes at (bx * 32 - 8, by * 8 - 3)
// and, after it, (bx * 32 - 4, by * 8 + 1) of a 100 x 20 u32 tensor; elements outside the tensor
// are zero (OOB fill NONE).
Case tma_tile_load_case() {
  constexpr std::uint32_t W = 100, H = 20, BW = 32, BH = 8, GX = 4, GY = 3;
  Case c;
  c.file = c.entry = "tma_tile_load";
  c.grid = {GX, GY};
  c.block = {128};
  c.buffers = {{"in", to_bytes(random_u32(101, W * H))},
               {"out", poison(GX * GY * 2 * BW * BH * 4)}};
  c.args = {tensor_map_2d_u32("in", W, H, BW, BH), ptr("out")};
  c.outputs = {"out"};
  c.element = "u32";
  c.reference = [](const BufferMap& m) {
    const auto t = in<std::uint32_t>(m, "in");
    std::vector<std::uint32_t> out(GX * GY * 2 * BW * BH);
    for (std::uint32_t by = 0; by < GY; ++by)
      for (std::uint32_t bx = 0; bx < GX; ++bx)
        for (std::uint32_t load = 0; load < 2; ++load)
          for (std::uint32_t r = 0; r < BH; ++r)
            for (std::uint32_t col = 0; col < BW; ++col) {
              const std::int64_t x = static_cast<std::int64_t>(bx * BW + col + 4 * load) - 8;
              const std::int64_t y = static_cast<std::int64_t>(by * BH + r + 4 * load) - 3;
              const bool inside = x >= 0 && x < W && y >= 0 && y < H;
              out[(((by * GX + bx) * 2 + load) * BH + r) * BW + col] =
                  inside ? t[static_cast<std::size_t>(y * W + x)] : 0u;
            }
    return BufferMap{{"out", to_bytes(out)}};
  };
  return c;
}

// tma_rewrite: one CTA copies tensor map `a` into the global slot, fences it
// (fence.proxy.tensormap), loads the 32 x 8 box at (0, 0) through the slot, then does the same
// with map `b`: out[0..255] is box (0, 0) of in1, out[256..511] box (0, 0) of in2.
Case tma_rewrite_case() {
  constexpr std::uint32_t W = 100, H = 20, BW = 32, BH = 8;
  Case c;
  c.file = c.entry = "tma_rewrite";
  c.grid = {1};
  c.block = {128};
  c.buffers = {{"in1", to_bytes(random_u32(103, W * H))},
               {"in2", to_bytes(random_u32(104, W * H))},
               {"slot", poison(128)},
               {"out", poison(2 * BW * BH * 4)}};
  c.args = {tensor_map_2d_u32("in1", W, H, BW, BH), tensor_map_2d_u32("in2", W, H, BW, BH),
            ptr("slot"), ptr("out")};
  c.outputs = {"out"};
  c.element = "u32";
  c.reference = [](const BufferMap& m) {
    std::vector<std::uint32_t> out(2 * BW * BH);
    for (std::uint32_t round = 0; round < 2; ++round) {
      const auto t = in<std::uint32_t>(m, round == 0 ? "in1" : "in2");
      for (std::uint32_t i = 0; i < BW * BH; ++i)
        out[round * BW * BH + i] = t[(i / BW) * W + i % BW];
    }
    return BufferMap{{"out", to_bytes(out)}};
  };
  return c;
}

// bulk_reduce: a cluster of 2. Rank r's s = in[r * 256 ..], t = in[512 + r * 256 ..] (256 u32
// each); rank 0 adds its s into rank 1's t over DSMEM, rank 1 adds that t into out (u32 add),
// rank 0 folds its s into out2 (s32 max).
Case bulk_reduce_case() {
  constexpr std::uint32_t N = 256;
  Case c;
  c.file = c.entry = "bulk_reduce";
  c.grid = {2};
  c.block = {64};
  c.cluster = {2};
  c.buffers = {{"in", to_bytes(random_u32(105, 4 * N))},
               {"out", to_bytes(random_u32(106, N))},
               {"out2", to_bytes(random_u32(107, N))}};
  c.args = {ptr("in"), ptr("out"), ptr("out2")};
  c.outputs = {"out", "out2"};
  c.element = "u32";
  c.reference = [](const BufferMap& m) {
    const auto x = in<std::uint32_t>(m, "in");
    auto out = in<std::uint32_t>(m, "out");
    auto out2 = in<std::uint32_t>(m, "out2");
    for (std::uint32_t i = 0; i < N; ++i) {
      out[i] += x[3 * N + i] + x[i];  // rank 1's t plus rank 0's s, wrapping
      const auto a = static_cast<std::int32_t>(out2[i]), b = static_cast<std::int32_t>(x[i]);
      out2[i] = static_cast<std::uint32_t>(std::max(a, b));
    }
    return BufferMap{{"out", to_bytes(out)}, {"out2", to_bytes(out2)}};
  };
  return c;
}

// tma_multicast: 4 clusters of 2 CTAs; cluster k's two CTAs both end up with the 32 x 8 tile at
// ((k % 2) * 32, (k / 2) * 8) of a 64 x 16 u32 tensor (each CTA loaded half of it, multicast).
Case tma_multicast_case() {
  constexpr std::uint32_t W = 64, H = 16, TW = 32, TH = 8, CTAS = 8;
  Case c;
  c.file = c.entry = "tma_multicast";
  c.grid = {CTAS};
  c.block = {128};
  c.cluster = {2};
  c.buffers = {{"in", to_bytes(random_u32(102, W * H))}, {"out", poison(CTAS * TW * TH * 4)}};
  c.args = {tensor_map_2d_u32("in", W, H, TW, TH / 2), ptr("out")};
  c.outputs = {"out"};
  c.element = "u32";
  c.reference = [](const BufferMap& m) {
    const auto t = in<std::uint32_t>(m, "in");
    std::vector<std::uint32_t> out(CTAS * TW * TH);
    for (std::uint32_t b = 0; b < CTAS; ++b) {
      const std::uint32_t k = b / 2, x0 = (k % 2) * TW, y0 = (k / 2) * TH;
      for (std::uint32_t r = 0; r < TH; ++r)
        for (std::uint32_t col = 0; col < TW; ++col)
          out[(b * TH + r) * TW + col] = t[(y0 + r) * W + x0 + col];
    }
    return BufferMap{{"out", to_bytes(out)}};
  };
  return c;
}

// dsmem_exchange: 2 clusters of 4 CTAs x 64 threads. CTA b (rank r = b % 4) holds
// s_b[i] = in[b * 64 + i] ^ (r << 24); thread i writes s of rank r+1 at i (+ r) and s of rank r+2
// at 63 - i; rank 0 sums (r + 1) * (i + 1) over its cluster.
Case dsmem_exchange_case() {
  constexpr std::uint32_t N = 64, CTAS = 8, CL = 4;
  Case c;
  c.file = c.entry = "dsmem_exchange";
  c.grid = {CTAS};
  c.block = {N};
  c.cluster = {CL};
  c.buffers = {{"in", to_bytes(random_u32(103, CTAS * N))},
               {"out", poison(CTAS * 2 * N * 4)},
               {"counts", poison(CTAS / CL * 4)}};
  c.args = {ptr("in"), ptr("out"), ptr("counts")};
  c.outputs = {"out", "counts"};
  c.element = "u32";
  c.reference = [](const BufferMap& m) {
    const auto v = in<std::uint32_t>(m, "in");
    auto s = [&](std::uint32_t b, std::uint32_t i) { return v[b * N + i] ^ ((b % CL) << 24); };
    std::vector<std::uint32_t> out(CTAS * 2 * N), counts(CTAS / CL, 0);
    for (std::uint32_t b = 0; b < CTAS; ++b) {
      const std::uint32_t r = b % CL, base = b - r;
      for (std::uint32_t i = 0; i < N; ++i) {
        out[b * 2 * N + i] = s(base + (r + 1) % CL, i) + r;
        out[b * 2 * N + N + i] = s(base + (r + 2) % CL, N - 1 - i);
        counts[b / CL] += (r + 1) * (i + 1);
      }
    }
    return BufferMap{{"out", to_bytes(out)}, {"counts", to_bytes(counts)}};
  };
  return c;
}

// tma_store_reduce: CTA (bx, by) of 3 x 3 stores its 16 x 8 tile into `dst` (40 x 20 u32) at
// (bx * 16, by * 8), clipped at the tensor's edge, and adds it (u32, wrapping) into `acc` (same
// shape) at (bx * 12 - 2, by * 6 - 1), clipped on all sides; the added boxes overlap.
Case tma_store_reduce_case() {
  constexpr std::uint32_t W = 40, H = 20, BW = 16, BH = 8, GX = 3, GY = 3;
  Case c;
  c.file = c.entry = "tma_store_reduce";
  c.grid = {GX, GY};
  c.block = {128};
  c.buffers = {{"dst", to_bytes(random_u32(104, W * H))},
               {"acc", to_bytes(random_u32(105, W * H))}};
  c.args = {tensor_map_2d_u32("dst", W, H, BW, BH), tensor_map_2d_u32("acc", W, H, BW, BH)};
  c.outputs = {"dst", "acc"};
  c.element = "u32";
  c.reference = [](const BufferMap& m) {
    auto dst = in<std::uint32_t>(m, "dst");
    auto acc = in<std::uint32_t>(m, "acc");
    for (std::uint32_t by = 0; by < GY; ++by)
      for (std::uint32_t bx = 0; bx < GX; ++bx) {
        const std::uint32_t cta = by * GX + bx;
        for (std::uint32_t r = 0; r < BH; ++r)
          for (std::uint32_t col = 0; col < BW; ++col) {
            const std::uint32_t t = (cta * 0x01000193u + r * BW + col) ^ 0x5a5a0000u;
            const std::int64_t sx = bx * BW + col, sy = by * BH + r;
            if (sx < W && sy < H) dst[static_cast<std::size_t>(sy * W + sx)] = t;
            const std::int64_t ax = static_cast<std::int64_t>(bx * 12 + col) - 2;
            const std::int64_t ay = static_cast<std::int64_t>(by * 6 + r) - 1;
            if (ax >= 0 && ax < W && ay >= 0 && ay < H)
              acc[static_cast<std::size_t>(ay * W + ax)] += t;
          }
      }
    return BufferMap{{"dst", to_bytes(dst)}, {"acc", to_bytes(acc)}};
  };
  return c;
}

// cp_async_pipeline: CTA b reads in[b * 1024 .. + 998) in chunks of 256 (zero-filled past 998)
// and writes out[b * 998 + k * 256 + j] = s[j - 1] + 2 s[j] + 3 s[j + 1], indices mod 256.
Case cp_async_pipeline_case() {
  constexpr std::uint32_t SEG = 998, STRIDE = 1024, CHUNK = 256, CTAS = 2;
  Case c;
  c.file = c.entry = "cp_async_pipeline";
  c.grid = {CTAS};
  c.block = {64};
  c.buffers = {{"in", to_bytes(random_u32(106, CTAS * STRIDE))}, {"out", poison(CTAS * SEG * 4)}};
  c.args = {ptr("in"), ptr("out")};
  c.outputs = {"out"};
  c.element = "u32";
  c.reference = [](const BufferMap& m) {
    const auto v = in<std::uint32_t>(m, "in");
    std::vector<std::uint32_t> out(CTAS * SEG);
    for (std::uint32_t b = 0; b < CTAS; ++b)
      for (std::uint32_t k = 0; k * CHUNK < SEG; ++k) {
        auto s = [&](std::uint32_t j) {
          const std::uint32_t e = k * CHUNK + j % CHUNK;
          return e < SEG ? v[b * STRIDE + e] : 0u;
        };
        for (std::uint32_t j = 0; j < CHUNK && k * CHUNK + j < SEG; ++j)
          out[b * SEG + k * CHUNK + j] = s(j + CHUNK - 1) + 2 * s(j) + 3 * s(j + 1);
      }
    return BufferMap{{"out", to_bytes(out)}};
  };
  return c;
}

// bulk_copy: dst[b * 1024 + i] = src[b * 1024 + i] * 3 + (b << 16) + i, through shared memory
// with 1D bulk copies, for 2 CTAs.
Case bulk_copy_case() {
  constexpr std::uint32_t WORDS = 1024, CTAS = 2;
  Case c;
  c.file = c.entry = "bulk_copy";
  c.grid = {CTAS};
  c.block = {128};
  c.buffers = {{"src", to_bytes(random_u32(107, CTAS * WORDS))}, {"dst", poison(CTAS * WORDS * 4)}};
  c.args = {ptr("src"), ptr("dst")};
  c.outputs = {"dst"};
  c.element = "u32";
  c.reference = [](const BufferMap& m) {
    auto v = in<std::uint32_t>(m, "src");
    for (std::uint32_t i = 0; i < CTAS * WORDS; ++i)
      v[i] = v[i] * 3u + ((i / WORDS) << 16) + i % WORDS;
    return BufferMap{{"dst", to_bytes(v)}};
  };
  return c;
}

// warp_intrinsics: 4 warps; in each, the odd-valued and the even-valued lanes (both present)
// run different redux.sync / vote.sync / elect.sync sequences with __activemask() as the member
// mask; 12 words per thread.
Case warp_intrinsics_case() {
  constexpr std::uint32_t N = 128, WORDS = 12;
  std::vector<std::uint32_t> v = random_u32(108, N);
  for (std::uint32_t w = 0; w < N / 32; ++w) {
    // Warp 1: every odd lane > 0x10000000 (the odd side's all() is true); warp 2: every even
    // lane < 0x40000000 as s32 (the even side's all() is true); lane 0 of warp 3 odd.
    for (std::uint32_t l = 0; l < 32; ++l) {
      auto& x = v[w * 32 + l];
      if (w == 1 && (x & 1) && x <= 0x10000000u) x |= 0x20000000u;
      if (w == 2 && !(x & 1)) x &= 0x3fffffffu;
    }
    if (w == 3) v[w * 32] |= 1u;
    v[w * 32 + 7] |= 1u;    // at least one odd lane
    v[w * 32 + 12] &= ~1u;  // at least one even lane
  }
  Case c;
  c.file = c.entry = "warp_intrinsics";
  c.grid = {2};
  c.block = {64};
  c.buffers = {{"in", to_bytes(v)}, {"out", poison(N * WORDS * 4)}};
  c.args = {ptr("in"), ptr("out")};
  c.outputs = {"out"};
  c.element = "u32";
  c.reference = [](const BufferMap& m) {
    const auto v = in<std::uint32_t>(m, "in");
    std::vector<std::uint32_t> out(N * WORDS);
    for (std::uint32_t w = 0; w < N / 32; ++w) {
      const std::uint32_t* x = &v[w * 32];
      std::uint32_t odd = 0;
      for (std::uint32_t l = 0; l < 32; ++l)
        odd |= (x[l] & 1u) << l;
      for (const bool side : {true, false}) {
        const std::uint32_t mask = side ? odd : ~odd;
        std::uint32_t sum = 0, umin = ~0u, umax = 0, band = ~0u, bor = 0, bxor = 0, ballot = 0;
        std::int32_t smin = std::numeric_limits<std::int32_t>::max();
        std::int32_t smax = std::numeric_limits<std::int32_t>::min();
        bool all = true, any = false;
        for (std::uint32_t l = 0; l < 32; ++l) {
          if (!((mask >> l) & 1)) continue;
          const std::uint32_t u = x[l];
          const std::int32_t sv = as_s32(u);
          if (side) {
            sum += u;
            umin = std::min(umin, u);
            umax = std::max(umax, u);
            band &= u;
            bor |= u;
            bxor ^= u;
            ballot |= ((u >> 1) & 1u) << l;
            all = all && u > 0x10000000u;
            any = any || (u & 4u);
          } else {
            smin = std::min(smin, sv);
            smax = std::max(smax, sv);
            sum += u >> 8;
            band &= u | 0x80000000u;
            bor |= u & 0xffu;
            bxor ^= (w % 2) * 32 + l;  // threadIdx.x
            ballot |= static_cast<std::uint32_t>(sv < 0) << l;
            all = all && sv < 0x40000000;
            any = any || u > 0xf0000000u;
          }
        }
        for (std::uint32_t l = 0; l < 32; ++l) {
          if (!((mask >> l) & 1)) continue;
          std::uint32_t* o = &out[(w * 32 + l) * WORDS];
          o[0] = mask;
          if (side) {
            o[1] = sum;
            o[2] = umin;
            o[3] = umax;
          } else {
            o[1] = as_u32(smin);
            o[2] = as_u32(smax);
            o[3] = sum;
          }
          o[4] = band;
          o[5] = bor;
          o[6] = bxor;
          o[7] = ballot;
          o[8] = (all ? 1u : 0u) | (any ? 2u : 0u);
          o[9] = 7u | (side ? 0u : 0x10000u);  // elect.sync consistent (the kernel's elect_check)
          o[10] = 0xffffffffu;
          o[11] = odd;
        }
      }
    }
    return BufferMap{{"out", to_bytes(out)}};
  };
  return c;
}

}  // namespace

// mma_gemm_f16 / mma_gemm_bf16: A and B hold multiples of 1/64 in [-2, 2) (exact in both
// formats), so every product and partial sum is exact in f32: the reference (a double
// accumulation) and any accumulation order the tensor core uses give the same bits (tolerance
// 0). Ch is C rounded to the 16-bit format (cvt.rn).
Case mma_gemm_case(bool bf16) {
  constexpr std::uint32_t M = 32, N = 32, K = 64;
  SplitMix64 g{bf16 ? 31u : 30u};
  const auto narrow16 = [bf16](float v) {
    return bf16 ? f32_to_bf16(v) : f32_to_f16(v, Round::kNearestEven);
  };
  std::vector<std::uint16_t> A(M * K), B(K * N);
  for (auto& e : A)
    e = narrow16(static_cast<float>(static_cast<int>(g.u32() % 256) - 128) / 64.0f);
  for (auto& e : B)
    e = narrow16(static_cast<float>(static_cast<int>(g.u32() % 256) - 128) / 64.0f);
  Case c;
  c.file = "mma_gemm";
  c.entry = bf16 ? "mma_gemm_bf16" : "mma_gemm_f16";
  c.grid = {N / 16, M / 16};
  c.block = {64};
  c.buffers = {
      {"A", to_bytes(A)}, {"B", to_bytes(B)}, {"C", poison(M * N * 4)}, {"Ch", poison(M * N * 2)}};
  c.args = {ptr("A"), ptr("B"), ptr("C"), ptr("Ch"), s32(M), s32(N), s32(K)};
  c.outputs = {"C", "Ch"};
  c.element = "u32";  // f32 C and 16-bit Ch, both exact
  c.reference = [bf16, narrow16](const BufferMap& m) {
    const auto A = in<std::uint16_t>(m, "A"), B = in<std::uint16_t>(m, "B");
    const auto wide = [bf16](std::uint16_t h) { return bf16 ? bf16_to_f32(h) : f16_to_f32(h); };
    std::vector<float> C(M * N);
    std::vector<std::uint16_t> Ch(M * N);
    for (std::uint32_t row = 0; row < M; ++row)
      for (std::uint32_t col = 0; col < N; ++col) {
        double acc = 0;
        for (std::uint32_t k = 0; k < K; ++k)
          acc += static_cast<double>(wide(A[row * K + k])) * wide(B[k * N + col]);
        C[row * N + col] = static_cast<float>(acc);
        Ch[row * N + col] = narrow16(C[row * N + col]);
      }
    return BufferMap{{"C", to_bytes(C)}, {"Ch", to_bytes(Ch)}};
  };
  return c;
}

// mma_shapes: one warp, one mma of each further shape (docs in mma_shapes.cu). Float inputs are
// multiples of 1/64 in [-2, 2) (exact as tf32 and f16; every partial sum exact in f32, so
// tolerance 0); integer C has entries near the s32 limits, so .satfinite clamps and the plain
// form wraps.
// mma_f16acc_k16: f16 accumulators; inputs are multiples of 1/4 in [-1, 1), so every sum is a
// multiple of 1/16 below 18 in magnitude: exact in f16, whatever rounding the hardware applies.
Case mma_f16acc_case() {
  SplitMix64 g{47};
  const auto quarter = [&g] {
    return f32_to_f16(static_cast<float>(static_cast<int>(g.u32() % 8) - 4) / 4.0f,
                      Round::kNearestEven);
  };
  std::vector<std::uint16_t> A(16 * 16), B(16 * 8), C(16 * 8);
  for (auto* v : {&A, &B, &C})
    for (auto& e : *v)
      e = quarter();
  Case c;
  c.file = "mma_shapes";
  c.entry = "mma_f16acc_k16";
  c.grid = {1};
  c.block = {32};
  c.buffers = {
      {"A", to_bytes(A)}, {"B", to_bytes(B)}, {"C", to_bytes(C)}, {"D", poison(16 * 8 * 2)}};
  c.args = {ptr("A"), ptr("B"), ptr("C"), ptr("D")};
  c.outputs = {"D"};
  c.element = "f16";
  c.reference = [](const BufferMap& m) {
    const auto A = in<std::uint16_t>(m, "A"), B = in<std::uint16_t>(m, "B"),
               C = in<std::uint16_t>(m, "C");
    std::vector<std::uint16_t> D(16 * 8);
    for (std::uint32_t row = 0; row < 16; ++row)
      for (std::uint32_t col = 0; col < 8; ++col) {
        double acc = f16_to_f32(C[row * 8 + col]);
        for (std::uint32_t k = 0; k < 16; ++k)
          acc += static_cast<double>(f16_to_f32(A[row * 16 + k])) * f16_to_f32(B[k * 8 + col]);
        D[row * 8 + col] = f32_to_f16(static_cast<float>(acc), Round::kNearestEven);
      }
    return BufferMap{{"D", to_bytes(D)}};
  };
  return c;
}

Case mma_shape_case(const std::string& entry) {
  const bool tf32 = entry == "mma_tf32_k8", f16 = entry == "mma_f16_k8";
  const bool s8 = entry == "mma_s8_k32";
  const std::uint32_t K = tf32 || f16 ? 8 : s8 ? 32 : 16;
  SplitMix64 g{40 + K + (tf32 ? 1u : 0u)};
  const auto sixty_fourths = [&g] {
    return static_cast<float>(static_cast<int>(g.u32() % 256) - 128) / 64.0f;
  };
  Case c;
  c.file = "mma_shapes";
  c.entry = entry;
  c.grid = {1};
  c.block = {32};
  if (tf32 || f16) {
    std::vector<float> A(16 * K), B(K * 8), C(16 * 8);
    for (auto* v : {&A, &B, &C})
      for (auto& e : *v)
        e = sixty_fourths();
    if (tf32) {
      c.buffers = {{"A", to_bytes(A)}, {"B", to_bytes(B)}};
    } else {
      std::vector<std::uint16_t> Ah(A.size()), Bh(B.size());
      for (std::size_t i = 0; i < A.size(); ++i)
        Ah[i] = f32_to_f16(A[i], Round::kNearestEven);
      for (std::size_t i = 0; i < B.size(); ++i)
        Bh[i] = f32_to_f16(B[i], Round::kNearestEven);
      c.buffers = {{"A", to_bytes(Ah)}, {"B", to_bytes(Bh)}};
    }
    c.buffers.push_back({"C", to_bytes(C)});
    c.element = "f32";
    c.reference = [A, B, K](const BufferMap& m) {
      const auto C = in<float>(m, "C");
      std::vector<float> D(16 * 8);
      for (std::uint32_t row = 0; row < 16; ++row)
        for (std::uint32_t col = 0; col < 8; ++col) {
          double acc = C[row * 8 + col];
          for (std::uint32_t k = 0; k < K; ++k)
            acc += static_cast<double>(A[row * K + k]) * B[k * 8 + col];
          D[row * 8 + col] = static_cast<float>(acc);
        }
      return BufferMap{{"D", to_bytes(D)}};
    };
  } else {
    std::vector<std::uint8_t> A(16 * K), B(K * 8);
    for (auto& e : A)
      e = static_cast<std::uint8_t>(g.u32());
    for (auto& e : B)
      e = static_cast<std::uint8_t>(g.u32());
    std::vector<std::int32_t> C(16 * 8);
    for (std::size_t i = 0; i < C.size(); ++i)
      C[i] = i % 5 == 0   ? 2147483000
             : i % 5 == 1 ? -2147483000
                          : static_cast<std::int32_t>(g.u32() % 2001) - 1000;
    c.buffers = {{"A", A}, {"B", B}, {"C", to_bytes(C)}};
    c.element = "s32";
    c.reference = [s8, K](const BufferMap& m) {
      const auto A = in<std::uint8_t>(m, "A"), B = in<std::uint8_t>(m, "B");
      const auto C = in<std::int32_t>(m, "C");
      std::vector<std::int32_t> D(16 * 8);
      for (std::uint32_t row = 0; row < 16; ++row)
        for (std::uint32_t col = 0; col < 8; ++col) {
          std::int64_t acc = C[row * 8 + col];
          for (std::uint32_t k = 0; k < K; ++k) {
            const std::int64_t a = s8 ? static_cast<std::int8_t>(A[row * K + k]) : A[row * K + k];
            acc += a * static_cast<std::int8_t>(B[k * 8 + col]);
          }
          if (s8)  // .satfinite
            acc = std::clamp<std::int64_t>(acc, std::numeric_limits<std::int32_t>::min(),
                                           std::numeric_limits<std::int32_t>::max());
          D[row * 8 + col] = static_cast<std::int32_t>(static_cast<std::uint32_t>(acc));
        }
      return BufferMap{{"D", to_bytes(D)}};
    };
  }
  c.buffers.push_back({"D", poison(16 * 8 * 4)});
  c.args = {ptr("A"), ptr("B"), ptr("C"), ptr("D")};
  c.outputs = {"D"};
  return c;
}

// wmma_gemm_f16 / wmma_gemm_bf16 (layouts in wmma_gemm.cu): inputs are multiples of 1/64 in
// [-2, 2), so every partial sum is exact in f32 and the comparison bit-exact (tolerance 0).
// wmma_gemm_f16acc: f16 accumulators; inputs are multiples of 1/4 in [-1, 1) and K = 32, so every
// partial sum is a multiple of 1/16 below 33 in magnitude: exact in f16 (tolerance 0).
Case wmma_f16acc_case() {
  constexpr std::uint32_t M = 32, N = 32, K = 32;
  SplitMix64 g{52};
  const auto quarter = [&g] {
    return f32_to_f16(static_cast<float>(static_cast<int>(g.u32() % 8) - 4) / 4.0f,
                      Round::kNearestEven);
  };
  std::vector<std::uint16_t> A(M * K), B(K * N), C(M * N);
  for (auto* v : {&A, &B, &C})
    for (auto& e : *v)
      e = quarter();
  Case c;
  c.file = "wmma_gemm";
  c.entry = "wmma_gemm_f16acc";
  c.grid = {N / 16, M / 16};
  c.block = {32};
  c.buffers = {
      {"A", to_bytes(A)}, {"B", to_bytes(B)}, {"C", to_bytes(C)}, {"Ct", poison(M * N * 2)}};
  c.args = {ptr("A"), ptr("B"), ptr("C"), ptr("Ct"), s32(M), s32(N), s32(K)};
  c.outputs = {"Ct"};
  c.element = "f16";
  c.reference = [](const BufferMap& m) {
    const auto A = in<std::uint16_t>(m, "A"), B = in<std::uint16_t>(m, "B"),
               C = in<std::uint16_t>(m, "C");
    std::vector<std::uint16_t> Ct(M * N);
    for (std::uint32_t row = 0; row < M; ++row)
      for (std::uint32_t col = 0; col < N; ++col) {
        double acc = f16_to_f32(C[row * N + col]);
        for (std::uint32_t k = 0; k < K; ++k)
          acc += static_cast<double>(f16_to_f32(A[row * K + k])) * f16_to_f32(B[k * N + col]);
        Ct[col * M + row] = f32_to_f16(static_cast<float>(acc), Round::kNearestEven);
      }
    return BufferMap{{"Ct", to_bytes(Ct)}};
  };
  return c;
}

Case wmma_gemm_case(bool bf16) {
  constexpr std::uint32_t M = 32, N = 32, K = 64;
  SplitMix64 g{bf16 ? 51u : 50u};
  const auto sixty_fourths = [&g] {
    return static_cast<float>(static_cast<int>(g.u32() % 256) - 128) / 64.0f;
  };
  const auto narrow16 = [bf16](float v) {
    return bf16 ? f32_to_bf16(v) : f32_to_f16(v, Round::kNearestEven);
  };
  // A as stored (f16: M x K row-major; bf16: K x M), B as stored (f16: N x K; bf16: K x N).
  std::vector<std::uint16_t> A(M * K), B(K * N);
  for (auto& e : A)
    e = narrow16(sixty_fourths());
  for (auto& e : B)
    e = narrow16(sixty_fourths());
  std::vector<float> C(M * N);
  for (auto& e : C)
    e = sixty_fourths();
  Case c;
  c.file = "wmma_gemm";
  c.entry = bf16 ? "wmma_gemm_bf16" : "wmma_gemm_f16";
  c.grid = {N / 16, M / 16};
  c.block = {32};
  c.buffers = {
      {"A", to_bytes(A)}, {"B", to_bytes(B)}, {"C", bf16 ? poison(M * N * 4) : to_bytes(C)}};
  c.args = {ptr("A"), ptr("B"), ptr("C"), s32(M), s32(N), s32(K)};
  c.outputs = {"C"};
  c.element = "f32";
  c.reference = [bf16](const BufferMap& m) {
    const auto A = in<std::uint16_t>(m, "A"), B = in<std::uint16_t>(m, "B");
    const auto wide = [bf16](std::uint16_t h) { return bf16 ? bf16_to_f32(h) : f16_to_f32(h); };
    auto C = in<float>(m, "C");
    for (std::uint32_t row = 0; row < M; ++row)
      for (std::uint32_t col = 0; col < N; ++col) {
        double acc = bf16 ? 0.0 : C[row * N + col];
        for (std::uint32_t k = 0; k < K; ++k) {
          const float a = wide(bf16 ? A[k * M + row] : A[row * K + k]);
          const float b = wide(bf16 ? B[k * N + col] : B[col * K + k]);
          acc += static_cast<double>(a) * b;
        }
        if (bf16)
          C[col * M + row] = static_cast<float>(2 * acc);  // doubled, stored column-major
        else
          C[row * N + col] = static_cast<float>(acc);
      }
    return BufferMap{{"C", to_bytes(C)}};
  };
  return c;
}

// half_arith / bf16_arith: each half of each .x2 operation, from the exact value in double
// (inputs have exponents in [-8, 8], so sums, products and fma's a*b+c are exact there) rounded
// once to nearest even. Some lanes hold NaN, infinities, signed zeros, x - x, an fma that cancels
// to its residual, and the largest finite value (overflow). Compared per 16-bit element, any NaN
// equal to any NaN.
Case half_arith_case(bool bf16) {
  constexpr std::uint32_t n = 256, block = 128;
  SplitMix64 g{bf16 ? 61u : 60u};
  const int frac = bf16 ? 7 : 10, bias = bf16 ? 127 : 15, ebits = bf16 ? 8 : 5;
  const std::uint16_t nan = bf16 ? 0x7FC0 : 0x7E00, inf = bf16 ? 0x7F80 : 0x7C00;
  const auto to16 = [frac, bias, ebits](double v) {
    return static_cast<std::uint16_t>(narrow(decode(v), frac, bias, ebits, Round::kNearestEven));
  };
  const auto from16 = [bf16](std::uint16_t h) -> double {
    return bf16 ? bf16_to_f32(h) : f16_to_f32(h);
  };
  const auto random16 = [&g, frac, bias] {
    const std::uint32_t r = g.u32();
    const int e = static_cast<int>((r >> 8) % 17) - 8;
    return static_cast<std::uint16_t>(((r >> 31) << 15) |
                                      (static_cast<std::uint32_t>(e + bias) << frac) |
                                      (r & ((1u << frac) - 1)));
  };
  std::vector<std::uint32_t> A(n), B(n), C(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    std::uint16_t a[2], b[2], c[2];
    for (int h = 0; h < 2; ++h) {
      a[h] = random16();
      b[h] = random16();
      c[h] = random16();
      switch ((i + 7 * h) % 16) {  // the specials, in different lanes for the two halves
        case 0:
          a[h] = nan;
          break;
        case 1:
          b[h] = nan;
          break;
        case 2:
          a[h] = 0x0000;
          b[h] = 0x8000;
          break;
        case 3:
          a[h] = inf;
          b[h] = inf | 0x8000;
          break;
        case 4:
          b[h] = a[h];
          break;
        case 5:
          c[h] = to16(-from16(a[h]) * from16(b[h]));
          break;
        case 6:
          a[h] = b[h] = static_cast<std::uint16_t>(inf - 1);
          break;
        case 7:
          b[h] = a[h] ^ 0x8000;
          break;
        default:
          break;
      }
    }
    A[i] = a[0] | (std::uint32_t{a[1]} << 16);
    B[i] = b[0] | (std::uint32_t{b[1]} << 16);
    C[i] = c[0] | (std::uint32_t{c[1]} << 16);
  }
  Case c;
  c.file = "half_arith";
  c.entry = bf16 ? "bf16_arith" : "half_arith";
  c.grid = {grid_for(n, block)};
  c.block = {block};
  c.buffers = {{"a", to_bytes(A)}, {"b", to_bytes(B)}, {"c", to_bytes(C)}, {"out", poison(n * 32)}};
  c.args = {ptr("a"), ptr("b"), ptr("c"), ptr("out"), s32(n)};
  c.outputs = {"out"};
  c.element = bf16 ? "bf16" : "f16";
  c.reference = [to16, from16, frac, ebits](const BufferMap& m) {
    const auto A = in<std::uint32_t>(m, "a"), B = in<std::uint32_t>(m, "b"),
               C = in<std::uint32_t>(m, "c");
    const auto is_nan = [frac, ebits](std::uint16_t h) {
      const std::uint32_t e = ((1u << ebits) - 1) << frac;
      return (h & e) == e && (h & ((1u << frac) - 1)) != 0;
    };
    std::vector<std::uint32_t> out(A.size() * 8);
    for (std::size_t i = 0; i < A.size(); ++i)
      for (int h = 0; h < 2; ++h) {
        const auto a = static_cast<std::uint16_t>(A[i] >> (16 * h)),
                   b = static_cast<std::uint16_t>(B[i] >> (16 * h)),
                   cc = static_cast<std::uint16_t>(C[i] >> (16 * h));
        const double x = from16(a), y = from16(b), z = from16(cc);
        // -0 < +0 for max and min; a NaN operand is dropped by max, poisons min.NaN.
        const bool a_less = x < y || (x == 0 && y == 0 && (a & 0x8000) != 0);
        std::uint16_t r[8];
        r[0] = to16(x + y);
        r[1] = to16(x - y);
        r[2] = to16(x * y);
        r[3] = to16(x * y + z);
        r[4] = is_nan(a) ? b : is_nan(b) ? a : a_less ? b : a;
        r[5] = is_nan(a) || is_nan(b) ? 0x7FFF : a_less ? a : b;
        r[6] = is_nan(r[3]) ? r[3] : (r[3] & 0x8000) != 0 ? 0 : r[3];
        r[7] = static_cast<std::uint16_t>(a | 0x8000);
        for (int k = 0; k < 8; ++k)
          out[8 * i + k] |= std::uint32_t{r[k]} << (16 * h);
      }
    return BufferMap{{"out", to_bytes(out)}};
  };
  return c;
}

std::vector<Case> corpus_cases() {
  std::vector<Case> cases;
  cases.push_back(saxpy_case());
  cases.push_back(vec_add_int_case());
  cases.push_back(bit_tricks_case());
  cases.push_back(collatz_case());
  cases.push_back(warp_reduce_case());
  cases.push_back(block_reduce_shared_case());
  cases.push_back(block_vote_case());
  cases.push_back(named_handoff_case());
  cases.push_back(warp_match_case());
  cases.push_back(indirect_calls_case());
  cases.push_back(device_pointers_case());
  cases.push_back(histogram_shared_case());
  cases.push_back(sgemm_tiled_case());
  cases.push_back(transpose_shared_case());
  cases.push_back(daxpy_dot_case());
  cases.push_back(local_array_case());
  cases.push_back(device_calls_case());
  cases.push_back(int_divmod_case());
  cases.push_back(float_to_int_case());
  cases.push_back(float_results_case());
  cases.push_back(half_bits_case());
  cases.push_back(half_arith_case(false));
  cases.push_back(half_arith_case(true));
  cases.push_back(device_globals_case());
  return cases;
}

std::vector<Case> hopper_cases() {
  std::vector<Case> cases;
  cases.push_back(tma_tile_load_case());
  cases.push_back(tma_rewrite_case());
  cases.push_back(tma_multicast_case());
  cases.push_back(dsmem_exchange_case());
  cases.push_back(tma_store_reduce_case());
  cases.push_back(cp_async_pipeline_case());
  cases.push_back(bulk_copy_case());
  cases.push_back(bulk_reduce_case());
  cases.push_back(warp_intrinsics_case());
  cases.push_back(mma_gemm_case(false));
  cases.push_back(mma_gemm_case(true));
  for (const char* entry : {"mma_tf32_k8", "mma_f16_k8", "mma_s8_k32", "mma_u8s8_k16"})
    cases.push_back(mma_shape_case(entry));
  cases.push_back(mma_f16acc_case());
  cases.push_back(wmma_gemm_case(false));
  cases.push_back(wmma_gemm_case(true));
  cases.push_back(wmma_f16acc_case());
  return cases;
}

}  // namespace xpusim::ptx_corpus
