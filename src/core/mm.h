// The `mm` broadcast tensor-multiply instruction (seed2), functional part: what one `mm`
// computes on the per-thread register files, bit for bit. Timing (two-phase issue, token
// scoreboard, throughput) lives in the SM; this file knows nothing of time.
//
// Thread mapping (our choice where seed2 ¶114–121 leave it open, docs/tensor-unit.md):
//   the second thread set is T threads 0..T-1 (a warp, a warp-group or a CTA);
//   G = ka * kb threads serve one C row:  row = t / G, w = t % G, p = w / kb, q = w % kb;
//   only rows 0..R-1 compute (R = mm.rows, or T / G when 0): threads t >= R * G stay idle,
//   read no A and write nothing (e.g. ¶113's 16 rows on 64 threads with ka1);
//   p picks the thread's share of the columns (kaN, ¶114–116),
//   q picks its K sub-slice (kbN, ¶117–120): A regs of thread q hold A[row][q*k, (q+1)*k).
// Columns: n columns, one per lane of the first thread set (¶102). Column j of the K-slice is
//   t0: the k*kb elements at b.addresses[j] (column-major B, contiguous), or
//   t1: element e of column j at b.addresses[e] + j * element_bytes (row-major B, ¶122–125;
//       b.addresses then lists the k*kb row starts).
// A column whose predicate bit is clear is neither fetched nor accumulated (¶95, ¶105).
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "kernel/mm_instruction.h"
#include "sim/result.h"

namespace xpusim::core {

using kernel::KaSplit;
using kernel::mm_type_bytes;
using kernel::mm_type_name;
using kernel::MmInstruction;
using kernel::MmType;
using kernel::RegisterFile;

// Reads `out.size()` bytes at `address`; an error (unmapped, misaligned, page not loaded)
// names the address and the rule. The B fetch of the memory phase goes through this.
using MmReader = std::function<Status(std::uint64_t address, std::span<std::byte> out)>;

// What one mm did, for stats and the experiments of docs/tensor-unit.md.
struct MmCounts {
  std::uint64_t b_elements_fetched = 0;  // once per element, whatever the thread count (¶16)
  std::uint64_t b_bytes_fetched = 0;
  std::uint64_t a_register_reads = 0;      // each active thread reads its A registers once (¶7)
  std::uint64_t macs = 0;                  // multiply-accumulates done
  std::uint32_t active_threads = 0;        // threads that compute for >= 1 column (kb: all kb)
  std::uint32_t rows = 0;                  // C rows covered: mm.rows, or T / (ka * kb) if 0
  std::uint32_t columns = 0;               // columns that took part (predicate true)
  std::uint32_t skipped_out_of_range = 0;  // C elements (leader thread, column) dropped, ¶100
};

struct MmOutcome {
  MmCounts counts;
  // Non-fatal: product registers past the file (¶100) — in-range columns were computed.
  std::vector<Error> range_errors;
};

// Checks the instruction against the register file before anything is read or written:
// zero k/n/ka/kb, T not a multiple of ka*kb, rows > T / (ka*kb), unsupported type pairs, A
// registers past the file, b_addresses of the wrong length, predicate of the wrong length,
// kb_leader >= kb, k*kb > 2^24, a predicated-on B range that wraps the 64-bit address space. Every
// problem found is reported (one line each, "mm: " prefix).
Status validate_mm(const MmInstruction& mm, const RegisterFile& regs);

// Runs one mm: fetches B through `read` (all of it, before any register is written, so a
// fetch error leaves the registers untouched), then accumulates into the product registers.
// Integer C wraps in int32; float accumulation order and rounding: the numerics block at the
// top of mm.cc (copied to docs/tensor-unit.md).
Result<MmOutcome> execute_mm(const MmInstruction& mm, RegisterFile& regs, const MmReader& read);

// The line addresses (byte addresses aligned down to `line_bytes`) the memory phase reads, in
// first-touch order; predicated-off columns contribute nothing:
//   t0: each predicated-on column's k*kb*element_bytes bytes map to their lines; every line
//       appears once (columns are fetched whole, one after the other), with or without
//       retention.
//   t1 with retention (¶15, ¶124–125): the rows' lines are loaded row by row and kept until
//       every column has selected from them: each distinct line appears once.
//   t1 without retention (¶122): column by column, each (column, row) selection reads its
//       element's line again (repeats allowed), as a conventional L1 that drops the line in
//       between would; e.g. 4x4 int8 with 4-byte lines: 16 entries instead of 4.
std::vector<std::uint64_t> mm_fetch_lines(const MmInstruction& mm, std::uint32_t line_bytes,
                                          bool retention);

// mm_fetch_lines(mm, line_bytes, retention).size() without building the list: the count is
// all a shared-memory B needs (one wavefront a line), and the SM asks for it at every mm.
// `scratch` is reused between calls so that steady state allocates nothing.
std::uint64_t mm_fetch_line_count(const MmInstruction& mm, std::uint32_t line_bytes, bool retention,
                                  std::vector<std::pair<std::uint64_t, std::uint64_t>>& scratch);

}  // namespace xpusim::core
