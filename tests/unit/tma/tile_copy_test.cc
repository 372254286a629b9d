// Tile-mode loads, stores and prefetches against a naive reference, and the shared helpers.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <set>
#include <vector>

#include <fmt/format.h>
#include "reference_gather.h"
#include "sim/rng.h"
#include "tma/copy_engine.h"
#include "tma/swizzle.h"

// The unit's CMake compiles only *_test.cc files; the naive reference is compiled here, once.
#include "reference_gather.cc"  // NOLINT(bugprone-suspicious-include)

namespace xpusim::tma {
namespace {

TEST(CopyHelpers, LineRequestsSplitAt128ByteBoundaries) {
  std::vector<GlobalRequest> r;
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

TEST(CopyHelpers, OobFillPatternIsZeroOrCanonicalNan) {
  TensorMap m;
  m.data_type = DataType::kFloat16;
  EXPECT_EQ(oob_fill_pattern(m), std::vector<std::byte>(2, std::byte{0}));
  m.oob_fill = OobFill::kNanRequestZeroFma;
  EXPECT_EQ(oob_fill_pattern(m), (std::vector<std::byte>{std::byte{0xFF}, std::byte{0x7F}}));
  m.data_type = DataType::kBfloat16;
  EXPECT_EQ(oob_fill_pattern(m), (std::vector<std::byte>{std::byte{0xFF}, std::byte{0x7F}}));
  for (DataType t :
       {DataType::kFloat32, DataType::kFloat32Ftz, DataType::kTfloat32, DataType::kTfloat32Ftz}) {
    m.data_type = t;
    EXPECT_EQ(oob_fill_pattern(m), (std::vector<std::byte>{std::byte{0xFF}, std::byte{0xFF},
                                                           std::byte{0xFF}, std::byte{0x7F}}));
  }
  m.data_type = DataType::kFloat64;
  std::vector<std::byte> f64(8, std::byte{0xFF});
  f64[7] = std::byte{0x7F};
  EXPECT_EQ(oob_fill_pattern(m), f64);
  m.data_type = DataType::kInt32;  // not a float: zeros whatever the fill mode
  EXPECT_EQ(oob_fill_pattern(m), std::vector<std::byte>(4, std::byte{0}));
  m.data_type = DataType::kUint64;
  m.oob_fill = OobFill::kNone;
  EXPECT_EQ(oob_fill_pattern(m), std::vector<std::byte>(8, std::byte{0}));
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
  m.interleave = Interleave::k16B;  // now honoured: ceil(64/4) = 16
  EXPECT_EQ(box_bytes(m), 16u * 2 * 5 * 3);
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
  const std::uint64_t row = (m.global_dim[0] * bits + 7) / 8;
  k.region = row;
  if (m.rank > 1) {
    m.global_strides[0] = (row + align - 1) / align * align + align * pick(rng, 0, 2);
    for (std::uint32_t d = 1; d + 1 < m.rank; ++d) {
      m.global_strides[d] = m.global_strides[d - 1] * (m.global_dim[d] + pick(rng, 0, 1));
    }
    k.region = m.global_strides[m.rank - 2] * m.global_dim[m.rank - 1];
  }
  m.global_address = 0x100000 * pick(rng, 1, 64) + align * pick(rng, 0, 63);
  if (is_float(m.data_type) && rng.uniform(2)) m.oob_fill = OobFill::kNanRequestZeroFma;

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
    const std::uint64_t bytes = box_bytes(m);
    const std::uint32_t align = std::max<std::uint32_t>(128, swizzle_alignment(m.swizzle));
    const auto offset = static_cast<std::uint32_t>(align * pick(rng, 0, 2));
    const auto window = static_cast<std::uint32_t>(offset + (bytes + 127) / 128 * 128 + 256);
    const std::size_t targets = rng.uniform(5) == 0 ? pick(rng, 2, 3) : 1;
    std::vector<mem::SharedMemory> smem;
    std::vector<std::vector<std::byte>> want;
    std::vector<SmemTarget> dst;
    smem.reserve(targets);
    ref::Counts counts;
    for (std::size_t t = 0; t < targets; ++t) {
      smem.emplace_back(window);
      const auto init = random_bytes(rng, window);
      std::memcpy(smem.back().bytes().data(), init.data(), window);
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
    EXPECT_EQ(rep->bytes_per_destination, bytes);
    EXPECT_EQ(rep->destinations, targets);
    EXPECT_EQ(rep->elements, counts.elements) << describe(k);
    EXPECT_EQ(rep->oob_elements, counts.oob) << describe(k);
    seen.insert({static_cast<int>(m.data_type), static_cast<int>(m.swizzle),
                 static_cast<int>(m.interleave), counts.oob > 0});
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
    const std::uint64_t bytes = box_bytes(m);
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

}  // namespace
}  // namespace xpusim::tma
