#include "kernel/atomic.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <type_traits>

namespace xpusim::kernel {
namespace {

template <class T>
T load(const std::byte* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}
template <class T>
void store(std::byte* p, T v) {
  std::memcpy(p, &v, sizeof(T));
}

float flush(float v) {
  return std::fpclassify(v) == FP_SUBNORMAL ? std::copysign(0.0f, v) : v;
}

template <class T>
T integer_op(AtomOp op, T a, T b, T c) {
  using U = std::make_unsigned_t<T>;
  switch (op) {
    case AtomOp::kAdd:
      return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
    case AtomOp::kMin:
      return a < b ? a : b;
    case AtomOp::kMax:
      return a > b ? a : b;
    case AtomOp::kInc:  // ((old >= b) ? 0 : old + 1), unsigned
      return static_cast<U>(a) >= static_cast<U>(b) ? T{0} : static_cast<T>(static_cast<U>(a) + 1);
    case AtomOp::kDec:  // ((old == 0) || (old > b)) ? b : old - 1, unsigned
      return (a == 0 || static_cast<U>(a) > static_cast<U>(b))
                 ? b
                 : static_cast<T>(static_cast<U>(a) - 1);
    case AtomOp::kAnd:
      return a & b;
    case AtomOp::kOr:
      return a | b;
    case AtomOp::kXor:
      return a ^ b;
    case AtomOp::kExch:
      return b;
    case AtomOp::kCas:
      return a == b ? c : a;
  }
  return a;
}

template <class T>
void apply_int(AtomOp op, std::byte* mem, const std::byte* b, const std::byte* c, std::byte* old) {
  const T a = load<T>(mem);
  store(old, a);
  store(mem, integer_op<T>(op, a, load<T>(b), c != nullptr ? load<T>(c) : T{0}));
}

}  // namespace

bool atom_valid(AtomOp op, AtomType t) {
  switch (t) {
    case AtomType::kF32:
    case AtomType::kF64:
      return op == AtomOp::kAdd || op == AtomOp::kExch ||
             (t == AtomType::kF32 && (op == AtomOp::kMin || op == AtomOp::kMax));
    case AtomType::kB32:
    case AtomType::kB64:
      return op == AtomOp::kAnd || op == AtomOp::kOr || op == AtomOp::kXor || op == AtomOp::kExch ||
             op == AtomOp::kCas;
    case AtomType::kS32:
    case AtomType::kS64:
      return op == AtomOp::kAdd || op == AtomOp::kMin || op == AtomOp::kMax;
    case AtomType::kU32:
      return op != AtomOp::kAnd && op != AtomOp::kOr && op != AtomOp::kXor;
    case AtomType::kU64:
      return op == AtomOp::kAdd || op == AtomOp::kMin || op == AtomOp::kMax ||
             op == AtomOp::kExch || op == AtomOp::kCas || op == AtomOp::kInc || op == AtomOp::kDec;
  }
  return false;
}

void atom_apply(AtomOp op, AtomType t, std::byte* mem, const std::byte* b, const std::byte* c,
                std::byte* old) {
  switch (t) {
    case AtomType::kU32:
    case AtomType::kB32:
      return apply_int<std::uint32_t>(op, mem, b, c, old);
    case AtomType::kS32:
      return apply_int<std::int32_t>(op, mem, b, c, old);
    case AtomType::kU64:
    case AtomType::kB64:
      return apply_int<std::uint64_t>(op, mem, b, c, old);
    case AtomType::kS64:
      return apply_int<std::int64_t>(op, mem, b, c, old);
    case AtomType::kF32: {
      const float a = load<float>(mem), v = load<float>(b);
      store(old, a);
      float r = v;
      // atom.add.f32 flushes subnormal inputs and results (PTX ISA, atom).
      if (op == AtomOp::kAdd) r = flush(flush(a) + flush(v));
      // min/max: a NaN operand yields the other (PTX min/max semantics).
      if (op == AtomOp::kMin) r = std::fmin(a, v);
      if (op == AtomOp::kMax) r = std::fmax(a, v);
      store(mem, r);
      return;
    }
    case AtomType::kF64: {
      const double a = load<double>(mem), v = load<double>(b);
      store(old, a);
      store(mem, op == AtomOp::kAdd ? a + v : v);
      return;
    }
  }
}

const char* to_string(AtomOp op) {
  static const char* const k[] = {"add", "min", "max", "inc",  "dec",
                                  "and", "or",  "xor", "exch", "cas"};
  return k[static_cast<int>(op)];
}
const char* to_string(AtomType t) {
  static const char* const k[] = {"u32", "s32", "u64", "s64", "f32", "f64", "b32", "b64"};
  return k[static_cast<int>(t)];
}

}  // namespace xpusim::kernel
