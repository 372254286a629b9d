// The `mm` broadcast tensor-multiply instruction (seed2) as a warp issues it: its operand
// fields, and the per-thread register file its A and C operands live in. What it computes is
// core/mm.h; how the SM times it is core/sm_tensor.cc.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "sim/result.h"

namespace xpusim::kernel {

// Element types of seed2 ¶72 that `mm` multiplies. s8/u8 are the sa/ua/sb/ub suffixes (¶107);
// ¶72 also lists int16, uint16, int32 and uint32. Integer types mix freely and accumulate into
// the 32-bit C registers modulo 2^32 (two's complement): the patent names no accumulator
// width, and a C register is 32 bits.
enum class MmType : std::uint8_t { kS8, kU8, kF16, kBF16, kTF32, kF32, kS16, kU16, kS32, kU32 };

// "s8", "u8", "f16", "bf16", "tf32", "f32", "s16", "u16", "s32", "u32".
const char* mm_type_name(MmType t);
std::uint32_t mm_type_bytes(MmType t);  // in memory (and packed into 32-bit registers)

// kaN column split (¶115): contiguous halves/quarters, or round-robin columns.
enum class KaSplit : std::uint8_t { kContiguous, kInterleaved };

// 32-bit registers of T threads, `regs` each (seed2 ¶95: C row in r0…, A segment in r256…).
class RegisterFile {
 public:
  RegisterFile(std::uint32_t threads, std::uint32_t regs_per_thread);
  std::uint32_t threads() const { return threads_; }
  std::uint32_t regs_per_thread() const { return regs_; }
  // Inline: kernels and the functional mm touch registers one by one. Every register reads
  // 0 until written; the words are allocated at the first write (a timing-only run, which
  // moves no values, never allocates them).
  std::uint32_t& at(std::uint32_t thread, std::uint32_t reg) {
    XPUSIM_CHECK(thread < threads_ && reg < regs_, "register index out of the register file");
    if (words_.empty()) allocate();
    return words_[std::size_t{thread} * regs_ + reg];
  }
  std::uint32_t at(std::uint32_t thread, std::uint32_t reg) const {
    XPUSIM_CHECK(thread < threads_ && reg < regs_, "register index out of the register file");
    return words_.empty() ? 0 : words_[std::size_t{thread} * regs_ + reg];
  }
  std::span<std::uint32_t> thread(std::uint32_t t);
  std::span<const std::uint32_t> thread(std::uint32_t t) const;

 private:
  std::uint32_t threads_;
  std::uint32_t regs_;
  void allocate() const { words_.assign(std::size_t{threads_} * regs_, 0); }
  mutable std::vector<std::uint32_t> words_;  // thread-major; empty until first touched
};

struct MmInstruction {
  MmType a_type = MmType::kBF16;  // A (registers): an integer type, f16, bf16, tf32, f32
  MmType b_type = MmType::kBF16;  // B (memory): same family as A (integer types mix freely)
  std::uint32_t c_base = 0;       // first product register (C row part), ¶95 "r0"
  std::uint32_t a_base = 256;     // first factor register (A row segment), ¶95 "r256"
  std::uint32_t k = 8;            // A elements per thread in this instruction (one K-slice)
  std::uint32_t n = 1;            // B columns (lanes of the first thread set)
  std::uint32_t ka = 1;           // threads sharing a C row by columns
  KaSplit ka_split = KaSplit::kContiguous;
  std::uint32_t kb = 1;         // threads sharing each dot product by K
  std::uint32_t kb_leader = 0;  // which q accumulates (¶118: either may)
  // C rows this instruction computes; 0 = T / (ka*kb); threads of rows >= rows stay idle (their
  // C untouched): e.g. 16 rows on a 32-thread warp with ka1 (¶113).
  std::uint32_t rows = 0;
  bool t1 = false;  // B stored row-major (transpose on fetch)
  // Column starts (t0) or row starts (t1), byte addresses in whatever space `read` serves.
  std::vector<std::uint64_t> b_addresses{};
  // The same starts as a first one and a stride, as Hopper's wgmma names B in shared memory
  // (a matrix descriptor's start address and byte offsets): entry i is b_start + i x
  // b_stride. An instruction names B one way: with b_strided, b_addresses stays empty. A
  // kernel that issues an mm every k-step then keeps no per-column array for it to read.
  bool b_strided = false;
  std::uint64_t b_start = 0;
  std::uint64_t b_stride = 0;
  // How many starts the instruction names, and start i (i < b_entries()), in either form.
  std::size_t b_entries() const {
    return b_strided ? (t1 ? std::size_t{k} * kb : std::size_t{n}) : b_addresses.size();
  }
  std::uint64_t b_address(std::size_t i) const {
    return b_strided ? b_start + i * b_stride : b_addresses[i];
  }
  // Bit j: column j takes part. Empty = all n columns.
  std::vector<bool> column_predicate{};
  // Where B lives when a warp issues it: global memory, or the CTA's shared window (offsets).
  bool b_shared = false;
  // >= 0: B is in this page-table segment (seed2 §2.5, the `seg` of seg:rf:imm) and
  // b_addresses are logical ELEMENT offsets in it (rf + imm, ¶60, ¶72); the SM translates
  // every element through the chip's page table (a page not loaded is a fault, ¶64).
  std::int32_t segment = -1;
  // Timing variants for the experiments of docs/tensor-unit.md (what C is never changes):
  bool broadcast = true;  // false: every thread fetches B itself (no broadcast, ¶16)
  bool retention = true;  // false: t1 lines are dropped and re-read per column (¶122)
  // A what-if beyond seed2 (docs/tensor-unit.md): a warpgroup-wide instruction, as Hopper's
  // wgmma. The four warps of a warpgroup issue it together, each for its own C rows; a B they
  // name alike is fetched once, by the first to issue, and the others take it from there.
  bool warpgroup = false;
};

}  // namespace xpusim::kernel
