// Tile-mode loads, stores and prefetches against a naive reference, and the shared helpers.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <numeric>
#include <set>
#include <vector>

#include <fmt/format.h>
#include "reference_gather.h"
#include "sim/rng.h"
#include "tma/copy_engine.h"
#include "tma/swizzle.h"
#include "tma/tensor_map_encode.h"

namespace xpusim::tma {
namespace {

TEST(CopyHelpers, LineRequestsSplitAt128ByteBoundaries) {
  RequestList r;
  append_line_requests(r, 0x1070, 0x120);  // 0x1070..0x1190
  const std::vector<GlobalRequest> want = {
      {0x1070, 0x10}, {0x1080, 0x80}, {0x1100, 0x80}, {0x1180, 0x10}};
  EXPECT_EQ(r, want);
  append_line_requests(r, 0x2000, 0);
  EXPECT_EQ(r.size(), 4u);
  r.clear();
  append_line_requests(r, 0x2000, 128);
  EXPECT_EQ(r, (std::vector<GlobalRequest>{{0x2000, 128}}));
}

// The NaN fill H200 silicon writes (tools/silicon): 0x7FF7 repeated across the element.
TEST(CopyHelpers, OobFillPatternIsZeroOrTheSiliconNan) {
  TensorMap m;
  m.data_type = DataType::kFloat16;
  EXPECT_EQ(oob_fill_pattern(m), std::vector<std::byte>(2, std::byte{0}));
  m.oob_fill = OobFill::kNanRequestZeroFma;
  const std::byte lo{0xF7}, hi{0x7F};
  EXPECT_EQ(oob_fill_pattern(m), (std::vector<std::byte>{lo, hi}));
  m.data_type = DataType::kBfloat16;
  EXPECT_EQ(oob_fill_pattern(m), (std::vector<std::byte>{lo, hi}));
  for (DataType t :
       {DataType::kFloat32, DataType::kFloat32Ftz, DataType::kTfloat32, DataType::kTfloat32Ftz}) {
    m.data_type = t;
    EXPECT_EQ(oob_fill_pattern(m), (std::vector<std::byte>{lo, hi, lo, hi}));
  }
  m.data_type = DataType::kFloat64;
  EXPECT_EQ(oob_fill_pattern(m), (std::vector<std::byte>{lo, hi, lo, hi, lo, hi, lo, hi}));
  m.data_type = DataType::kInt32;  // not a float: zeros whatever the fill mode
  EXPECT_EQ(oob_fill_pattern(m), std::vector<std::byte>(4, std::byte{0}));
  m.data_type = DataType::kUint64;
  m.oob_fill = OobFill::kNone;
  EXPECT_EQ(oob_fill_pattern(m), std::vector<std::byte>(8, std::byte{0}));
  // CONSTANT (seed0 ¶78-80): the value's bytes, little-endian, one element wide.
  m.oob_fill = OobFill::kConstant;
  m.oob_fill_value = 0x0102030405060708;
  EXPECT_EQ(oob_fill_pattern(m),
            (std::vector<std::byte>{std::byte{8}, std::byte{7}, std::byte{6}, std::byte{5},
                                    std::byte{4}, std::byte{3}, std::byte{2}, std::byte{1}}));
  m.data_type = DataType::kFloat16;
  m.oob_fill_value = 0x3E00;
  EXPECT_EQ(oob_fill_pattern(m), (std::vector<std::byte>{std::byte{0x00}, std::byte{0x3E}}));
  m.data_type = DataType::kUint8;
  m.oob_fill_value = 0xAB;
  EXPECT_EQ(oob_fill_pattern(m), std::vector<std::byte>{std::byte{0xAB}});
}

TEST(CopyHelpers, MulticastTargetsFollowTheMask) {
  mem::SharedMemory a(1024), b(1024), c(1024);
  std::array<mem::SharedMemory*, 3> cluster = {&a, &b, &c};
  auto t = multicast_targets(cluster, 0b101, 256);
  ASSERT_TRUE(t.ok());
  ASSERT_EQ(t->size(), 2u);
  EXPECT_EQ((*t)[0].smem, &a);
  EXPECT_EQ((*t)[1].smem, &c);
  EXPECT_EQ((*t)[1].offset, 256u);
  auto bad = multicast_targets(cluster, 0b1001, 0);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("rank 3"), std::string::npos) << bad.error().message;
  EXPECT_FALSE(multicast_targets(cluster, 0, 0).ok());
}

TEST(CopyHelpers, BoxBytesPerModeAndType) {
  TensorMap m;
  m.rank = 3;
  m.data_type = DataType::kFloat16;
  m.box_dim = {64, 10, 7, 0, 0};
  m.element_strides = {4, 2, 3, 1, 1};  // dim-0 stride ignored without interleave
  EXPECT_EQ(box_bytes(m), 64u * 2 * 5 * 3);
  // Interleaved (H200 silicon): dimension 0 counts 16 B chunks, ceil(64/4) = 16 of them with
  // the stride now honoured, and dimension rank-2 (here 1) is taken at its coordinate only.
  m.interleave = Interleave::k16B;
  EXPECT_EQ(box_bytes(m), 16u * 16 * 3);
  EXPECT_EQ(box_footprint(m), box_bytes(m));  // rows packed, swizzle or not
  m.interleave = Interleave::kNone;
  m.data_type = DataType::k16U4Align8B;  // 4 bits per value
  EXPECT_EQ(box_bytes(m), 32u * 5 * 3);
  m.data_type = DataType::k16U4Align16B;  // 16 values per 16 B in shared memory
  m.box_dim[0] = 128;
  EXPECT_EQ(box_bytes(m), 128u * 5 * 3);
  m.data_type = DataType::k16U6Align16B;
  EXPECT_EQ(box_bytes(m), 128u * 5 * 3);
  TensorMap im;
  im.mode = Mode::kIm2col;
  im.rank = 4;
  im.data_type = DataType::kBfloat16;
  im.channels_per_pixel = 16;
  im.pixels_per_column = 64;
  im.element_strides = {1, 2, 2, 1, 1};
  EXPECT_EQ(box_bytes(im), 16u * 64 * 2);
  EXPECT_EQ(box_footprint(im), box_bytes(im));  // unswizzled rows are packed
}

// H200 silicon (tools/silicon): with a swizzle, each row of the box starts its own swizzle
// span; the load delivers only the rows' bytes (complete_tx) and leaves the gaps alone.
TEST(CopyHelpers, SwizzledRowsShorterThanTheSpanEachTakeAWholeSpan) {
  TensorMap m;
  m.rank = 2;
  m.data_type = DataType::kFloat16;
  m.box_dim = {8, 6, 0, 0, 0};  // 16 B rows
  m.element_strides = {1, 1, 1, 1, 1};
  EXPECT_EQ(box_footprint(m), 16u * 6);
  m.swizzle = Swizzle::k128B;
  EXPECT_EQ(box_bytes(m), 16u * 6);
  EXPECT_EQ(box_footprint(m), 128u * 6);
  m.swizzle = Swizzle::k64B;
  EXPECT_EQ(box_footprint(m), 64u * 6);
  m.box_dim[0] = 32;  // a 64 B row fills the 64 B span
  EXPECT_EQ(box_footprint(m), 64u * 6);
  TensorMap im;
  im.mode = Mode::kIm2col;
  im.rank = 3;
  im.data_type = DataType::kFloat32;
  im.channels_per_pixel = 12;  // 48 B per pixel
  im.pixels_per_column = 10;
  im.element_strides = {1, 1, 1, 1, 1};
  im.swizzle = Swizzle::k128B;
  EXPECT_EQ(box_bytes(im), 48u * 10);
  EXPECT_EQ(box_footprint(im), 128u * 10);
}

// The rows land a span apart, each swizzled where it lands, and the gaps keep their bytes.
// Multicast copies the first destination's image only where it is the same image: rows with
// gaps, or a destination at another phase of the swizzle pattern, go row by row. Each
// destination must hold what a load to it alone would have written.
TEST(TileLoad, MulticastMatchesSingleLoadsAtEveryOffsetAndRowLayout) {
  mem::GlobalMemory g;
  std::vector<std::byte> src(64 * 16);
  for (std::size_t i = 0; i < src.size(); ++i)
    src[i] = std::byte{static_cast<unsigned char>(i * 7 + 3)};
  ASSERT_TRUE(g.write(0x4000, src).ok());
  for (const std::uint32_t box0 : {8u, 64u}) {  // 16 B rows (gaps) and 128 B rows (none)
    auto map = encode_tiled({.data_type = DataType::kUint16,
                             .rank = 2,
                             .global_address = 0x4000,
                             .global_dim = {64, 16},
                             .global_strides = {128},
                             .box_dim = {box0, 8},
                             .element_strides = {1, 1},
                             .swizzle = Swizzle::k128B});
    ASSERT_TRUE(map.ok()) << map.error().message;
    const std::array<std::int32_t, 2> at = {0, 3};
    for (const std::uint32_t second : {0u, 128u, 384u, 1024u}) {
      SCOPED_TRACE(testing::Message() << "box0 " << box0 << ", second offset " << second);
      mem::SharedMemory a(4096), b(4096), alone_a(4096), alone_b(4096);
      for (mem::SharedMemory* m : {&a, &b, &alone_a, &alone_b}) {
        std::fill(m->bytes().begin(), m->bytes().end(), std::byte{0xA5});
      }
      const std::array<SmemTarget, 2> both = {{{&a, 0}, {&b, second}}};
      ASSERT_TRUE(load_tile(*map, at, g, both).ok());
      const SmemTarget ta{&alone_a, 0}, tb{&alone_b, second};
      ASSERT_TRUE(load_tile(*map, at, g, {&ta, 1}).ok());
      ASSERT_TRUE(load_tile(*map, at, g, {&tb, 1}).ok());
      EXPECT_TRUE(std::equal(a.bytes().begin(), a.bytes().end(), alone_a.bytes().begin()));
      EXPECT_TRUE(std::equal(b.bytes().begin(), b.bytes().end(), alone_b.bytes().begin()));
    }
  }
}

TEST(TileLoad, SwizzledShortRowsLandASpanApartAndLeaveTheGapsAlone) {
  auto map = encode_tiled({.data_type = DataType::kUint16,
                           .rank = 2,
                           .global_address = 0x1000,
                           .global_dim = {8, 4},
                           .global_strides = {16},
                           .box_dim = {8, 4},
                           .element_strides = {1, 1},
                           .swizzle = Swizzle::k128B});
  ASSERT_TRUE(map.ok());
  mem::GlobalMemory g;
  std::vector<std::byte> src(64);
  for (std::size_t i = 0; i < src.size(); ++i)
    src[i] = std::byte{static_cast<unsigned char>(i + 1)};
  ASSERT_TRUE(g.write(0x1000, src).ok());
  mem::SharedMemory s(1024);
  std::fill(s.bytes().begin(), s.bytes().end(), std::byte{0xA5});
  const std::array<std::int32_t, 2> at = {0, 0};
  const SmemTarget t{&s, 0};
  auto rep = load_tile(*map, at, g, {&t, 1});
  ASSERT_TRUE(rep.ok()) << rep.error().message;
  EXPECT_EQ(rep->bytes_per_destination, 64u);
  for (std::uint32_t row = 0; row < 4; ++row) {
    // 128B swizzle: chunk 0 of the 128 B line `row` moves to chunk `row`.
    const std::uint32_t at_smem = row * 128 + 16 * row;
    for (std::uint32_t b = 0; b < 16; ++b) {
      EXPECT_EQ(std::to_integer<int>(s.bytes()[at_smem + b]), static_cast<int>(row * 16 + b + 1))
          << "row " << row << " byte " << b;
    }
  }
  std::size_t untouched = 0;
  for (std::byte b : s.bytes())
    untouched += b == std::byte{0xA5};
  EXPECT_EQ(untouched, 1024u - 64u);
}

// ---- random descriptors satisfying cuTensorMapEncodeTiled's rules ---------------------------

struct Case {
  TensorMap map;
  std::vector<std::int32_t> coords;
  std::uint64_t region = 0;  // bytes of the tensor from global_address (strides included)
};

std::uint64_t pick(sim::Rng& rng, std::uint64_t lo, std::uint64_t hi) {  // inclusive
  return lo + rng.uniform(hi - lo + 1);
}

std::int64_t pick_signed(sim::Rng& rng, std::int64_t lo, std::int64_t hi) {
  return lo + static_cast<std::int64_t>(rng.uniform(static_cast<std::uint64_t>(hi - lo + 1)));
}

Case random_case(sim::Rng& rng, bool for_store) {
  Case k;
  TensorMap& m = k.map;
  m.data_type = static_cast<DataType>(rng.uniform(16));
  if (for_store && m.data_type == DataType::k16U4Align16B) m.data_type = DataType::k16U4Align8B;
  const bool packed = is_packed(m.data_type);
  const std::uint32_t bits = element_bits(m.data_type);
  const std::uint32_t e = std::max<std::uint32_t>(1, bits / 8);
  m.rank = static_cast<std::uint32_t>(pick(rng, 1, 5));
  if (!packed && m.rank >= 3 && rng.uniform(4) == 0) {
    m.interleave = rng.uniform(2) ? Interleave::k16B : Interleave::k32B;
  }
  // Swizzle: any mode, except the rules cuda.h and PTX place on types and directions.
  if (m.interleave == Interleave::k32B) {
    m.swizzle = Swizzle::k32B;
  } else if (m.data_type == DataType::k16U4Align16B || m.data_type == DataType::k16U6Align16B) {
    const std::array<Swizzle, 3> ok = {Swizzle::kNone, Swizzle::k128B, Swizzle::k128BAtom32B};
    m.swizzle = ok[rng.uniform(3)];
  } else {
    m.swizzle = static_cast<Swizzle>(rng.uniform(7));
  }
  if (for_store && m.swizzle == Swizzle::k128BAtom32BFlip8B) m.swizzle = Swizzle::k128BAtom32B;
  const std::uint32_t span = swizzle_span_bytes(m.swizzle);
  for (std::uint32_t d = 0; d < kMaxRank; ++d)
    m.element_strides[d] = 1;

  // Dim 0.
  if (m.interleave != Interleave::kNone) {  // dim 0 = the channels of one 16 B / 32 B slice
    const std::uint32_t slice = m.interleave == Interleave::k16B ? 16 : 32;
    m.global_dim[0] = pick(rng, 1, slice / e);
    m.box_dim[0] = static_cast<std::uint32_t>(pick(rng, 1, slice / e));
    m.element_strides[0] = static_cast<std::uint32_t>(pick(rng, 1, 8));
  } else if (m.data_type == DataType::k16U4Align8B) {
    m.box_dim[0] = 32 * static_cast<std::uint32_t>(pick(rng, 1, span ? span / 16 : 8));
    m.global_dim[0] = 2 * pick(rng, 1, m.box_dim[0]);
  } else if (packed) {
    m.box_dim[0] = 128;
    m.global_dim[0] = 128 * pick(rng, 1, 2);
  } else {
    const std::uint32_t max_chunks = std::min<std::uint32_t>(span ? span : 256, 256 * e) / 16;
    m.box_dim[0] = static_cast<std::uint32_t>(pick(rng, 1, max_chunks)) * 16 / e;
    m.global_dim[0] = pick(rng, 1, 2 * m.box_dim[0] + 4);
  }
  if (rng.uniform(8) == 0 && !packed && m.interleave == Interleave::kNone) {
    m.element_strides[0] = static_cast<std::uint32_t>(pick(rng, 2, 8));  // must be ignored
  }
  // Dims 1..rank-1: small, so the naive reference stays quick.
  for (std::uint32_t d = 1; d < m.rank; ++d) {
    m.box_dim[d] = static_cast<std::uint32_t>(pick(rng, 1, m.rank >= 4 ? 3 : 6));
    m.element_strides[d] =
        static_cast<std::uint32_t>(rng.uniform(6) ? pick(rng, 1, 2) : pick(rng, 1, 8));
    m.global_dim[d] =
        pick(rng, 1, std::min<std::uint64_t>(m.box_dim[d] * m.element_strides[d] + 2, 9));
  }
  // Strides with padding (multiples of 16, or 32 where cuda.h asks for it).
  const bool align32 = m.interleave == Interleave::k32B || m.data_type == DataType::k16U4Align16B ||
                       m.data_type == DataType::k16U6Align16B;
  const std::uint64_t align = align32 ? 32 : 16;
  // Interleaved maps count dimension 0 in 16 B / 32 B chunks (H200 silicon).
  const std::uint64_t chunk = m.interleave == Interleave::k16B ? 16 : 32;
  const std::uint64_t row = m.interleave != Interleave::kNone ? m.global_dim[0] * chunk
                                                              : (m.global_dim[0] * bits + 7) / 8;
  k.region = row;
  if (m.rank > 1) {
    m.global_strides[0] = (row + align - 1) / align * align + align * pick(rng, 0, 2);
    for (std::uint32_t d = 1; d + 1 < m.rank; ++d) {
      m.global_strides[d] = m.global_strides[d - 1] * (m.global_dim[d] + pick(rng, 0, 1));
    }
    k.region = m.global_strides[m.rank - 2] * m.global_dim[m.rank - 1];
  }
  m.global_address = 0x100000 * pick(rng, 1, 64) + align * pick(rng, 0, 63);
  if (is_float(m.data_type) && rng.uniform(2)) {
    m.oob_fill = OobFill::kNanRequestZeroFma;
  } else if (!packed && rng.uniform(3) == 0) {  // xpusim's CONSTANT fill: any element value
    m.oob_fill = OobFill::kConstant;
    m.oob_fill_value = bits == 64 ? rng.next_u64() : rng.next_u64() & ((1ull << bits) - 1);
  }

  // Coordinates: mostly inside, often straddling an edge (negative included), sometimes fully
  // outside.
  for (std::uint32_t d = 0; d < m.rank; ++d) {
    const auto dim = static_cast<std::int64_t>(m.global_dim[d]);
    const bool strided = d > 0 || m.interleave != Interleave::kNone;
    const std::int64_t es = strided ? m.element_strides[d] : 1;
    const std::int64_t reach = (m.box_dim[d] + es - 1) / es * es;  // past the last element
    const std::uint64_t kind = rng.uniform(40);
    std::int64_t c = pick_signed(rng, 0, dim - 1);
    if (kind < 14) c = pick_signed(rng, 1 - reach, dim - 1);  // straddles an edge, or inside
    if (kind == 12) c = rng.uniform(2) ? dim + pick_signed(rng, 0, 3) : -reach - 3;
    if (packed && d == 0) c = c / 16 * 16;
    // Hopper loads only boxes starting on 16 B along dimension 0 (H200 silicon).
    const std::int64_t per16 = 128 / std::gcd<std::int64_t>(128, element_bits(m.data_type));
    if (!packed && d == 0 && m.interleave == Interleave::kNone) {
      c = (c >= 0 ? c / per16 : -((-c + per16 - 1) / per16)) * per16;
    }
    k.coords.push_back(static_cast<std::int32_t>(c));
  }
  return k;
}

std::vector<std::byte> random_bytes(sim::Rng& rng, std::uint64_t n) {
  std::vector<std::byte> out(n);
  for (auto& b : out)
    b = static_cast<std::byte>(rng.next_u64());
  return out;
}

void fill_random(mem::GlobalMemory& g, mem::Addr a, std::uint64_t n, std::uint64_t seed) {
  std::vector<std::byte> data(n);
  for (std::uint64_t i = 0; i < n; ++i) {
    data[i] = static_cast<std::byte>(sim::splitmix64(seed + i / 8) >> (8 * (i % 8)));
  }
  ASSERT_TRUE(g.write(a, data).ok());
}

std::vector<std::byte> read_global(const mem::GlobalMemory& g, mem::Addr a, std::uint64_t n) {
  std::vector<std::byte> out(n);
  EXPECT_TRUE(g.read(a, out).ok());
  return out;
}

std::string describe(const Case& k) {
  const TensorMap& m = k.map;
  std::string s =
      fmt::format("type {} rank {} interleave {} swizzle {} fill {} dims", name(m.data_type),
                  m.rank, name(m.interleave), name(m.swizzle), name(m.oob_fill));
  for (std::uint32_t d = 0; d < m.rank; ++d) {
    s += fmt::format(" [{}: dim {} box {} es {} c {}]", d, m.global_dim[d], m.box_dim[d],
                     m.element_strides[d], k.coords[d]);
  }
  return s;
}

TEST(TileLoad, MatchesNaiveReferenceOnRandomDescriptors) {
  auto rng = sim::Rng::for_stream(2026, "tma.tile_load");
  std::set<std::tuple<int, int, int, bool>> seen;  // (type, swizzle, interleave, any oob)
  for (int n = 0; n < 3000; ++n) {
    const Case k = random_case(rng, false);
    const TensorMap& m = k.map;
    mem::GlobalMemory global;
    fill_random(global, m.global_address - 64, k.region + 128, rng.next_u64());
    const std::uint64_t bytes = box_footprint(m);
    const std::uint32_t align = std::max<std::uint32_t>(128, swizzle_alignment(m.swizzle));
    const auto offset = static_cast<std::uint32_t>(align * pick(rng, 0, 2));
    const auto window = static_cast<std::uint32_t>(offset + (bytes + 127) / 128 * 128 + 256);
    const std::size_t targets = rng.uniform(5) == 0 ? pick(rng, 2, 3) : 1;
    std::vector<mem::SharedMemory> smem;
    std::vector<std::vector<std::byte>> want;
    std::vector<SmemTarget> dst;
    smem.reserve(targets);
    ref::Counts counts;
    mem::SharedMemory again(window);  // target 0's twin, for the prepared-map load below
    for (std::size_t t = 0; t < targets; ++t) {
      smem.emplace_back(window);
      const auto init = random_bytes(rng, window);
      std::memcpy(smem.back().bytes().data(), init.data(), window);
      if (t == 0) std::memcpy(again.bytes().data(), init.data(), window);
      want.push_back(init);
      counts = ref::load_tile(m, k.coords, global, want.back(), offset);
    }
    for (auto& s : smem)
      dst.push_back({&s, offset});
    auto rep = load_tile(m, k.coords, global, dst);
    ASSERT_TRUE(rep.ok()) << describe(k) << ": " << rep.error().message;
    for (std::size_t t = 0; t < targets; ++t) {
      ASSERT_TRUE(std::equal(want[t].begin(), want[t].end(), smem[t].bytes().begin()))
          << "case " << n << " target " << t << ": " << describe(k);
    }
    ASSERT_EQ(rep->global_requests, ref::tile_requests(m, k.coords)) << describe(k);
    EXPECT_EQ(rep->bytes_per_destination, box_bytes(m));
    EXPECT_EQ(rep->destinations, targets);
    EXPECT_EQ(rep->elements, counts.elements) << describe(k);
    EXPECT_EQ(rep->oob_elements, counts.oob) << describe(k);
    seen.insert({static_cast<int>(m.data_type), static_cast<int>(m.swizzle),
                 static_cast<int>(m.interleave), counts.oob > 0});
    // A prepared map (checked and planned once) loads the same bytes with the same report.
    auto prepared = PreparedTileMap::prepare(m);
    ASSERT_TRUE(prepared.ok()) << prepared.error().message;
    const SmemTarget again_dst{&again, offset};
    auto rep2 = load_tile(*prepared, k.coords, global, {&again_dst, 1});
    ASSERT_TRUE(rep2.ok()) << rep2.error().message;
    ASSERT_TRUE(std::equal(want[0].begin(), want[0].end(), again.bytes().begin())) << describe(k);
    EXPECT_EQ(rep2->global_requests, rep->global_requests);
    EXPECT_EQ(rep2->elements, rep->elements);
    EXPECT_EQ(rep2->oob_elements, rep->oob_elements);
    // The timing-only form reports what the load did (against the naive reference too) and
    // moves no byte: a fresh window stays zero.
    mem::SharedMemory untouched(window);
    std::vector<SmemTarget> dry(targets, SmemTarget{&untouched, offset});
    auto rep3 = load_tile_requests(*prepared, k.coords, dry);
    ASSERT_TRUE(rep3.ok()) << rep3.error().message;
    EXPECT_EQ(rep3->global_requests, ref::tile_requests(m, k.coords)) << describe(k);
    EXPECT_EQ(rep3->bytes_per_destination, box_bytes(m));
    EXPECT_EQ(rep3->destinations, targets);
    EXPECT_EQ(rep3->elements, counts.elements) << describe(k);
    EXPECT_EQ(rep3->oob_elements, counts.oob) << describe(k);
    EXPECT_TRUE(std::all_of(untouched.bytes().begin(), untouched.bytes().end(),
                            [](std::byte b) { return b == std::byte{0}; }));
    // Prefetch walks the same box: same requests, nothing else.
    auto pre = prefetch_tile(m, k.coords);
    ASSERT_TRUE(pre.ok());
    EXPECT_EQ(pre->global_requests, rep->global_requests);
    EXPECT_EQ(pre->destinations, 0u);
  }
  // The sweep reached every type, every swizzle and both interleaved layouts, in and out of
  // bounds.
  std::set<int> types, swizzles, interleaves;
  for (const auto& [t, s, i, oob] : seen)
    types.insert(t), swizzles.insert(s), interleaves.insert(i);
  EXPECT_EQ(types.size(), 16u);
  EXPECT_EQ(swizzles.size(), 7u);
  EXPECT_EQ(interleaves.size(), 3u);
}

TEST(TileStore, MatchesNaiveReferenceOnRandomDescriptors) {
  auto rng = sim::Rng::for_stream(7, "tma.tile_store");
  for (int n = 0; n < 1500; ++n) {
    const Case k = random_case(rng, true);
    const TensorMap& m = k.map;
    const std::uint64_t seed = rng.next_u64();
    mem::GlobalMemory engine_global, ref_global;
    fill_random(engine_global, m.global_address - 64, k.region + 128, seed);
    fill_random(ref_global, m.global_address - 64, k.region + 128, seed);
    const std::uint64_t bytes = box_footprint(m);
    const std::uint32_t align = std::max<std::uint32_t>(128, swizzle_alignment(m.swizzle));
    const auto offset = static_cast<std::uint32_t>(align * pick(rng, 0, 2));
    const auto window = static_cast<std::uint32_t>(offset + (bytes + 127) / 128 * 128 + 128);
    mem::SharedMemory smem(window);
    const auto init = random_bytes(rng, window);
    std::memcpy(smem.bytes().data(), init.data(), window);
    auto rep = store_tile(m, k.coords, smem, offset, engine_global);
    ASSERT_TRUE(rep.ok()) << describe(k) << ": " << rep.error().message;
    const ref::Counts counts = ref::store_tile(m, k.coords, init, offset, ref_global);
    ASSERT_EQ(read_global(engine_global, m.global_address - 64, k.region + 128),
              read_global(ref_global, m.global_address - 64, k.region + 128))
        << "case " << n << ": " << describe(k);
    ASSERT_EQ(rep->global_requests, ref::tile_requests(m, k.coords)) << describe(k);
    EXPECT_EQ(rep->elements, counts.elements);
    EXPECT_EQ(rep->oob_elements, counts.oob);
    EXPECT_EQ(rep->destinations, 0u);
    EXPECT_TRUE(std::equal(init.begin(), init.end(), smem.bytes().begin()));  // source intact
  }
}

// ---- directed cases ----------------------------------------------------------------------------

// A rank-4 NHWC fp16 tensor whose elements hold their linear index c + C (w + W (h + H n)).
TensorMap nhwc_f16(mem::GlobalMemory& g, std::uint64_t c, std::uint64_t w, std::uint64_t h,
                   std::uint64_t n) {
  TensorMap m;
  m.data_type = DataType::kFloat16;
  m.rank = 4;
  m.global_address = 0x40000;
  m.global_dim = {c, w, h, n, 0};
  m.global_strides = {c * 2, c * 2 * w, c * 2 * w * h, 0};
  m.element_strides = {1, 1, 1, 1, 1};
  for (std::uint64_t i = 0; i < c * w * h * n; ++i) {
    const auto bits = static_cast<std::uint16_t>(i);
    EXPECT_TRUE(g.write(m.global_address + 2 * i, std::as_bytes(std::span(&bits, 1))).ok());
  }
  return m;
}

std::uint16_t u16_at(const mem::SharedMemory& s, std::uint32_t off) {
  std::uint16_t v;
  std::memcpy(&v, s.bytes().data() + off, 2);
  return v;
}

TEST(TileLoad, HaloBoxOfFig8dFillsTheBorder) {
  // seed0 Fig. 8d: box {8 C, 10 W, 10 H, 1 N} at (0, -1, -1, 0) over NHWC 8 x 14 x 8 x 2.
  mem::GlobalMemory g;
  TensorMap m = nhwc_f16(g, 8, 14, 8, 2);
  m.box_dim = {8, 10, 10, 1, 0};
  mem::SharedMemory s(4096);
  const std::array<std::int32_t, 4> at = {0, -1, -1, 0};
  for (OobFill fill : {OobFill::kNone, OobFill::kNanRequestZeroFma}) {
    m.oob_fill = fill;
    const std::array<SmemTarget, 1> dst = {{{&s, 0}}};
    auto rep = load_tile(m, at, g, dst);
    ASSERT_TRUE(rep.ok()) << rep.error().message;
    EXPECT_EQ(rep->bytes_per_destination, 8u * 10 * 10 * 2);
    EXPECT_EQ(rep->oob_elements, (100u - 9 * 8) * 8);  // w in [0, 8], h in [0, 7] are inside
    const std::uint16_t pad = fill == OobFill::kNone ? 0 : 0x7FF7;  // the silicon's NaN
    for (std::uint32_t h = 0; h < 10; ++h) {
      for (std::uint32_t w = 0; w < 10; ++w) {
        const std::uint32_t off = ((h * 10 + w) * 8 + 3) * 2;  // channel 3
        const bool inside = w >= 1 && h >= 1 && h <= 8;
        EXPECT_EQ(u16_at(s, off), inside ? 3 + 8 * ((w - 1) + 14 * (h - 1)) : pad)
            << "w " << w << " h " << h;
      }
    }
  }
}

TEST(TileLoad, ElementStridesPickEveryKthRowAndColumn) {
  mem::GlobalMemory g;
  TensorMap m = nhwc_f16(g, 8, 14, 8, 1);
  m.box_dim = {8, 9, 4, 1, 0};
  m.element_strides = {2, 2, 3, 1, 1};  // dim-0 stride ignored: no interleave (cuda.h)
  mem::SharedMemory s(2048);
  const std::array<SmemTarget, 1> dst = {{{&s, 0}}};
  const std::array<std::int32_t, 4> at = {0, 1, 0, 0};
  auto rep = load_tile(m, at, g, dst);
  ASSERT_TRUE(rep.ok()) << rep.error().message;
  // ceil(9/2) = 5 columns w = 1,3,5,7,9 and ceil(4/3) = 2 rows h = 0,3; all 8 channels each.
  EXPECT_EQ(rep->bytes_per_destination, 8u * 5 * 2 * 2);
  for (std::uint32_t h = 0; h < 2; ++h) {
    for (std::uint32_t w = 0; w < 5; ++w) {
      for (std::uint32_t c = 0; c < 8; ++c) {
        EXPECT_EQ(u16_at(s, ((h * 5 + w) * 8 + c) * 2), c + 8 * ((1 + 2 * w) + 14 * (3 * h)));
      }
    }
  }
}

TEST(TileLoad, Swizzle128BSpreadsAColumnChunkOverEightBankGroups) {
  // seed0 ¶146-¶149: eight 128 B rows; the 16 B chunk holding channels 0-7 of each row.
  mem::GlobalMemory g;
  TensorMap m = nhwc_f16(g, 64, 8, 1, 1);  // 8 pixels x 64 channels x 2 B = 8 rows of 128 B
  m.box_dim = {64, 8, 1, 1, 0};
  for (Swizzle mode : {Swizzle::kNone, Swizzle::k128B}) {
    m.swizzle = mode;
    mem::SharedMemory s(1024);
    const std::array<SmemTarget, 1> dst = {{{&s, 0}}};
    const std::array<std::int32_t, 4> at = {0, 0, 0, 0};
    ASSERT_TRUE(load_tile(m, at, g, dst).ok());
    std::set<std::uint32_t> groups;
    for (std::uint32_t row = 0; row < 8; ++row) {
      for (std::uint32_t off = 0; off < 1024; off += 16) {
        if (u16_at(s, off) != 64 * row) continue;  // channel 0 of pixel `row`
        EXPECT_EQ(off / 128, row);                 // the row stays in its 128 B line
        groups.insert(off % 128 / 16);             // 16 B = 4-bank group
      }
    }
    EXPECT_EQ(groups.size(), mode == Swizzle::kNone ? 1u : 8u);
  }
}

TEST(TileLoad, RequestsCoalesceEachInBoundsRunAndSplitAtLines) {
  mem::GlobalMemory g;
  TensorMap m;
  m.data_type = DataType::kUint16;
  m.rank = 2;
  m.global_address = 0x10000;
  m.global_dim = {100, 3, 0, 0, 0};
  m.global_strides = {256, 0, 0, 0};
  m.box_dim = {64, 4, 0, 0, 0};
  m.element_strides = {1, 1, 1, 1, 1};
  mem::SharedMemory s(1024);
  const std::array<SmemTarget, 1> dst = {{{&s, 0}}};
  const std::array<std::int32_t, 2> at = {40, 1};
  auto rep = load_tile(m, at, g, dst);
  ASSERT_TRUE(rep.ok());
  // Rows 1 and 2 are inside; elements 40..99 = bytes 80..199 of each row; row 3 is outside.
  const std::vector<GlobalRequest> want = {{0x10000 + 256 + 80, 48},
                                           {0x10000 + 256 + 128, 72},
                                           {0x10000 + 512 + 80, 48},
                                           {0x10000 + 512 + 128, 72}};
  EXPECT_EQ(rep->global_requests, want);
  EXPECT_EQ(rep->oob_elements, 2u * 4 + 2 * 64);  // rows 3 and 4 are outside
}

TEST(TileLoad, MulticastWritesIdenticalBoxesAndReadsGlobalOnce) {
  mem::GlobalMemory g;
  TensorMap m = nhwc_f16(g, 64, 10, 10, 1);
  m.box_dim = {64, 8, 4, 1, 0};
  m.swizzle = Swizzle::k128B;
  std::vector<mem::SharedMemory> cluster_smem;
  for (int i = 0; i < 4; ++i)
    cluster_smem.emplace_back(8192);
  std::vector<mem::SharedMemory*> cluster;
  for (auto& s : cluster_smem)
    cluster.push_back(&s);
  auto targets = multicast_targets(cluster, 0b1101, 1024);
  ASSERT_TRUE(targets.ok());
  const std::array<std::int32_t, 4> at = {0, 3, -1, 0};
  auto rep = load_tile(m, at, g, *targets);
  ASSERT_TRUE(rep.ok()) << rep.error().message;
  EXPECT_EQ(rep->destinations, 3u);
  EXPECT_EQ(rep->bytes_per_destination, 64u * 8 * 4 * 2);
  mem::SharedMemory single(8192);
  const std::array<SmemTarget, 1> one = {{{&single, 1024}}};
  auto solo = load_tile(m, at, g, one);
  ASSERT_TRUE(solo.ok());
  EXPECT_EQ(rep->global_requests, solo->global_requests);  // one request list, not three
  for (int i : {0, 2, 3}) {
    EXPECT_TRUE(
        std::equal(single.bytes().begin(), single.bytes().end(), cluster_smem[i].bytes().begin()))
        << "CTA " << i;
  }
  EXPECT_TRUE(std::all_of(cluster_smem[1].bytes().begin(), cluster_smem[1].bytes().end(),
                          [](std::byte b) { return b == std::byte{0}; }));
}

TEST(TileLoad, BadRequestsAreNamedErrorsAndWriteNothing) {
  mem::GlobalMemory g;
  TensorMap m = nhwc_f16(g, 64, 10, 10, 1);
  m.box_dim = {64, 8, 2, 1, 0};
  m.swizzle = Swizzle::k128B;
  mem::SharedMemory ok_smem(8192), small(1024);  // the box is 2048 B
  const std::array<std::int32_t, 4> at = {0, 0, 0, 0};
  const auto untouched = [](const mem::SharedMemory& s) {
    return std::all_of(s.bytes().begin(), s.bytes().end(),
                       [](std::byte b) { return b == std::byte{0}; });
  };
  const auto error_of = [&](const TensorMap& map, std::span<const std::int32_t> c,
                            std::span<const SmemTarget> dst) {
    auto r = load_tile(map, c, g, dst);
    EXPECT_FALSE(r.ok());
    return r.ok() ? std::string() : r.error().message;
  };
  // Multicast where one destination is too small: no destination is written.
  const std::array<SmemTarget, 2> two = {{{&ok_smem, 0}, {&small, 0}}};
  EXPECT_NE(error_of(m, at, two).find("destination 1"), std::string::npos);
  EXPECT_TRUE(untouched(ok_smem) && untouched(small));
  // Alignment: 128 B for every box, swizzled or not (H200 silicon loads a SWIZZLE_128B box
  // at 512 B); the first byte along dimension 0 on 16 B (else Hopper faults).
  const std::array<SmemTarget, 1> at64 = {{{&ok_smem, 64}}};
  EXPECT_NE(error_of(m, at, at64).find("0x40 is not 128-byte aligned"), std::string::npos);
  const std::array<std::int32_t, 4> at4 = {4, 0, 0, 0};
  const std::array<SmemTarget, 1> at512 = {{{&ok_smem, 512}}};
  EXPECT_NE(error_of(m, at4, at512).find("coordinate 0 = 4 puts the box's first byte at 4 x 2 B"),
            std::string::npos);
  EXPECT_TRUE(untouched(ok_smem) && untouched(small));
  EXPECT_TRUE(load_tile(m, at, g, at512).ok());
  std::fill(ok_smem.bytes().begin(), ok_smem.bytes().end(), std::byte{0});
  m.swizzle = Swizzle::kNone;
  // Coordinates: one per dimension.
  const std::array<SmemTarget, 1> at0 = {{{&ok_smem, 0}}};
  const std::array<std::int32_t, 3> three = {0, 0, 0};
  EXPECT_NE(error_of(m, three, at0).find("3 coordinates given for a rank-4"), std::string::npos);
  // Descriptor fields the walk relies on.
  TensorMap bad = m;
  bad.box_dim[1] = 300;
  EXPECT_NE(error_of(bad, at, at0).find("box_dim[1] = 300"), std::string::npos);
  bad = m;
  bad.mode = Mode::kIm2col;
  EXPECT_NE(error_of(bad, at, at0).find("im2col"), std::string::npos);
  bad = m;
  bad.global_address = ~std::uint64_t{0} - 1023;  // the box reaches 2304 B
  EXPECT_NE(error_of(bad, at, at0).find("64-bit address space"), std::string::npos);
  // Several problems are reported together.
  const std::array<SmemTarget, 1> both = {{{&small, 64}}};
  auto r = load_tile(m, at, g, both);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.errors().size(), 2u);
  EXPECT_TRUE(untouched(ok_smem) && untouched(small));
}

TEST(TileLoad, PreparedMapsRejectBadMapsOnceAndBadCoordinatesPerRequest) {
  mem::GlobalMemory g;
  TensorMap m = nhwc_f16(g, 64, 10, 10, 1);
  m.box_dim = {64, 8, 2, 1, 0};
  TensorMap bad = m;
  bad.box_dim[1] = 300;
  auto rejected = PreparedTileMap::prepare(bad);
  ASSERT_FALSE(rejected.ok());
  EXPECT_NE(rejected.error().message.find("prepare_tile_map: box_dim[1] = 300"), std::string::npos)
      << rejected.error().message;
  auto prepared = PreparedTileMap::prepare(m);
  ASSERT_TRUE(prepared.ok());
  mem::SharedMemory smem(8192);
  const SmemTarget dst{&smem, 0};
  const std::array<std::int32_t, 3> three = {0, 0, 0};
  auto r = load_tile(*prepared, three, g, {&dst, 1});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("load_tile: 3 coordinates given for a rank-4"),
            std::string::npos)
      << r.error().message;
  // The timing-only form names the same errors: coordinates, then the destinations.
  auto dry = load_tile_requests(*prepared, three, {&dst, 1});
  ASSERT_FALSE(dry.ok());
  EXPECT_EQ(dry.error().message, r.error().message);
  mem::SharedMemory small(1024);  // the box is 2048 B
  const std::array<std::int32_t, 4> at = {0, 0, 0, 0};
  const std::array<SmemTarget, 2> two = {{{&smem, 0}, {&small, 0}}};
  auto wet = load_tile(*prepared, at, g, two);
  dry = load_tile_requests(*prepared, at, two);
  ASSERT_FALSE(wet.ok());
  ASSERT_FALSE(dry.ok());
  EXPECT_EQ(dry.error().message, wet.error().message);
  EXPECT_NE(dry.error().message.find("destination 1"), std::string::npos) << dry.error().message;
  EXPECT_FALSE(load_tile_requests(*prepared, at, {}).ok());  // no destination
}

TEST(TileLoad, PackedTypesMoveWholeSixteenValueGroups) {
  mem::GlobalMemory g;
  TensorMap m;
  m.data_type = DataType::k16U6Align16B;
  m.rank = 2;
  m.global_address = 0x8000;
  m.global_dim = {128, 2, 0, 0, 0};
  m.global_strides = {96, 0, 0, 0};  // 128 U6 values = 96 B
  m.box_dim = {128, 2, 0, 0, 0};
  m.element_strides = {1, 1, 1, 1, 1};
  std::vector<std::byte> data(192);
  for (std::size_t i = 0; i < data.size(); ++i)
    data[i] = static_cast<std::byte>(i + 1);
  ASSERT_TRUE(g.write(m.global_address, data).ok());
  mem::SharedMemory s(512);
  std::fill(s.bytes().begin(), s.bytes().end(), std::byte{0xEE});
  const std::array<SmemTarget, 1> dst = {{{&s, 0}}};
  const std::array<std::int32_t, 2> at = {64, 0};  // groups 4..7 inside, 8..11 outside
  auto rep = load_tile(m, at, g, dst);
  ASSERT_TRUE(rep.ok()) << rep.error().message;
  EXPECT_EQ(rep->bytes_per_destination, 256u);
  for (std::uint32_t row = 0; row < 2; ++row) {
    for (std::uint32_t grp = 0; grp < 8; ++grp) {
      for (std::uint32_t b = 0; b < 16; ++b) {
        const std::byte want =
            grp < 4 && b < 12 ? data[row * 96 + (4 + grp) * 12 + b] : std::byte{0};
        EXPECT_EQ(s.bytes()[row * 128 + grp * 16 + b], want) << row << " " << grp << " " << b;
      }
    }
  }
  // A dim-0 coordinate inside a group is refused.
  const std::array<std::int32_t, 2> mid = {8, 0};
  auto bad = load_tile(m, mid, g, dst);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("multiple of 16"), std::string::npos);
}

TEST(TileStore, RoundTripThroughSharedMemoryRestoresTheTensor) {
  mem::GlobalMemory src;
  TensorMap m = nhwc_f16(src, 64, 12, 6, 2);
  m.box_dim = {64, 8, 4, 2, 0};
  m.swizzle = Swizzle::k128B;
  const std::array<std::int32_t, 4> at = {0, 4, 2, 0};
  mem::SharedMemory s(16384);
  const std::array<SmemTarget, 1> dst = {{{&s, 0}}};
  ASSERT_TRUE(load_tile(m, at, src, dst).ok());
  mem::GlobalMemory copy;
  auto rep = store_tile(m, at, s, 0, copy);
  ASSERT_TRUE(rep.ok()) << rep.error().message;
  EXPECT_EQ(rep->oob_elements, 0u);
  for (std::uint64_t n = 0; n < 2; ++n) {
    for (std::uint64_t h = 2; h < 6; ++h) {
      for (std::uint64_t w = 4; w < 12; ++w) {
        const mem::Addr a = m.global_address + n * m.global_strides[2] + h * m.global_strides[1] +
                            w * m.global_strides[0];
        EXPECT_EQ(read_global(copy, a, 128), read_global(src, a, 128));
      }
    }
  }
}

TEST(TileStore, OutOfBoundsElementsAreNotWritten) {
  TensorMap m;
  m.data_type = DataType::kUint32;
  m.rank = 2;
  m.global_address = 0x20000;
  m.global_dim = {10, 5, 0, 0, 0};
  m.global_strides = {64, 0, 0, 0};  // 40 B of data + 24 B padding per row
  m.box_dim = {8, 4, 0, 0, 0};
  m.element_strides = {1, 1, 1, 1, 1};
  mem::GlobalMemory g;
  ASSERT_TRUE(g.fill(m.global_address - 256, 1024, std::byte{0xAB}).ok());
  mem::SharedMemory s(256);
  std::fill(s.bytes().begin(), s.bytes().end(), std::byte{0x11});
  const std::array<std::int32_t, 2> at = {6, 3};  // columns 6..13 (10.. outside), rows 3..6
  auto rep = store_tile(m, at, s, 0, g);
  ASSERT_TRUE(rep.ok()) << rep.error().message;
  EXPECT_EQ(rep->oob_elements, 32u - 2 * 4);
  const auto all = read_global(g, m.global_address - 256, 1024);
  for (std::uint64_t i = 0; i < all.size(); ++i) {
    const std::int64_t rel = static_cast<std::int64_t>(i) - 256;
    const bool written =
        rel >= 0 && rel / 64 >= 3 && rel / 64 <= 4 && rel % 64 >= 24 && rel % 64 < 40;
    EXPECT_EQ(all[i], written ? std::byte{0x11} : std::byte{0xAB}) << "byte " << rel;
  }
}

TEST(TileStore, DirectionRulesAreErrors) {
  TensorMap m;
  m.data_type = DataType::kUint8;
  m.rank = 1;
  m.global_address = 0x1000;
  m.global_dim = {128, 0, 0, 0, 0};
  m.box_dim = {128, 0, 0, 0, 0};
  m.element_strides = {1, 1, 1, 1, 1};
  m.swizzle = Swizzle::k128BAtom32BFlip8B;
  mem::GlobalMemory g;
  mem::SharedMemory s(1024);
  const std::array<std::int32_t, 1> at = {0};
  auto flip = store_tile(m, at, s, 0, g);
  ASSERT_FALSE(flip.ok());
  EXPECT_NE(flip.error().message.find("FLIP_8B is legal only for loads"), std::string::npos);
  m.swizzle = Swizzle::kNone;
  m.data_type = DataType::k16U4Align16B;
  auto u4 = store_tile(m, at, s, 0, g);
  ASSERT_FALSE(u4.ok());
  EXPECT_NE(u4.error().message.find("load-only"), std::string::npos);
  EXPECT_EQ(g.pages_allocated(), 0u);
}

}  // namespace
}  // namespace xpusim::tma
