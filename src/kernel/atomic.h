// The arithmetic of an atomic read-modify-write (PTX atom / red, CUDA atomicAdd & co.), shared
// by every executor that applies one: given the value in memory and the operands, the new
// value. Bit-exact to the PTX ISA's definitions (inc/dec wrap rules, f32 add flushing).
#pragma once

#include <cstddef>
#include <cstdint>

namespace xpusim::kernel {

enum class AtomOp : std::uint8_t { kAdd, kMin, kMax, kInc, kDec, kAnd, kOr, kXor, kExch, kCas };
enum class AtomType : std::uint8_t { kU32, kS32, kU64, kS64, kF32, kF64, kB32, kB64 };

inline constexpr std::uint32_t atom_bytes(AtomType t) {
  return t == AtomType::kU32 || t == AtomType::kS32 || t == AtomType::kF32 || t == AtomType::kB32
             ? 4
             : 8;
}

// Whether PTX defines `op` on `t` (e.g. no atom.and.f32, no atom.add.b32).
bool atom_valid(AtomOp op, AtomType t);

// `mem` (atom_bytes(t) bytes, little-endian) becomes op(mem, b[, c]); `old` receives its value
// before. `c` is the swap value of kCas (ignored otherwise).
void atom_apply(AtomOp op, AtomType t, std::byte* mem, const std::byte* b, const std::byte* c,
                std::byte* old);

const char* to_string(AtomOp op);
const char* to_string(AtomType t);

}  // namespace xpusim::kernel
