// Tile reductions (cp.reduce.async.bulk.tensor) against scalar references written here from the
// PTX / CUDA definitions, plus hand-computed bit patterns for the rounding corner cases.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "sim/rng.h"
#include "tma/copy_engine.h"

namespace xpusim::tma {
namespace {

constexpr std::array<ReduceOp, 8> kOps = {ReduceOp::kAdd, ReduceOp::kMin, ReduceOp::kMax,
                                          ReduceOp::kInc, ReduceOp::kDec, ReduceOp::kAnd,
                                          ReduceOp::kOr,  ReduceOp::kXor};

// ---- scalar references -------------------------------------------------------------------------

double decode16(std::uint16_t v, bool bf) {
  if (bf) {
    float f;
    const std::uint32_t w = std::uint32_t{v} << 16;
    std::memcpy(&f, &w, 4);
    return f;
  }
  const double sign = v & 0x8000 ? -1.0 : 1.0;
  const int exp = v >> 10 & 0x1F, mant = v & 0x3FF;
  if (exp == 0) return sign * std::ldexp(mant, -24);
  if (exp == 31) return mant ? std::numeric_limits<double>::quiet_NaN() : sign * INFINITY;
  return sign * std::ldexp(1024 + mant, exp - 25);
}

// Nearest-even encoding of x in a binary format with `mb` stored mantissa bits and minimum
// normal exponent `emin` (f16: 10, -14; bf16: 7, -126), by scaling and nearbyint.
std::uint16_t encode16(double x, bool bf) {
  const int mb = bf ? 7 : 10, emin = bf ? -126 : -14, emax = bf ? 127 : 15;
  const std::uint16_t inf = bf ? 0x7F80 : 0x7C00;
  if (std::isnan(x)) return 0x7FFF;
  const std::uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  const double a = std::fabs(x);
  if (a == 0) return sign;
  if (std::isinf(a)) return sign | inf;
  int e = std::max(std::ilogb(a), emin);
  double q = std::nearbyint(std::ldexp(a, mb - e));
  if (q == std::ldexp(1.0, mb + 1)) q = std::ldexp(1.0, mb), ++e;
  if (e > emax) return sign | inf;
  if (q < std::ldexp(1.0, mb)) return sign | static_cast<std::uint16_t>(q);  // subnormal
  return sign | static_cast<std::uint16_t>((e - emin + 1) << mb |
                                           static_cast<int>(q - std::ldexp(1.0, mb)));
}

std::uint16_t ref16(ReduceOp op, bool bf, std::uint16_t d, std::uint16_t s) {
  const double a = decode16(d, bf), b = decode16(s, bf);
  if (op == ReduceOp::kAdd) return encode16(a + b, bf);
  if (std::isnan(a) && std::isnan(b)) return 0x7FFF;
  if (std::isnan(a)) return s;
  if (std::isnan(b)) return d;
  const bool min = op == ReduceOp::kMin;
  if (a == b) return (std::signbit(a) == min) ? d : s;
  return ((a < b) == min) ? d : s;
}

std::uint32_t ref_f32(bool ftz, std::uint32_t d, std::uint32_t s) {
  const auto value = [ftz](std::uint32_t bits) {
    float f;
    std::memcpy(&f, &bits, 4);
    if (ftz && (bits & 0x7F800000) == 0) f = (bits >> 31) ? -0.0f : 0.0f;
    return f;
  };
  float r = value(d) + value(s);
  if (std::isnan(r)) return 0x7FFFFFFF;
  std::uint32_t out;
  std::memcpy(&out, &r, 4);
  if (ftz && (out & 0x7F800000) == 0) out &= 0x80000000;
  return out;
}

std::uint64_t ref_f64(std::uint64_t d, std::uint64_t s) {
  double a, b;
  std::memcpy(&a, &d, 8);
  std::memcpy(&b, &s, 8);
  const double r = a + b;
  if (std::isnan(r)) return 0x7FFFFFFFFFFFFFFF;
  std::uint64_t out;
  std::memcpy(&out, &r, 8);
  return out;
}

template <class U, class S>
U ref_int(ReduceOp op, U d, U s) {
  switch (op) {
    case ReduceOp::kAdd:
      return static_cast<U>(d + s);
    case ReduceOp::kMin:
      return static_cast<S>(d) <= static_cast<S>(s) ? d : s;
    case ReduceOp::kMax:
      return static_cast<S>(d) >= static_cast<S>(s) ? d : s;
    case ReduceOp::kInc:  // CUDA atomicInc
      return d >= s ? 0 : d + 1;
    case ReduceOp::kDec:  // CUDA atomicDec
      return (d == 0 || d > s) ? s : d - 1;
    case ReduceOp::kAnd:
      return d & s;
    case ReduceOp::kOr:
      return d | s;
    case ReduceOp::kXor:
      return d ^ s;
  }
  return d;
}

std::uint64_t reference(ReduceOp op, DataType t, std::uint64_t d, std::uint64_t s) {
  switch (t) {
    case DataType::kUint32:
      return ref_int<std::uint32_t, std::uint32_t>(op, static_cast<std::uint32_t>(d),
                                                   static_cast<std::uint32_t>(s));
    case DataType::kInt32:
      return ref_int<std::uint32_t, std::int32_t>(op, static_cast<std::uint32_t>(d),
                                                  static_cast<std::uint32_t>(s));
    case DataType::kUint64:
      return ref_int<std::uint64_t, std::uint64_t>(op, d, s);
    case DataType::kInt64:
      return ref_int<std::uint64_t, std::int64_t>(op, d, s);
    case DataType::kFloat16:
    case DataType::kBfloat16:
      return ref16(op, t == DataType::kBfloat16, static_cast<std::uint16_t>(d),
                   static_cast<std::uint16_t>(s));
    case DataType::kFloat64:
      return ref_f64(d, s);
    default:  // the f32 family
      return ref_f32(t == DataType::kFloat32Ftz || t == DataType::kTfloat32Ftz,
                     static_cast<std::uint32_t>(d), static_cast<std::uint32_t>(s));
  }
}

// ---- driver: one reduce_tile over a 1-D tensor
// ---------------------------------------------------

struct ReduceRun {
  std::vector<std::uint64_t> out;
  Result<CopyReport> report = Error{""};
};

// Reduces `src` (shared) into `dst` (global) elementwise; elements of element_bits(t) bits.
ReduceRun reduce_1d(ReduceOp op, DataType t, const std::vector<std::uint64_t>& dst,
                    const std::vector<std::uint64_t>& src) {
  const std::uint32_t size = element_bits(t) / 8;
  TensorMap m;
  m.data_type = t;
  m.rank = 1;
  m.global_address = 0x30000;
  m.global_dim[0] = dst.size();
  m.box_dim[0] = static_cast<std::uint32_t>(dst.size());
  m.element_strides = {1, 1, 1, 1, 1};
  mem::GlobalMemory g;
  mem::SharedMemory s(4096);
  for (std::size_t i = 0; i < dst.size(); ++i) {
    EXPECT_TRUE(
        g.write(m.global_address + i * size, std::as_bytes(std::span(&dst[i], 1)).first(size))
            .ok());
    std::memcpy(s.bytes().data() + i * size, &src[i], size);
  }
  ReduceRun run;
  const std::array<std::int32_t, 1> at = {0};
  run.report = reduce_tile(m, op, at, s, 0, g);
  for (std::size_t i = 0; i < dst.size(); ++i) {
    std::uint64_t v = 0;
    EXPECT_TRUE(
        g.read(m.global_address + i * size, std::as_writable_bytes(std::span(&v, 1)).first(size))
            .ok());
    run.out.push_back(v);
  }
  return run;
}

void expect_cases(ReduceOp op, DataType t,
                  const std::vector<std::array<std::uint64_t, 3>>& cases) {  // {d, s, want}
  const std::uint32_t per16 = 16 / (element_bits(t) / 8);
  std::vector<std::uint64_t> d, s;
  for (const auto& c : cases)
    d.push_back(c[0]), s.push_back(c[1]);
  while (d.size() % per16 != 0)
    d.push_back(0), s.push_back(0);
  const ReduceRun run = reduce_1d(op, t, d, s);
  ASSERT_TRUE(run.report.ok()) << run.report.error().message;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    EXPECT_EQ(run.out[i], cases[i][2])
        << name(op) << "." << name(t) << fmt::format(" {:#x} op {:#x}", cases[i][0], cases[i][1]);
  }
}

TEST(Reduce, HalfPrecisionAddRoundsToNearestEven) {
  expect_cases(ReduceOp::kAdd, DataType::kFloat16,
               {{0x3C00, 0x1000, 0x3C00},  // 1 + 2^-11: tie, stays on even 1.0
                {0x3C01, 0x1000, 0x3C02},  // 1+2^-10 + 2^-11: tie, rounds up to even
                {0x3C00, 0x1001, 0x3C01},  // just above the tie
                {0x7BFF, 0x5000, 0x7C00},  // 65504 + 32 = 65536 -> +inf
                {0x7BFF, 0x4C00, 0x7C00},  // 65504 + 16 = 65520: tie, the even side is 2^16 -> inf
                {0x0001, 0x0001, 0x0002},  // subnormals add exactly
                {0x8400, 0x0401, 0x0001},  // -2^-14 + (2^-14 + 2^-24) = 2^-24
                {0x3C00, 0xBC00, 0x0000},  // 1 - 1 = +0
                {0x7C00, 0xFC00, 0x7FFF},  // inf - inf: canonical NaN
                {0x7E01, 0x3C00, 0x7FFF}});  // NaN payload not propagated
}

TEST(Reduce, BfloatAddRoundsToNearestEven) {
  expect_cases(ReduceOp::kAdd, DataType::kBfloat16,
               {{0x3F80, 0x3B80, 0x3F80},    // 1 + 2^-8: tie, stays on 1.0
                {0x3F81, 0x3B80, 0x3F82},    // tie, rounds up to even
                {0x3F80, 0x3B81, 0x3F81},    // above the tie
                {0x7F7F, 0x7F7F, 0x7F80},    // max + max -> +inf
                {0x0001, 0x0001, 0x0002},    // subnormals
                {0xFF80, 0x7F80, 0x7FFF}});  // -inf + inf: canonical NaN
}

TEST(Reduce, HalfMinMaxOrderSignedZerosAndSkipNans) {
  expect_cases(ReduceOp::kMin, DataType::kFloat16,
               {{0x0000, 0x8000, 0x8000},
                {0x8000, 0x0000, 0x8000},
                {0x7E00, 0x3C00, 0x3C00},
                {0x3C00, 0x7E00, 0x3C00},
                {0x7E00, 0x7D00, 0x7FFF},
                {0xBC00, 0x3C00, 0xBC00}});
  expect_cases(ReduceOp::kMax, DataType::kBfloat16,
               {{0x0000, 0x8000, 0x0000},
                {0x8000, 0x0000, 0x0000},
                {0x7FC0, 0xBF80, 0xBF80},
                {0xFF80, 0x0001, 0x0001}});
}

TEST(Reduce, FloatAddFlushesOnlyForFtzTypes) {
  expect_cases(ReduceOp::kAdd, DataType::kFloat32,
               {{0x00000001, 0x00000001, 0x00000002},  // subnormals kept
                {0x00C00000, 0x80800000, 0x00400000},  // normal - normal = subnormal
                {0x3F800000, 0x33800000, 0x3F800000},  // 1 + 2^-24: tie to even
                {0x3F800001, 0x33800000, 0x3F800002}});
  for (DataType t : {DataType::kFloat32Ftz, DataType::kTfloat32Ftz}) {
    expect_cases(ReduceOp::kAdd, t,
                 {{0x00000001, 0x00000001, 0x00000000},    // inputs flushed
                  {0x00C00000, 0x80800000, 0x00000000},    // result flushed
                  {0x80000001, 0x80000000, 0x80000000}});  // sign-preserving zero
  }
  expect_cases(ReduceOp::kAdd, DataType::kFloat64,
               {{0x3FF0000000000000, 0x3CA0000000000000, 0x3FF0000000000000},    // tie
                {0x7FF0000000000000, 0xFFF0000000000000, 0x7FFFFFFFFFFFFFFF}});  // NaN
}

TEST(Reduce, IntegerWrapIncDecAndSignedness) {
  expect_cases(ReduceOp::kAdd, DataType::kUint32, {{0xFFFFFFFF, 2, 1}});
  expect_cases(ReduceOp::kAdd, DataType::kInt32, {{0x7FFFFFFF, 1, 0x80000000}});
  expect_cases(ReduceOp::kAdd, DataType::kUint64, {{~0ull, 3, 2}});
  expect_cases(ReduceOp::kInc, DataType::kUint32,
               {{5, 5, 0}, {4, 5, 5}, {6, 5, 0}, {0xFFFFFFFF, 0xFFFFFFFF, 0}, {0, 0, 0}});
  expect_cases(ReduceOp::kDec, DataType::kUint32,
               {{0, 7, 7}, {8, 7, 7}, {3, 7, 2}, {7, 7, 6}, {0, 0, 0}, {1, 0, 0}});
  expect_cases(ReduceOp::kMin, DataType::kInt32, {{0xFFFFFFFF, 1, 0xFFFFFFFF}});
  expect_cases(ReduceOp::kMin, DataType::kUint32, {{0xFFFFFFFF, 1, 1}});
  expect_cases(ReduceOp::kMax, DataType::kInt64, {{~0ull, 1, 1}});
  expect_cases(ReduceOp::kMax, DataType::kUint64, {{~0ull, 1, ~0ull}});
  expect_cases(ReduceOp::kXor, DataType::kUint64, {{0xF0F0, 0xFF00, 0x0FF0}});
  expect_cases(ReduceOp::kAnd, DataType::kInt32, {{0xF0F0, 0xFF00, 0xF000}});
  expect_cases(ReduceOp::kOr, DataType::kUint32, {{0xF0F0, 0xFF00, 0xFFF0}});
}

// Every supported (op, type) pair on random operands with special values mixed in.
TEST(Reduce, EverySupportedPairMatchesTheScalarReference) {
  auto rng = sim::Rng::for_stream(11, "tma.reduce");
  const std::array<std::uint64_t, 8> specials = {0,          0x8000,     0x7C00,     0x7FFF,
                                                 0x80000000, 0x7F800000, 0x00000001, ~0ull};
  int pairs = 0;
  for (int ti = 0; ti < 16; ++ti) {
    const auto t = static_cast<DataType>(ti);
    for (ReduceOp op : kOps) {
      const std::vector<std::uint64_t> d0(16, 0), s0(16, 0);
      const bool supported = reduce_1d(op, t, d0, s0).report.ok();
      if (!supported) continue;
      ++pairs;
      const std::uint32_t bits = element_bits(t);
      const std::uint64_t mask = bits == 64 ? ~0ull : (1ull << bits) - 1;
      for (int round = 0; round < 8; ++round) {  // 256 elements: box_dim <= 256
        std::vector<std::uint64_t> d, s;
        for (int i = 0; i < 256; ++i) {
          const auto value = [&] {
            return (rng.uniform(4) == 0 ? specials[rng.uniform(specials.size())] : rng.next_u64()) &
                   mask;
          };
          d.push_back(value());
          s.push_back(value());
        }
        const ReduceRun run = reduce_1d(op, t, d, s);
        ASSERT_TRUE(run.report.ok()) << run.report.error().message;
        for (std::size_t i = 0; i < d.size(); ++i) {
          ASSERT_EQ(run.out[i], reference(op, t, d[i], s[i]) & mask)
              << name(op) << "." << name(t) << fmt::format(" {:#x} op {:#x}", d[i], s[i]);
        }
      }
    }
  }
  EXPECT_EQ(pairs, 8 + 6 * 3 + 3 * 2 + 5);  // u32, s32/u64/s64, f16/bf16, f32 family + f64
}

TEST(Reduce, UnsupportedPairsAreErrorsNamingOpAndType) {
  for (int ti = 0; ti < 16; ++ti) {
    const auto t = static_cast<DataType>(ti);
    for (ReduceOp op : kOps) {
      const std::uint32_t per16 = std::max<std::uint32_t>(1, 128 / element_bits(t));
      const std::vector<std::uint64_t> d(per16 * 8, 5), s(per16 * 8, 9);
      const ReduceRun run = reduce_1d(op, t, d, s);
      if (run.report.ok()) continue;
      const std::string& msg = run.report.error().message;
      EXPECT_NE(msg.find(fmt::format(".{} ", name(op))), std::string::npos) << msg;
      EXPECT_NE(msg.find(name(t)), std::string::npos) << msg;
      if (!is_packed(t)) {
        EXPECT_EQ(run.out, d) << msg;  // nothing written
      }
    }
  }
}

TEST(Reduce, SwizzledSourceAndOutOfBoundsElementsFollowTheBoxLayout) {
  // Load a box (swizzled), then reduce it into a second tensor of the same shape: every
  // in-bounds element doubles its own value and nothing outside the tensor changes.
  TensorMap m;
  m.data_type = DataType::kUint32;
  m.rank = 2;
  m.global_address = 0x50000;
  m.global_dim = {30, 7, 0, 0, 0};
  m.global_strides = {128, 0, 0, 0};
  m.box_dim = {32, 8, 0, 0, 0};
  m.element_strides = {1, 1, 1, 1, 1};
  m.swizzle = Swizzle::k128B;
  mem::GlobalMemory g;
  ASSERT_TRUE(g.fill(m.global_address - 128, 128 * 9, std::byte{0x5A}).ok());
  for (std::uint32_t r = 0; r < 7; ++r) {
    for (std::uint32_t c = 0; c < 30; ++c) {
      const std::uint32_t v = r * 1000 + c;
      ASSERT_TRUE(
          g.write(m.global_address + r * 128 + c * 4, std::as_bytes(std::span(&v, 1))).ok());
    }
  }
  mem::SharedMemory s(2048);
  const std::array<SmemTarget, 1> dst = {{{&s, 1024}}};
  const std::array<std::int32_t, 2> at = {0, 0};
  ASSERT_TRUE(load_tile(m, at, g, dst).ok());
  auto rep = reduce_tile(m, ReduceOp::kAdd, at, s, 1024, g);
  ASSERT_TRUE(rep.ok()) << rep.error().message;
  EXPECT_EQ(rep->oob_elements, 32u * 8 - 30 * 7);
  for (std::uint32_t r = 0; r < 9; ++r) {
    for (std::uint32_t c = 0; c < 32; ++c) {
      std::uint32_t v;
      ASSERT_TRUE(
          g.read(m.global_address + r * 128 - 128 + c * 4, std::as_writable_bytes(std::span(&v, 1)))
              .ok());
      const bool inside = r >= 1 && r <= 7 && c < 30;
      EXPECT_EQ(v, inside ? 2 * ((r - 1) * 1000 + c) : 0x5A5A5A5Au) << r << " " << c;
    }
  }
}

}  // namespace
}  // namespace xpusim::tma
