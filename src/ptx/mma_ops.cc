// Warp-level matrix instructions: ldmatrix / stmatrix (m8n8 b16 tiles between shared memory and
// the fragment layout of the PTX ISA) and mma.sync (m16n8k8/k16/k32 on the tensor pipe).
// Fragment layouts are the PTX ISA's ("Matrix fragments for mma.m16n8k*"); docs/ptx.md.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "ptx/float_ops.h"
#include "ptx/interpreter.h"

namespace xpusim::ptx {
namespace {

using kernel::kWarpSize;
using kernel::LaneMask;

constexpr LaneMask kFullWarp = 0xFFFF'FFFFu;

struct Pos {
  std::uint32_t row, col;
};

// Where element i of lane `lane`'s A fragment sits in the M×K matrix A.
Pos a_pos(MmaShape s, Type t, std::uint32_t lane, std::uint32_t i) {
  const std::uint32_t g = lane >> 2, q = lane & 3;
  if (t == Type::kTF32)  // m16n8k8: a0 (g, q), a1 (g+8, q), a2 (g, q+4), a3 (g+8, q+4)
    return {g + 8 * (i & 1), q + 4 * (i >> 1)};
  if (t == Type::kF16 || t == Type::kBF16) {
    if (s == MmaShape::kM16n8k8) return {g + 8 * (i >> 1), 2 * q + (i & 1)};
    return {g + 8 * ((i >> 1) & 1), 2 * q + (i & 1) + 8 * (i >> 2)};  // m16n8k16
  }
  if (s == MmaShape::kM16n8k16) return {g + 8 * (i >> 2), 4 * q + (i & 3)};  // 8-bit
  return {g + 8 * ((i >> 2) & 1), 4 * q + (i & 3) + 16 * (i >> 3)};          // m16n8k32
}

// Where element i of the lane's B fragment sits in the K×N matrix B.
Pos b_pos(MmaShape s, Type t, std::uint32_t lane, std::uint32_t i) {
  const std::uint32_t g = lane >> 2, q = lane & 3;
  if (t == Type::kTF32) return {q + 4 * i, g};
  if (t == Type::kF16 || t == Type::kBF16) return {2 * q + (i & 1) + 8 * (i >> 1), g};
  if (s == MmaShape::kM16n8k16) return {4 * q + i, g};
  return {4 * q + (i & 3) + 16 * (i >> 2), g};
}

// C and D (16×8, one 32-bit element a register): c0, c1 (g, 2q..), c2, c3 (g+8, 2q..).
Pos c_pos(std::uint32_t lane, std::uint32_t i) {
  return {(lane >> 2) + 8 * (i >> 1), 2 * (lane & 3) + (i & 1)};
}

std::uint32_t per_reg(Type t) {
  return 4 / type_bytes(t == Type::kTF32 ? Type::kF32 : t);
}

// An element's value: halves and tf32 exactly as doubles, 8-bit integers as they are.
double element(Type t, std::uint32_t reg, std::uint32_t at) {
  switch (t) {
    case Type::kF16:
      return fp::f16_to_f32(static_cast<std::uint16_t>(reg >> (16 * at)));
    case Type::kBF16:
      return fp::bf16_to_f32(static_cast<std::uint16_t>(reg >> (16 * at)));
    case Type::kTF32:  // the low 13 bits are not part of a tf32 operand
      return std::bit_cast<float>(reg & 0xFFFF'E000u);
    case Type::kS8:
      return static_cast<std::int8_t>(reg >> (8 * at));
    default:
      return static_cast<std::uint8_t>(reg >> (8 * at));
  }
}

}  // namespace

bool WarpInterpreter::exec_matrix(const Instruction& in, LaneMask m) {
  if (m != kFullWarp)
    return fail(in, fmt::format("{} needs all 32 lanes of the warp (active {:#010x})",
                                in.op == Opcode::kMma        ? "mma.sync"
                                : in.op == Opcode::kWmma     ? "wmma"
                                : in.op == Opcode::kLdmatrix ? "ldmatrix"
                                                             : "stmatrix",
                                m));
  if (in.op == Opcode::kMma) return exec_mma(in);
  if (in.op == Opcode::kWmma) return exec_wmma(in);
  // ldmatrix d, [a] / stmatrix [a], s: lanes 8i..8i+7 give the rows of matrix i.
  const bool store = in.op == Opcode::kStmatrix;
  const Operand& regs = operand(in, store ? 1 : 0);
  const std::uint32_t n = in.vec;
  if (regs.kind != Operand::Kind::kVector ? n != 1 : regs.count != n)
    return fail(in, fmt::format("needs {} register{}", n, n == 1 ? "" : "s"));
  const auto reg_at = [&](std::uint32_t i) -> const Operand& {
    return regs.kind == Operand::Kind::kVector ? member(regs, i) : regs;
  };
  const LaneMask rows = n == 4 ? kFullWarp : (LaneMask{1} << (8 * n)) - 1;
  Space space = Space::kNone;
  if (!resolve(in, operand(in, store ? 0 : 1), rows, space, op_addr_)) return false;
  if (space != Space::kShared) return fail(in, "the address must be in this CTA's shared memory");
  std::string bad;
  for_lanes(rows, [&](std::uint32_t l) {
    if (!bad.empty()) return;
    if (op_addr_[l] % 16 != 0)
      bad = fmt::format("lane {} row address {:#x} is not 16-byte aligned", l, op_addr_[l]);
    else if ((op_addr_[l] >> kClusterRankShift) != 0)
      bad =
          fmt::format("lane {}: shared address {:#x} is not in this CTA's window", l, op_addr_[l]);
  });
  if (!bad.empty()) return fail(in, bad);
  auto* data = reinterpret_cast<std::byte*>(op_data_.data());
  if (store) {
    // Row r of matrix i (lane 8i + r's 16 bytes), element c: without .trans thread 4r + c/2's
    // half c%2; with .trans thread 4c + r/2's half r%2.
    for_lanes(rows, [&](std::uint32_t l) {
      const std::uint32_t i = l / 8, r = l % 8;
      for (std::uint32_t c = 0; c < 8; ++c) {
        const std::uint32_t t = in.trans ? 4 * c + r / 2 : 4 * r + c / 2;
        const std::uint32_t h = in.trans ? r % 2 : c % 2;
        const auto v = static_cast<std::uint16_t>(read(reg_at(i), t) >> (16 * h));
        std::memcpy(data + std::size_t{l} * 16 + 2 * c, &v, 2);
      }
    });
  }
  op_ = kernel::Op{.kind = store ? kernel::OpKind::kStoreShared : kernel::OpKind::kLoadShared,
                   .mask = rows,
                   .bytes = 16,
                   .addr = &op_addr_,
                   .data = data};
  op_in_ = &in;
  op_mask_ = m;
  return false;
}

bool WarpInterpreter::reads_pending_mma(const Instruction& in) const {
  for (std::uint32_t k = 1; k < in.count; ++k) {
    const Operand& o = operand(in, k);
    const std::uint32_t n = o.kind == Operand::Kind::kVector ? o.count : 1;
    for (std::uint32_t i = 0; i < n; ++i) {
      const Operand& r = o.kind == Operand::Kind::kVector ? member(o, i) : o;
      if (r.kind == Operand::Kind::kReg && mma_gen_[frame().reg_base + r.reg] == gen_) return true;
    }
  }
  return false;
}

void WarpInterpreter::complete_ldmatrix(const Instruction& in) {
  const Operand& regs = operand(in, 0);
  const auto* data = reinterpret_cast<const std::byte*>(op_data_.data());
  const bool moves = warp_.moves_data();
  for (std::uint32_t i = 0; i < in.vec; ++i) {
    const Operand& d = regs.kind == Operand::Kind::kVector ? member(regs, i) : regs;
    for_lanes(op_mask_, [&](std::uint32_t t) {
      std::uint32_t v = 0;
      for (std::uint32_t h = 0; h < 2; ++h) {
        // Without .trans: row t/4, column 2(t%4)+h; with .trans: row 2(t%4)+h, column t/4.
        const std::uint32_t r = in.trans ? 2 * (t % 4) + h : t / 4;
        const std::uint32_t c = in.trans ? t / 4 : 2 * (t % 4) + h;
        std::uint16_t e = 0;
        if (moves) std::memcpy(&e, data + std::size_t{8 * i + r} * 16 + 2 * c, 2);
        v |= std::uint32_t{e} << (16 * h);
      }
      write(d, t, v);
    });
  }
}

bool WarpInterpreter::exec_mma(const Instruction& in) {
  const MmaShape s = in.shape;
  const std::uint32_t k_dim = s == MmaShape::kM16n8k8 ? 8 : s == MmaShape::kM16n8k16 ? 16 : 32;
  const Type at = in.stype, bt = in.btype;
  const bool integer = in.type == Type::kS32;
  // Register counts: A holds 16·K elements over 32 lanes, B K·8, C and D 4 a lane.
  const std::uint32_t a_elems = 16 * k_dim / kWarpSize, b_elems = 8 * k_dim / kWarpSize;
  const std::uint32_t a_regs = a_elems / per_reg(at), b_regs = b_elems / per_reg(bt);
  // f16 accumulators: two .f16x2 registers, c0/c1 in the first (low half first), c2/c3.
  const bool d16 = in.type == Type::kF16, c16 = in.ctype == Type::kF16;
  const std::uint32_t want[4] = {d16 ? 2u : 4u, a_regs, b_regs, c16 ? 2u : 4u};
  for (std::uint32_t k = 0; k < 4; ++k) {
    const Operand& o = operand(in, k);
    const std::uint32_t got = o.kind == Operand::Kind::kVector ? o.count : 1;
    if (got != want[k])
      return fail(in, fmt::format("operand {} needs {} register{}, not {}", k + 1, want[k],
                                  want[k] == 1 ? "" : "s", got));
  }
  const auto reg_of = [&](std::uint32_t k, std::uint32_t r) -> const Operand& {
    const Operand& o = operand(in, k);
    return o.kind == Operand::Kind::kVector ? member(o, r) : o;
  };
  // Gather the matrices (row-major), compute, scatter D.
  std::array<double, 16 * 32> a{};
  std::array<double, 32 * 8> b{};
  std::array<std::uint32_t, 16 * 8> c{};
  for (std::uint32_t l = 0; l < kWarpSize; ++l) {
    for (std::uint32_t i = 0; i < a_elems; ++i) {
      const Pos p = a_pos(s, at, l, i);
      const auto r = static_cast<std::uint32_t>(read(reg_of(1, i / per_reg(at)), l));
      a[p.row * k_dim + p.col] = element(at, r, i % per_reg(at));
    }
    for (std::uint32_t i = 0; i < b_elems; ++i) {
      const Pos p = b_pos(s, bt, l, i);
      const auto r = static_cast<std::uint32_t>(read(reg_of(2, i / per_reg(bt)), l));
      b[p.row * 8 + p.col] = element(bt, r, i % per_reg(bt));
    }
    for (std::uint32_t i = 0; i < 4; ++i) {
      const Pos p = c_pos(l, i);
      c[p.row * 8 + p.col] =
          c16 ? std::bit_cast<std::uint32_t>(fp::f16_to_f32(
                    static_cast<std::uint16_t>(read(reg_of(3, i / 2), l) >> (16 * (i % 2)))))
              : static_cast<std::uint32_t>(read(reg_of(3, i), l));
    }
  }
  std::array<std::uint32_t, 16 * 8> d{};
  for (std::uint32_t row = 0; row < 16; ++row) {
    for (std::uint32_t col = 0; col < 8; ++col) {
      if (integer) {
        // Exact; .satfinite clamps to s32, else the sum wraps.
        std::int64_t acc = static_cast<std::int32_t>(c[row * 8 + col]);
        for (std::uint32_t k = 0; k < k_dim; ++k)
          acc += static_cast<std::int64_t>(a[row * k_dim + k]) *
                 static_cast<std::int64_t>(b[k * 8 + col]);
        if (in.sat)
          acc = std::clamp<std::int64_t>(acc, std::numeric_limits<std::int32_t>::min(),
                                         std::numeric_limits<std::int32_t>::max());
        d[row * 8 + col] = static_cast<std::uint32_t>(acc);
        continue;
      }
      // Products exact in double, summed in double in k order after C, rounded to f32 once.
      double acc = std::bit_cast<float>(c[row * 8 + col]);
      for (std::uint32_t k = 0; k < k_dim; ++k)
        acc += a[row * k_dim + k] * b[k * 8 + col];
      if (d16) {  // one rounding from the double sum to f16
        d[row * 8 + col] = fp::round_half16(acc, 0, fp::kF16Format, Round::kRn);
        continue;
      }
      const float f = static_cast<float>(acc);
      d[row * 8 + col] = std::isnan(f) ? fp::kCanonicalNanF32 : std::bit_cast<std::uint32_t>(f);
    }
  }
  for (std::uint32_t l = 0; l < kWarpSize; ++l) {
    if (d16) {
      for (std::uint32_t r = 0; r < 2; ++r)
        write(reg_of(0, r), l,
              d[c_pos(l, 2 * r).row * 8 + c_pos(l, 2 * r).col] |
                  (d[c_pos(l, 2 * r + 1).row * 8 + c_pos(l, 2 * r + 1).col] << 16));
      continue;
    }
    for (std::uint32_t i = 0; i < 4; ++i) {
      const Pos p = c_pos(l, i);
      write(reg_of(0, i), l, d[p.row * 8 + p.col]);
    }
  }
  for (std::uint32_t i = 0; i < want[0]; ++i)
    if (reg_of(0, i).kind == Operand::Kind::kReg)
      mma_gen_[frame().reg_base + reg_of(0, i).reg] = gen_;
  // One issue slot, and tensor-pipe work in units of 1024 f16 FMAs (an m16n8k8.f16): tf32
  // runs at half the f16 rate on Hopper, 8-bit integers at twice it (AluWork::mma).
  const std::uint32_t fmas = 16 * 8 * k_dim;
  const std::uint32_t units = integer ? fmas / 2048 : at == Type::kTF32 ? fmas / 512 : fmas / 1024;
  count_alu(in, 1, 0, units);
  return true;
}

// wmma m16n16k16 fragments (docs/ptx.md, "wmma fragments"; the PTX ISA leaves them opaque):
// lane l holds element j (0..7) of a 16×16 matrix at major index l / 2, minor index
// 8 (l % 2) + j. A and B take their layout's major (.row: the row), so a fragment is 16
// contiguous bytes of memory a lane; accumulators are always row-major. f16 A/B fragments have
// 8 .f16x2 registers: 0-3 hold the elements in pairs (low half first), 4-7 repeat them; bf16
// ones are the 4 registers alone; f32 accumulators one element a register, f16 ones two.
namespace {

Pos wmma_pos(std::uint32_t lane, std::uint32_t j, bool col) {
  const std::uint32_t major = lane / 2, minor = 8 * (lane % 2) + j;
  return col ? Pos{minor, major} : Pos{major, minor};
}

std::uint32_t wmma_regs(Sub s, Type t) {
  if (s == Sub::kWmmaLoadA || s == Sub::kWmmaLoadB) return t == Type::kF16 ? 8 : 4;
  return t == Type::kF16 ? 4 : 8;  // accumulators: f16 in pairs, f32 one a register
}

// Element j of lane's fragment from its registers (reg(r): register r's value); `paired`:
// 16-bit elements two a register.
template <class Reg>
std::uint32_t fragment_element(Reg&& reg, bool paired, std::uint32_t j) {
  if (!paired) return static_cast<std::uint32_t>(reg(j));
  return static_cast<std::uint32_t>(reg(j / 2) >> (16 * (j % 2))) & 0xFFFFu;
}

}  // namespace

bool WarpInterpreter::exec_wmma(const Instruction& in) {
  const auto regs_of = [&](std::uint32_t k) -> const Operand& { return operand(in, k); };
  const auto nregs = [&](const Operand& o) -> std::uint32_t {
    return o.kind == Operand::Kind::kVector ? o.count : 1;
  };
  const auto reg_in = [&](const Operand& o, std::uint32_t r) -> const Operand& {
    return o.kind == Operand::Kind::kVector ? member(o, r) : o;
  };
  if (in.sub == Sub::kWmmaMma) {
    const Type ab = in.stype;
    const bool d16 = in.type == Type::kF16, c16 = in.ctype == Type::kF16;
    const std::uint32_t want[4] = {wmma_regs(Sub::kWmmaStoreD, in.type),
                                   wmma_regs(Sub::kWmmaLoadA, ab), wmma_regs(Sub::kWmmaLoadB, ab),
                                   wmma_regs(Sub::kWmmaLoadC, in.ctype)};
    for (std::uint32_t k = 0; k < 4; ++k)
      if (nregs(regs_of(k)) != want[k])
        return fail(in, fmt::format("operand {} needs {} registers, not {}", k + 1, want[k],
                                    nregs(regs_of(k))));
    std::array<double, 256> a{}, b{}, c{};
    for (std::uint32_t l = 0; l < kWarpSize; ++l) {
      for (std::uint32_t j = 0; j < 8; ++j) {
        const auto from = [&](std::uint32_t k) {
          return [&, k](std::uint32_t r) { return read(reg_in(regs_of(k), r), l); };
        };
        const Pos pa = wmma_pos(l, j, in.trans), pb = wmma_pos(l, j, in.col_b),
                  pc = wmma_pos(l, j, false);
        a[pa.row * 16 + pa.col] = element(ab, fragment_element(from(1), true, j), 0);
        b[pb.row * 16 + pb.col] = element(ab, fragment_element(from(2), true, j), 0);
        const std::uint32_t cv = fragment_element(from(3), c16, j);
        c[pc.row * 16 + pc.col] =
            c16 ? fp::f16_to_f32(static_cast<std::uint16_t>(cv)) : std::bit_cast<float>(cv);
      }
    }
    for (std::uint32_t l = 0; l < kWarpSize; ++l) {
      std::uint32_t out[8] = {};
      for (std::uint32_t j = 0; j < 8; ++j) {
        const Pos p = wmma_pos(l, j, false);
        double acc = c[p.row * 16 + p.col];  // as mma.sync: in double, k order, one rounding
        for (std::uint32_t k = 0; k < 16; ++k)
          acc += a[p.row * 16 + k] * b[k * 16 + p.col];
        const float f = static_cast<float>(acc);
        out[j] = d16             ? fp::round_half16(acc, 0, fp::kF16Format, Round::kRn)
                 : std::isnan(f) ? fp::kCanonicalNanF32
                                 : std::bit_cast<std::uint32_t>(f);
      }
      for (std::uint32_t r = 0; r < want[0]; ++r)
        write(reg_in(regs_of(0), r), l, d16 ? out[2 * r] | (out[2 * r + 1] << 16) : out[r]);
    }
    for (std::uint32_t j = 0; j < want[0]; ++j)
      if (reg_in(regs_of(0), j).kind == Operand::Kind::kReg)
        mma_gen_[frame().reg_base + reg_in(regs_of(0), j).reg] = gen_;
    count_alu(in, 1, 0, 4);  // 4096 f16 FMAs
    return true;
  }
  // Loads and stores: the fragment's registers, the matrix pointer, the stride in elements.
  const bool store = in.sub == Sub::kWmmaStoreD;
  const bool ab = in.sub == Sub::kWmmaLoadA || in.sub == Sub::kWmmaLoadB;
  const Operand& frag = regs_of(store ? 1 : 0);
  const std::uint32_t want = wmma_regs(in.sub, in.type);
  if (nregs(frag) != want)
    return fail(in, fmt::format("the fragment needs {} registers, not {}", want, nregs(frag)));
  Space space = Space::kNone;
  if (!resolve(in, regs_of(store ? 0 : 1), kFullWarp, space, op_addr_)) return false;
  if (space != Space::kGlobal && space != Space::kShared)
    return fail(in, "wmma accesses global or this CTA's shared memory only");
  const std::uint32_t es = type_bytes(in.type);
  std::string bad;
  for (std::uint32_t l = 0; l < kWarpSize; ++l) {
    const std::uint64_t stride = in.count > 2 ? read(regs_of(2), l) & 0xFFFF'FFFFu : 16;
    for (std::uint32_t j = 0; j < 8; ++j) {
      // The fragment's position, then where the memory layout (.row/.col) keeps it.
      const Pos p = wmma_pos(l, j, ab && in.trans);
      const std::uint64_t at = in.trans ? p.col * stride + p.row : p.row * stride + p.col;
      wmma_addr_[j][l] = op_addr_[l] + at * es;
    }
    if (bad.empty() && op_addr_[l] % es != 0)
      bad = fmt::format("lane {} address {:#x} is not {}-byte aligned", l, op_addr_[l], es);
    if (bad.empty() && space == Space::kShared && (op_addr_[l] >> kClusterRankShift) != 0)
      bad =
          fmt::format("lane {}: shared address {:#x} is not in this CTA's window", l, op_addr_[l]);
  }
  if (!bad.empty()) return fail(in, bad);
  // Runs of elements contiguous and aligned in every lane become one access of up to 16 bytes.
  wmma_parts_.clear();
  for (std::uint32_t j = 0; j < 8;) {
    std::uint32_t n = std::min<std::uint32_t>(16 / es, 8 - j);
    for (; n > 1; n /= 2) {
      bool ok = true;
      for (std::uint32_t l = 0; l < kWarpSize && ok; ++l) {
        ok = wmma_addr_[j][l] % (n * es) == 0;
        for (std::uint32_t t = 1; t < n && ok; ++t)
          ok = wmma_addr_[j + t][l] == wmma_addr_[j][l] + t * es;
      }
      if (ok) break;
    }
    wmma_parts_.emplace_back(j, n);
    j += n;
  }
  wmma_part_ = 0;
  wmma_elem_bytes_ = es;
  if (store) {
    for (std::uint32_t l = 0; l < kWarpSize; ++l)
      for (std::uint32_t j = 0; j < 8; ++j)
        wmma_vals_[l][j] =
            fragment_element([&](std::uint32_t r) { return read(reg_in(frag, r), l); }, es == 2, j);
  }
  op_in_ = &in;
  op_mask_ = kFullWarp;
  op_.kind = space == Space::kGlobal
                 ? (store ? kernel::OpKind::kStoreGlobal : kernel::OpKind::kLoadGlobal)
                 : (store ? kernel::OpKind::kStoreShared : kernel::OpKind::kLoadShared);
  wmma_part_op(store);
  return false;
}

// The access of wmma_parts_[wmma_part_] into op_ (its kind already set).
void WarpInterpreter::wmma_part_op(bool store) {
  const auto [first, n] = wmma_parts_[wmma_part_];
  const std::uint32_t es = wmma_elem_bytes_;
  auto* data = reinterpret_cast<std::byte*>(op_data_.data());
  for (std::uint32_t l = 0; l < kWarpSize; ++l) {
    op_addr_[l] = wmma_addr_[first][l];
    if (store)
      for (std::uint32_t t = 0; t < n; ++t)
        std::memcpy(data + std::size_t{l} * n * es + t * es, &wmma_vals_[l][first + t], es);
  }
  op_ = kernel::Op{
      .kind = op_.kind, .mask = kFullWarp, .bytes = n * es, .addr = &op_addr_, .data = data};
}

void WarpInterpreter::complete_wmma(const Instruction& in) {
  const bool store = in.sub == Sub::kWmmaStoreD;
  const std::uint32_t es = wmma_elem_bytes_;
  if (!store) {
    const auto [first, n] = wmma_parts_[wmma_part_];
    const auto* data = reinterpret_cast<const std::byte*>(op_data_.data());
    const bool moves = warp_.moves_data();
    for (std::uint32_t l = 0; l < kWarpSize; ++l)
      for (std::uint32_t t = 0; t < n; ++t) {
        std::uint32_t v = 0;
        if (moves) std::memcpy(&v, data + std::size_t{l} * n * es + t * es, es);
        wmma_vals_[l][first + t] = v;
      }
  }
  if (++wmma_part_ < wmma_parts_.size()) {
    wmma_part_op(store);
    followup_ = true;
    return;
  }
  if (!store) {
    const Operand& frag = operand(in, 0);
    const bool paired = wmma_elem_bytes_ == 2;
    const std::uint32_t nregs = frag.kind == Operand::Kind::kVector ? frag.count : 1;
    for (std::uint32_t l = 0; l < kWarpSize; ++l)
      for (std::uint32_t r = 0; r < nregs; ++r) {
        const Operand& d = frag.kind == Operand::Kind::kVector ? member(frag, r) : frag;
        // f16/bf16: elements in pairs, A/B registers 4-7 repeating 0-3; f32: one a register.
        const std::uint32_t q = r % 4;
        const std::uint32_t v =
            paired ? wmma_vals_[l][2 * q] | (wmma_vals_[l][2 * q + 1] << 16) : wmma_vals_[l][r];
        write(d, l, v);
      }
  }
  op_in_ = nullptr;
}

}  // namespace xpusim::ptx
