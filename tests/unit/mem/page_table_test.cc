#include "mem/page_table.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "sim/stats.h"

namespace xpusim::mem {
namespace {

using Coords = std::vector<std::uint64_t>;

std::string message(const Status& st) {
  return st.ok() ? "ok" : st.error().message;
}
template <class T>
std::string message(const Result<T>& r) {
  return r.ok() ? "ok" : r.error().message;
}

// Expected physical addresses, computed independently of the table: walk the page grid in page
// id order (innermost first) and each page's full page_dims box in storage order, assigning
// consecutive element slots from the page's base; slots outside the tensor are holes.
std::map<Coords, std::uint64_t> expected_addresses(const SegmentShape& sh,
                                                   const std::vector<std::uint64_t>& bases) {
  const std::size_t rank = sh.dims.size();
  std::uint64_t page_slots = 1;
  for (const std::uint64_t pd : sh.page_dims)
    page_slots *= pd;
  std::map<Coords, std::uint64_t> out;
  for (std::uint64_t p = 0; p < bases.size(); ++p) {
    for (std::uint64_t slot = 0; slot < page_slots; ++slot) {
      Coords c;
      bool inside = true;
      std::uint64_t prest = p, srest = slot;
      for (std::size_t d = 0; d < rank; ++d) {
        const std::uint64_t grid = (sh.dims[d] + sh.page_dims[d] - 1) / sh.page_dims[d];
        c.push_back((prest % grid) * sh.page_dims[d] + srest % sh.page_dims[d]);
        inside = inside && c.back() < sh.dims[d];
        prest /= grid;
        srest /= sh.page_dims[d];
      }
      if (inside) out[c] = bases[p] + slot * sh.element_bytes;
    }
  }
  return out;
}

std::uint64_t product(const Coords& v) {
  std::uint64_t n = 1;
  for (const std::uint64_t x : v)
    n *= x;
  return n;
}

// Defines `sh`, loads page p at bases[p], and checks every element against the independent
// formula; returns the segment id.
std::uint32_t check_all(PageTable& pt, const std::string& name, const SegmentShape& sh,
                        const std::vector<std::uint64_t>& bases) {
  const Result<std::uint32_t> seg = pt.define_segment(name, sh);
  EXPECT_TRUE(seg.ok()) << message(seg);
  EXPECT_EQ(pt.pages(*seg), bases.size());
  for (std::size_t p = 0; p < bases.size(); ++p)
    EXPECT_TRUE(pt.load_page(*seg, p, bases[p]).ok());
  const auto expected = expected_addresses(sh, bases);
  EXPECT_EQ(expected.size(), product(sh.dims));
  for (const auto& [coords, addr] : expected) {
    const Result<std::uint64_t> got = pt.translate(*seg, coords);
    EXPECT_TRUE(got.ok()) << message(got);
    if (got.ok()) {
      EXPECT_EQ(*got, addr) << "coords " << coords[0] << "," << coords[1];
    }
  }
  return *seg;
}

// Fig. 4 (¶79): an 8×8 image, one segment, 4 pages split along both dimensions.
TEST(PageTable, Fig4ImageEveryPixelTranslates) {
  PageTable pt;
  const SegmentShape sh{.dims = {8, 8}, .page_dims = {4, 4}, .element_bytes = 2};
  const std::vector<std::uint64_t> bases = {0x10000, 0x9000, 0x40020, 0x200};
  const std::uint32_t seg = check_all(pt, "image", sh, bases);
  EXPECT_EQ(pt.pages_per_dim(seg), (Coords{2, 2}));
  EXPECT_EQ(pt.page_bytes(seg), 32u);
  // Spot checks by hand: p23 → page 0 ((2,3) in page) slot 3*4+2 = 14 → 0x10000 + 28.
  EXPECT_EQ(*pt.translate(seg, Coords{2, 3}), 0x10000u + 28);
  // p(x=5, y=1): page 1, in-page (1,1) → slot 5 → 0x9000 + 10.
  EXPECT_EQ(*pt.translate(seg, Coords{5, 1}), 0x9000u + 10);
  // p(x=7, y=7): page 3, in-page (3,3) → slot 15 → 0x200 + 30.
  EXPECT_EQ(*pt.translate(seg, Coords{7, 7}), 0x200u + 30);
  EXPECT_EQ(*pt.page_id_of(seg, Coords{0, 4}), 2u);
  EXPECT_EQ(pt.counts().translations, 64u + 3u);
  EXPECT_EQ(pt.counts().faults, 0u);
  EXPECT_EQ(pt.counts().pages_loaded, 4u);
}

TEST(PageTable, PartialLastPages) {
  PageTable pt;
  const SegmentShape sh{.dims = {10, 6}, .page_dims = {4, 4}, .element_bytes = 4};
  const std::uint32_t seg =
      check_all(pt, "B", sh, {0x1000, 0x2000, 0x3000, 0x4000, 0x5000, 0x6000});
  EXPECT_EQ(pt.pages_per_dim(seg), (Coords{3, 2}));
  EXPECT_EQ(pt.elements(seg), 60u);
  // (9, 5): page 2 + 3*1 = 5, in-page (1, 1) with the full 4-wide stride → slot 5.
  EXPECT_EQ(*pt.translate(seg, Coords{9, 5}), 0x6000u + 5 * 4);
}

TEST(PageTable, ThreeDimensionsAndOnePagePerSegment) {
  PageTable pt;
  const SegmentShape sh{.dims = {5, 3, 4}, .page_dims = {2, 3, 3}, .element_bytes = 8};
  std::vector<std::uint64_t> bases;
  for (std::uint64_t p = 0; p < 6; ++p)
    bases.push_back(0x100000 - p * 0x1000);
  check_all(pt, "t3", sh, bases);
  const SegmentShape one{.dims = {7, 2}, .page_dims = {7, 2}, .element_bytes = 1};
  const std::uint32_t s1 = check_all(pt, "one", one, {0x77});
  EXPECT_EQ(pt.pages(s1), 1u);
  EXPECT_EQ(*pt.translate(s1, Coords{6, 1}), 0x77u + 13);
}

TEST(PageTable, TranslateLinearMatchesDecomposedCoords) {
  PageTable pt;
  const SegmentShape sh{.dims = {10, 6, 3}, .page_dims = {3, 4, 2}, .element_bytes = 2};
  const std::uint32_t seg = *pt.define_segment("B", sh);
  for (std::uint64_t p = 0; p < pt.pages(seg); ++p)
    ASSERT_TRUE(pt.load_page(seg, p, 0x8000 + p * 0x100).ok());
  for (std::uint64_t off = 0; off < 180; ++off) {
    const Coords c = {off % 10, (off / 10) % 6, off / 60};
    const Result<std::uint64_t> a = pt.translate_linear(seg, off);
    ASSERT_TRUE(a.ok()) << message(a);
    EXPECT_EQ(*a, *pt.translate(seg, c)) << "offset " << off;
  }
  const Result<std::uint64_t> out = pt.translate_linear(seg, 180);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.error().message,
            "segment 'B': element offset 180 is outside the segment (180 elements)");
}

TEST(PageTable, NotLoadedFaultEvictAndReload) {
  PageTable pt;
  const SegmentShape sh{.dims = {8, 8}, .page_dims = {4, 4}, .element_bytes = 1};
  const std::uint32_t seg = *pt.define_segment("B", sh);
  ASSERT_TRUE(pt.load_page(seg, 0, 0x100).ok());

  // Page 3 never loaded: a fault naming page, segment and coordinates (¶64 status bit).
  Result<std::uint64_t> r = pt.translate(seg, Coords{4, 4});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "page 3 of segment 'B' (coords [4, 4]) is not loaded");
  EXPECT_EQ(pt.counts().faults, 1u);
  EXPECT_EQ(pt.counts().translations, 1u);
  EXPECT_FALSE(pt.loaded(seg, 3));
  EXPECT_FALSE(pt.page_base(seg, 3).has_value());

  // Move-in creates the PTE, move-out deletes it (¶65).
  ASSERT_TRUE(pt.load_page(seg, 3, 0x900).ok());
  EXPECT_TRUE(pt.loaded(seg, 3));
  EXPECT_EQ(pt.page_base(seg, 3), 0x900u);
  EXPECT_EQ(*pt.translate(seg, Coords{5, 6}), 0x900u + 1 + 2 * 4);
  ASSERT_TRUE(pt.evict_page(seg, 3).ok());
  EXPECT_FALSE(pt.loaded(seg, 3));
  r = pt.translate_linear(seg, 6 * 8 + 5);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "page 3 of segment 'B' (coords [5, 6]) is not loaded");

  // Loaded again elsewhere: the new base is used.
  ASSERT_TRUE(pt.load_page(seg, 3, 0x4000).ok());
  EXPECT_EQ(*pt.translate(seg, Coords{5, 6}), 0x4000u + 9);
  EXPECT_EQ(pt.loaded_pages(seg), 2u);

  const PageTableCounts& c = pt.counts();
  EXPECT_EQ(c.translations, 4u);
  EXPECT_EQ(c.faults, 2u);
  EXPECT_EQ(c.pages_loaded, 3u);
  EXPECT_EQ(c.pages_evicted, 1u);
}

TEST(PageTable, DefineSegmentValidation) {
  PageTable pt;
  const auto err = [&](const std::string& name, SegmentShape sh) {
    const Result<std::uint32_t> r = pt.define_segment(name, std::move(sh));
    EXPECT_FALSE(r.ok());
    return message(r);
  };
  EXPECT_EQ(err("", {.dims = {4}, .page_dims = {4}, .element_bytes = 1}),
            "page table: a segment needs a non-empty name");
  EXPECT_EQ(err("A", {.dims = {}, .page_dims = {}, .element_bytes = 1}),
            "segment 'A': dims is empty; a segment needs at least 1 dimension");
  EXPECT_EQ(err("A", {.dims = {4, 4}, .page_dims = {4}, .element_bytes = 1}),
            "segment 'A': page_dims has 1 entries but dims has 2; give one page extent per "
            "dimension");
  EXPECT_EQ(err("A", {.dims = {4, 0}, .page_dims = {4, 1}, .element_bytes = 1}),
            "segment 'A': dims[1] is 0; every extent must be at least 1");
  EXPECT_EQ(err("A", {.dims = {4, 4}, .page_dims = {0, 4}, .element_bytes = 1}),
            "segment 'A': page_dims[0] is 0; a page extent must be in [1, dims[0] = 4]");
  EXPECT_EQ(err("A", {.dims = {4, 4}, .page_dims = {4, 5}, .element_bytes = 1}),
            "segment 'A': page_dims[1] is 5; a page extent must be in [1, dims[1] = 4]");
  EXPECT_EQ(err("A", {.dims = {4}, .page_dims = {4}, .element_bytes = 3}),
            "segment 'A': element_bytes 3 is not one of 1, 2, 4, 8");
  EXPECT_EQ(err("A", {.dims = {4}, .page_dims = {4}, .element_bytes = 0}),
            "segment 'A': element_bytes 0 is not one of 1, 2, 4, 8");
  const std::uint64_t big = std::uint64_t{1} << 32;
  EXPECT_EQ(err("A", {.dims = {big, big}, .page_dims = {1, 1}, .element_bytes = 1}),
            "segment 'A': dims [4294967296, 4294967296] of 1 B elements overflow a 64-bit byte "
            "size");
  EXPECT_EQ(err("A", {.dims = {big, big / 2}, .page_dims = {1, 1}, .element_bytes = 2}),
            "segment 'A': dims [4294967296, 2147483648] of 2 B elements overflow a 64-bit byte "
            "size");
  EXPECT_EQ(pt.segments(), 0u);

  for (const std::uint32_t eb : {1u, 2u, 4u, 8u}) {
    const Result<std::uint32_t> r = pt.define_segment(
        "E" + std::to_string(eb), {.dims = {3}, .page_dims = {2}, .element_bytes = eb});
    ASSERT_TRUE(r.ok()) << message(r);
  }
  EXPECT_EQ(err("E2", {.dims = {4}, .page_dims = {4}, .element_bytes = 1}),
            "page table: segment 'E2' is already defined (names are unique)");
  EXPECT_EQ(pt.segments(), 4u);
  EXPECT_EQ(*pt.find_segment("E4"), 2u);
  EXPECT_EQ(pt.name(3), "E8");
  EXPECT_EQ(message(pt.find_segment("nope")), "page table: no segment named 'nope'");
}

TEST(PageTable, LoadEvictTranslateValidation) {
  PageTable pt;
  const std::uint32_t seg =
      *pt.define_segment("B", {.dims = {10, 6}, .page_dims = {4, 4}, .element_bytes = 4});
  EXPECT_EQ(message(pt.load_page(7, 0, 0)), "page table: segment id 7 is not defined (1 segments)");
  EXPECT_EQ(message(pt.evict_page(7, 0)), "page table: segment id 7 is not defined (1 segments)");
  EXPECT_EQ(message(pt.translate(7, Coords{0, 0})),
            "page table: segment id 7 is not defined (1 segments)");
  EXPECT_EQ(message(pt.load_page(seg, 6, 0)),
            "segment 'B': page 6 is out of range (the segment has 6 pages)");
  EXPECT_EQ(message(pt.evict_page(seg, 6)),
            "segment 'B': page 6 is out of range (the segment has 6 pages)");
  EXPECT_EQ(message(pt.load_page(seg, 1, 0x1002)),
            "segment 'B': page 1 physical base 0x1002 is not a multiple of the element size 4 B");
  EXPECT_EQ(message(pt.load_page(seg, 1, std::numeric_limits<std::uint64_t>::max() - 59)),
            "segment 'B': page 1 at 0xffffffffffffffc4 (+64 B) wraps past the 64-bit address "
            "space");
  // The last page that fits exactly is fine.
  ASSERT_TRUE(pt.load_page(seg, 2, std::numeric_limits<std::uint64_t>::max() - 63).ok());
  EXPECT_EQ(*pt.translate(seg, Coords{9, 3}),
            std::numeric_limits<std::uint64_t>::max() - 63 + (1 + 3 * 4) * 4);
  ASSERT_TRUE(pt.load_page(seg, 1, 0x1000).ok());
  EXPECT_EQ(message(pt.load_page(seg, 1, 0x2000)),
            "segment 'B': page 1 is already loaded (at 0x1000); evict it before loading it again");
  EXPECT_EQ(message(pt.evict_page(seg, 0)),
            "segment 'B': page 0 is not loaded, so it cannot be evicted");
  EXPECT_EQ(message(pt.translate(seg, Coords{1, 2, 3})),
            "segment 'B': address has 3 coordinates [1, 2, 3] but the segment has 2 dimensions");
  EXPECT_EQ(message(pt.translate(seg, Coords{10, 2})),
            "segment 'B': coordinate 10 of dimension 0 is out of range (extent 10) in [10, 2]");
  EXPECT_EQ(message(pt.translate(seg, Coords{4, 6})),
            "segment 'B': coordinate 6 of dimension 1 is out of range (extent 6) in [4, 6]");
  EXPECT_EQ(message(pt.page_id_of(seg, Coords{4, 6})),
            "segment 'B': coordinate 6 of dimension 1 is out of range (extent 6) in [4, 6]");
  EXPECT_FALSE(pt.loaded(seg, 99));
  // Rejected requests change nothing and count nothing but the one successful translate.
  EXPECT_EQ(pt.counts().pages_loaded, 2u);
  EXPECT_EQ(pt.counts().pages_evicted, 0u);
  EXPECT_EQ(pt.counts().translations, 1u);
  EXPECT_EQ(pt.counts().faults, 0u);
}

// A 10×6 segment of 2-byte elements, its 6 pages scattered in global memory, every element's
// value = 0x100 + its logical offset written at its expected physical address.
class PageTableRead : public ::testing::Test {
 protected:
  void SetUp() override {
    seg_ = *pt_.define_segment("B", shape_);
    for (std::size_t p = 0; p < bases_.size(); ++p)
      ASSERT_TRUE(pt_.load_page(seg_, p, bases_[p]).ok());
    for (const auto& [c, addr] : expected_addresses(shape_, bases_)) {
      const std::uint16_t v = value(c[1] * 10 + c[0]);
      std::array<std::byte, 2> bytes;
      std::memcpy(bytes.data(), &v, 2);
      ASSERT_TRUE(mem_.write(addr, bytes).ok());
    }
  }
  static std::uint16_t value(std::uint64_t offset) {
    return static_cast<std::uint16_t>(0x100 + offset);
  }
  // Reads `count` elements from `offset` and checks them.
  void expect_run(std::uint64_t offset, std::uint64_t count) {
    std::vector<std::byte> out(count * 2, std::byte{0xEE});
    const Status st = pt_.read(seg_, offset, out, mem_);
    ASSERT_TRUE(st.ok()) << message(st);
    for (std::uint64_t i = 0; i < count; ++i) {
      std::uint16_t v = 0;
      std::memcpy(&v, out.data() + i * 2, 2);
      EXPECT_EQ(v, value(offset + i)) << "offset " << offset << " element " << i;
    }
  }

  const SegmentShape shape_{.dims = {10, 6}, .page_dims = {4, 4}, .element_bytes = 2};
  const std::vector<std::uint64_t> bases_ = {0x3000, 0x1000, 0x5FF0, 0x20000, 0x100, 0x7000};
  PageTable pt_;
  GlobalMemory mem_;
  std::uint32_t seg_ = 0;
};

TEST_F(PageTableRead, RunsAcrossPageBoundaries) {
  expect_run(2, 5);    // x 2..6 of row 0: pages 0 → 1
  expect_run(7, 5);    // x 7..9 of row 0, then x 0..1 of row 1: pages 1 → 2 → 0
  expect_run(35, 10);  // rows 3 → 4: pages 0..2 → 3..5
  expect_run(0, 60);   // the whole segment
  expect_run(59, 1);
  const std::uint64_t before = pt_.counts().translations;
  expect_run(0, 10);  // one row: three runs, one per page it crosses
  EXPECT_EQ(pt_.counts().translations - before, 3u);
}

TEST_F(PageTableRead, ReadErrors) {
  std::vector<std::byte> out(6);
  EXPECT_EQ(message(pt_.read(seg_, 0, std::span(out).first(3), mem_)),
            "segment 'B': a read of 3 B is not a whole number of 2 B elements");
  EXPECT_EQ(message(pt_.read(seg_, 58, out, mem_)),
            "segment 'B': elements [58, 58 + 3) run past the end of the segment (60 elements)");
  EXPECT_EQ(message(pt_.read(seg_, std::numeric_limits<std::uint64_t>::max(), out, mem_)),
            "segment 'B': elements [18446744073709551615, 18446744073709551615 + 3) run past the "
            "end of the segment (60 elements)");
  EXPECT_TRUE(pt_.read(seg_, 60, std::span(out).first(0), mem_).ok());
  ASSERT_TRUE(pt_.evict_page(seg_, 1).ok());
  const std::uint64_t faults = pt_.counts().faults;
  EXPECT_EQ(message(pt_.read(seg_, 2, out, mem_)),
            "page 1 of segment 'B' (coords [4, 0]) is not loaded");
  EXPECT_EQ(pt_.counts().faults, faults + 1);
}

TEST(PageTable, RegisteredStatsCount) {
  sim::StatsRegistry reg;
  PageTable pt;
  pt.register_stats(reg, "chip0.page_table");
  const std::uint32_t seg =
      *pt.define_segment("B", {.dims = {4, 4}, .page_dims = {2, 2}, .element_bytes = 1});
  ASSERT_TRUE(pt.load_page(seg, 0, 0).ok());
  ASSERT_TRUE(pt.load_page(seg, 1, 64).ok());
  ASSERT_TRUE(pt.evict_page(seg, 1).ok());
  EXPECT_TRUE(pt.translate(seg, Coords{1, 1}).ok());
  EXPECT_FALSE(pt.translate(seg, Coords{2, 1}).ok());
  const auto value = [&](const std::string& path) {
    const Result<const sim::Stat*> s = reg.find(path);
    EXPECT_TRUE(s.ok()) << message(s);
    return s.ok() ? dynamic_cast<const sim::Counter&>(**s).value() : ~std::uint64_t{0};
  };
  EXPECT_EQ(value("chip0.page_table.translations"), 2u);
  EXPECT_EQ(value("chip0.page_table.faults"), 1u);
  EXPECT_EQ(value("chip0.page_table.pages_loaded"), 2u);
  EXPECT_EQ(value("chip0.page_table.pages_evicted"), 1u);
  reg.reset_all();
  EXPECT_EQ(value("chip0.page_table.translations"), 0u);
  EXPECT_EQ(pt.counts().translations, 2u);  // lifetime totals stay
  // Registering again replaces the stats under the same path.
  pt.register_stats(reg, "chip0.page_table");
  EXPECT_EQ(reg.size(), 4u);
}

TEST(PageTable, StatsUnregisterWhenTableDies) {
  sim::StatsRegistry reg;
  {
    PageTable pt;
    pt.register_stats(reg, "pt");
    EXPECT_EQ(reg.size(), 4u);
    PageTable moved = std::move(pt);
    EXPECT_EQ(reg.size(), 4u);
  }
  EXPECT_EQ(reg.size(), 0u);
}

}  // namespace
}  // namespace xpusim::mem

namespace xpusim::mem {
namespace {

// The PTE array (seed2 ¶63): 16 B per page at pte_base, base then a valid bit, kept in memory
// as pages come and go; every change a cached translation could miss bumps the generation.
TEST(PageTable, PtesLiveInMemoryAndChangesBumpTheGeneration) {
  GlobalMemory mem;
  PageTable pt;
  pt.attach_memory(&mem);
  auto seg = pt.define_segment("t", {.dims = {8, 6}, .page_dims = {8, 2}, .element_bytes = 2});
  ASSERT_TRUE(seg.ok());
  EXPECT_EQ(pt.pte_address(*seg, 0), std::nullopt);  // not placed yet
  ASSERT_TRUE(pt.load_page(*seg, 1, 0x4000).ok());
  const std::uint64_t g0 = pt.generation();
  ASSERT_TRUE(pt.place_ptes(*seg, 0x1000).ok());
  EXPECT_GT(pt.generation(), g0);
  EXPECT_EQ(pt.pte_address(*seg, 2), 0x1000u + 2 * kPteBytes);
  EXPECT_EQ(pt.pte_address(*seg, 3), std::nullopt);  // 3 pages
  const auto pte = [&](std::uint64_t p) {
    std::array<std::uint64_t, 2> w{};
    EXPECT_TRUE(mem.read(0x1000 + p * kPteBytes, std::as_writable_bytes(std::span(w))).ok());
    return w;
  };
  EXPECT_EQ(pte(0), (std::array<std::uint64_t, 2>{0, 0}));
  EXPECT_EQ(pte(1), (std::array<std::uint64_t, 2>{0x4000, 1}));  // written by place_ptes
  const std::uint64_t g1 = pt.generation();
  ASSERT_TRUE(pt.load_page(*seg, 2, 0x8000).ok());
  EXPECT_EQ(pte(2), (std::array<std::uint64_t, 2>{0x8000, 1}));
  EXPECT_EQ(pt.generation(), g1);  // a new page invalidates nothing cached
  ASSERT_TRUE(pt.evict_page(*seg, 1).ok());
  EXPECT_EQ(pte(1), (std::array<std::uint64_t, 2>{0, 0}));
  EXPECT_GT(pt.generation(), g1);

  const auto t = pt.translate_linear_page(*seg, 8 * 5 + 3);  // coords (3, 5): page 2
  ASSERT_TRUE(t.ok()) << message(t);
  EXPECT_EQ(t->page_id, 2u);
  EXPECT_EQ(t->physical, 0x8000u + 2 * (8 * 1 + 3));
  EXPECT_EQ(pt.translate_linear(*seg, 8 * 5 + 3).value(), t->physical);
  EXPECT_EQ(message(pt.translate_linear_page(*seg, 8 * 2)),
            "page 1 of segment 't' (coords [0, 2]) is not loaded");
}

TEST(PageTable, PlacePtesValidation) {
  PageTable pt;
  auto seg = pt.define_segment("t", {.dims = {4}, .page_dims = {1}, .element_bytes = 1});
  ASSERT_TRUE(seg.ok());
  EXPECT_EQ(message(pt.place_ptes(*seg, 0x1008)),
            "segment 't': PTE array base 0x1008 is not 16-byte aligned");
  EXPECT_EQ(message(pt.place_ptes(*seg, std::numeric_limits<std::uint64_t>::max() - 15)),
            "segment 't': a PTE array of 4 pages x 16 B at 0xfffffffffffffff0 wraps past the "
            "64-bit address space");
  EXPECT_EQ(message(pt.place_ptes(7, 0)), "page table: segment id 7 is not defined (1 segments)");
  EXPECT_TRUE(pt.place_ptes(*seg, std::numeric_limits<std::uint64_t>::max() - 63).ok());
}

}  // namespace
}  // namespace xpusim::mem
