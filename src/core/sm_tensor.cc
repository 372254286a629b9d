// The SM's tensor unit: timing of the `mm` instruction and of the register loads that feed it
// (seed2; docs/tensor-unit.md).
//  - load_registers_*: one issue slot; the warp goes on. Each written register's token stays
//    pending until the data lands (global: through the memory hierarchy; shared: the data
//    stage and the shared latency).
//  - mm, issue 1 (memory form, ¶20, ¶98): one issue slot; B is fetched once for the warp
//    (broadcast, ¶16) as whole lines through L1/L2/HBM, or as shared-memory wavefronts.
//  - Then the A registers' tokens are checked (¶101): while a load that writes them is in
//    flight the warp's issue is blocked (counted as token stall cycles).
//  - mm, issues 2..: one math issue per B column (¶102), each an issue slot of the
//    sub-partition; the sub-partition's tensor unit is busy ceil(MACs / rate) cycles (at least
//    one per column). The warp goes on when the math has completed.
#include <fmt/format.h>

#include <algorithm>

#include "core/mm.h"
#include "core/sm.h"
#include "core/sm_state.h"

namespace xpusim::core {

using kernel::Op;
using kernel::OpKind;

namespace {

// The alignment bits and the span of a set of addresses, for the one-pass validity checks:
// every address is aligned to a power of two `a` when (bits & (a - 1)) == 0, and inside a
// window when [lo, hi + its bytes) is.
struct AddressSpan {
  std::uint64_t bits = 0, lo = ~std::uint64_t{0}, hi = 0;
  void add(std::uint64_t a) {
    bits |= a;
    lo = std::min(lo, a);
    hi = std::max(hi, a);
  }
  bool empty() const { return lo > hi; }
};

std::uint32_t per_register(kernel::MmType t) {
  return 4 / kernel::mm_type_bytes(t);
}

// Timing-only: no data, the same range rule (¶100) on the widest thread share.
Status timing_only_range_check(const kernel::MmInstruction& mm, const kernel::RegisterFile& regs) {
  const std::uint32_t share = (mm.n + mm.ka - 1) / mm.ka;
  if (std::uint64_t{mm.c_base} + share > regs.regs_per_thread()) {
    return Error{fmt::format("mm: product registers r{}..r{} pass the {}-register file", mm.c_base,
                             std::uint64_t{mm.c_base} + share - 1, regs.regs_per_thread())};
  }
  return Ok{};
}

}  // namespace

kernel::RegisterFile& Sm::registers(kernel::Warp& warp) {
  WarpSlot& w = *static_cast<WarpSlot*>(warp.executor_slot);
  if (!w.regs) {
    w.regs =
        std::make_unique<kernel::RegisterFile>(kernel::kWarpSize, cfg_.tensor.registers_per_thread);
    w.reg_pending.assign(cfg_.tensor.registers_per_thread, 0);
  }
  return *w.regs;
}

std::uint32_t Sm::mm_rate(kernel::MmType t) const {
  const TensorTiming& x = cfg_.tensor;
  switch (t) {
    case kernel::MmType::kS8:
    case kernel::MmType::kU8:
      return x.int8_fma_per_cycle;
    // The 16- and 32-bit integer types (seed2 ¶72, no rate given) run at the rate of the float
    // type of their width: the operand datapath, not the arithmetic, bounds the rate.
    case kernel::MmType::kF16:
    case kernel::MmType::kBF16:
    case kernel::MmType::kS16:
    case kernel::MmType::kU16:
      return x.f16_fma_per_cycle;
    case kernel::MmType::kTF32:
      return x.tf32_fma_per_cycle;
    case kernel::MmType::kF32:
    case kernel::MmType::kS32:
    case kernel::MmType::kU32:
      return x.f32_fma_per_cycle;
  }
  return x.f32_fma_per_cycle;
}

// Checked when the warp issues it, in every mode (the timing needs the same facts); in
// functional mode the registers are written here too.
Status Sm::accept_register_load(WarpSlot& w) {
  const Op& op = w.op;
  kernel::RegisterFile& regs = registers(w.warp);
  const std::uint32_t count = op.bytes / 4;
  if (op.bytes != 4 && op.bytes != 8 && op.bytes != 16) {
    return Error{fmt::format("register load of {} registers per lane: must be 1, 2 or 4", count)};
  }
  if (std::uint64_t{op.reg} + count > regs.regs_per_thread()) {
    return Error{fmt::format("register load into r{}..r{} passes the {}-register file", op.reg,
                             op.reg + count - 1, regs.regs_per_thread())};
  }
  const bool shared = op.kind == OpKind::kLoadRegsShared;
  if (!cfg_.functional) {
    // Timing only: one pass for the common, valid access (every lane aligned, the span of
    // the lanes inside the window); the lane loop below names the first bad lane otherwise.
    AddressSpan span;
    for (std::uint32_t l = 0; l < kernel::kWarpSize; ++l) {
      if (((op.mask >> l) & 1) != 0) span.add((*op.addr)[l]);
    }
    if (span.empty()) return Ok{};  // no active lane
    if ((span.bits & (op.bytes - 1)) == 0 &&
        (!shared ||
         (span.hi <= 0xFFFF'FFFFu && w.cta.smem.contains(span.lo, span.hi - span.lo + op.bytes)))) {
      return Ok{};
    }
  }
  for (std::uint32_t l = 0; l < kernel::kWarpSize; ++l) {
    if (((op.mask >> l) & 1) == 0) continue;
    const kernel::Addr a = (*op.addr)[l];
    if (a % op.bytes != 0) {
      return Error{fmt::format("register load lane {} address {:#x} is not {}-byte aligned", l, a,
                               op.bytes)};
    }
    if (shared && (a > 0xFFFF'FFFFu || !w.cta.smem.contains(a, op.bytes))) {
      return Error{
          fmt::format("register load lane {}: shared offset {:#x} is outside the CTA's "
                      "{} B window",
                      l, a, w.cta.smem.size())};
    }
    if (!cfg_.functional) continue;
    std::uint32_t words[4] = {};
    const std::span<std::byte> bytes(reinterpret_cast<std::byte*>(words), op.bytes);
    const Status st =
        shared ? w.cta.smem.read(static_cast<std::uint32_t>(a), bytes) : memory_.read(a, bytes);
    if (!st) return Error{fmt::format("register load lane {}: {}", l, st.error().message)};
    for (std::uint32_t i = 0; i < count; ++i)
      regs.at(l, op.reg + i) = words[i];
  }
  return Ok{};
}

Status Sm::accept_mm(WarpSlot& w) {
  const kernel::MmInstruction& mm = *w.op.mm;
  kernel::RegisterFile& regs = registers(w.warp);
  if (auto st = validate_mm(mm, regs); !st) return st;
  std::uint32_t columns = mm.n;
  if (!mm.column_predicate.empty()) {
    columns = 0;
    for (std::uint32_t j = 0; j < mm.n; ++j)
      columns += mm.column_predicate[j] ? 1 : 0;
  }
  const std::uint32_t rows = mm.rows != 0 ? mm.rows : regs.threads() / (mm.ka * mm.kb);
  WarpSlot::MmState& s = w.mm;
  s = {};
  s.columns = columns;
  s.a_regs = (mm.k + per_register(mm.a_type) - 1) / per_register(mm.a_type);
  s.macs = std::uint64_t{rows} * columns * mm.k * mm.kb;
  s.active_threads = columns == 0 ? 0 : std::min(regs.threads(), rows * mm.ka * mm.kb);
  if (mm.segment >= 0) return accept_segment_mm(w, regs);
  // B addresses: element aligned; shared ones inside the window.
  const std::uint32_t eb = kernel::mm_type_bytes(mm.b_type);
  const std::uint64_t run = mm.t1 ? std::uint64_t{mm.n} * eb : std::uint64_t{mm.k} * mm.kb * eb;
  // Element sizes are powers of two (1, 2, 4 B): a mask, not a divide per address. One pass
  // for the common, valid case (every address aligned, all of them inside the window); the
  // loop below names the first bad one otherwise.
  AddressSpan span;
  if (mm.b_strided) {  // validated not to wrap: the first and last starts bound the rest
    const std::size_t entries = mm.b_entries();
    if (entries > 0) {
      span.add(mm.b_start);
      span.add(mm.b_address(entries - 1));
      if (entries > 1) span.bits |= mm.b_stride;  // every start aligned iff both are
    }
  } else {
    for (const std::uint64_t a : mm.b_addresses)
      span.add(a);
  }
  const std::uint64_t end = span.hi + run;
  const bool all_valid =
      (span.bits & (eb - 1)) == 0 &&
      (!mm.b_shared || span.empty() ||
       (end <= 0xFFFF'FFFFu && end >= span.hi && w.cta.smem.contains(span.lo, end - span.lo)));
  for (std::size_t i = 0; i < (all_valid ? 0 : mm.b_entries()); ++i) {
    const std::uint64_t a = mm.b_address(i);
    if ((a & (eb - 1)) != 0) {
      return Error{fmt::format("mm: B address {:#x} ({} {}) is not {}-byte aligned", a,
                               mm.t1 ? "row" : "column", i, eb)};
    }
    if (mm.b_shared && (a + run > 0xFFFF'FFFFu || !w.cta.smem.contains(a, run))) {
      return Error{
          fmt::format("mm: B {} {} at shared offset {:#x} (+{} B) is outside the CTA's "
                      "{} B window",
                      mm.t1 ? "row" : "column", i, a, run, w.cta.smem.size())};
    }
  }
  if (cfg_.functional) {
    const MmReader read = [&](std::uint64_t a, std::span<std::byte> out) -> Status {
      if (mm.b_shared) return w.cta.smem.read(static_cast<std::uint32_t>(a), out);
      return memory_.read(a, out);
    };
    auto done = execute_mm(mm, regs, read);
    if (!done) return done.errors();
    s.macs = done->counts.macs;
    s.active_threads = done->counts.active_threads;
    if (!done->range_errors.empty()) return done->range_errors.front();
    return Ok{};
  }
  return timing_only_range_check(mm, regs);
}

// B through the page-table device (seed2 §2.4–2.5): the instruction is run on logical byte
// addresses (element offset x element bytes) and every element is translated; the memory
// issue then reads the physical lines the elements land in.
Status Sm::accept_segment_mm(WarpSlot& w, kernel::RegisterFile& regs) {
  const kernel::MmInstruction& mm = *w.op.mm;
  if (cfg_.page_table == nullptr)
    return Error{"mm: B names a segment but the SM has no page table"};
  const mem::PageTable& pt = *cfg_.page_table;
  const auto seg = static_cast<std::uint32_t>(mm.segment);
  if (mm.b_shared || seg >= pt.segments()) {
    return Error{fmt::format("mm: B segment {} {}", mm.segment,
                             mm.b_shared
                                 ? "cannot be in shared memory (segments are in global "
                                   "memory)"
                                 : fmt::format("is not defined ({} segments)", pt.segments()))};
  }
  const std::uint32_t eb = kernel::mm_type_bytes(mm.b_type);
  if (pt.shape(seg).element_bytes != eb) {
    return Error{fmt::format("mm: segment '{}' holds {}-byte elements, B is {} ({} B)",
                             pt.name(seg), pt.shape(seg).element_bytes,
                             kernel::mm_type_name(mm.b_type), eb)};
  }
  if (!pt.pte_address(seg, 0)) {
    return Error{
        fmt::format("mm: segment '{}' has no PTE array in device memory, so no SM can load its "
                    "translations (place it: Chip::define_segment or PageTable::place_ptes)",
                    pt.name(seg))};
  }
  kernel::MmInstruction logical = mm;
  for (std::uint64_t& a : logical.b_addresses)
    a *= eb;
  logical.b_start *= eb;
  logical.b_stride *= eb;
  // Every element's logical address in fetch order (elements as the "lines"), translated.
  WarpSlot::MmState& s = w.mm;
  const bool distinct = mm.retention || !mm.t1;
  // t1 with retention also keeps each element's line, for the column-by-column selections of
  // the lines the L1 may refuse to pin (Sm::pin_retained): every element translated once.
  const bool selections = mm.t1 && mm.retention;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> line_of;  // logical address → line
  for (const std::uint64_t a : mm_fetch_lines(logical, eb, mm.retention)) {
    auto t = pt.translate_linear_page(seg, a / eb);
    if (!t) return Error{fmt::format("mm: B element {}: {}", a / eb, t.error().message)};
    if (s.segment_pages.empty() || (s.segment_pages.back() != t->page_id &&
                                    std::find(s.segment_pages.begin(), s.segment_pages.end(),
                                              t->page_id) == s.segment_pages.end())) {
      s.segment_pages.push_back(t->page_id);
    }
    const std::uint64_t line = t->physical / cfg_.tensor.line_bytes * cfg_.tensor.line_bytes;
    if (selections) line_of.emplace_back(a, line);
    if (distinct &&
        std::find(s.segment_lines.begin(), s.segment_lines.end(), line) != s.segment_lines.end()) {
      continue;
    }
    if (!distinct && !s.segment_lines.empty() && s.segment_lines.back() == line) continue;
    s.segment_lines.push_back(line);
  }
  if (selections) {
    std::sort(line_of.begin(), line_of.end());
    for (const std::uint64_t a : mm_fetch_lines(logical, eb, /*retention=*/false)) {
      const auto it =
          std::lower_bound(line_of.begin(), line_of.end(), std::pair{a, std::uint64_t{0}});
      XPUSIM_CHECK(it != line_of.end() && it->first == a, "both orders hold the same elements");
      if (s.segment_selections.empty() || s.segment_selections.back() != it->second)
        s.segment_selections.push_back(it->second);
    }
  }
  if (!cfg_.functional) return timing_only_range_check(mm, regs);
  const MmReader read = [&](std::uint64_t a, std::span<std::byte> out) -> Status {
    return pt.read(seg, a / eb, out, memory_);
  };
  auto done = execute_mm(logical, regs, read);
  if (!done) return done.errors();
  s.macs = done->counts.macs;
  s.active_threads = done->counts.active_threads;
  if (!done->range_errors.empty()) return done->range_errors.front();
  return Ok{};
}

void Sm::register_load_op(WarpSlot& w, std::uint64_t cycle) {
  const Op& op = w.op;
  const std::uint32_t reg = op.reg;
  const std::uint32_t count = op.bytes / 4;
  register_loads_.inc();
  for (std::uint32_t r = reg; r < reg + count; ++r)
    ++w.reg_pending[r];
  ++w.reg_loads;
  // Two words of capture (the slot knows its SM), so std::function keeps it inline: no
  // allocation per register load.
  const std::uint32_t reg_count = reg << 8 | count;
  const auto landed = [&w, reg_count] {
    w.sm.register_load_landed(w, reg_count >> 8, reg_count & 0xFFu);
  };
  if (op.kind == OpKind::kLoadRegsGlobal) {
    global_accesses_.inc();
    Op access = op;
    access.kind = OpKind::kLoadGlobal;
    port_.access(cfg_.id, access, op.mask, landed);
  } else {
    events().post(clock_.edge(shared_stage(cycle, shared_wavefronts(op))), landed);
  }
  // Asynchronous: the warp issues its next instruction after this one's slot.
  stall(w, StallReason::kDependency);
  wake(w, cycle + cfg_.timing.lsu_issue_cycles);
}

void Sm::register_load_landed(WarpSlot& w, std::uint32_t reg, std::uint32_t count) {
  for (std::uint32_t r = reg; r < reg + count; ++r)
    --w.reg_pending[r];
  --w.reg_loads;
  if (w.mm.token_wait) mm_operands_ready(w);
  exit_if_drained(w);
}

void Sm::mm_memory(WarpSlot& w, std::uint64_t cycle) {
  const kernel::MmInstruction& mm = *w.op.mm;
  mm_instructions_.inc();
  mm_macs_.inc(w.mm.macs);
  mm_active_threads_.inc(w.mm.active_threads);
  mm_a_register_reads_.inc(std::uint64_t{w.mm.active_threads} * w.mm.a_regs);
  if (mm.warpgroup && take_shared_b(w, cycle)) return;
  const bool distinct = mm.retention || !mm.t1;
  if (mm.b_shared && mm.segment < 0) {
    // One wavefront (a line) per cycle through the shared data stage: only the count matters.
    const std::uint64_t per_thread =
        mm_fetch_line_count(mm, cfg_.tensor.line_bytes, distinct, line_scratch_);
    const std::uint64_t n = mm.broadcast ? per_thread : per_thread * kernel::kWarpSize;
    mm_b_lines_.inc(n);
    mm_b_bytes_.inc(n * cfg_.tensor.line_bytes);
    stall(w, StallReason::kMemory);
    if (n == 0) {  // every column predicated off: nothing to fetch
      events().post(clock_.edge(cycle + 1), [this, &w] { mm_b_arrived(w); });
      return;
    }
    shared_wavefronts_.inc(n);
    events().post(clock_.edge(shared_stage(cycle, static_cast<std::uint32_t>(n))),
                  [this, &w] { mm_b_arrived(w); });
    return;
  }
  stall(w, StallReason::kMemory);
  if (mm.segment >= 0 && mm_translate(w)) return;
  mm_fetch_global(w, cycle);
}

// Seed2 ¶61–63 on the timed path: each page the B fetch touches is looked up in the SM's
// translation cache. A missed page's PTE is loaded (16 B, lanes of warp-wide accesses, through
// L1 and L2 like any load) unless a load of it is already in flight, which the warp joins;
// the line fetch waits for the last of its pages.
bool Sm::mm_translate(WarpSlot& w) {
  const mem::PageTable& pt = *cfg_.page_table;
  const auto seg = static_cast<std::uint32_t>(w.op.mm->segment);
  const std::uint64_t generation = pt.generation();
  const std::uint64_t flushes = translations_.counts().flushes;
  std::vector<std::uint64_t> issue;
  w.pending = 0;
  for (const std::uint64_t page : w.mm.segment_pages) {
    if (translations_.lookup(seg, page, generation)) continue;
    const auto [it, fresh] = pte_loads_.try_emplace({seg, page});
    it->second.push_back(&w);
    ++w.pending;
    if (fresh) issue.push_back(page);
  }
  mm_translation_hits_.inc(w.mm.segment_pages.size() - w.pending);
  mm_translation_misses_.inc(w.pending);
  mm_translation_flushes_.inc(translations_.counts().flushes - flushes);
  if (w.pending == 0) return false;
  w.mm.translate_since = now();
  mm_pte_loads_.inc(issue.size());
  for (std::size_t first = 0; first < issue.size(); first += kernel::kWarpSize) {
    kernel::Lanes<kernel::Addr> addr{};
    kernel::LaneMask mask = 0;
    std::vector<std::uint64_t> pages;
    for (std::uint32_t l = 0; l < kernel::kWarpSize && first + l < issue.size(); ++l) {
      const std::optional<std::uint64_t> at = pt.pte_address(seg, issue[first + l]);
      XPUSIM_CHECK(at.has_value(), "accept_segment_mm checked the PTEs are placed");
      addr[l] = *at;
      mask |= kernel::LaneMask{1} << l;
      pages.push_back(issue[first + l]);
    }
    global_accesses_.inc();
    Op access{.kind = OpKind::kLoadGlobal, .mask = mask, .bytes = mem::kPteBytes, .addr = &addr};
    port_.access(cfg_.id, access, mask, [this, seg, generation, pages = std::move(pages)] {
      for (const std::uint64_t page : pages)
        pte_loaded(seg, page, generation);
    });
  }
  return true;
}

// Seed2 ¶122-125: a t1 mm with retention loads each row line once and keeps it until every
// column used it, pinned in the L1 until the math is done (released in mm_math). A line the
// L1 cannot pin (every way of its set pinned) is not retained: each column's selection of it
// re-reads it, as without retention.
std::vector<std::uint64_t> Sm::pin_retained(WarpSlot& w, const std::vector<std::uint64_t>& rows) {
  const kernel::MmInstruction& mm = *w.op.mm;
  std::vector<std::uint64_t> out, refused;
  w.mm.pinned.clear();
  for (const std::uint64_t line : rows) {
    if (port_.pin_l1(cfg_.id, line)) {
      w.mm.pinned.push_back(line);
      out.push_back(line);
    } else {
      refused.push_back(line);
    }
  }
  mm_lines_pinned_.inc(w.mm.pinned.size());
  mm_lines_not_pinned_.inc(refused.size());
  if (refused.empty()) return out;
  std::sort(refused.begin(), refused.end());
  const std::vector<std::uint64_t> selections =
      mm.segment >= 0 ? std::move(w.mm.segment_selections)
                      : mm_fetch_lines(mm, cfg_.tensor.line_bytes, /*retention=*/false);
  for (const std::uint64_t line : selections)
    if (std::binary_search(refused.begin(), refused.end(), line)) out.push_back(line);
  return out;
}

void Sm::pte_loaded(std::uint32_t seg, std::uint64_t page, std::uint64_t generation) {
  translations_.fill(seg, page, generation);
  auto node = pte_loads_.extract({seg, page});
  XPUSIM_CHECK(!node.empty(), "a PTE load in flight has its waiters");
  const std::uint64_t cycle = clock_.cycle_at(now());
  for (WarpSlot* w : node.mapped()) {
    if (--w->pending != 0) continue;
    mm_translation_cycles_.inc(cycle - clock_.cycle_at(w->mm.translate_since));
    mm_fetch_global(*w, cycle);
  }
}

void Sm::mm_fetch_global(WarpSlot& w, std::uint64_t cycle) {
  const kernel::MmInstruction& mm = *w.op.mm;
  const bool distinct = mm.retention || !mm.t1;
  std::vector<std::uint64_t> lines = mm.segment >= 0
                                         ? std::move(w.mm.segment_lines)
                                         : mm_fetch_lines(mm, cfg_.tensor.line_bytes, distinct);
  if (mm.t1 && mm.retention) lines = pin_retained(w, lines);
  if (!mm.broadcast) {  // each thread of the warp fetches B for itself
    std::vector<std::uint64_t> all;
    all.reserve(lines.size() * kernel::kWarpSize);
    for (std::uint32_t t = 0; t < kernel::kWarpSize; ++t)
      all.insert(all.end(), lines.begin(), lines.end());
    lines = std::move(all);
  }
  mm_b_lines_.inc(lines.size());
  mm_b_bytes_.inc(lines.size() * cfg_.tensor.line_bytes);
  if (lines.empty()) {  // every column predicated off: nothing to fetch
    events().post(clock_.edge(cycle + 1), [this, &w] { mm_b_arrived(w); });
    return;
  }
  XPUSIM_CHECK(!mm.b_shared, "a segment's B is in global memory (accept_segment_mm)");
  // Whole lines, 8 lanes x 16 B each, four lines to a warp-wide access.
  global_accesses_.inc();
  const std::uint32_t per_access = kernel::kWarpSize * 16 / cfg_.tensor.line_bytes;
  const auto accesses = static_cast<std::uint32_t>((lines.size() + per_access - 1) / per_access);
  w.pending = accesses;
  for (std::uint32_t i = 0; i < accesses; ++i) {
    kernel::Lanes<kernel::Addr> addr{};
    kernel::LaneMask mask = 0;
    for (std::uint32_t l = 0; l < kernel::kWarpSize; ++l) {
      const std::size_t line = std::size_t{i} * per_access + l * 16 / cfg_.tensor.line_bytes;
      if (line >= lines.size()) break;
      addr[l] = lines[line] + (l * 16) % cfg_.tensor.line_bytes;
      mask |= kernel::LaneMask{1} << l;
    }
    Op access{.kind = OpKind::kLoadGlobal, .mask = mask, .bytes = 16, .addr = &addr};
    port_.access(cfg_.id, access, mask, [this, &w] {
      if (--w.pending == 0) mm_b_arrived(w);
    });
  }
}

namespace {

// The same B starts, in either form (kernel::MmInstruction::b_strided).
bool same_b_starts(const kernel::MmInstruction& a, const kernel::MmInstruction& b) {
  if (a.b_entries() != b.b_entries()) return false;
  if (a.b_strided && b.b_strided) {
    return a.b_start == b.b_start && (a.b_entries() < 2 || a.b_stride == b.b_stride);
  }
  for (std::size_t i = 0; i < a.b_entries(); ++i)
    if (a.b_address(i) != b.b_address(i)) return false;
  return true;
}

// Two mm instructions fetch the same B (the same lines or wavefronts, in the same order).
bool same_b(const kernel::MmInstruction& a, const kernel::MmInstruction& b) {
  return a.b_type == b.b_type && a.k == b.k && a.n == b.n && a.ka == b.ka &&
         a.ka_split == b.ka_split && a.kb == b.kb && a.t1 == b.t1 && a.b_shared == b.b_shared &&
         a.segment == b.segment && a.broadcast == b.broadcast && a.retention == b.retention &&
         a.column_predicate == b.column_predicate && same_b_starts(a, b);
}

// Fetches kept per warpgroup for its other warps: a warp runs at most a few instructions
// ahead of the rest of its warpgroup (they share the kernel's barriers).
constexpr std::size_t kSharedBPerGroup = 16;
constexpr std::uint32_t kWholeGroup = 0xF;  // all four warps of a warpgroup took a fetch

}  // namespace

// A warpgroup-wide mm: takes the B another warp of the warpgroup fetched (true: nothing to
// fetch; the warp goes on when that B is there), or records this warp's fetch for the others.
bool Sm::take_shared_b(WarpSlot& w, std::uint64_t cycle) {
  const kernel::MmInstruction& mm = *w.op.mm;
  const std::uint32_t group = w.warp.coords().warp_group();
  const std::uint32_t bit = 1u << (w.warp.coords().warp % 4);
  std::vector<Cta::SharedB>& kept = w.cta.shared_b;
  for (auto it = kept.begin(); it != kept.end(); ++it) {
    Cta::SharedB& b = *it;
    if (b.group != group || (b.taken & bit) != 0 || !same_b(b.mm, mm)) continue;
    b.taken |= bit;
    mm_b_shared_.inc();
    stall(w, StallReason::kMemory);
    if (b.arrived) {
      events().post(clock_.edge(cycle + 1), [this, &w] { mm_operands_ready(w); });
      if (b.taken == kWholeGroup) kept.erase(it);  // nobody else can take it
    } else {
      b.waiting.push_back(&w);
    }
    return true;
  }
  // This warp fetches. The group's oldest fetch that has arrived makes room.
  std::size_t in_group = 0;
  for (const Cta::SharedB& b : kept)
    in_group += b.group == group ? 1 : 0;
  if (in_group >= kSharedBPerGroup) {
    const auto oldest = std::find_if(kept.begin(), kept.end(), [&](const Cta::SharedB& b) {
      return b.group == group && b.arrived;
    });
    if (oldest != kept.end()) kept.erase(oldest);
  }
  const std::uint64_t id = w.cta.next_shared_b++;
  kept.push_back({.id = id, .group = group, .mm = mm, .taken = bit});
  w.mm.shared_b = id;
  return false;
}

// The warp's B fetch is done: the warps of its warpgroup that took it go on too.
void Sm::mm_b_arrived(WarpSlot& w) {
  if (w.mm.shared_b != 0) {
    std::vector<Cta::SharedB>& kept = w.cta.shared_b;
    const auto it = std::find_if(kept.begin(), kept.end(),
                                 [&](const Cta::SharedB& b) { return b.id == w.mm.shared_b; });
    w.mm.shared_b = 0;
    if (it != kept.end()) {
      const std::vector<WarpSlot*> waiting = std::move(it->waiting);
      it->waiting.clear();
      it->arrived = true;
      if (it->taken == kWholeGroup) kept.erase(it);  // nobody else can take it
      for (WarpSlot* o : waiting)
        mm_operands_ready(*o);
    }
  }
  mm_operands_ready(w);
}

// B has arrived; the math issues wait for the A registers' tokens (¶101).
void Sm::mm_operands_ready(WarpSlot& w) {
  const kernel::MmInstruction& mm = *w.op.mm;
  bool pending = false;
  for (std::uint32_t r = mm.a_base; r < mm.a_base + w.mm.a_regs && !pending; ++r)
    pending = w.reg_pending[r] != 0;
  if (pending) {
    if (!w.mm.token_wait) {
      w.mm.token_wait = true;
      w.mm.token_since = now();
      stall(w, StallReason::kDependency);
    }
    return;
  }
  if (w.mm.token_wait) {
    mm_token_stall_.inc(clock_.cycle_at(now()) - clock_.cycle_at(w.mm.token_since));
    w.mm.token_wait = false;
  }
  w.mm.math = true;
  enqueue(w);
}

void Sm::mm_math(WarpSlot& w, std::uint64_t cycle) {
  const kernel::MmInstruction& mm = *w.op.mm;
  const TensorTiming& x = cfg_.tensor;
  const std::uint32_t cores = std::max<std::uint32_t>(x.cores, 1);
  const std::uint64_t rate = std::max<std::uint64_t>(mm_rate(mm.a_type) / cores, 1);
  const std::uint64_t columns = std::max<std::uint32_t>(w.mm.columns, 1);
  const std::uint64_t busy = std::max(columns, (w.mm.macs + rate - 1) / rate);
  std::uint64_t& unit_free = tensor_free_[w.sp % cores];
  const std::uint64_t start = std::max(cycle, unit_free);
  unit_free = start + busy;
  tensor_busy_.inc(busy);
  mm_math_issues_.inc(columns);
  w.mm.math = false;
  if (!w.mm.pinned.empty()) {  // every column has used the retained lines
    events().post(clock_.edge(start + busy), [this, lines = std::move(w.mm.pinned)] {
      for (const std::uint64_t line : lines)
        port_.unpin_l1(cfg_.id, line);
    });
    w.mm.pinned.clear();
  }
  stall(w, StallReason::kDependency);
  wake(w, start + busy);
}

}  // namespace xpusim::core
