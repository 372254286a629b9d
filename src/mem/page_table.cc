#include "mem/page_table.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <limits>
#include <utility>

#include "sim/stats.h"

namespace xpusim::mem {

namespace {

constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();

// a * b, or nullopt when it overflows 64 bits.
std::optional<std::uint64_t> mul(std::uint64_t a, std::uint64_t b) {
  if (a != 0 && b > kMax / a) return std::nullopt;
  return a * b;
}

std::string coords_text(std::span<const std::uint64_t> coords) {
  return fmt::format("[{}]", fmt::join(coords, ", "));
}

}  // namespace

struct PageTable::Stats {
  Stats(sim::StatsRegistry& reg, const std::string& owner)
      : translations(reg, owner, "translations", "count",
                     "page-table lookups of in-range logical addresses (faulting ones too)"),
        faults(reg, owner, "faults", "count", "lookups that found the page not loaded"),
        pages_loaded(reg, owner, "pages_loaded", "count", "pages moved on chip (PTE created)"),
        pages_evicted(reg, owner, "pages_evicted", "count", "pages moved off chip (PTE deleted)") {}
  sim::Counter translations;
  sim::Counter faults;
  sim::Counter pages_loaded;
  sim::Counter pages_evicted;
};

PageTable::PageTable() = default;
PageTable::~PageTable() = default;
PageTable::PageTable(PageTable&&) noexcept = default;
PageTable& PageTable::operator=(PageTable&&) noexcept = default;

void PageTable::register_stats(sim::StatsRegistry& reg, const std::string& owner_path) {
  stats_.reset();  // unregister the old ones first, so the same path can be reused
  stats_ = std::make_unique<Stats>(reg, owner_path);
}

Result<std::uint32_t> PageTable::define_segment(std::string name, SegmentShape shape) {
  if (name.empty()) return Error{"page table: a segment needs a non-empty name"};
  for (const Segment& s : segments_) {
    if (s.name == name) {
      return Error{
          fmt::format("page table: segment '{}' is already defined (names are unique)", name)};
    }
  }
  const std::size_t rank = shape.dims.size();
  if (rank == 0) {
    return Error{
        fmt::format("segment '{}': dims is empty; a segment needs at least 1 dimension", name)};
  }
  if (shape.page_dims.size() != rank) {
    return Error{fmt::format(
        "segment '{}': page_dims has {} entries but dims has {}; give one page extent per "
        "dimension",
        name, shape.page_dims.size(), rank)};
  }
  const std::uint32_t eb = shape.element_bytes;
  if (eb != 1 && eb != 2 && eb != 4 && eb != 8) {
    return Error{fmt::format("segment '{}': element_bytes {} is not one of 1, 2, 4, 8", name, eb)};
  }
  Segment s;
  s.elements = 1;
  s.pages = 1;
  s.page_elements = 1;
  for (std::size_t d = 0; d < rank; ++d) {
    const std::uint64_t dim = shape.dims[d], pd = shape.page_dims[d];
    if (dim == 0) {
      return Error{
          fmt::format("segment '{}': dims[{}] is 0; every extent must be at least 1", name, d)};
    }
    if (pd == 0 || pd > dim) {
      return Error{fmt::format(
          "segment '{}': page_dims[{}] is {}; a page extent must be in [1, dims[{}] = {}]", name, d,
          pd, d, dim)};
    }
    const std::optional<std::uint64_t> elements = mul(s.elements, dim);
    if (!elements || !mul(*elements, eb)) {
      return Error{fmt::format("segment '{}': dims {} of {} B elements overflow a 64-bit byte size",
                               name, coords_text(shape.dims), eb)};
    }
    s.elements = *elements;
    s.pages_per_dim.push_back((dim + pd - 1) / pd);
    s.pages *= s.pages_per_dim.back();  // ≤ elements: no overflow
    s.page_elements *= pd;              // ≤ elements
  }
  if (segments_.size() >= std::numeric_limits<std::uint32_t>::max()) {
    return Error{"page table: too many segments (the id is 32-bit)"};
  }
  s.name = std::move(name);
  s.shape = std::move(shape);
  segments_.push_back(std::move(s));
  return static_cast<std::uint32_t>(segments_.size() - 1);
}

Result<std::uint32_t> PageTable::find_segment(std::string_view name) const {
  for (std::size_t i = 0; i < segments_.size(); ++i) {
    if (segments_[i].name == name) return static_cast<std::uint32_t>(i);
  }
  return Error{fmt::format("page table: no segment named '{}'", name)};
}

const PageTable::Segment& PageTable::segment(std::uint32_t seg) const {
  XPUSIM_CHECK(seg < segments_.size(), "unknown page-table segment id");
  return segments_[seg];
}

Result<const PageTable::Segment*> PageTable::find(std::uint32_t seg) const {
  if (seg >= segments_.size()) {
    return Error{fmt::format("page table: segment id {} is not defined ({} segments)", seg,
                             segments_.size())};
  }
  return &segments_[seg];
}

Status PageTable::check_page(const Segment& s, std::uint64_t page_id) const {
  if (page_id >= s.pages) {
    return Error{fmt::format("segment '{}': page {} is out of range (the segment has {} pages)",
                             s.name, page_id, s.pages)};
  }
  return Ok{};
}

Status PageTable::load_page(std::uint32_t seg, std::uint64_t page_id, std::uint64_t physical_base) {
  const Result<const Segment*> found = find(seg);
  if (!found) return found.errors();
  Segment& s = segments_[seg];
  if (auto st = check_page(s, page_id); !st) return st;
  if (s.ptes.contains(page_id)) {
    return Error{fmt::format(
        "segment '{}': page {} is already loaded (at {:#x}); evict it before loading it again",
        s.name, page_id, s.ptes.at(page_id))};
  }
  const std::uint32_t eb = s.shape.element_bytes;
  if (physical_base % eb != 0) {
    return Error{fmt::format(
        "segment '{}': page {} physical base {:#x} is not a multiple of the element size {} B",
        s.name, page_id, physical_base, eb)};
  }
  const std::uint64_t bytes = s.page_elements * eb;  // checked at definition
  if (physical_base > kMax - (bytes - 1)) {
    return Error{
        fmt::format("segment '{}': page {} at {:#x} (+{} B) wraps past the 64-bit address space",
                    s.name, page_id, physical_base, bytes)};
  }
  s.ptes.emplace(page_id, physical_base);
  if (auto st = mirror(seg, page_id); !st) {
    s.ptes.erase(page_id);
    return st;
  }
  ++counts_.pages_loaded;
  if (stats_) ++stats_->pages_loaded;
  return Ok{};
}

Status PageTable::evict_page(std::uint32_t seg, std::uint64_t page_id) {
  const Result<const Segment*> found = find(seg);
  if (!found) return found.errors();
  Segment& s = segments_[seg];
  if (auto st = check_page(s, page_id); !st) return st;
  if (s.ptes.erase(page_id) == 0) {
    return Error{fmt::format("segment '{}': page {} is not loaded, so it cannot be evicted", s.name,
                             page_id)};
  }
  ++generation_;  // a cached translation of this page is stale now
  ++counts_.pages_evicted;
  if (stats_) ++stats_->pages_evicted;
  return mirror(seg, page_id);
}

Status PageTable::place_ptes(std::uint32_t seg, std::uint64_t pte_base) {
  const Result<const Segment*> found = find(seg);
  if (!found) return found.errors();
  Segment& s = segments_[seg];
  if (pte_base % kPteBytes != 0) {
    return Error{fmt::format("segment '{}': PTE array base {:#x} is not {}-byte aligned", s.name,
                             pte_base, kPteBytes)};
  }
  const std::optional<std::uint64_t> bytes = mul(s.pages, kPteBytes);
  if (!bytes || pte_base > kMax - (*bytes - 1)) {
    return Error{fmt::format(
        "segment '{}': a PTE array of {} pages x {} B at {:#x} wraps past the 64-bit address "
        "space",
        s.name, s.pages, kPteBytes, pte_base)};
  }
  s.pte_base = pte_base;
  ++generation_;  // translations cached for the old array's entries are dropped
  if (memory_ != nullptr) {
    for (std::uint64_t p = 0; p < s.pages; ++p)
      if (auto st = mirror(seg, p); !st) return st;
  }
  return Ok{};
}

std::optional<std::uint64_t> PageTable::pte_address(std::uint32_t seg,
                                                    std::uint64_t page_id) const {
  const Segment& s = segment(seg);
  if (!s.pte_base || page_id >= s.pages) return std::nullopt;
  return *s.pte_base + page_id * kPteBytes;  // place_ptes checked the array does not wrap
}

Status PageTable::mirror(std::uint32_t seg, std::uint64_t page_id) {
  const std::optional<std::uint64_t> at = memory_ ? pte_address(seg, page_id) : std::nullopt;
  if (!at) return Ok{};
  const std::optional<std::uint64_t> base = page_base(seg, page_id);
  const std::uint64_t words[2] = {base.value_or(0), base ? 1u : 0u};
  if (auto st = memory_->write(*at, std::as_bytes(std::span(words))); !st) {
    return Error{fmt::format("segment '{}': PTE of page {}: {}", segment(seg).name, page_id,
                             st.error().message)};
  }
  return Ok{};
}

Result<PageTable::Linear> PageTable::linearise(const Segment& s,
                                               std::span<const std::uint64_t> coords) {
  const std::vector<std::uint64_t>& dims = s.shape.dims;
  const std::vector<std::uint64_t>& page_dims = s.shape.page_dims;
  if (coords.size() != dims.size()) {
    return Error{
        fmt::format("segment '{}': address has {} coordinates {} but the segment has {} "
                    "dimensions",
                    s.name, coords.size(), coords_text(coords), dims.size())};
  }
  Linear lin;
  std::uint64_t page_stride = 1, elem_stride = 1;
  for (std::size_t d = 0; d < dims.size(); ++d) {
    if (coords[d] >= dims[d]) {
      return Error{fmt::format(
          "segment '{}': coordinate {} of dimension {} is out of range (extent {}) in {}", s.name,
          coords[d], d, dims[d], coords_text(coords))};
    }
    lin.page_id += (coords[d] / page_dims[d]) * page_stride;
    lin.in_page += (coords[d] % page_dims[d]) * elem_stride;
    page_stride *= s.pages_per_dim[d];
    elem_stride *= page_dims[d];
  }
  return lin;
}

void PageTable::count_translation(bool fault) const {
  ++counts_.translations;
  if (fault) ++counts_.faults;
  if (stats_) {
    ++stats_->translations;
    if (fault) ++stats_->faults;
  }
}

Result<std::uint64_t> PageTable::lookup(const Segment& s, const Linear& lin,
                                        std::span<const std::uint64_t> coords) const {
  const auto it = s.ptes.find(lin.page_id);
  count_translation(it == s.ptes.end());
  if (it == s.ptes.end()) {
    return Error{fmt::format("page {} of segment '{}' (coords {}) is not loaded", lin.page_id,
                             s.name, coords_text(coords))};
  }
  // Fits: load_page checked base + page bytes does not wrap, and in_page < page_elements.
  return it->second + lin.in_page * s.shape.element_bytes;
}

Result<std::uint64_t> PageTable::translate(std::uint32_t seg,
                                           std::span<const std::uint64_t> coords) const {
  const Result<const Segment*> found = find(seg);
  if (!found) return found.errors();
  const Segment& s = **found;
  const Result<Linear> lin = linearise(s, coords);
  if (!lin) return lin.errors();
  return lookup(s, *lin, coords);
}

Result<std::uint64_t> PageTable::translate_linear(std::uint32_t seg,
                                                  std::uint64_t element_offset) const {
  Result<Translation> t = translate_linear_page(seg, element_offset);
  if (!t) return t.errors();
  return t->physical;
}

Result<Translation> PageTable::translate_linear_page(std::uint32_t seg,
                                                     std::uint64_t element_offset) const {
  const Result<const Segment*> found = find(seg);
  if (!found) return found.errors();
  const Segment& s = **found;
  if (element_offset >= s.elements) {
    return Error{fmt::format("segment '{}': element offset {} is outside the segment ({} elements)",
                             s.name, element_offset, s.elements)};
  }
  std::vector<std::uint64_t> coords(s.shape.dims.size());
  std::uint64_t rest = element_offset;
  for (std::size_t d = 0; d < coords.size(); ++d) {
    coords[d] = rest % s.shape.dims[d];
    rest /= s.shape.dims[d];
  }
  const Result<Linear> lin = linearise(s, coords);
  XPUSIM_CHECK(lin.ok(), "decomposed coordinates are in range");
  const Result<std::uint64_t> phys = lookup(s, *lin, coords);
  if (!phys) return phys.errors();
  return Translation{*phys, lin->page_id};
}

Status PageTable::read(std::uint32_t seg, std::uint64_t element_offset, std::span<std::byte> out,
                       const GlobalMemory& mem) const {
  const Result<const Segment*> found = find(seg);
  if (!found) return found.errors();
  const Segment& s = **found;
  const std::uint32_t eb = s.shape.element_bytes;
  if (out.size() % eb != 0) {
    return Error{fmt::format("segment '{}': a read of {} B is not a whole number of {} B elements",
                             s.name, out.size(), eb)};
  }
  const std::uint64_t count = out.size() / eb;
  if (element_offset > s.elements || count > s.elements - element_offset) {
    return Error{fmt::format(
        "segment '{}': elements [{}, {} + {}) run past the end of the segment ({} elements)",
        s.name, element_offset, element_offset, count, s.elements)};
  }
  const std::vector<std::uint64_t>& dims = s.shape.dims;
  std::vector<std::uint64_t> coords(dims.size());
  std::uint64_t done = 0;
  while (done < count) {
    std::uint64_t rest = element_offset + done;
    for (std::size_t d = 0; d < coords.size(); ++d) {
      coords[d] = rest % dims[d];
      rest /= dims[d];
    }
    const Result<Linear> lin = linearise(s, coords);
    XPUSIM_CHECK(lin.ok(), "decomposed coordinates are in range");
    const Result<std::uint64_t> addr = lookup(s, *lin, coords);
    if (!addr) return addr.errors();
    // Elements along dimension 0 up to the page's (or the tensor's) edge are consecutive in
    // the page: in-page stride 1 along dimension 0.
    const std::uint64_t pd0 = s.shape.page_dims[0];
    const std::uint64_t row_end = std::min(dims[0], (coords[0] / pd0 + 1) * pd0);
    const std::uint64_t run = std::min(count - done, row_end - coords[0]);
    if (auto st = mem.read(*addr, out.subspan(done * eb, run * eb)); !st) return st;
    done += run;
  }
  return Ok{};
}

Result<std::uint64_t> PageTable::page_id_of(std::uint32_t seg,
                                            std::span<const std::uint64_t> coords) const {
  const Result<const Segment*> found = find(seg);
  if (!found) return found.errors();
  const Result<Linear> lin = linearise(**found, coords);
  if (!lin) return lin.errors();
  return lin->page_id;
}

const std::string& PageTable::name(std::uint32_t seg) const {
  return segment(seg).name;
}
const SegmentShape& PageTable::shape(std::uint32_t seg) const {
  return segment(seg).shape;
}
std::uint64_t PageTable::pages(std::uint32_t seg) const {
  return segment(seg).pages;
}
std::uint64_t PageTable::elements(std::uint32_t seg) const {
  return segment(seg).elements;
}
const std::vector<std::uint64_t>& PageTable::pages_per_dim(std::uint32_t seg) const {
  return segment(seg).pages_per_dim;
}
std::uint64_t PageTable::page_bytes(std::uint32_t seg) const {
  const Segment& s = segment(seg);
  return s.page_elements * s.shape.element_bytes;
}
bool PageTable::loaded(std::uint32_t seg, std::uint64_t page_id) const {
  return segment(seg).ptes.contains(page_id);
}
std::optional<std::uint64_t> PageTable::page_base(std::uint32_t seg, std::uint64_t page_id) const {
  const Segment& s = segment(seg);
  const auto it = s.ptes.find(page_id);
  if (it == s.ptes.end()) return std::nullopt;
  return it->second;
}
std::uint64_t PageTable::loaded_pages(std::uint32_t seg) const {
  return segment(seg).ptes.size();
}

}  // namespace xpusim::mem
