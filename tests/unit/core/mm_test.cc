// The `mm` broadcast tensor multiply (src/core/mm.h, seed2 §3.3–3.9, §5 items 1–10), checked
// against a naive reference GEMM written here: plain arrays A[M][K], B[K][N], C0[M][N], summed
// in int64 (integer types) or double (float types). mm.cc is never called for expected values;
// the test packs A into registers and B into memory with its own little packer, decodes the
// element encodings with its own decoders, and knows the thread mapping of mm.h by itself.
#include "core/mm.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "sim/float_formats.h"

namespace xpusim::core {
namespace {

template <class T>
T ok(Result<T> r) {
  EXPECT_TRUE(r.ok()) << r.error().message;
  return r.ok() ? r.value() : T{};
}

template <class T>
void expect_error(const Result<T>& r, std::initializer_list<const char*> fragments) {
  ASSERT_FALSE(r.ok());
  for (const Error& e : r.errors())
    EXPECT_EQ(e.message.find('\n'), std::string::npos);
  std::string all;
  for (const Error& e : r.errors())
    all += e.message + " | ";
  for (const char* f : fragments)
    EXPECT_NE(all.find(f), std::string::npos) << f << " in: " << all;
}

bool is_int(MmType t) {
  return t == MmType::kS8 || t == MmType::kU8 || t == MmType::kS16 || t == MmType::kU16 ||
         t == MmType::kS32 || t == MmType::kU32;
}
std::uint32_t bytes_of(MmType t) {
  switch (t) {
    case MmType::kS8:
    case MmType::kU8:
      return 1;
    case MmType::kF16:
    case MmType::kBF16:
    case MmType::kS16:
    case MmType::kU16:
      return 2;
    default:
      return 4;
  }
}

// ---- Test-local element decoding (independent of mm.cc and float_formats.h) ----
double decode(MmType t, std::uint32_t raw) {
  switch (t) {
    case MmType::kS8:
      return static_cast<double>(static_cast<int>(raw & 0xFF) - ((raw & 0x80) ? 256 : 0));
    case MmType::kU8:
      return static_cast<double>(raw & 0xFF);
    case MmType::kF16: {
      const int sign = (raw >> 15 & 1) ? -1 : 1;
      const int exp = static_cast<int>(raw >> 10 & 0x1F);
      const double mant = static_cast<double>(raw & 0x3FF);
      if (exp == 0) return sign * std::ldexp(mant, -24);
      return sign * std::ldexp(1.0 + mant / 1024.0, exp - 15);  // tests never make inf/NaN
    }
    case MmType::kBF16:
      return std::bit_cast<float>(raw << 16);
    case MmType::kTF32:
      return std::bit_cast<float>(raw & 0xFFFFE000u);  // low 13 mantissa bits dropped
    case MmType::kF32:
      return std::bit_cast<float>(raw);
    case MmType::kS16:
      return static_cast<double>(static_cast<int>(raw & 0xFFFF) - ((raw & 0x8000) ? 65536 : 0));
    case MmType::kU16:
      return static_cast<double>(raw & 0xFFFF);
    case MmType::kS32:
      return static_cast<double>(static_cast<std::int64_t>(raw) - ((raw >> 31) ? (1ll << 32) : 0));
    case MmType::kU32:
      return static_cast<double>(raw);
  }
  return 0.0;
}

// A random normal float with a full random mantissa, |f| in [2^-6, 2^7), random sign.
float random_float(std::mt19937& rng) {
  std::uniform_real_distribution<float> mant(1.0f, 2.0f);
  std::uniform_int_distribution<int> exp(-6, 6);
  const float f = std::ldexp(mant(rng), exp(rng));
  return (rng() & 1) ? -f : f;
}

// Raw encoding of a random element of type t (the encoders are the packer's business).
std::uint32_t random_raw(MmType t, std::mt19937& rng) {
  switch (t) {
    case MmType::kS8:
    case MmType::kU8:
      return rng() & 0xFF;
    case MmType::kF16:
      return float_to_half(random_float(rng));
    case MmType::kBF16:
      return float_to_bf16(random_float(rng));
    case MmType::kTF32:
    case MmType::kF32:
      return std::bit_cast<std::uint32_t>(random_float(rng));
    case MmType::kS16:
    case MmType::kU16:
      return rng() & 0xFFFF;
    case MmType::kS32:
    case MmType::kU32:
      return rng();
  }
  return 0;
}

// Which part p of a row's ka threads owns column j, and at which local index l (mm.h mapping).
std::pair<std::uint32_t, std::uint32_t> owner(std::uint32_t n, std::uint32_t ka, KaSplit split,
                                              std::uint32_t j) {
  if (split == KaSplit::kContiguous) {
    const std::uint32_t chunk = (n + ka - 1) / ka;
    return {j / chunk, j % chunk};
  }
  return {j % ka, j / ka};
}

constexpr std::uint64_t kBBase = 0x10000;

// Byte memory for B; records every read; can be told to fail one read.
struct Memory {
  std::uint64_t base = kBBase;
  std::vector<std::byte> bytes;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> reads;  // address, length
  int fail_at = -1;

  MmReader reader() {
    return [this](std::uint64_t a, std::span<std::byte> out) -> Status {
      const int index = static_cast<int>(reads.size());
      reads.emplace_back(a, out.size());
      if (index == fail_at) return Error{"test: page not loaded at this address"};
      if (a < base || a + out.size() > base + bytes.size()) return Error{"test: read outside B"};
      std::memcpy(out.data(), bytes.data() + (a - base), out.size());
      return Ok{};
    };
  }
  void store(std::uint64_t addr, std::uint32_t raw, std::uint32_t nbytes) {
    for (std::uint32_t i = 0; i < nbytes; ++i)
      bytes.at(addr - base + i) = static_cast<std::byte>(raw >> (8 * i) & 0xFF);
  }
};

bool same_registers(const RegisterFile& a, const RegisterFile& b, std::string* where) {
  for (std::uint32_t t = 0; t < a.threads(); ++t)
    for (std::uint32_t r = 0; r < a.regs_per_thread(); ++r)
      if (a.at(t, r) != b.at(t, r)) {
        *where = "thread " + std::to_string(t) + " r" + std::to_string(r) + ": got " +
                 std::to_string(a.at(t, r)) + ", want " + std::to_string(b.at(t, r));
        return false;
      }
  return true;
}

struct Shape {
  MmType at = MmType::kS8, bt = MmType::kS8;
  std::uint32_t rows = 1;
  std::uint32_t k = 4;  // A elements per thread per instruction
  std::uint32_t n = 4;
  std::uint32_t ka = 1, kb = 1, leader = 0;
  KaSplit split = KaSplit::kContiguous;
  bool t1 = false;
  std::uint32_t regs = 512, c_base = 0, a_base = 256;
  std::vector<bool> pred;   // empty = all columns
  std::uint32_t tiles = 1;  // instructions chained along K (C not cleared in between)
  std::uint32_t pad = 0;    // extra bytes between B columns (t0) or rows (t1)
  std::uint32_t skew = 0;   // B base misalignment in bytes
};

// Builds registers and memory for a shape, runs the chained instructions, checks against the
// reference GEMM and checks that nothing but the expected C registers changed.
class Harness {
 public:
  Harness(Shape s, std::uint32_t seed) : s_(std::move(s)), rng_(seed) {
    group_ = s_.ka * s_.kb;
    kk_ = s_.k * s_.kb;
    kfull_ = kk_ * s_.tiles;
    // A, B and C0 first, so that shapes differing only in mapping/layout get the same data.
    a_.resize(std::size_t{s_.rows} * kfull_);
    for (auto& v : a_)
      v = random_raw(s_.at, rng_);
    b_.resize(std::size_t{kfull_} * s_.n);
    for (auto& v : b_)
      v = random_raw(s_.bt, rng_);
    c0_.resize(std::size_t{s_.rows} * s_.n);
    for (auto& v : c0_)
      v = is_int(s_.at) ? rng_() : std::bit_cast<std::uint32_t>(random_float(rng_));
    regs_ = RegisterFile(s_.rows * group_, s_.regs);
    for (std::uint32_t t = 0; t < regs_.threads(); ++t)
      for (std::uint32_t r = 0; r < s_.regs; ++r)
        regs_.at(t, r) = rng_();
    // Initial C in the leader threads' product registers (in range only).
    for (std::uint32_t row = 0; row < s_.rows; ++row)
      for (std::uint32_t j = 0; j < s_.n; ++j) {
        const std::uint32_t reg = creg(j);
        if (reg < s_.regs) regs_.at(leader_thread(row, j), reg) = c0_[row * s_.n + j];
      }
    // B in memory: t0 column-major (column stride kfull*eb + pad), t1 row-major.
    const std::uint32_t eb = bytes_of(s_.bt);
    mem_.base = kBBase;
    stride_ = (s_.t1 ? s_.n : kfull_) * eb + s_.pad;
    mem_.bytes.resize(s_.skew + std::size_t{stride_} * (s_.t1 ? kfull_ : s_.n) + 16);
    for (auto& byte : mem_.bytes)
      byte = static_cast<std::byte>(rng_());
    for (std::uint32_t e = 0; e < kfull_; ++e)
      for (std::uint32_t j = 0; j < s_.n; ++j)
        mem_.store(elem_addr(e, j), b_[e * s_.n + j], eb);
  }

  bool on(std::uint32_t j) const { return s_.pred.empty() || s_.pred[j]; }
  std::uint32_t creg(std::uint32_t j) const {
    return s_.c_base + owner(s_.n, s_.ka, s_.split, j).second;
  }
  std::uint32_t leader_thread(std::uint32_t row, std::uint32_t j) const {
    return row * group_ + owner(s_.n, s_.ka, s_.split, j).first * s_.kb + s_.leader;
  }
  std::uint64_t elem_addr(std::uint32_t e, std::uint32_t j) const {
    const std::uint32_t eb = bytes_of(s_.bt);
    const std::uint64_t b0 = kBBase + s_.skew;
    return s_.t1 ? b0 + std::uint64_t{e} * stride_ + std::uint64_t{j} * eb
                 : b0 + std::uint64_t{j} * stride_ + std::uint64_t{e} * eb;
  }

  MmInstruction instruction(std::uint32_t tile) const {
    MmInstruction mm;
    mm.a_type = s_.at;
    mm.b_type = s_.bt;
    mm.c_base = s_.c_base;
    mm.a_base = s_.a_base;
    mm.k = s_.k;
    mm.n = s_.n;
    mm.ka = s_.ka;
    mm.ka_split = s_.split;
    mm.kb = s_.kb;
    mm.kb_leader = s_.leader;
    mm.t1 = s_.t1;
    mm.column_predicate = s_.pred;
    if (s_.t1)
      for (std::uint32_t e = 0; e < kk_; ++e)
        mm.b_addresses.push_back(elem_addr(tile * kk_ + e, 0));
    else
      for (std::uint32_t j = 0; j < s_.n; ++j)
        mm.b_addresses.push_back(elem_addr(tile * kk_, j));
    return mm;
  }

  // Loads tile `tile` of A into every thread's factor registers (the "ordinary load" of ¶111).
  void load_a(std::uint32_t tile) {
    const std::uint32_t eb = bytes_of(s_.at), per = 4 / eb;
    for (std::uint32_t t = 0; t < regs_.threads(); ++t) {
      const std::uint32_t row = t / group_, q = t % group_ % s_.kb;
      for (std::uint32_t e = 0; e < s_.k; ++e) {
        const std::uint32_t raw = a_[std::size_t{row} * kfull_ + tile * kk_ + q * s_.k + e];
        std::uint32_t& word = regs_.at(t, s_.a_base + e / per);
        if (eb == 4) {
          word = raw;
        } else {
          const std::uint32_t shift = 8 * eb * (e % per), mask = ((1u << (8 * eb)) - 1) << shift;
          word = (word & ~mask) | (raw << shift & mask);
        }
      }
    }
  }

  // Runs all tiles; returns each outcome.
  std::vector<MmOutcome> run() {
    std::vector<MmOutcome> outs;
    for (std::uint32_t tile = 0; tile < s_.tiles; ++tile) {
      load_a(tile);
      if (tile == 0)
        before_ = regs_;
      else
        reload_expected_a();
      outs.push_back(ok(execute_mm(instruction(tile), regs_, mem_.reader())));
    }
    return outs;
  }

  // Reference value, error bound and comparison for every (row, column); then every other
  // register must be bit-identical to its value before the first instruction.
  void check() {
    RegisterFile want = before_;
    for (std::uint32_t row = 0; row < s_.rows; ++row)
      for (std::uint32_t j = 0; j < s_.n; ++j) {
        const std::uint32_t reg = creg(j), t = leader_thread(row, j);
        if (!on(j) || reg >= s_.regs) continue;
        const std::uint32_t c0 = c0_[row * s_.n + j];
        const std::uint32_t got = regs_.at(t, reg);
        if (is_int(s_.at)) {
          // The exact integer sum, modulo 2^64 (products of two 32-bit values reach 2^64),
          // then its low 32 bits.
          std::uint64_t sum = c0;
          for (std::uint32_t e = 0; e < kfull_; ++e)
            sum += static_cast<std::uint64_t>(static_cast<std::int64_t>(
                       decode(s_.at, a_[std::size_t{row} * kfull_ + e]))) *
                   static_cast<std::uint64_t>(
                       static_cast<std::int64_t>(decode(s_.bt, b_[std::size_t{e} * s_.n + j])));
          EXPECT_EQ(got, static_cast<std::uint32_t>(sum)) << "row " << row << " col " << j;
        } else {
          double sum = std::bit_cast<float>(c0), mag = std::fabs(sum);
          for (std::uint32_t e = 0; e < kfull_; ++e) {
            const double p = decode(s_.at, a_[std::size_t{row} * kfull_ + e]) *
                             decode(s_.bt, b_[std::size_t{e} * s_.n + j]);
            sum += p;
            mag += std::fabs(p);
          }
          // Error bound: every term (C0 or a product) goes through at most one product
          // rounding (f32 only; f16/bf16/tf32 products are exact in fp32), k additions into
          // its thread's partial and kb additions into C per instruction, so at most
          // n = 1 + tiles*(k + kb) roundings of relative size <= u = 2^-24 each. Recursive
          // summation then gives |got - exact| <= gamma_n * (|C0| + sum|a*b|), with
          // gamma_n = n*u / (1 - n*u) <= 1.01*n*u here. (Terms stay in fp32's normal range.)
          const double n = 1.0 + s_.tiles * (s_.k + s_.kb);
          const double tol = 1.01 * n * std::ldexp(1.0, -24) * mag + 1e-37;
          const double g = std::bit_cast<float>(got);
          EXPECT_LE(std::fabs(g - sum), tol)
              << "row " << row << " col " << j << " got " << g << " want " << sum;
        }
        want.at(t, reg) = got;
      }
    std::string where;
    EXPECT_TRUE(same_registers(regs_, want, &where)) << where;
  }

  // The bytes of masked-off columns were never read.
  void check_masked_bytes_unread() const {
    const std::uint32_t eb = bytes_of(s_.bt);
    std::set<std::uint64_t> masked;
    for (std::uint32_t j = 0; j < s_.n; ++j)
      if (!on(j))
        for (std::uint32_t e = 0; e < kfull_; ++e)
          for (std::uint32_t i = 0; i < eb; ++i)
            masked.insert(elem_addr(e, j) + i);
    for (const auto& [addr, len] : mem_.reads) {
      auto it = masked.lower_bound(addr);
      EXPECT_TRUE(it == masked.end() || *it >= addr + len)
          << "read of " << len << " bytes at " << addr << " touched masked column data";
    }
  }

  // Counts a single instruction of this shape must report.
  void check_counts(const MmCounts& c) const {
    std::uint32_t columns = 0, in_range = 0, skipped = 0;
    std::set<std::uint32_t> busy_parts;
    for (std::uint32_t j = 0; j < s_.n; ++j) {
      if (!on(j)) continue;
      ++columns;
      if (creg(j) < s_.regs) {
        ++in_range;
        busy_parts.insert(owner(s_.n, s_.ka, s_.split, j).first);
      } else {
        ++skipped;
      }
    }
    const std::uint32_t a_regs = (s_.k + 4 / bytes_of(s_.at) - 1) / (4 / bytes_of(s_.at));
    EXPECT_EQ(c.columns, columns);
    EXPECT_EQ(c.rows, s_.rows);
    EXPECT_EQ(c.b_elements_fetched, std::uint64_t{columns} * kk_);
    EXPECT_EQ(c.b_bytes_fetched, std::uint64_t{columns} * kk_ * bytes_of(s_.bt));
    EXPECT_EQ(c.active_threads, s_.rows * s_.kb * busy_parts.size());
    EXPECT_EQ(c.a_register_reads, std::uint64_t{c.active_threads} * a_regs);
    EXPECT_EQ(c.macs, std::uint64_t{s_.rows} * in_range * kk_);
    EXPECT_EQ(c.skipped_out_of_range, s_.rows * skipped);
  }

  RegisterFile& regs() { return regs_; }
  const RegisterFile& before() const { return before_; }
  Memory& mem() { return mem_; }
  const Shape& shape() const { return s_; }

 private:
  void reload_expected_a() {
    // The test rewrote the A registers for this tile; mirror that in the snapshot.
    const std::uint32_t per = 4 / bytes_of(s_.at);
    const std::uint32_t a_regs = (s_.k + per - 1) / per;
    for (std::uint32_t t = 0; t < regs_.threads(); ++t)
      for (std::uint32_t r = 0; r < a_regs; ++r)
        before_.at(t, s_.a_base + r) = regs_.at(t, s_.a_base + r);
  }

  Shape s_;
  std::mt19937 rng_;
  std::uint32_t group_ = 1, kk_ = 1, kfull_ = 1, stride_ = 0;
  RegisterFile regs_{1, 1};
  RegisterFile before_{1, 1};
  Memory mem_;
  std::vector<std::uint32_t> a_, b_, c0_;  // raw encodings: A[M][Kfull], B[Kfull][N]; C0 bits
};

const std::vector<std::pair<MmType, MmType>>& all_pairs() {
  static const std::vector<std::pair<MmType, MmType>> pairs = {
      {MmType::kS8, MmType::kS8},
      {MmType::kS8, MmType::kU8},
      {MmType::kU8, MmType::kS8},
      {MmType::kU8, MmType::kU8},
      {MmType::kF16, MmType::kF16},
      {MmType::kBF16, MmType::kBF16},
      {MmType::kTF32, MmType::kTF32},
      {MmType::kF32, MmType::kF32},
      // seed2 ¶72's wider integers, mixed with each other and with 8-bit ones.
      {MmType::kS16, MmType::kS16},
      {MmType::kU16, MmType::kS8},
      {MmType::kS32, MmType::kU32},
      {MmType::kU32, MmType::kU32},
      {MmType::kS16, MmType::kS32},
      {MmType::kU8, MmType::kU16}};
  return pairs;
}

std::string pair_name(std::pair<MmType, MmType> p) {
  return std::string(mm_type_name(p.first)) + "x" + mm_type_name(p.second);
}

// ---------------------------------------------------------------------------------------------

TEST(FloatFormats, KnownValuesAndRounding) {
  EXPECT_EQ(half_to_float(0x3C00), 1.0f);
  EXPECT_EQ(half_to_float(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(half_to_float(0xFBFF), -65504.0f);
  EXPECT_EQ(float_to_half(1.0f + std::ldexp(1.0f, -11)), 0x3C00);  // tie -> even
  EXPECT_EQ(float_to_half(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3C02);
  EXPECT_EQ(float_to_half(65520.0f), 0x7C00);
  EXPECT_EQ(float_to_half(std::nanf("")), 0x7FFF);
  EXPECT_EQ(bf16_to_float(0x3F80), 1.0f);
  EXPECT_EQ(float_to_bf16(std::bit_cast<float>(0x3F808000u)), 0x3F80);  // tie -> even
  EXPECT_EQ(float_to_bf16(std::bit_cast<float>(0x3F818000u)), 0x3F82);
  EXPECT_EQ(std::bit_cast<std::uint32_t>(tf32_truncate(std::bit_cast<float>(0x3F801FFFu))),
            0x3F800000u);
  EXPECT_EQ(std::bit_cast<std::uint32_t>(tf32_truncate(std::bit_cast<float>(0xBF812345u))),
            0xBF812000u);
  EXPECT_TRUE(std::isnan(tf32_truncate(std::bit_cast<float>(0x7F800001u))));
  for (std::uint32_t h = 0; h < 0x7C00; ++h) {  // every finite positive half round-trips
    EXPECT_EQ(float_to_half(half_to_float(static_cast<std::uint16_t>(h))), h);
    EXPECT_EQ(half_to_float(static_cast<std::uint16_t>(h)),
              static_cast<float>(decode(MmType::kF16, h)));
  }
}

TEST(MmTypes, NamesAndSizes) {
  EXPECT_STREQ(mm_type_name(MmType::kBF16), "bf16");
  EXPECT_STREQ(mm_type_name(MmType::kTF32), "tf32");
  EXPECT_EQ(mm_type_bytes(MmType::kU8), 1u);
  EXPECT_EQ(mm_type_bytes(MmType::kF16), 2u);
  EXPECT_EQ(mm_type_bytes(MmType::kF32), 4u);
}

// §5 items 1, 3: random shapes for every type pair, with every mapping feature mixed in.
TEST(MmGolden, RandomShapesEveryTypePair) {
  for (const auto& pair : all_pairs()) {
    for (std::uint32_t seed = 1; seed <= 12; ++seed) {
      std::mt19937 rng(seed * 7919u + static_cast<std::uint32_t>(pair.first) * 31u +
                       static_cast<std::uint32_t>(pair.second));
      auto pick = [&rng](std::uint32_t lo, std::uint32_t hi) {
        return std::uniform_int_distribution<std::uint32_t>(lo, hi)(rng);
      };
      Shape s;
      s.at = pair.first;
      s.bt = pair.second;
      s.rows = pick(1, 6);
      s.k = pick(1, 17);
      s.n = pick(1, 40);
      s.ka = pick(1, 3);
      s.kb = std::uint32_t{1} << pick(0, 2);
      s.leader = pick(0, s.kb - 1);
      s.split = (rng() & 1) ? KaSplit::kInterleaved : KaSplit::kContiguous;
      s.t1 = rng() & 1;
      s.regs = 160;
      s.a_base = 128;
      s.c_base = pick(0, 5);
      if (rng() & 1) {
        s.pred.resize(s.n);
        for (std::uint32_t j = 0; j < s.n; ++j)
          s.pred[j] = (rng() % 4) != 0;
      }
      s.tiles = pick(1, 3);
      s.pad = pick(0, 5);
      s.skew = pick(0, 3);
      SCOPED_TRACE(pair_name(pair) + " seed " + std::to_string(seed) + " rows " +
                   std::to_string(s.rows) + " k " + std::to_string(s.k) + " n " +
                   std::to_string(s.n) + " ka " + std::to_string(s.ka) + " kb " +
                   std::to_string(s.kb) + (s.t1 ? " t1" : " t0"));
      Harness h(s, seed);
      const auto outs = h.run();
      h.check();
      h.check_masked_bytes_unread();
      for (const MmOutcome& o : outs) {
        h.check_counts(o.counts);
        EXPECT_TRUE(o.range_errors.empty());
      }
    }
  }
}

// Runs a k = 1 mm of one A element against one B element; returns C's bits (C starts at 0).
std::uint32_t one_product(MmType at, std::uint32_t a_raw, MmType bt, std::uint32_t b_raw) {
  RegisterFile regs(1, 8);
  regs.at(0, 4) = a_raw;
  Memory mem;
  mem.bytes.resize(4);
  mem.store(kBBase, b_raw, bytes_of(bt));
  MmInstruction mm;
  mm.a_type = at;
  mm.b_type = bt;
  mm.a_base = 4;
  mm.k = 1;
  mm.n = 1;
  mm.b_addresses = {kBBase};
  ok(execute_mm(mm, regs, mem.reader()));
  return regs.at(0, 0);
}

// §5 item 3 and ¶107: 0xFF is −1 under s and 255 under u; sa × ub gives −255.
TEST(MmTypes, MixedSignednessOfAllFourSuffixPairs) {
  EXPECT_EQ(static_cast<std::int32_t>(one_product(MmType::kS8, 0xFF, MmType::kU8, 0xFF)), -255);
  EXPECT_EQ(static_cast<std::int32_t>(one_product(MmType::kU8, 0xFF, MmType::kS8, 0xFF)), -255);
  EXPECT_EQ(static_cast<std::int32_t>(one_product(MmType::kS8, 0xFF, MmType::kS8, 0xFF)), 1);
  EXPECT_EQ(static_cast<std::int32_t>(one_product(MmType::kU8, 0xFF, MmType::kU8, 0xFF)), 65025);
  EXPECT_EQ(static_cast<std::int32_t>(one_product(MmType::kS8, 0x80, MmType::kU8, 0xFF)),
            -128 * 255);
}

// seed2 ¶72's 16- and 32-bit integers: sign by type, products and sums modulo 2^32.
TEST(MmTypes, WideIntegersSignExtendAndWrap) {
  const auto c = [](MmType at, std::uint32_t a, MmType bt, std::uint32_t b) {
    return static_cast<std::int32_t>(one_product(at, a, bt, b));
  };
  EXPECT_EQ(c(MmType::kS16, 0xFFFF, MmType::kU16, 0xFFFF), -65535);
  EXPECT_EQ(c(MmType::kU16, 0xFFFF, MmType::kU16, 2), 131070);
  EXPECT_EQ(c(MmType::kS16, 0x8000, MmType::kS8, 0xFF), 32768);           // -32768 x -1
  EXPECT_EQ(c(MmType::kS32, 0x80000000u, MmType::kS32, 2), 0);            // -2^31 x 2 wraps to 0
  EXPECT_EQ(c(MmType::kU32, 0xFFFFFFFFu, MmType::kU32, 0xFFFFFFFFu), 1);  // (2^32-1)^2 mod 2^32
  EXPECT_EQ(c(MmType::kS32, 0xFFFFFFFFu, MmType::kU16, 7), -7);
  EXPECT_STREQ(mm_type_name(MmType::kU16), "u16");
  EXPECT_EQ(mm_type_bytes(MmType::kS16), 2u);
  EXPECT_EQ(mm_type_bytes(MmType::kU32), 4u);
}

TEST(MmTypes, FloatOperandDecoding) {
  // f16 1.5 x f16 -2 = -3; bf16 3 x 0.5; tf32 drops the low 13 bits of both operands.
  EXPECT_EQ(std::bit_cast<float>(one_product(MmType::kF16, 0x3E00, MmType::kF16, 0xC000)), -3.0f);
  EXPECT_EQ(std::bit_cast<float>(one_product(MmType::kBF16, 0x4040, MmType::kBF16, 0x3F00)), 1.5f);
  EXPECT_EQ(one_product(MmType::kTF32, 0x3F801FFF, MmType::kTF32, 0x40001FFF), 0x40000000u);
  EXPECT_EQ(one_product(MmType::kF32, 0x3F801FFF, MmType::kF32, 0x40000000), 0x40001FFFu);
  // f16 subnormal x f16 subnormal is exact in fp32 (2^-24 * 2^-24 = 2^-48), no FTZ.
  EXPECT_EQ(std::bit_cast<float>(one_product(MmType::kF16, 0x0001, MmType::kF16, 0x0001)),
            std::ldexp(1.0f, -48));
}

// Integer accumulation wraps in two's complement int32.
TEST(MmNumerics, IntegerAccumulatorWrapsInInt32) {
  RegisterFile regs(1, 8);
  regs.at(0, 0) = 0x7FFFFFFF;
  regs.at(0, 4) = 0x01;  // one s8 element, 1
  Memory mem;
  mem.bytes = {std::byte{1}};
  MmInstruction mm;
  mm.a_type = mm.b_type = MmType::kS8;
  mm.a_base = 4;
  mm.k = 1;
  mm.n = 1;
  mm.b_addresses = {kBBase};
  ok(execute_mm(mm, regs, mem.reader()));
  EXPECT_EQ(regs.at(0, 0), 0x80000000u);
}

// The documented fp32 order, bit for bit: partial = ((0 + p0) + p1) + p2 per thread, then
// C = (C + partial_0) + partial_1 in K-slice order, whichever thread is the leader.
TEST(MmNumerics, FloatAccumulationOrderIsTheDocumentedOne) {
  const float big = std::ldexp(1.0f, 24);
  // A = [2^24, 1, -2^24], B = [1, 1, 1]: 2^24 + 1 ties back to 2^24 (even), so the sum is 0
  // (the exact value is 1).
  RegisterFile regs(1, 8);
  regs.at(0, 4) = std::bit_cast<std::uint32_t>(big);
  regs.at(0, 5) = std::bit_cast<std::uint32_t>(1.0f);
  regs.at(0, 6) = std::bit_cast<std::uint32_t>(-big);
  Memory mem;
  mem.bytes.resize(12);
  for (int i = 0; i < 3; ++i)
    mem.store(kBBase + 4 * i, std::bit_cast<std::uint32_t>(1.0f), 4);
  MmInstruction mm;
  mm.a_type = mm.b_type = MmType::kF32;
  mm.a_base = 4;
  mm.k = 3;
  mm.n = 1;
  mm.b_addresses = {kBBase};
  ok(execute_mm(mm, regs, mem.reader()));
  EXPECT_EQ(std::bit_cast<float>(regs.at(0, 0)), 0.0f);

  // kb2, k = 1: both threads hold A = [1], B = [1, 1], C = 2^24, so partial_0 = partial_1 = 1.
  // (2^24 + 1) + 1 = 2^24 (each add ties back to the even 2^24), whereas adding the partials
  // first would give 2^24 + 2.
  for (std::uint32_t leader = 0; leader < 2; ++leader) {
    RegisterFile r2(2, 8);
    r2.at(leader, 0) = std::bit_cast<std::uint32_t>(big);
    r2.at(0, 4) = std::bit_cast<std::uint32_t>(1.0f);
    r2.at(1, 4) = std::bit_cast<std::uint32_t>(1.0f);
    Memory m2;
    m2.bytes.resize(8);
    m2.store(kBBase, std::bit_cast<std::uint32_t>(1.0f), 4);
    m2.store(kBBase + 4, std::bit_cast<std::uint32_t>(1.0f), 4);
    MmInstruction k2 = mm;
    k2.k = 1;
    k2.kb = 2;
    k2.kb_leader = leader;
    ok(execute_mm(k2, r2, m2.reader()));
    EXPECT_EQ(std::bit_cast<float>(r2.at(leader, 0)), big) << "leader " << leader;
    EXPECT_EQ(r2.at(1 - leader, 0), 0u) << "the other thread's C register is untouched";
  }
}

// §5 item 2: chaining K-slices into the same C equals the full GEMM.
TEST(MmGolden, KTilingByChainingEqualsFullGemm) {
  for (const auto& pair : all_pairs()) {
    Shape s;
    s.at = pair.first;
    s.bt = pair.second;
    s.rows = 8;
    s.k = 8;
    s.n = 16;
    s.tiles = 4;
    SCOPED_TRACE(pair_name(pair));
    for (bool t1 : {false, true}) {
      s.t1 = t1;
      Harness h(s, 42);
      h.run();
      h.check();
    }
  }
}

// Counts registers of thread t that differ from the snapshot.
std::uint32_t changed_registers(const RegisterFile& now, const RegisterFile& before,
                                std::uint32_t t) {
  std::uint32_t changed = 0;
  for (std::uint32_t r = 0; r < now.regs_per_thread(); ++r)
    changed += now.at(t, r) != before.at(t, r);
  return changed;
}

// Reads the logical C[row][j] out of the registers of a finished harness.
std::vector<std::uint32_t> logical_c(Harness& h) {
  const Shape& s = h.shape();
  std::vector<std::uint32_t> c;
  for (std::uint32_t row = 0; row < s.rows; ++row)
    for (std::uint32_t j = 0; j < s.n; ++j)
      c.push_back(h.regs().at(h.leader_thread(row, j), h.creg(j)));
  return c;
}

// §5 item 7 (¶113–116): 16 rows on 64 threads. ka1 needs only 16 threads (48 of 64 idle);
// ka4 keeps all 64 busy, each writing n/4 registers; contiguous and interleaved agree.
TEST(MmMerge, Ka4UsesAll64ThreadsAndBothSplitsAgree) {
  // u8 (not s8): every dot product is then > 0, so every written register visibly changes.
  for (MmType t : {MmType::kU8, MmType::kBF16}) {
    Shape s;
    s.at = s.bt = t;
    s.rows = 16;
    s.k = 8;
    s.n = 64;
    s.ka = 4;
    std::vector<std::uint32_t> cs[2];
    for (KaSplit split : {KaSplit::kContiguous, KaSplit::kInterleaved}) {
      s.split = split;
      Harness h(s, 7);  // same seed: same A, B, C0
      const auto outs = h.run();
      h.check();
      h.check_counts(outs[0].counts);
      EXPECT_EQ(h.regs().threads(), 64u);
      EXPECT_EQ(outs[0].counts.active_threads, 64u);
      EXPECT_EQ(outs[0].counts.rows, 16u);
      for (std::uint32_t th = 0; th < 64; ++th)
        EXPECT_EQ(changed_registers(h.regs(), h.before(), th), 16u) << "thread " << th;
      cs[split == KaSplit::kInterleaved] = logical_c(h);
    }
    EXPECT_EQ(cs[0], cs[1]) << "contiguous and interleaved splits give the same C";
    // ka1 on the same 16 rows: only 16 threads exist to be active, each writing all 64.
    s.ka = 1;
    s.split = KaSplit::kContiguous;
    Harness h1(s, 7);
    const auto outs = h1.run();
    h1.check();
    EXPECT_EQ(outs[0].counts.active_threads, 16u);
    EXPECT_EQ(changed_registers(h1.regs(), h1.before(), 0), 64u);
    EXPECT_EQ(logical_c(h1), cs[0]);
  }
}

// MmInstruction::rows (¶113): fewer C rows than the threads hold. 16 rows on 64 threads with
// ka1 leave threads 16..63 idle (registers bit-identical, no A read); ka4 with rows 8 on 64
// threads computes rows 0..7 on threads 0..31 and leaves 32..63 alone. rows past T/(ka*kb) is
// refused before anything is read or written.
TEST(MmRows, FewerRowsThanThreadsLeaveTheRestIdle) {
  struct Case {
    std::uint32_t ka, rows;
  };
  for (const Case& cs : {Case{1, 16}, Case{4, 8}, Case{2, 32}}) {
    SCOPED_TRACE("ka " + std::to_string(cs.ka) + " rows " + std::to_string(cs.rows));
    constexpr std::uint32_t kT = 64, kK = 8, kN = 8;
    std::mt19937 rng(cs.ka * 100 + cs.rows);
    RegisterFile regs(kT, 512);
    for (std::uint32_t t = 0; t < kT; ++t)
      for (std::uint32_t r = 0; r < 512; ++r)
        regs.at(t, r) = rng();
    // u8 A rows in r256..r257 (all threads; only the active ones may be read), C starts at 0.
    for (std::uint32_t t = 0; t < kT; ++t)
      for (std::uint32_t j = 0; j < kN; ++j)
        regs.at(t, j) = 0;
    Memory mem;
    mem.bytes.resize(kK * kN);
    for (auto& b : mem.bytes)
      b = static_cast<std::byte>(rng() & 0xFF);
    const RegisterFile before = regs;
    MmInstruction mm;
    mm.a_type = mm.b_type = MmType::kU8;
    mm.k = kK;
    mm.n = kN;
    mm.ka = cs.ka;
    mm.rows = cs.rows;
    for (std::uint32_t j = 0; j < kN; ++j)
      mm.b_addresses.push_back(kBBase + kK * j);
    const MmOutcome out = ok(execute_mm(mm, regs, mem.reader()));
    const MmCounts& c = out.counts;
    EXPECT_TRUE(out.range_errors.empty());
    EXPECT_EQ(c.rows, cs.rows);
    EXPECT_EQ(c.active_threads, cs.rows * cs.ka);
    EXPECT_EQ(c.macs, std::uint64_t{cs.rows} * kN * kK);
    EXPECT_EQ(c.a_register_reads, std::uint64_t{cs.rows} * cs.ka * 2);
    EXPECT_EQ(c.b_elements_fetched, std::uint64_t{kK} * kN);  // B once, whatever the rows
    const std::uint32_t per_thread = kN / cs.ka;
    for (std::uint32_t t = 0; t < kT; ++t) {
      if (t >= cs.rows * cs.ka) {
        EXPECT_EQ(changed_registers(regs, before, t), 0u) << "idle thread " << t;
        continue;
      }
      const std::uint32_t p = t % cs.ka;
      for (std::uint32_t l = 0; l < per_thread; ++l) {
        const std::uint32_t j = p * per_thread + l;
        std::uint32_t want = 0;
        for (std::uint32_t e = 0; e < kK; ++e)
          want += (before.at(t, 256 + e / 4) >> (8 * (e % 4)) & 0xFF) *
                  std::to_integer<std::uint32_t>(mem.bytes[kK * j + e]);
        EXPECT_EQ(regs.at(t, l), want) << "thread " << t << " column " << j;
      }
      for (std::uint32_t r = per_thread; r < 512; ++r)
        ASSERT_EQ(regs.at(t, r), before.at(t, r)) << "thread " << t << " r" << r;
    }
  }
  // rows past what the threads hold.
  RegisterFile regs(64, 512);
  MmInstruction mm;
  mm.a_type = mm.b_type = MmType::kS8;
  mm.k = 8;
  mm.n = 4;
  mm.ka = 4;
  mm.rows = 17;
  for (std::uint32_t j = 0; j < 4; ++j)
    mm.b_addresses.push_back(kBBase + 8 * j);
  Memory mem;
  mem.bytes.resize(64);
  const RegisterFile before = regs;
  expect_error(execute_mm(mm, regs, mem.reader()),
               {"mm: rows 17", "16 C rows", "64 threads", "ka 4"});
  EXPECT_TRUE(mem.reads.empty());
  std::string where;
  EXPECT_TRUE(same_registers(regs, before, &where)) << where;
}

TEST(MmMerge, Ka2ContiguousAndInterleavedOnOddColumnCount) {
  for (KaSplit split : {KaSplit::kContiguous, KaSplit::kInterleaved}) {
    Shape s;
    s.at = s.bt = MmType::kU8;
    s.rows = 3;
    s.n = 7;
    s.ka = 2;
    s.split = split;
    Harness h(s, 3);
    const auto outs = h.run();
    h.check();
    h.check_counts(outs[0].counts);
    EXPECT_EQ(changed_registers(h.regs(), h.before(), 0), 4u);  // columns 0..3 or 0,2,4,6
    EXPECT_EQ(changed_registers(h.regs(), h.before(), 1), 3u);
  }
}

// §5 item 8 (¶117–120): kb2/kb4 with every leader; non-leaders' registers untouched, and the
// result does not depend on which thread leads (the sum runs in K-slice order).
TEST(MmMerge, KbEveryLeaderMatchesReference) {
  for (const auto& pair :
       {std::pair{MmType::kS8, MmType::kU8}, std::pair{MmType::kF16, MmType::kF16},
        std::pair{MmType::kF32, MmType::kF32}}) {
    for (std::uint32_t kb : {2u, 4u}) {
      std::vector<std::uint32_t> first;
      for (std::uint32_t leader = 0; leader < kb; ++leader) {
        Shape s;
        s.at = pair.first;
        s.bt = pair.second;
        s.rows = 4;
        s.k = 4;
        s.n = 8;
        s.kb = kb;
        s.leader = leader;
        SCOPED_TRACE(pair_name(pair) + " kb" + std::to_string(kb) + " leader " +
                     std::to_string(leader));
        Harness h(s, 11);
        const auto outs = h.run();
        h.check();  // includes: only the leader's C registers changed
        h.check_counts(outs[0].counts);
        EXPECT_EQ(outs[0].counts.active_threads, 4 * kb);
        for (std::uint32_t t = 0; t < 4 * kb; ++t)
          EXPECT_EQ(changed_registers(h.regs(), h.before(), t) > 0, t % kb == leader);
        if (leader == 0)
          first = logical_c(h);
        else
          EXPECT_EQ(logical_c(h), first) << "bit-identical whichever thread leads";
      }
    }
  }
}

// §5 item 9 (¶121): k = 8, one row, ka2 + kb2. Threads 0,1 compute columns 1–4 (thread 0 terms
// 1–4, thread 1 terms 5–8), threads 2,3 columns 5–8.
TEST(MmMerge, Ka2Kb2Paragraph121Example) {
  for (std::uint32_t leader : {0u, 1u}) {
    Shape s;
    s.at = s.bt = MmType::kS8;
    s.rows = 1;
    s.k = 4;  // per thread; K = k * kb = 8
    s.n = 8;
    s.ka = 2;
    s.kb = 2;
    s.leader = leader;
    Harness h(s, 121);
    const auto outs = h.run();
    h.check();
    h.check_counts(outs[0].counts);
    EXPECT_EQ(h.leader_thread(0, 0), leader);
    EXPECT_EQ(h.leader_thread(0, 3), leader);
    EXPECT_EQ(h.leader_thread(0, 4), 2 + leader);
    EXPECT_EQ(changed_registers(h.regs(), h.before(), leader), 4u);
    EXPECT_EQ(changed_registers(h.regs(), h.before(), 2 + leader), 4u);
    EXPECT_EQ(changed_registers(h.regs(), h.before(), 1 - leader), 0u);
    EXPECT_EQ(changed_registers(h.regs(), h.before(), 3 - leader), 0u);
    EXPECT_EQ(outs[0].counts.macs, 8u * 8u);
  }
}

// §5 item 10: row-major B under t1 gives bit-identical C to column-major B under t0.
TEST(MmTranspose, T1RowMajorEqualsT0ColumnMajor) {
  for (const auto& pair : all_pairs()) {
    Shape s;
    s.at = pair.first;
    s.bt = pair.second;
    s.rows = 5;
    s.k = 8;
    s.n = 12;
    s.kb = 2;
    s.ka = 2;
    std::vector<std::uint32_t> c[2];
    for (bool t1 : {false, true}) {
      s.t1 = t1;
      s.pad = t1 ? 3 : 1;
      Harness h(s, 99);  // same seed: same A, B, C0 whatever the layout
      h.run();
      h.check();
      c[t1] = logical_c(h);
    }
    EXPECT_EQ(c[0], c[1]) << pair_name(pair);
  }
}

MmInstruction int8_t1(std::uint32_t rows, std::uint32_t n, std::uint64_t row_stride) {
  MmInstruction mm;
  mm.a_type = mm.b_type = MmType::kS8;
  mm.k = rows;
  mm.n = n;
  mm.t1 = true;
  for (std::uint32_t e = 0; e < rows; ++e)
    mm.b_addresses.push_back(0x1000 + e * row_stride);
  return mm;
}

// ¶122–124: the 4×4 int8 block, one 4-byte line per row. Retained: 4 fills; without
// retention every column re-reads each row's line: 16.
TEST(MmTranspose, FetchLinesFourByFourExample) {
  const MmInstruction mm = int8_t1(4, 4, 4);
  const auto kept = mm_fetch_lines(mm, 4, true);
  EXPECT_EQ(kept, (std::vector<std::uint64_t>{0x1000, 0x1004, 0x1008, 0x100C}));
  const auto dropped = mm_fetch_lines(mm, 4, false);
  ASSERT_EQ(dropped.size(), 16u);
  for (std::size_t i = 0; i < 16; ++i)
    EXPECT_EQ(dropped[i], 0x1000 + 4 * (i % 4)) << i;
  // Column-major B without t1: each column is one line, fetched once either way.
  MmInstruction t0 = mm;
  t0.t1 = false;
  EXPECT_EQ(mm_fetch_lines(t0, 4, false).size(), 4u);
  EXPECT_EQ(mm_fetch_lines(t0, 4, true).size(), 4u);
  // A masked column is not fetched: under retention the lines are still needed by the other
  // columns; without retention, 3 columns x 4 rows.
  MmInstruction masked = mm;
  masked.column_predicate = {true, false, true, true};
  EXPECT_EQ(mm_fetch_lines(masked, 4, true).size(), 4u);
  EXPECT_EQ(mm_fetch_lines(masked, 4, false).size(), 12u);
}

// ¶125: B with 256 rows — every row's line loaded once and kept until all columns used it.
TEST(MmTranspose, FetchLines256Rows) {
  const MmInstruction narrow = int8_t1(256, 4, 4);
  EXPECT_EQ(mm_fetch_lines(narrow, 4, true).size(), 256u);
  EXPECT_EQ(mm_fetch_lines(narrow, 4, false).size(), 1024u);
  const MmInstruction wide = int8_t1(256, 256, 256);  // each row spans 4 lines of 64 bytes
  const auto kept = mm_fetch_lines(wide, 64, true);
  EXPECT_EQ(kept.size(), 1024u);
  EXPECT_EQ(std::set<std::uint64_t>(kept.begin(), kept.end()).size(), kept.size());
  EXPECT_EQ(kept.front(), 0x1000u);
  EXPECT_EQ(mm_fetch_lines(wide, 64, false).size(), 256u * 256u);
  // Unaligned rows: lines are aligned down to the line size.
  MmInstruction skew = int8_t1(2, 4, 4);
  skew.b_addresses = {0x1002, 0x1006};
  EXPECT_EQ(mm_fetch_lines(skew, 4, true), (std::vector<std::uint64_t>{0x1000, 0x1004, 0x1008}));
  EXPECT_EQ(mm_fetch_lines(skew, 4, false).size(), 8u);
}

// The count the SM uses for a shared-memory B equals the lines a naive walk over every
// predicated-on element reads (distinct lines for t0 and retention, every selection without),
// on random shapes: unsorted and overlapping rows and columns, odd line sizes, predicates.
TEST(MmFetch, LineCountMatchesANaiveWalk) {
  std::mt19937_64 gen(7);
  std::vector<std::pair<std::uint64_t, std::uint64_t>> scratch;
  const MmType types[] = {MmType::kS8, MmType::kBF16, MmType::kTF32};
  const std::uint32_t line_sizes[] = {4, 16, 96, 128};
  for (int iter = 0; iter < 3000; ++iter) {
    MmInstruction mm;
    mm.a_type = mm.b_type = types[gen() % 3];
    mm.k = 1 + gen() % 6;
    mm.kb = 1 + gen() % 2;
    mm.n = 1 + gen() % 40;
    mm.t1 = gen() % 2 == 0;
    const std::uint32_t line = line_sizes[gen() % 4];
    const std::uint64_t eb = kernel::mm_type_bytes(mm.b_type);
    const std::uint64_t kk = std::uint64_t{mm.k} * mm.kb;
    const std::size_t entries = mm.t1 ? kk : mm.n;
    const bool sorted = gen() % 2 == 0;
    for (std::size_t i = 0; i < entries; ++i) {
      const std::uint64_t stride = (gen() % 3 == 0) ? eb : 64 * (1 + gen() % 4);
      mm.b_addresses.push_back(sorted ? 0x4000 + i * stride : 0x4000 + eb * (gen() % 512));
    }
    switch (gen() % 3) {
      case 0:
        break;  // every column on
      case 1:
        for (std::uint32_t j = 0; j < mm.n; ++j)
          mm.column_predicate.push_back(gen() % 3 != 0);
        break;
      default:  // the wrong length: no column is on
        mm.column_predicate.assign(mm.n + 1, true);
        break;
    }
    for (const bool retention : {false, true}) {
      const bool distinct = retention || !mm.t1;
      std::set<std::uint64_t> lines;
      std::uint64_t selections = 0;
      for (std::uint32_t j = 0; j < mm.n; ++j) {
        const bool on = mm.column_predicate.size() == mm.n ? bool{mm.column_predicate[j]}
                                                           : mm.column_predicate.empty();
        if (!on) continue;
        for (std::uint64_t e = 0; e < kk; ++e) {
          const std::uint64_t a = mm.t1 ? mm.b_addresses[e] + j * eb : mm.b_addresses[j] + e * eb;
          for (std::uint64_t l = a / line; l <= (a + eb - 1) / line; ++l) {
            lines.insert(l);
            ++selections;
          }
        }
      }
      const std::uint64_t want = distinct ? lines.size() : selections;
      SCOPED_TRACE(::testing::Message() << "iteration " << iter << " t1 " << mm.t1 << " retention "
                                        << retention << " line " << line);
      EXPECT_EQ(mm_fetch_line_count(mm, line, distinct, scratch), want);
      EXPECT_EQ(mm_fetch_lines(mm, line, distinct).size(), want);
    }
  }
}

// Strided columns a whole number of lines apart take a closed form in mm_fetch_line_count:
// the same counts as the starts given as a list (which the count walks column by column).
TEST(MmStrided, ColumnLinesAWholeNumberOfLinesApartCountAsTheList) {
  std::mt19937_64 gen(13);
  for (int iter = 0; iter < 2000; ++iter) {
    MmInstruction strided;
    strided.a_type = strided.b_type = gen() % 2 == 0 ? MmType::kS8 : MmType::kBF16;
    strided.k = 1 + gen() % 160;
    strided.n = 1 + gen() % 300;
    const std::uint32_t line = gen() % 2 == 0 ? 128 : 96;
    strided.b_strided = true;
    strided.b_start = gen() % 3 == 0 ? line * (gen() % 50) : gen() % 100'000;
    strided.b_stride = line * (gen() % 4);  // 0 (one column's lines), overlapping, apart
    if (gen() % 50 == 0) strided.b_start = ~std::uint64_t{0} - gen() % 4096;  // near the end
    MmInstruction list = strided;
    list.b_strided = false;
    for (std::size_t i = 0; i < strided.b_entries(); ++i)
      list.b_addresses.push_back(strided.b_start + i * strided.b_stride);
    std::vector<std::pair<std::uint64_t, std::uint64_t>> scratch;
    ASSERT_EQ(mm_fetch_line_count(strided, line, false, scratch),
              mm_fetch_line_count(list, line, false, scratch))
        << "iteration " << iter << " start " << strided.b_start << " stride " << strided.b_stride
        << " k " << strided.k << " n " << strided.n << " line " << line;
  }
}

// b_strided names B's starts as a start and a stride: every result must be what the same
// starts given as a list give (validation, C, the memory reads, the B line counts), and the
// two ways of naming B cannot be mixed.
TEST(MmStrided, AStartAndAStrideAreTheListTheyName) {
  std::mt19937_64 gen(11);
  const MmType types[] = {MmType::kS8, MmType::kBF16, MmType::kF32};
  for (int iter = 0; iter < 400; ++iter) {
    MmInstruction list;
    list.a_type = list.b_type = types[gen() % 3];
    const std::uint64_t eb = bytes_of(list.b_type);
    list.a_base = 64;
    list.k = 1 + gen() % 4;
    list.kb = 1 + gen() % 2;
    list.n = 1 + gen() % 12;
    list.t1 = gen() % 2 == 0;
    if (gen() % 3 == 0) {
      for (std::uint32_t j = 0; j < list.n; ++j)
        list.column_predicate.push_back(gen() % 3 != 0);
    }
    MmInstruction strided = list;
    strided.b_strided = true;
    strided.b_start = kBBase + eb * (gen() % 8) + (gen() % 5 == 0 ? 1 : 0);  // some misaligned
    strided.b_stride = eb * (gen() % 40);  // 0 too: every start the same
    for (std::size_t i = 0; i < strided.b_entries(); ++i)
      list.b_addresses.push_back(strided.b_start + i * strided.b_stride);
    SCOPED_TRACE(::testing::Message() << "iteration " << iter);

    RegisterFile regs_list(32, 128), regs_strided(32, 128);
    for (std::uint32_t t = 0; t < 32; ++t)
      for (std::uint32_t r = 0; r < 128; ++r)
        regs_list.at(t, r) = regs_strided.at(t, r) = static_cast<std::uint32_t>(gen());
    Memory mem_list, mem_strided;
    mem_list.bytes.resize(64 * 1024);
    for (std::byte& x : mem_list.bytes)
      x = static_cast<std::byte>(gen());
    mem_strided.bytes = mem_list.bytes;
    const auto a = execute_mm(list, regs_list, mem_list.reader());
    const auto b = execute_mm(strided, regs_strided, mem_strided.reader());
    ASSERT_EQ(a.ok(), b.ok());
    if (!a.ok()) {
      EXPECT_EQ(a.error().message, b.error().message);
      continue;
    }
    std::string where;
    EXPECT_TRUE(same_registers(regs_list, regs_strided, &where)) << where;
    EXPECT_EQ(mem_list.reads, mem_strided.reads);
    std::vector<std::pair<std::uint64_t, std::uint64_t>> scratch;
    for (const bool distinct : {false, true}) {
      for (const std::uint32_t line : {16u, 128u, 96u}) {
        EXPECT_EQ(mm_fetch_line_count(strided, line, distinct, scratch),
                  mm_fetch_line_count(list, line, distinct, scratch));
        EXPECT_EQ(mm_fetch_lines(strided, line, distinct), mm_fetch_lines(list, line, distinct));
      }
    }
  }

  RegisterFile regs(32, 512);  // the default a_base is r256
  MmInstruction both;
  both.n = 2;
  both.b_strided = true;
  both.b_addresses = {kBBase, kBBase + 16};
  expect_error(Result<int>(validate_mm(both, regs).errors()),
               {"mm: b_strided with 2 b_addresses: name B's starts one way"});
  MmInstruction wraps;
  wraps.n = 4;
  wraps.b_strided = true;
  wraps.b_start = 0xFFFF'FFFF'FFFF'0000;
  wraps.b_stride = 0x8000;
  expect_error(Result<int>(validate_mm(wraps, regs).errors()),
               {"b_start 0xffffffffffff0000 + 3 x b_stride 0x8000 + 16 bytes wraps"});
  wraps.column_predicate = {true, false, false, false};  // only start 0 counts
  EXPECT_TRUE(validate_mm(wraps, regs).ok());
  wraps.b_start = ~std::uint64_t{0};  // wraps at once, but no column is on: as with a list
  wraps.column_predicate = {false, false, false, false};
  EXPECT_TRUE(validate_mm(wraps, regs).ok());
  MmInstruction listed = wraps;
  listed.b_strided = false;
  listed.b_addresses = {wraps.b_address(0), wraps.b_address(1), wraps.b_address(2),
                        wraps.b_address(3)};
  EXPECT_TRUE(validate_mm(listed, regs).ok());
}

// §5 item 4 (¶95, ¶105): masked columns are neither fetched nor accumulated.
TEST(MmPredicate, MaskedColumnsUntouchedAndNeverRead) {
  for (bool t1 : {false, true}) {
    for (const auto& pair : all_pairs()) {
      Shape s;
      s.at = pair.first;
      s.bt = pair.second;
      s.rows = 4;
      s.k = 4;
      s.n = 10;
      s.ka = 2;
      s.t1 = t1;
      s.pred = {true, false, false, true, true, false, true, false, true, true};
      Harness h(s, 5);
      const auto outs = h.run();
      h.check();  // masked columns' C registers compared bit for bit with the snapshot
      h.check_masked_bytes_unread();
      h.check_counts(outs[0].counts);
      EXPECT_EQ(outs[0].counts.columns, 6u);
      EXPECT_FALSE(h.mem().reads.empty());
    }
  }
  // All columns masked: nothing read, nothing written.
  Shape s;
  s.pred.assign(4, false);
  Harness h(s, 6);
  const auto outs = h.run();
  h.check();
  EXPECT_TRUE(h.mem().reads.empty());
  EXPECT_EQ(outs[0].counts.active_threads, 0u);
  EXPECT_EQ(outs[0].counts.b_elements_fetched, 0u);
}

// §5 item 6 (¶16): one fetch of B feeds every thread; registers other than C never change.
TEST(MmBroadcast, FetchCountIndependentOfThreadCount) {
  for (std::uint32_t rows : {1u, 32u, 256u}) {
    Shape s;
    s.at = s.bt = MmType::kBF16;
    s.rows = rows;
    s.k = 8;
    s.n = 16;
    Harness h(s, rows);
    const auto outs = h.run();
    h.check();  // every register outside the C ranges is bit-identical
    const MmCounts& c = outs[0].counts;
    EXPECT_EQ(c.b_elements_fetched, 8u * 16u) << rows << " threads";
    EXPECT_EQ(c.b_bytes_fetched, 8u * 16u * 2u);
    EXPECT_EQ(c.a_register_reads, rows * 4u);  // 8 bf16 = 4 registers, read once per thread
    EXPECT_EQ(c.macs, std::uint64_t{rows} * 8u * 16u);
    std::uint64_t bytes_read = 0;
    for (const auto& r : h.mem().reads)
      bytes_read += r.second;
    EXPECT_EQ(bytes_read, 8u * 16u * 2u);
  }
}

// §5 item 5 (¶100): c_base 300 + 256 columns in a 512-register file. Columns 0..211 computed,
// 212..255 dropped, one error for the instruction, nothing else changed.
TEST(MmRange, ProductRegistersPastTheFile) {
  Shape s;
  s.at = s.bt = MmType::kU8;
  s.rows = 4;
  s.k = 8;
  s.n = 256;
  s.c_base = 300;
  s.a_base = 256;
  Harness h(s, 300);
  const auto outs = h.run();
  h.check();  // in-range computed; out-of-range columns have no register; rest unchanged
  h.check_counts(outs[0].counts);
  ASSERT_EQ(outs[0].range_errors.size(), 1u);
  const std::string& m = outs[0].range_errors[0].message;
  EXPECT_EQ(m.find('\n'), std::string::npos);
  for (const char* f : {"thread 0", "r300..r555", "512-register", "r512", "212..255"})
    EXPECT_NE(m.find(f), std::string::npos) << f << " in: " << m;
  EXPECT_EQ(outs[0].counts.skipped_out_of_range, 4u * 44u);
  EXPECT_EQ(outs[0].counts.macs, 4u * 212u * 8u);
  for (std::uint32_t t = 0; t < 4; ++t)
    EXPECT_EQ(changed_registers(h.regs(), h.before(), t), 212u);
}

TEST(MmRange, Ka2InterleavedNamesTheFirstOffendingThread) {
  Shape s;
  s.at = s.bt = MmType::kU8;
  s.rows = 2;
  s.k = 4;
  s.n = 9;  // part 0 owns 5 columns (r60..r64), part 1 owns 4 (r60..r63)
  s.ka = 2;
  s.kb = 2;
  s.leader = 1;
  s.split = KaSplit::kInterleaved;
  s.regs = 64;
  s.c_base = 60;
  s.a_base = 0;
  Harness h(s, 64);
  const auto outs = h.run();
  h.check();
  h.check_counts(outs[0].counts);
  ASSERT_EQ(outs[0].range_errors.size(), 1u);
  const std::string& m = outs[0].range_errors[0].message;
  for (const char* f : {"thread 1", "r60..r64", "64-register", "r64", "8..8"})
    EXPECT_NE(m.find(f), std::string::npos) << f << " in: " << m;
  EXPECT_EQ(outs[0].counts.skipped_out_of_range, 2u);
}

TEST(MmRange, CBaseEntirelyPastTheFile) {
  Shape s;
  s.rows = 2;
  s.n = 3;
  s.c_base = 600;
  Harness h(s, 1);
  const auto outs = h.run();
  h.check();
  ASSERT_EQ(outs[0].range_errors.size(), 1u);
  EXPECT_EQ(outs[0].counts.skipped_out_of_range, 6u);
  EXPECT_EQ(outs[0].counts.active_threads, 0u);
  EXPECT_EQ(outs[0].counts.macs, 0u);
}

MmInstruction valid_int8(std::uint32_t n) {
  MmInstruction mm;
  mm.a_type = mm.b_type = MmType::kS8;
  mm.k = 8;
  mm.n = n;
  for (std::uint32_t j = 0; j < n; ++j)
    mm.b_addresses.push_back(kBBase + 8 * j);
  return mm;
}

// Every bad input is refused before anything is read or written.
TEST(MmValidate, BadInputsAreRefusedUntouched) {
  struct Bad {
    const char* what;
    std::function<void(MmInstruction&)> edit;
    std::vector<const char*> fragments;
  };
  const std::vector<Bad> cases = {
      {"k 0", [](MmInstruction& m) { m.k = 0; }, {"k 0"}},
      {"n 0",
       [](MmInstruction& m) {
         m.n = 0;
         m.b_addresses.clear();
       },
       {"n 0"}},
      {"ka 0", [](MmInstruction& m) { m.ka = 0; }, {"ka 0"}},
      {"kb 0", [](MmInstruction& m) { m.kb = 0; }, {"kb 0"}},
      {"threads % ka*kb", [](MmInstruction& m) { m.ka = 3; }, {"4 threads", "ka 3", "multiple"}},
      {"kb_leader",
       [](MmInstruction& m) {
         m.kb = 2;
         m.kb_leader = 2;
       },
       {"kb_leader 2", "kb 2"}},
      {"f16 x bf16",
       [](MmInstruction& m) {
         m.a_type = MmType::kF16;
         m.b_type = MmType::kBF16;
       },
       {"f16", "bf16", "pair"}},
      {"s8 x f16", [](MmInstruction& m) { m.b_type = MmType::kF16; }, {"s8", "f16"}},
      {"tf32 x f32",
       [](MmInstruction& m) {
         m.a_type = MmType::kTF32;
         m.b_type = MmType::kF32;
       },
       {"tf32", "f32"}},
      {"t0 addresses",
       [](MmInstruction& m) { m.b_addresses.pop_back(); },
       {"b_addresses has 3", "t0", "4"}},
      {"t1 addresses", [](MmInstruction& m) { m.t1 = true; }, {"b_addresses has 4", "t1", "8"}},
      {"predicate",
       [](MmInstruction& m) {
         m.column_predicate = {true, false, true};
       },
       {"column_predicate has 3", "n = 4"}},
      {"A past the file",
       [](MmInstruction& m) {
         m.a_base = 510;
         m.k = 12;
       },
       {"a_base r510 + 3 A registers", "512-register"}},
      {"address wrap",
       [](MmInstruction& m) { m.b_addresses[2] = ~std::uint64_t{0} - 3; },
       {"b_addresses[2]", "wraps"}},
  };
  for (const Bad& bad : cases) {
    SCOPED_TRACE(bad.what);
    RegisterFile regs(4, 512);
    std::mt19937 rng(1);
    for (std::uint32_t t = 0; t < 4; ++t)
      for (std::uint32_t r = 0; r < 512; ++r)
        regs.at(t, r) = rng();
    const RegisterFile before = regs;
    MmInstruction mm = valid_int8(4);
    ASSERT_TRUE(validate_mm(mm, regs).ok());
    bad.edit(mm);
    Memory mem;
    mem.bytes.resize(64);
    expect_error(validate_mm(mm, regs), {});
    const auto r = execute_mm(mm, regs, mem.reader());
    ASSERT_FALSE(r.ok());
    std::vector<const char*> frags = bad.fragments;
    std::string all;
    for (const Error& e : r.errors()) {
      EXPECT_EQ(e.message.rfind("mm: ", 0), 0u) << e.message;
      all += e.message + " | ";
    }
    for (const char* f : frags)
      EXPECT_NE(all.find(f), std::string::npos) << f << " in: " << all;
    EXPECT_TRUE(mem.reads.empty());
    std::string where;
    EXPECT_TRUE(same_registers(regs, before, &where)) << where;
  }
}

// A fetch error (page not loaded, ¶64) aborts the instruction with that error and no register
// changes, even when earlier columns were fetched fine.
TEST(MmValidate, ReaderErrorLeavesRegistersUntouched) {
  for (bool t1 : {false, true}) {
    Shape s;
    s.at = s.bt = MmType::kF16;
    s.rows = 4;
    s.k = 4;
    s.n = 6;
    s.t1 = t1;
    Harness h(s, 8);
    h.load_a(0);
    const RegisterFile before = h.regs();
    h.mem().fail_at = 2;
    const auto r = execute_mm(h.instruction(0), h.regs(), h.mem().reader());
    expect_error(r, {"page not loaded"});
    std::string where;
    EXPECT_TRUE(same_registers(h.regs(), before, &where)) << where;
  }
}

TEST(MmRegisterFile, ShapeAndThreadSpans) {
  RegisterFile regs(3, 10);
  EXPECT_EQ(regs.threads(), 3u);
  EXPECT_EQ(regs.regs_per_thread(), 10u);
  regs.at(2, 9) = 0xABCD;
  EXPECT_EQ(regs.thread(2)[9], 0xABCDu);
  EXPECT_EQ(regs.thread(1).size(), 10u);
  EXPECT_EQ(regs.at(1, 0), 0u);
}

TEST(MmRegisterFileDeathTest, OutOfRangeAborts) {
  RegisterFile regs(2, 4);
  EXPECT_DEATH((void)regs.at(2, 0), "register");
  EXPECT_DEATH((void)regs.at(0, 4), "register");
}

}  // namespace
}  // namespace xpusim::core
