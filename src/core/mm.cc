// Functional model of the `mm` broadcast tensor multiply (seed2 §3.3–3.9). See mm.h.
//
// Numerics (bit-exact; docs/tensor-unit.md copies this block):
//   Operand decoding.
//     A: thread t's k elements are packed little-endian into 32-bit registers from a_base:
//        4 × 8-bit, 2 × 16-bit or 1 × 32-bit lane per register; element e sits in register
//        a_base + e / per_reg, bits [8·b·(e % per_reg), 8·b·(e % per_reg + 1)), b = element bytes.
//        The thread reads ceil(k / per_reg) registers.
//     B: elements are little-endian, `b` bytes each, in the memory `read` serves.
//     s8 sign-extends, u8 zero-extends (sa/ua/sb/ub mix freely, ¶107: 0xFF·sa × 0xFF·ub = −255).
//     f16/bf16 widen to fp32 exactly. tf32 operands are 32-bit fp32 words (in registers and in
//     memory) whose low 13 mantissa bits are dropped (tf32_truncate, no rounding). f32 is used
//     as is. No flush-to-zero of inputs or results anywhere.
//   Integer pairs (any of s8/u8 × s8/u8) accumulate in int32: each product is exact in int32
//     (|p| <= 255·255); the partial sums and the C update are two's-complement additions modulo
//     2^32 (done in uint32), so the order does not matter. C registers hold int32 bits.
//   Float pairs (f16×f16, bf16×bf16, tf32×tf32, f32×f32) accumulate in fp32, IEEE-754 binary32,
//     round to nearest even, in this exact order:
//       product_e = a_e * b_e  (one fp32 multiply, RNE). For f16/bf16/tf32 operands (≤ 11
//         significant bits each) the product is exact unless it leaves fp32's range
//         (bf16/tf32 share fp32's exponent range: overflow → ±inf, deep underflow → the
//         correctly rounded subnormal or ±0). For f32 it is the correctly rounded product.
//       partial  = 0.0f; for e = 0 .. k-1: partial = partial + product_e   (each add RNE)
//         — one partial per (thread, column), over that thread's own K sub-slice; the +0.0f
//         start means an all-(−0) sum gives +0.
//       leader   : c = float(C bits); for q = 0 .. kb-1: c = c + partial_q; C bits = c
//         (q in K-slice order, independent of which q is the leader; with kb = 1 this is
//          C = C + partial_0).
//     Every multiply and add is a separate statement: no FMA contraction (ISO C++ mode makes
//     GCC use -ffp-contract=off; Clang contracts only within one expression). NaN and infinity
//     propagate as the host's IEEE arithmetic gives (x86-64 SSE: the first NaN operand's
//     payload, quieted; inf − inf = the default NaN 0xFFC00000).
//   Register hazards: a group's A registers (all kb threads) are read before any of that
//     group's C registers is written, so a C range overlapping A sees the A values of before.
//   Out-of-range product registers (¶100): a column whose register c_base + l is past the file
//     is neither computed nor written for that row; `skipped_out_of_range` counts one per
//     (leader thread, column), i.e. per dropped C element, and one range error per instruction
//     names the first such thread.
#include "core/mm.h"

#include <algorithm>
#include <bit>
#include <limits>
#include <utility>

#include <fmt/format.h>

#include "sim/float_formats.h"

namespace xpusim::core {

namespace {

bool is_int(MmType t) {
  return t == MmType::kS8 || t == MmType::kU8 || t == MmType::kS16 || t == MmType::kU16 ||
         t == MmType::kS32 || t == MmType::kU32;
}

// A, B pair is one of the supported families.
bool pair_supported(MmType a, MmType b) {
  if (is_int(a) && is_int(b)) return true;
  if (a != b) return false;
  return a == MmType::kF16 || a == MmType::kBF16 || a == MmType::kTF32 || a == MmType::kF32;
}

std::uint32_t per_register(MmType t) {
  return 4 / mm_type_bytes(t);
}

std::uint32_t a_register_count(const MmInstruction& mm) {
  const std::uint32_t per = per_register(mm.a_type);
  return static_cast<std::uint32_t>((std::uint64_t{mm.k} + per - 1) / per);
}

bool column_on(const MmInstruction& mm, std::uint32_t j) {
  return mm.column_predicate.empty() || mm.column_predicate[j];
}

// Raw element bits of A element e of a thread.
std::uint32_t a_raw(const MmInstruction& mm, std::span<const std::uint32_t> regs, std::uint32_t e) {
  const std::uint32_t bytes = mm_type_bytes(mm.a_type);
  const std::uint32_t per = 4 / bytes;
  const std::uint32_t word = regs[mm.a_base + e / per];
  if (bytes == 4) return word;
  const std::uint32_t shift = 8 * bytes * (e % per);
  const std::uint32_t mask = (1u << (8 * bytes)) - 1;
  return word >> shift & mask;
}

// An integer element as its 32-bit two's-complement value (products and sums wrap mod 2^32).
std::uint32_t to_int(MmType t, std::uint32_t raw) {
  switch (t) {
    case MmType::kS8:
      return static_cast<std::uint32_t>(static_cast<std::int8_t>(static_cast<std::uint8_t>(raw)));
    case MmType::kU8:
      return raw & 0xFF;
    case MmType::kS16:
      return static_cast<std::uint32_t>(static_cast<std::int16_t>(static_cast<std::uint16_t>(raw)));
    case MmType::kU16:
      return raw & 0xFFFF;
    default:  // s32, u32: all 32 bits
      return raw;
  }
}

float to_float(MmType t, std::uint32_t raw) {
  switch (t) {
    case MmType::kF16:
      return half_to_float(static_cast<std::uint16_t>(raw));
    case MmType::kBF16:
      return bf16_to_float(static_cast<std::uint16_t>(raw));
    case MmType::kTF32:
      return tf32_truncate(std::bit_cast<float>(raw));
    case MmType::kF32:
      return std::bit_cast<float>(raw);
    default:
      XPUSIM_CHECK(false, "integer type on the float path");
      return 0.0f;
  }
}

std::uint32_t load_le(const std::byte* p, std::uint32_t bytes) {
  std::uint32_t v = 0;
  for (std::uint32_t i = 0; i < bytes; ++i)
    v |= std::to_integer<std::uint32_t>(p[i]) << (8 * i);
  return v;
}

// Columns of part p in increasing order, with their local register index l.
struct OwnedColumn {
  std::uint32_t j;
  std::uint32_t l;
};

std::vector<OwnedColumn> owned_columns(const MmInstruction& mm, std::uint32_t p) {
  std::vector<OwnedColumn> out;
  if (mm.ka_split == KaSplit::kContiguous) {
    const std::uint32_t chunk = (mm.n + mm.ka - 1) / mm.ka;
    const std::uint64_t lo = std::uint64_t{p} * chunk;
    const std::uint64_t hi = std::min<std::uint64_t>(mm.n, lo + chunk);
    for (std::uint64_t j = lo; j < hi; ++j)
      out.push_back({static_cast<std::uint32_t>(j), static_cast<std::uint32_t>(j - lo)});
  } else {
    for (std::uint32_t j = p; j < mm.n; j += mm.ka)
      out.push_back({j, j / mm.ka});
  }
  return out;
}

void add_lines(std::vector<std::uint64_t>& out, std::uint64_t addr, std::uint64_t bytes,
               std::uint32_t line_bytes) {
  if (bytes == 0) return;
  const std::uint64_t first = addr / line_bytes;
  const std::uint64_t last = (addr + bytes - 1) / line_bytes;
  for (std::uint64_t l = first; l <= last; ++l)
    out.push_back(l * line_bytes);
}

std::vector<std::uint64_t> dedupe_first_touch(const std::vector<std::uint64_t>& lines) {
  std::vector<std::uint64_t> sorted = lines, out;
  std::sort(sorted.begin(), sorted.end());
  std::vector<bool> taken(sorted.size(), false);
  for (std::uint64_t line : lines) {
    const auto i = static_cast<std::size_t>(std::lower_bound(sorted.begin(), sorted.end(), line) -
                                            sorted.begin());
    if (taken[i]) continue;
    taken[i] = true;
    out.push_back(line);
  }
  return out;
}

}  // namespace

Status validate_mm(const MmInstruction& mm, const RegisterFile& regs) {
  std::vector<Error> errs;
  auto fail = [&errs](std::string msg) { errs.push_back(Error{"mm: " + std::move(msg)}); };
  if (!pair_supported(mm.a_type, mm.b_type))
    fail(
        fmt::format("A type {} with B type {} is not a supported pair (any two of s8, u8, s16, "
                    "u16, s32, u32 -> int32; f16 x f16, bf16 x bf16, tf32 x tf32, f32 x f32 -> "
                    "fp32)",
                    mm_type_name(mm.a_type), mm_type_name(mm.b_type)));
  if (mm.k == 0) fail("k 0: an mm needs at least one A element per thread");
  if (mm.n == 0) fail("n 0: an mm needs at least one B column");
  if (mm.ka == 0) fail("ka 0: at least one thread must share a C row (ka >= 1)");
  if (mm.kb == 0) fail("kb 0: at least one thread must share a dot product (kb >= 1)");
  if (mm.ka != 0 && mm.kb != 0) {
    const std::uint64_t group = std::uint64_t{mm.ka} * mm.kb;
    if (regs.threads() % group != 0)
      fail(fmt::format("{} threads is not a multiple of ka {} x kb {} = {} threads per C row",
                       regs.threads(), mm.ka, mm.kb, group));
    const std::uint64_t full = regs.threads() / group;
    if (mm.rows > full)
      fail(fmt::format("rows {} exceeds the {} C rows that {} threads hold at ka {} x kb {}",
                       mm.rows, full, regs.threads(), mm.ka, mm.kb));
    if (mm.kb_leader >= mm.kb)
      fail(fmt::format("kb_leader {} is not one of the kb {} threads of a group (0..{})",
                       mm.kb_leader, mm.kb, mm.kb - 1));
  }
  if (mm.k != 0) {
    const std::uint64_t a_regs = a_register_count(mm);
    if (std::uint64_t{mm.a_base} + a_regs > regs.regs_per_thread())
      fail(fmt::format("a_base r{} + {} A registers ({} x {}) exceeds the {}-register file",
                       mm.a_base, a_regs, mm.k, mm_type_name(mm.a_type), regs.regs_per_thread()));
  }
  if (!mm.column_predicate.empty() && mm.column_predicate.size() != mm.n)
    fail(fmt::format("column_predicate has {} bits; it must be empty or have n = {}",
                     mm.column_predicate.size(), mm.n));
  if (mm.k != 0 && mm.kb != 0 && std::uint64_t{mm.k} * mm.kb > (1u << 24))
    fail(fmt::format("k {} x kb {} = {} B elements per column exceeds the model's 2^24 limit", mm.k,
                     mm.kb, std::uint64_t{mm.k} * mm.kb));
  if (mm.k != 0 && mm.n != 0 && mm.kb != 0) {
    const std::uint64_t rows_b = std::uint64_t{mm.k} * mm.kb;  // K elements of each column
    const std::uint64_t want = mm.t1 ? rows_b : mm.n;
    if (mm.b_strided && !mm.b_addresses.empty()) {
      fail(
          fmt::format("b_strided with {} b_addresses: name B's starts one way (b_start and "
                      "b_stride, or the list)",
                      mm.b_addresses.size()));
    } else if (mm.b_entries() != want) {
      fail(fmt::format("b_addresses has {} entries; {} needs {} ({})", mm.b_addresses.size(),
                       mm.t1 ? "t1" : "t0", want,
                       mm.t1 ? "one row start per K element, k x kb" : "one column start per n"));
    } else if (errs.empty()) {
      // The bytes each entry covers must not wrap the 64-bit address space.
      const std::uint64_t eb = mm_type_bytes(mm.b_type);
      const std::uint64_t span = mm.t1 ? std::uint64_t{mm.n} * eb : rows_b * eb;
      constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
      // Every entry counting (t1, or no predicate), the largest decides: one pass the compiler
      // vectorizes, and the walk below only to name the bad entry.
      const bool every = mm.t1 || mm.column_predicate.empty();
      if (mm.b_strided) {
        // The last entry that counts is the highest; the stride must not wrap on the way. As
        // with a list, entries whose columns are off do not count (none may be on).
        std::size_t counted = want;
        while (!every && counted > 0 && !column_on(mm, static_cast<std::uint32_t>(counted - 1)))
          --counted;
        const std::uint64_t last = counted == 0 ? 0 : counted - 1;
        std::uint64_t offset = 0, end = 0;
        if (counted > 0 &&
            (__builtin_mul_overflow(last, mm.b_stride, &offset) ||
             __builtin_add_overflow(mm.b_start, offset, &end) || end > kMax - span)) {
          fail(
              fmt::format("b_start {:#x} + {} x b_stride {:#x} + {} bytes wraps the 64-bit "
                          "address space",
                          mm.b_start, last, mm.b_stride, span));
        }
      } else {
        std::uint64_t hi = 0;
        for (std::size_t i = 0; every && i < mm.b_addresses.size(); ++i)
          hi = std::max(hi, mm.b_addresses[i]);
        for (std::size_t i = 0; (!every || hi > kMax - span) && i < mm.b_addresses.size(); ++i) {
          if (!mm.t1 && !column_on(mm, static_cast<std::uint32_t>(i))) continue;
          if (mm.b_addresses[i] > kMax - span) {
            fail(fmt::format("b_addresses[{}] {:#x} + {} bytes wraps the 64-bit address space", i,
                             mm.b_addresses[i], span));
            break;
          }
        }
      }
    }
  }
  if (!errs.empty()) return errs;
  return Ok{};
}

Result<MmOutcome> execute_mm(const MmInstruction& mm, RegisterFile& regs, const MmReader& read) {
  if (Status s = validate_mm(mm, regs); !s) return s.errors();

  const std::uint32_t kk = mm.k * mm.kb;  // B elements per column (validated <= 2^24)
  const std::uint32_t eb = mm_type_bytes(mm.b_type);
  const std::uint32_t group = mm.ka * mm.kb;
  const std::uint32_t rows = mm.rows != 0 ? mm.rows : regs.threads() / group;  // validated
  const std::uint32_t regs_per_thread = regs.regs_per_thread();

  MmOutcome out;
  MmCounts& c = out.counts;
  c.rows = rows;

  // ---- Memory phase: fetch every predicated-on column before any register is written. ----
  std::vector<std::uint32_t> slot(mm.n, UINT32_MAX);  // column j -> index into `b`
  std::vector<std::uint32_t> active;
  for (std::uint32_t j = 0; j < mm.n; ++j) {
    if (!column_on(mm, j)) continue;
    slot[j] = static_cast<std::uint32_t>(active.size());
    active.push_back(j);
  }
  c.columns = static_cast<std::uint32_t>(active.size());
  std::vector<std::uint32_t> b(active.size() * std::size_t{kk});  // raw bits, [slot][e]
  std::vector<std::byte> buf;
  if (!mm.t1) {
    buf.resize(std::size_t{kk} * eb);
    for (std::uint32_t j : active) {
      if (Status s = read(mm.b_address(j), buf); !s) return s.errors();
      for (std::uint32_t e = 0; e < kk; ++e)
        b[std::size_t{slot[j]} * kk + e] = load_le(buf.data() + std::size_t{e} * eb, eb);
    }
  } else {
    // Row e: one read per maximal run of consecutive predicated-on columns, so a masked
    // column's bytes are never touched.
    for (std::uint32_t e = 0; e < kk; ++e) {
      for (std::size_t s = 0; s < active.size();) {
        std::size_t t = s + 1;
        while (t < active.size() && active[t] == active[t - 1] + 1)
          ++t;
        const std::uint32_t j0 = active[s];
        buf.resize((t - s) * eb);
        if (Status st = read(mm.b_address(e) + std::uint64_t{j0} * eb, buf); !st)
          return st.errors();
        for (std::size_t i = s; i < t; ++i)
          b[i * kk + e] = load_le(buf.data() + (i - s) * eb, eb);
        s = t;
      }
    }
  }
  c.b_elements_fetched = std::uint64_t{c.columns} * kk;
  c.b_bytes_fetched = c.b_elements_fetched * eb;

  // ---- Column ownership per part p (the same for every row). ----
  struct Part {
    std::vector<OwnedColumn> in_range;  // j, l with c_base + l < regs_per_thread
    std::vector<OwnedColumn> skipped;
  };
  std::vector<Part> parts(mm.ka);
  for (std::uint32_t p = 0; p < mm.ka; ++p) {
    for (const OwnedColumn& oc : owned_columns(mm, p)) {
      if (slot[oc.j] == UINT32_MAX) continue;
      if (std::uint64_t{mm.c_base} + oc.l < regs_per_thread)
        parts[p].in_range.push_back(oc);
      else
        parts[p].skipped.push_back(oc);
    }
  }

  // ---- One range error per instruction, naming the first thread that drops columns. ----
  if (rows > 0) {
    for (std::uint32_t p = 0; p < mm.ka; ++p) {
      const Part& part = parts[p];
      if (part.skipped.empty()) continue;
      std::uint64_t total = 0;
      for (const Part& q : parts)
        total += q.skipped.size();
      total *= rows;
      std::uint32_t lmax = 0, jlo = UINT32_MAX, jhi = 0;
      for (const auto* list : {&part.in_range, &part.skipped})
        for (const OwnedColumn& oc : *list)
          lmax = std::max(lmax, oc.l);
      for (const OwnedColumn& oc : part.skipped) {
        jlo = std::min(jlo, oc.j);
        jhi = std::max(jhi, oc.j);
      }
      const std::uint32_t thread = p * mm.kb + mm.kb_leader;
      const std::uint64_t first_bad = std::uint64_t{mm.c_base} + part.skipped.front().l;
      out.range_errors.push_back(Error{fmt::format(
          "mm: product registers r{}..r{} of thread {} pass the {}-register file (first "
          "out-of-range r{}); {} of its columns ({}..{}) ignored, {} C elements skipped in all",
          mm.c_base, std::uint64_t{mm.c_base} + lmax, thread, regs_per_thread, first_bad,
          part.skipped.size(), jlo, jhi, total)});
      break;
    }
  }

  // ---- Math phase. ----
  const std::uint32_t a_regs = a_register_count(mm);
  const bool integer = is_int(mm.a_type);
  std::vector<std::uint32_t> ipart(mm.kb);  // int32 partials, as uint32 (wrapping)
  std::vector<float> fpart(mm.kb);
  std::vector<std::uint32_t> ai(std::size_t{mm.kb} * mm.k);
  std::vector<float> af(std::size_t{mm.kb} * mm.k);
  for (std::uint32_t row = 0; row < rows; ++row) {
    for (std::uint32_t p = 0; p < mm.ka; ++p) {
      const Part& part = parts[p];
      c.skipped_out_of_range += static_cast<std::uint32_t>(part.skipped.size());
      if (part.in_range.empty()) continue;
      const std::uint32_t t0 = row * group + p * mm.kb;
      c.active_threads += mm.kb;
      c.a_register_reads += std::uint64_t{mm.kb} * a_regs;
      c.macs += std::uint64_t{mm.kb} * mm.k * part.in_range.size();
      // Decode each kb thread's A slice once (¶7: A is read once and reused for all columns).
      for (std::uint32_t q = 0; q < mm.kb; ++q) {
        const std::span<const std::uint32_t> tr = std::as_const(regs).thread(t0 + q);
        for (std::uint32_t e = 0; e < mm.k; ++e) {
          const std::uint32_t raw = a_raw(mm, tr, e);
          if (integer)
            ai[std::size_t{q} * mm.k + e] = to_int(mm.a_type, raw);
          else
            af[std::size_t{q} * mm.k + e] = to_float(mm.a_type, raw);
        }
      }
      const std::span<std::uint32_t> leader = regs.thread(t0 + mm.kb_leader);
      for (const OwnedColumn& oc : part.in_range) {
        const std::uint32_t* bcol = b.data() + std::size_t{slot[oc.j]} * kk;
        std::uint32_t& creg = leader[mm.c_base + oc.l];
        if (integer) {
          for (std::uint32_t q = 0; q < mm.kb; ++q) {
            std::uint32_t acc = 0;
            for (std::uint32_t e = 0; e < mm.k; ++e) {
              const std::uint32_t bv = to_int(mm.b_type, bcol[std::size_t{q} * mm.k + e]);
              acc += ai[std::size_t{q} * mm.k + e] * bv;  // the low 32 bits of the product
            }
            ipart[q] = acc;
          }
          std::uint32_t cv = creg;
          for (std::uint32_t q = 0; q < mm.kb; ++q)
            cv += ipart[q];
          creg = cv;
        } else {
          for (std::uint32_t q = 0; q < mm.kb; ++q) {
            float acc = 0.0f;
            for (std::uint32_t e = 0; e < mm.k; ++e) {
              const float bv = to_float(mm.b_type, bcol[std::size_t{q} * mm.k + e]);
              const float prod = af[std::size_t{q} * mm.k + e] * bv;
              acc = acc + prod;
            }
            fpart[q] = acc;
          }
          float cv = std::bit_cast<float>(creg);
          for (std::uint32_t q = 0; q < mm.kb; ++q)
            cv = cv + fpart[q];
          creg = std::bit_cast<std::uint32_t>(cv);
        }
      }
    }
  }
  return out;
}

std::vector<std::uint64_t> mm_fetch_lines(const MmInstruction& mm, std::uint32_t line_bytes,
                                          bool retention) {
  XPUSIM_CHECK(line_bytes > 0, "line_bytes must be positive");
  const std::uint64_t eb = mm_type_bytes(mm.b_type);
  const std::uint64_t kk = std::uint64_t{mm.k} * mm.kb;
  std::vector<std::uint64_t> lines;
  std::vector<std::uint32_t> active;
  for (std::uint32_t j = 0; j < mm.n; ++j) {
    const bool on =
        mm.column_predicate.size() == mm.n ? mm.column_predicate[j] : mm.column_predicate.empty();
    if (on) active.push_back(j);
  }
  if (!mm.t1) {
    for (std::uint32_t j : active)
      if (j < mm.b_entries()) add_lines(lines, mm.b_address(j), kk * eb, line_bytes);
    return dedupe_first_touch(lines);
  }
  const std::uint64_t rows = std::min<std::uint64_t>(kk, mm.b_entries());
  if (retention) {
    // ¶124: load every row's lines once (rows in order), keep them until all columns used them.
    for (std::uint64_t e = 0; e < rows; ++e)
      for (std::uint32_t j : active)
        add_lines(lines, mm.b_address(e) + j * eb, eb, line_bytes);
    return dedupe_first_touch(lines);
  }
  // ¶122: column by column, each selection re-reads its row's line.
  for (std::uint32_t j : active)
    for (std::uint64_t e = 0; e < rows; ++e)
      add_lines(lines, mm.b_address(e) + j * eb, eb, line_bytes);
  return lines;
}

std::uint64_t mm_fetch_line_count(const MmInstruction& mm, std::uint32_t line_bytes, bool retention,
                                  std::vector<std::pair<std::uint64_t, std::uint64_t>>& scratch) {
  XPUSIM_CHECK(line_bytes > 0, "line_bytes must be positive");
  const std::uint64_t eb = mm_type_bytes(mm.b_type);
  const std::uint64_t kk = std::uint64_t{mm.k} * mm.kb;
  const auto on = [&mm](std::uint32_t j) {
    return mm.column_predicate.size() == mm.n ? bool{mm.column_predicate[j]}
                                              : mm.column_predicate.empty();
  };
  // Lines are a power of two in every shipped config: a shift instead of two divides a run.
  const bool pow2 = std::has_single_bit(line_bytes);
  const int shift = std::countr_zero(line_bytes);
  const auto line_of = [=](std::uint64_t a) { return pow2 ? a >> shift : a / line_bytes; };
  // The distinct lines are the union of the runs' line intervals [first, last]. `each_run(f)`
  // calls f(first, last) per run until f returns false. Runs in address order (the common
  // case: columns or rows laid out one after the other) are merged in one pass; the first run
  // out of order sends them all through `scratch` and a sort.
  const auto union_size = [&](auto each_run) {
    std::uint64_t count = 0, next = 0, prev_first = 0;
    bool any = false;
    const auto merge = [&](std::uint64_t first, std::uint64_t last) {
      if (any && first < prev_first) return false;
      const std::uint64_t from = any ? std::max(first, next) : first;
      if (last >= from) count += last - from + 1;
      next = any ? std::max(next, last + 1) : last + 1;
      prev_first = first;
      any = true;
      return true;
    };
    if (each_run(merge)) return count;
    scratch.clear();
    each_run([&](std::uint64_t first, std::uint64_t last) {
      scratch.emplace_back(first, last);
      return true;
    });
    std::sort(scratch.begin(), scratch.end());
    count = 0, any = false;
    for (const auto& [first, last] : scratch)
      merge(first, last);
    return count;
  };
  if (!mm.t1) {
    const std::uint64_t bytes = kk * eb;
    const std::size_t columns = std::min<std::size_t>(mm.n, mm.b_entries());
    if (bytes == 0) return 0;
    const bool every = mm.column_predicate.empty();
    // Strided columns a whole number of lines apart all sit at the same offset in their first
    // line, so each covers `per` lines and the union has a closed form (what gemm.tma issues
    // every k-step). The starts must not wrap the address space (validation refuses that).
    std::uint64_t span = 0, end = 0;
    if (every && columns > 0 && mm.b_strided && mm.b_stride % line_bytes == 0 &&
        !__builtin_mul_overflow(std::uint64_t{columns - 1}, mm.b_stride, &span) &&
        !__builtin_add_overflow(mm.b_start, span, &end) &&
        !__builtin_add_overflow(end, bytes - 1, &end)) {
      const std::uint64_t per = (mm.b_start % line_bytes + bytes - 1) / line_bytes + 1;
      const std::uint64_t apart = mm.b_stride / line_bytes;
      return apart >= per ? columns * per : (columns - 1) * apart + per;
    }
    if (every && pow2) {
      // The common case (every column on, lines a power of two) without the lambdas: columns
      // in address order merge in one pass; the first one out of order falls back below.
      std::uint64_t count = 0, next = 0, prev_first = 0;
      std::size_t j = 0;
      for (; j < columns; ++j) {
        const std::uint64_t a = mm.b_address(j);
        const std::uint64_t first = a >> shift, last = (a + bytes - 1) >> shift;
        if (j != 0 && first < prev_first) break;
        const std::uint64_t from = j != 0 ? std::max(first, next) : first;
        count += last >= from ? last - from + 1 : 0;
        next = j != 0 ? std::max(next, last + 1) : last + 1;
        prev_first = first;
      }
      if (j == columns) return count;
    }
    return union_size([&](auto f) {
      for (std::size_t j = 0; j < columns; ++j) {
        if (!every && !on(static_cast<std::uint32_t>(j))) continue;
        const std::uint64_t a = mm.b_address(j);
        if (!f(line_of(a), line_of(a + bytes - 1))) return false;
      }
      return true;
    });
  }
  const std::uint64_t rows = std::min<std::uint64_t>(kk, mm.b_entries());
  if (retention) {
    const bool all_on = mm.column_predicate.empty() ||
                        (mm.column_predicate.size() == mm.n &&
                         std::all_of(mm.column_predicate.begin(), mm.column_predicate.end(),
                                     [](bool b) { return b; }));
    return union_size([&](auto f) {
      for (std::uint64_t e = 0; e < rows; ++e) {
        const std::uint64_t a = mm.b_address(e);
        if (all_on) {  // the row's columns are contiguous
          if (mm.n != 0 && !f(line_of(a), line_of(a + std::uint64_t{mm.n} * eb - 1))) return false;
          continue;
        }
        for (std::uint32_t j = 0; j < mm.n; ++j)
          if (on(j) && !f(line_of(a + j * eb), line_of(a + j * eb + eb - 1))) return false;
      }
      return true;
    });
  }
  // Without retention every (column, row) selection counts its element's lines.
  std::uint64_t selections = 0;
  for (std::uint32_t j = 0; j < mm.n; ++j) {
    if (!on(j)) continue;
    for (std::uint64_t e = 0; e < rows; ++e) {
      const std::uint64_t a = mm.b_address(e) + j * eb;
      selections += line_of(a + eb - 1) - line_of(a) + 1;
    }
  }
  return selections;
}

}  // namespace xpusim::core
