// PageTable: the page-table device of seed2 (¶58, ¶60–66, ¶71–79, docs/page-table.md).
// A tensor is split into segments and a segment into pages, split along any dimensions (¶74,
// ¶76). A page that is on chip has a page-table entry (PTE) holding its physical base; moving
// the page off chip deletes the entry (¶65). Translation is two-level (¶61–63):
//   logical  (segment, per-dimension coordinates in elements, ¶60, ¶72)
//   → linear (1-D page id, 1-D in-page element offset)
//   → physical (PTE base + in-page offset × element bytes).
// Dimensions are innermost first: dims[0] varies fastest. Both the page grid and the elements
// inside a page are linearised innermost first (row-major with dims[0] as the row; the spec
// is silent, §6 item 14). The in-page stride uses the full page extents even for a partial
// last page, so every page occupies prod(page_dims) × element_bytes bytes and a partial page
// leaves holes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "mem/global_memory.h"
#include "sim/result.h"

namespace xpusim::sim {
class Counter;
class StatsRegistry;
}  // namespace xpusim::sim

namespace xpusim::mem {

struct SegmentShape {
  std::vector<std::uint64_t> dims;       // extent per dimension, innermost first
  std::vector<std::uint64_t> page_dims;  // page extent per dimension: 1 ≤ page_dims[d] ≤ dims[d]
  std::uint32_t element_bytes = 1;       // 1, 2, 4 or 8 (¶72: addressing is in elements)
};

// Lifetime totals; reset only with the PageTable.
struct PageTableCounts {
  std::uint64_t translations = 0;   // PTE lookups of in-range coordinates (faulting ones too)
  std::uint64_t faults = 0;         // lookups that found no loaded PTE (¶64 status bit)
  std::uint64_t pages_loaded = 0;   // load_page calls that created a PTE
  std::uint64_t pages_evicted = 0;  // evict_page calls that deleted a PTE
};

// A logical element's translation: its physical byte address and the page it lies in.
struct Translation {
  std::uint64_t physical = 0;
  std::uint64_t page_id = 0;
};

// One PTE in a segment's PTE array (place_ptes), as memory holds it: the page's physical base
// (u64), then a u64 whose bit 0 is ¶64's status bit, set while the page is loaded.
inline constexpr std::uint64_t kPteBytes = 16;

class PageTable {
 public:
  PageTable();
  ~PageTable();
  PageTable(PageTable&&) noexcept;
  PageTable& operator=(PageTable&&) noexcept;
  PageTable(const PageTable&) = delete;
  PageTable& operator=(const PageTable&) = delete;

  // Defines a segment; returns its id (0, 1, ... in definition order). Errors: empty name,
  // duplicate name, no dimensions, a zero extent, page_dims of another length, a page extent
  // of 0 or larger than its dimension, an element size other than 1/2/4/8, a segment whose
  // byte size overflows 64 bits.
  Result<std::uint32_t> define_segment(std::string name, SegmentShape shape);
  // The id of the segment called `name`; an error names the unknown name.
  Result<std::uint32_t> find_segment(std::string_view name) const;

  // Where the segment's PTE array lives in device memory: PTE of page p at pte_base +
  // kPteBytes·p (the SMs' translation-cache misses load it, seed2 ¶63). Bumps generation().
  // With a memory attached, writes every PTE there. Errors: unknown segment, a base
  // not kPteBytes-aligned, an array that wraps past 2^64.
  Status place_ptes(std::uint32_t seg, std::uint64_t pte_base);
  // The address of page `page_id`'s PTE; nullopt when the segment's PTEs are not placed (or
  // the id is out of range).
  std::optional<std::uint64_t> pte_address(std::uint32_t seg, std::uint64_t page_id) const;
  // Mirrors every PTE into `memory` from now on (place_ptes, load_page, evict_page write it,
  // and fail with memory's error when the write does; load_page then loads nothing); null
  // stops. The translation itself reads the table, not these bytes.
  void attach_memory(GlobalMemory* memory) { memory_ = memory; }
  // Bumped whenever a translation an SM may have cached stops being valid (evict_page,
  // place_ptes): a translation cache holding an older generation must flush (a shootdown).
  std::uint64_t generation() const { return generation_; }

  // A page moved on chip: creates its PTE, status loaded (¶65). Errors: unknown segment, page
  // id out of range, page already loaded, physical_base not a multiple of element_bytes, the
  // page's bytes wrapping past 2^64.
  Status load_page(std::uint32_t seg, std::uint64_t page_id, std::uint64_t physical_base);
  // A page moved off chip: deletes its PTE (¶65). Errors: unknown segment, page id out of
  // range, page not loaded.
  Status evict_page(std::uint32_t seg, std::uint64_t page_id);

  // Physical byte address of the element at `coords` (innermost first). Errors: unknown
  // segment, wrong number of coordinates, a coordinate out of range, page not loaded (a fault).
  Result<std::uint64_t> translate(std::uint32_t seg, std::span<const std::uint64_t> coords) const;
  // The seg:rf:imm form (¶60): `element_offset` (rf + imm, in elements) into the segment's
  // logical tensor linearised innermost first, decomposed into coordinates, then translate().
  Result<std::uint64_t> translate_linear(std::uint32_t seg, std::uint64_t element_offset) const;
  // translate_linear, also naming the page (the same errors and counting).
  Result<Translation> translate_linear_page(std::uint32_t seg, std::uint64_t element_offset) const;
  // Reads out.size() / element_bytes consecutive logical elements starting at
  // `element_offset` from `mem`, through translation: the run may cross pages, each piece is
  // read from its own page (one PTE lookup per run that stays in one page row). Errors:
  // out.size() not a multiple of element_bytes, a run past the end of the segment, a page not
  // loaded (nothing after the faulting element is read), and `mem` read errors.
  Status read(std::uint32_t seg, std::uint64_t element_offset, std::span<std::byte> out,
              const GlobalMemory& mem) const;

  // Linear page id of the page holding `coords` (no PTE lookup, no counting).
  Result<std::uint64_t> page_id_of(std::uint32_t seg, std::span<const std::uint64_t> coords) const;

  // Accessors. An unknown segment id here is a caller bug (XPUSIM_CHECK), not an Error.
  std::size_t segments() const { return segments_.size(); }
  const std::string& name(std::uint32_t seg) const;
  const SegmentShape& shape(std::uint32_t seg) const;
  std::uint64_t pages(std::uint32_t seg) const;     // pages in the segment (loaded or not)
  std::uint64_t elements(std::uint32_t seg) const;  // elements in the segment
  // Pages along each dimension: ceil(dims[d] / page_dims[d]).
  const std::vector<std::uint64_t>& pages_per_dim(std::uint32_t seg) const;
  // Bytes one page occupies at its physical base: prod(page_dims) × element_bytes.
  std::uint64_t page_bytes(std::uint32_t seg) const;
  bool loaded(std::uint32_t seg, std::uint64_t page_id) const;  // false for an out-of-range id
  std::optional<std::uint64_t> page_base(std::uint32_t seg, std::uint64_t page_id) const;
  std::uint64_t loaded_pages(std::uint32_t seg) const;

  const PageTableCounts& counts() const { return counts_; }
  // Also counts into stats `<owner_path>.{translations,faults,pages_loaded,pages_evicted}`
  // of `reg`, owned by this table (they unregister when it dies; a second call replaces them).
  // The registered counters follow the registry's resets; counts() keeps lifetime totals.
  void register_stats(sim::StatsRegistry& reg, const std::string& owner_path);

 private:
  struct Segment {
    std::string name;
    SegmentShape shape;
    std::vector<std::uint64_t> pages_per_dim;
    std::uint64_t pages = 0;
    std::uint64_t elements = 0;
    std::uint64_t page_elements = 0;                        // prod(page_dims)
    std::unordered_map<std::uint64_t, std::uint64_t> ptes;  // page id → physical base
    std::optional<std::uint64_t> pte_base;                  // place_ptes
  };
  struct Linear {
    std::uint64_t page_id = 0;
    std::uint64_t in_page = 0;  // elements from the page's base
  };
  struct Stats;

  const Segment& segment(std::uint32_t seg) const;
  Result<const Segment*> find(std::uint32_t seg) const;
  Status check_page(const Segment& s, std::uint64_t page_id) const;
  // Coordinates → (page id, in-page offset), checking count and range.
  static Result<Linear> linearise(const Segment& s, std::span<const std::uint64_t> coords);
  // (page id, in-page offset) → physical address, counting the lookup and any fault.
  Result<std::uint64_t> lookup(const Segment& s, const Linear& lin,
                               std::span<const std::uint64_t> coords) const;
  void count_translation(bool fault) const;
  // Writes page_id's PTE to the attached memory, if any and placed (errors: memory's).
  Status mirror(std::uint32_t seg, std::uint64_t page_id);

  std::vector<Segment> segments_;
  mutable PageTableCounts counts_;
  std::unique_ptr<Stats> stats_;  // null until register_stats
  GlobalMemory* memory_ = nullptr;
  std::uint64_t generation_ = 0;
};

}  // namespace xpusim::mem
