// im2col-mode loads (seed0 ¶111-¶137, PTX ISA "im2col mode"): the patent's worked figures
// decoded pixel by pixel, the wraps, partial channels, swizzle, OOB fill, every bad request,
// and a random cross-check against a naive reference written here.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

#include "sim/rng.h"
#include "tma/copy_engine.h"
#include "tma/im2col_walk.h"
#include "tma/swizzle.h"

namespace xpusim::tma {
namespace {

constexpr mem::Addr kBase = 0x100000;
constexpr std::byte kSentinel{0xA5};
constexpr std::byte kPadding{0xEE};  // global bytes between rows: must never be loaded

// ---- tensors ---------------------------------------------------------------------------------

// One element's coordinates; unused spatial dims are 0.
struct Coord {
  std::int64_t n = 0, d = 0, h = 0, w = 0, c = 0;
  friend bool operator==(const Coord&, const Coord&) = default;
};

std::uint32_t elem_bytes(const TensorMap& m) {
  return element_bits(m.data_type) / 8;
}

// A rank 3-5 im2col map over a dense NWC/NHWC/NDHWC tensor; `dims` in map order {C, W, (H,
// (D,)) N}; corners and strides per spatial dim (W, H, D).
TensorMap make_map(DataType type, std::vector<std::uint64_t> dims, std::vector<std::int32_t> lower,
                   std::vector<std::int32_t> upper, std::uint32_t channels, std::uint32_t pixels,
                   std::vector<std::uint32_t> strides = {}) {
  TensorMap m;
  m.mode = Mode::kIm2col;
  m.data_type = type;
  m.rank = static_cast<std::uint32_t>(dims.size());
  m.global_address = kBase;
  for (std::uint32_t i = 0; i < m.rank; ++i)
    m.global_dim[i] = dims[i];
  std::uint64_t pitch = (dims[0] * (element_bits(type) / 8) + 15) / 16 * 16;
  for (std::uint32_t i = 0; i + 1 < m.rank; ++i) {
    m.global_strides[i] = pitch;
    pitch *= dims[i + 1];
  }
  for (std::uint32_t i = 0; i < m.rank; ++i)
    m.element_strides[i] = 1;
  for (std::uint32_t s = 0; s < strides.size(); ++s)
    m.element_strides[s + 1] = strides[s];
  for (std::uint32_t s = 0; s < lower.size(); ++s)
    m.pixel_box_lower_corner[s] = lower[s];
  for (std::uint32_t s = 0; s < upper.size(); ++s)
    m.pixel_box_upper_corner[s] = upper[s];
  m.channels_per_pixel = channels;
  m.pixels_per_column = pixels;
  return m;
}

std::uint64_t dim_of(const TensorMap& m, char which) {
  const std::uint32_t spatial = m.rank - 2;
  switch (which) {
    case 'c':
      return m.global_dim[0];
    case 'w':
      return m.global_dim[1];
    case 'h':
      return spatial >= 2 ? m.global_dim[2] : 1;
    case 'd':
      return spatial >= 3 ? m.global_dim[3] : 1;
    default:
      return m.global_dim[m.rank - 1];
  }
}

// Byte offset of an element from global_address, written out independently of the engine.
std::uint64_t element_offset(const TensorMap& m, const Coord& x) {
  const std::uint32_t spatial = m.rank - 2;
  std::uint64_t off = static_cast<std::uint64_t>(x.c) * elem_bytes(m) +
                      static_cast<std::uint64_t>(x.w) * m.global_strides[0];
  if (spatial >= 2) off += static_cast<std::uint64_t>(x.h) * m.global_strides[1];
  if (spatial >= 3) off += static_cast<std::uint64_t>(x.d) * m.global_strides[2];
  return off + static_cast<std::uint64_t>(x.n) * m.global_strides[m.rank - 2];
}

bool in_tensor(const TensorMap& m, const Coord& x) {
  auto in = [](std::int64_t v, std::uint64_t dim) {
    return v >= 0 && static_cast<std::uint64_t>(v) < dim;
  };
  return in(x.c, dim_of(m, 'c')) && in(x.w, dim_of(m, 'w')) && in(x.h, dim_of(m, 'h')) &&
         in(x.d, dim_of(m, 'd')) && in(x.n, dim_of(m, 'n'));
}

// Decodable 32-bit element: bit 31 set, then n, d, h, w, c fields; 0 is reserved for OOB fill.
std::uint32_t encode(const Coord& x) {
  return 0x80000000u | static_cast<std::uint32_t>(x.n) << 24 |
         static_cast<std::uint32_t>(x.d) << 21 | static_cast<std::uint32_t>(x.h) << 16 |
         static_cast<std::uint32_t>(x.w) << 8 | static_cast<std::uint32_t>(x.c);
}

Coord decode(std::uint32_t v) {
  return {.n = v >> 24 & 0x7F,
          .d = v >> 21 & 0x7,
          .h = v >> 16 & 0x1F,
          .w = v >> 8 & 0xFF,
          .c = v & 0xFF};
}

// Byte k of element x for the byte-pattern tensors (any element size).
std::byte pattern_byte(const Coord& x, std::uint32_t k) {
  std::uint64_t z = static_cast<std::uint64_t>(x.n) * 0x9E3779B97F4A7C15ull ^
                    static_cast<std::uint64_t>(x.d) * 0xBF58476D1CE4E5B9ull ^
                    static_cast<std::uint64_t>(x.h) * 0x94D049BB133111EBull ^
                    static_cast<std::uint64_t>(x.w) * 0xD6E8FEB86659FD93ull ^
                    static_cast<std::uint64_t>(x.c) * 0xA0761D6478BD642Full ^ k;
  z ^= z >> 31;
  z *= 0xBF58476D1CE4E5B9ull;
  return std::byte(static_cast<std::uint8_t>(z >> 29));
}

using ElementFn = std::function<void(const Coord&, std::byte*)>;

// Writes the whole tensor (and 0xEE into every padding byte) to global memory.
void write_tensor(const TensorMap& m, mem::GlobalMemory& g, const ElementFn& f) {
  const std::uint64_t total = m.global_strides[m.rank - 2] * dim_of(m, 'n');
  std::vector<std::byte> host(total, kPadding);
  Coord x;
  for (x.n = 0; x.n < static_cast<std::int64_t>(dim_of(m, 'n')); ++x.n)
    for (x.d = 0; x.d < static_cast<std::int64_t>(dim_of(m, 'd')); ++x.d)
      for (x.h = 0; x.h < static_cast<std::int64_t>(dim_of(m, 'h')); ++x.h)
        for (x.w = 0; x.w < static_cast<std::int64_t>(dim_of(m, 'w')); ++x.w)
          for (x.c = 0; x.c < static_cast<std::int64_t>(dim_of(m, 'c')); ++x.c)
            f(x, host.data() + element_offset(m, x));
  ASSERT_TRUE(g.write(m.global_address, host).ok());
}

void write_encoded(const TensorMap& m, mem::GlobalMemory& g) {
  write_tensor(m, g, [](const Coord& x, std::byte* p) {
    const std::uint32_t v = encode(x);
    std::memcpy(p, &v, 4);
  });
}

void write_pattern(const TensorMap& m, mem::GlobalMemory& g) {
  const std::uint32_t e = elem_bytes(m);
  write_tensor(m, g, [e](const Coord& x, std::byte* p) {
    for (std::uint32_t k = 0; k < e; ++k)
      p[k] = pattern_byte(x, k);
  });
}

// ---- shared memory ---------------------------------------------------------------------------

std::unique_ptr<mem::SharedMemory> make_smem(std::uint32_t bytes) {
  auto s = std::make_unique<mem::SharedMemory>(bytes);
  std::fill(s->bytes().begin(), s->bytes().end(), kSentinel);
  return s;
}

bool untouched(const mem::SharedMemory& s) {
  return std::all_of(s.bytes().begin(), s.bytes().end(),
                     [](std::byte b) { return b == kSentinel; });
}

// The box as the engine meant it (undoing the swizzle): byte i of the logical box.
// Swizzle span of a mode, the H200's pitch of a swizzled box's pixels (one span each).
std::uint64_t pixel_pitch(Swizzle mode, std::uint64_t row_bytes) {
  const std::uint64_t span = swizzle_span_bytes(mode);
  return span == 0 ? row_bytes : (row_bytes + span - 1) / span * span;
}

// The box's data bytes, pixel after pixel (`row_bytes` each), unswizzled.
std::vector<std::byte> read_box(const mem::SharedMemory& s, std::uint32_t offset, Swizzle mode,
                                std::uint64_t bytes, std::uint64_t row_bytes) {
  std::vector<std::byte> out(bytes);
  const std::uint64_t pitch = pixel_pitch(mode, row_bytes);
  for (std::uint64_t i = 0; i < bytes; ++i) {
    const std::uint64_t at = i / row_bytes * pitch + i % row_bytes;
    out[i] = s.bytes()[swizzle_offset(mode, offset + static_cast<std::uint32_t>(at))];
  }
  return out;
}

// One loaded pixel of a decoded u32 box: either every channel is OOB-filled (`oob`) or the
// channels decode to consecutive C values of one (n, d, h, w) source pixel.
struct DecodedPixel {
  bool oob = false;
  Coord src;  // c = first channel
};

// Decodes each row of a u32 box into its source pixel; checks each row is one pixel's
// consecutive channels c0, c0+1, ... with OOB channels (c outside [0, C)) zero.
std::vector<DecodedPixel> decode_box(const TensorMap& m, const mem::SharedMemory& s,
                                     std::uint32_t offset, std::int64_t c0) {
  const std::vector<std::byte> box =
      read_box(s, offset, m.swizzle, std::uint64_t{m.channels_per_pixel} * m.pixels_per_column * 4,
               std::uint64_t{m.channels_per_pixel} * 4);
  std::vector<DecodedPixel> out;
  for (std::uint32_t p = 0; p < m.pixels_per_column; ++p) {
    DecodedPixel px;
    px.oob = true;
    for (std::uint32_t j = 0; j < m.channels_per_pixel; ++j) {
      std::uint32_t v;
      std::memcpy(&v, &box[(std::uint64_t{p} * m.channels_per_pixel + j) * 4], 4);
      const std::int64_t c = c0 + j;
      const bool c_in = c >= 0 && c < static_cast<std::int64_t>(m.global_dim[0]);
      if (v == 0) {
        EXPECT_TRUE(!c_in || px.oob)
            << "pixel " << p << " channel " << c << " zero in a loaded pixel";
        continue;
      }
      EXPECT_TRUE(c_in) << "pixel " << p << " channel " << c << " outside C was loaded";
      Coord x = decode(v);
      EXPECT_EQ(x.c, c) << "pixel " << p << " slot " << j;
      x.c = c0;
      if (px.oob) {
        px.oob = false;
        px.src = x;
      } else {
        EXPECT_EQ(x, px.src) << "pixel " << p << " mixes source pixels";
      }
    }
    if (px.oob) px.src = {};
    out.push_back(px);
  }
  return out;
}

// A figure's expected pixel: (n, h, w) of a 4D NHWC tensor.
struct NHW {
  std::int64_t n, h, w;
  friend bool operator==(const NHW&, const NHW&) = default;
  friend bool operator<(const NHW& a, const NHW& b) {
    return std::tie(a.n, a.h, a.w) < std::tie(b.n, b.h, b.w);
  }
};

std::ostream& operator<<(std::ostream& os, const NHW& p) {
  return os << "(n" << p.n << " h" << p.h << " w" << p.w << ")";
}

// Filter-base sequence of a figure written as the figure describes it: the start row from
// (h0, w0) to the row's end, then whole rows, across images.
std::vector<NHW> rows_from(std::int64_t n0, std::int64_t h0, std::int64_t w0,
                           std::vector<std::int64_t> cols, std::vector<std::int64_t> rows,
                           std::size_t count) {
  std::vector<NHW> out;
  bool first = true;
  for (std::int64_t n = n0; out.size() < count; ++n)
    for (std::int64_t h : rows) {
      if (first && h < h0) continue;
      for (std::int64_t w : cols) {
        if (first && w < w0) continue;
        first = false;
        if (out.size() < count) out.push_back({n, h, w});
      }
    }
  return out;
}

std::vector<std::int64_t> range(std::int64_t lo, std::int64_t hi, std::int64_t step = 1) {
  std::vector<std::int64_t> v;
  for (std::int64_t x = lo; x <= hi; x += step)
    v.push_back(x);
  return v;
}

// Loads with `offsets` and checks the box against `bases` + offsets: every in-tensor pixel
// carries its own channels, every other pixel is all fill. Returns the OOB pixels.
struct FigureRun {
  CopyReport report;
  std::vector<NHW> loaded;  // pixels after the offset, in shared-memory order
  std::vector<NHW> oob;
};

FigureRun run_figure(const TensorMap& m, const mem::GlobalMemory& g,
                     std::vector<std::int32_t> coords, std::vector<std::uint16_t> offsets,
                     const std::vector<NHW>& bases) {
  FigureRun run;
  auto smem = make_smem(64 * 1024);
  const SmemTarget t{.smem = smem.get(), .offset = 0};
  auto r = load_im2col(m, coords, offsets, g, std::span(&t, 1));
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  if (!r.ok()) return run;
  run.report = *r;
  const auto decoded = decode_box(m, *smem, 0, coords[0]);
  EXPECT_EQ(decoded.size(), bases.size());
  for (std::size_t p = 0; p < bases.size() && p < decoded.size(); ++p) {
    const NHW want{bases[p].n, bases[p].h + offsets[1], bases[p].w + offsets[0]};
    run.loaded.push_back(want);
    const Coord x{.n = want.n, .d = 0, .h = want.h, .w = want.w, .c = 0};
    const bool any_channel = coords[0] < static_cast<std::int64_t>(m.global_dim[0]) &&
                             coords[0] + static_cast<std::int64_t>(m.channels_per_pixel) > 0;
    if (in_tensor(m, x) && any_channel) {
      EXPECT_FALSE(decoded[p].oob) << "pixel " << p << " " << want << " should be loaded";
      EXPECT_EQ(decoded[p].src, (Coord{want.n, 0, want.h, want.w, coords[0]})) << "pixel " << p;
    } else {
      EXPECT_TRUE(decoded[p].oob) << "pixel " << p << " " << want << " should be OOB fill";
      run.oob.push_back(want);
    }
  }
  return run;
}

// ---- the patent's figures ---------------------------------------------------------------------
// The figures request channel 7; these tests request channel 8 instead: of u32 channels,
// Hopper loads only boxes whose channels start on 16 B (H200 silicon, tools/silicon).

// seed0 ¶125-¶126, Fig. 8b (= PTX im2col example 1): NHWC 64x14x9x64, 3x3 filter that may
// cross the border; corners -1; request (c, w, h, n) = (7, 7, 4, 0), offsets (0,0) (1,1) (2,2).
TEST(Im2colFigures, Fig8bFilterMayCrossTheBorder) {
  const TensorMap m = make_map(DataType::kUint32, {64, 9, 14, 64}, {-1, -1}, {-1, -1}, 8, 64);
  const auto box = im2col_bounding_box(m);
  EXPECT_EQ(box[0], (Im2colExtent{.lower = -1, .upper = 7, .stride = 1}));   // W: 9 - (-1) + (-1)
  EXPECT_EQ(box[1], (Im2colExtent{.lower = -1, .upper = 12, .stride = 1}));  // H: 14
  EXPECT_EQ(box[0].size(), 9);
  EXPECT_EQ(box[1].size(), 14);
  mem::GlobalMemory g;
  write_encoded(m, g);
  // The base walk: row h=4 from its last column w=7 (1 pixel), then rows 5..11 whole (63).
  const auto bases = rows_from(0, 4, 7, range(-1, 7), range(-1, 12), 64);
  ASSERT_EQ(bases.back(), (NHW{0, 11, 7}));
  std::map<int, std::vector<NHW>> expected_oob;
  for (std::int64_t h = 5; h <= 11; ++h)
    expected_oob[0].push_back({0, h, -1});  // left padding column
  expected_oob[2].push_back({0, 6, 9});     // right padding column, shifted by 2
  for (std::int64_t h = 7; h <= 13; ++h)
    expected_oob[2].push_back({0, h, 9});
  for (std::uint16_t o : {0, 1, 2}) {
    SCOPED_TRACE(testing::Message() << "offsets (" << o << "," << o << ")");
    const FigureRun run = run_figure(m, g, {8, 7, 4, 0}, {o, o}, bases);
    EXPECT_EQ(run.oob, expected_oob[o]);
    EXPECT_EQ(run.report.oob_elements, 8 * expected_oob[o].size());
    EXPECT_EQ(run.report.elements, 64u * 8);
    EXPECT_EQ(run.report.bytes_per_destination, 64u * 8 * 4);
    // Channels 8..15 of each in-bounds pixel: 32 B, one line request each (rows are 256 B).
    EXPECT_EQ(run.report.global_requests.size(), 64 - expected_oob[o].size());
  }
}

// seed0 ¶127, Fig. 8c (= PTX im2col example 2): the filter must stay inside the tensor;
// corners base (0,0), far (-2,-2). The box is W [0,6], H [0,11] (¶115: 9-0-2 = 7, 14-0-2 = 12).
// The figure's literal request (7,7,4,0) puts the filter base at w = 7, outside that box, which
// ¶118 forbids (with offset (2,2) it would read w = 9, past the tensor, in the very example that
// needs no padding): it is rejected, and the figure is reproduced from w = 6, the box's last
// column, as Fig. 8b starts from its box's last column.
TEST(Im2colFigures, Fig8cFilterStaysInside) {
  const TensorMap m = make_map(DataType::kUint32, {64, 9, 14, 64}, {0, 0}, {-2, -2}, 8, 64);
  const auto box = im2col_bounding_box(m);
  EXPECT_EQ(box[0], (Im2colExtent{.lower = 0, .upper = 6, .stride = 1}));
  EXPECT_EQ(box[1], (Im2colExtent{.lower = 0, .upper = 11, .stride = 1}));
  mem::GlobalMemory g;
  write_encoded(m, g);
  {
    auto smem = make_smem(4096);
    const SmemTarget t{.smem = smem.get(), .offset = 0};
    const std::array<std::int32_t, 4> literal{8, 7, 4, 0};
    const std::array<std::uint16_t, 2> off{0, 0};
    auto r = load_im2col(m, literal, off, g, std::span(&t, 1));
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("filter base W = 7 is outside the bounding box [0, 6]"),
              std::string::npos)
        << r.error().message;
    EXPECT_TRUE(untouched(*smem));
  }
  // Row h=4 from w=6 (1), rows 5..11 (49), then image 1 rows 0..1 (14).
  const auto bases = rows_from(0, 4, 6, range(0, 6), range(0, 11), 64);
  ASSERT_EQ(bases[50], (NHW{1, 0, 0}));
  ASSERT_EQ(bases.back(), (NHW{1, 1, 6}));
  for (std::uint16_t o : {0, 1, 2}) {
    SCOPED_TRACE(testing::Message() << "offsets (" << o << "," << o << ")");
    const FigureRun run = run_figure(m, g, {8, 6, 4, 0}, {o, o}, bases);
    EXPECT_TRUE(run.oob.empty()) << "a filter inside the tensor needs no padding";
    EXPECT_EQ(run.report.oob_elements, 0u);
  }
}

// seed0 ¶132, Fig. 8f: traversal stride 2, 32 pixels x 16 channels, corners -1, request
// (7, 7, 5, 0). Columns -1,1,3,5,7 (ceil(9/2) = 5: the first and the last), rows -1,1,..,11
// (ceil(14/2) = 7: the top row, not the bottom row 12).
TEST(Im2colFigures, Fig8fTraversalStride2) {
  const TensorMap m =
      make_map(DataType::kUint32, {64, 9, 14, 64}, {-1, -1}, {-1, -1}, 16, 32, {2, 2});
  const auto box = im2col_bounding_box(m);
  EXPECT_EQ(box[0].positions(), 5);
  EXPECT_EQ(box[1].positions(), 7);
  mem::GlobalMemory g;
  write_encoded(m, g);
  const auto cols = range(-1, 7, 2);
  const auto rows = range(-1, 11, 2);
  ASSERT_EQ(cols, (std::vector<std::int64_t>{-1, 1, 3, 5, 7}));
  ASSERT_EQ(rows.back(), 11);
  // (h5, w7), rows 7, 9, 11, then image 1 rows -1, 1, 3 and the first column of row 5.
  const auto bases = rows_from(0, 5, 7, cols, rows, 32);
  ASSERT_EQ(bases[1], (NHW{0, 7, -1}));
  ASSERT_EQ(bases[16], (NHW{1, -1, -1}));
  ASSERT_EQ(bases.back(), (NHW{1, 5, -1}));
  for (std::uint16_t o : {0, 1, 2}) {
    SCOPED_TRACE(testing::Message() << "offsets (" << o << "," << o << ")");
    const FigureRun run = run_figure(m, g, {8, 7, 5, 0}, {o, o}, bases);
    EXPECT_EQ(run.loaded.size(), 32u) << "the count does not depend on the stride (¶131)";
  }
  // A whole image from the box corner visits exactly the 5 x 7 grid.
  TensorMap whole = m;
  whole.pixels_per_column = 35;
  const auto grid = rows_from(0, -1, -1, cols, rows, 35);
  const FigureRun run = run_figure(whole, g, {0, -1, -1, 0}, {0, 0}, grid);
  std::set<std::int64_t> seen_w, seen_h;
  for (const NHW& p : run.loaded) {
    EXPECT_EQ(p.n, 0);
    seen_w.insert(p.w);
    seen_h.insert(p.h);
  }
  EXPECT_EQ(seen_w, (std::set<std::int64_t>{-1, 1, 3, 5, 7}));  // first and last column
  EXPECT_TRUE(seen_h.count(-1));                                // top row
  EXPECT_FALSE(seen_h.count(12));                               // not the bottom row
}

// seed0 ¶133, Fig. 8g: Fig. 8f with W and H one smaller (NHWC 64x13x8x64). Columns -1,1,3,5
// (the last column 6 is skipped), rows -1,..,11 (the top and the bottom row). The box is
// W [-1,6], so the figure's w = 7 lies outside it: rejected (¶118) and reproduced from w = 5,
// the last column of the stride-2 grid.
TEST(Im2colFigures, Fig8gTraversalStride2SmallerTensor) {
  const TensorMap m =
      make_map(DataType::kUint32, {64, 8, 13, 64}, {-1, -1}, {-1, -1}, 16, 32, {2, 2});
  const auto box = im2col_bounding_box(m);
  EXPECT_EQ(box[0], (Im2colExtent{.lower = -1, .upper = 6, .stride = 2}));
  EXPECT_EQ(box[1], (Im2colExtent{.lower = -1, .upper = 11, .stride = 2}));
  EXPECT_EQ(box[0].positions(), 4);
  EXPECT_EQ(box[1].positions(), 7);
  mem::GlobalMemory g;
  write_encoded(m, g);
  {
    auto smem = make_smem(4096);
    const SmemTarget t{.smem = smem.get(), .offset = 0};
    const std::array<std::int32_t, 4> literal{8, 7, 5, 0};
    const std::array<std::uint16_t, 2> off{1, 1};
    auto r = load_im2col(m, literal, off, g, std::span(&t, 1));
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("outside the bounding box [-1, 6]"), std::string::npos);
    EXPECT_TRUE(untouched(*smem));
  }
  const auto cols = range(-1, 5, 2);
  const auto rows = range(-1, 11, 2);
  const auto bases = rows_from(0, 5, 5, cols, rows, 32);
  ASSERT_EQ(bases[13], (NHW{1, -1, -1}));
  for (std::uint16_t o : {0, 1, 2}) {
    SCOPED_TRACE(testing::Message() << "offsets (" << o << "," << o << ")");
    run_figure(m, g, {8, 5, 5, 0}, {o, o}, bases);
  }
  TensorMap whole = m;
  whole.pixels_per_column = 28;
  const FigureRun run =
      run_figure(whole, g, {0, -1, -1, 0}, {0, 0}, rows_from(0, -1, -1, cols, rows, 28));
  std::set<std::int64_t> seen_w, seen_h;
  for (const NHW& p : run.loaded) {
    seen_w.insert(p.w);
    seen_h.insert(p.h);
  }
  EXPECT_EQ(seen_w, (std::set<std::int64_t>{-1, 1, 3, 5}));  // not the last column 6
  EXPECT_TRUE(seen_h.count(-1) && seen_h.count(11));         // top and bottom rows
}

// seed0 ¶135-¶136, Fig. 8i/8j: dilation 2 needs no hardware of its own: corners -2 (= 3/2 x 2,
// ¶114) and offsets (0,0), (2,2), (4,4). Request (7, 6, 3, 0), 64 pixels x 16 channels.
TEST(Im2colFigures, Fig8jDilation2) {
  const TensorMap m = make_map(DataType::kUint32, {64, 9, 14, 64}, {-2, -2}, {-2, -2}, 16, 64);
  const TensorMap undilated =
      make_map(DataType::kUint32, {64, 9, 14, 64}, {-1, -1}, {-1, -1}, 16, 64);
  const auto box = im2col_bounding_box(m);
  EXPECT_EQ(box[0], (Im2colExtent{.lower = -2, .upper = 6, .stride = 1}));
  EXPECT_EQ(box[1], (Im2colExtent{.lower = -2, .upper = 11, .stride = 1}));
  // ¶135: dilation moves the box, it does not resize it.
  EXPECT_EQ(box[0].size(), im2col_bounding_box(undilated)[0].size());
  EXPECT_EQ(box[1].size(), im2col_bounding_box(undilated)[1].size());
  mem::GlobalMemory g;
  write_encoded(m, g);
  // Row 3 from its last column w=6, then rows 4..10 whole.
  const auto bases = rows_from(0, 3, 6, range(-2, 6), range(-2, 11), 64);
  ASSERT_EQ(bases.back(), (NHW{0, 10, 6}));
  for (std::uint16_t o : {0, 2, 4}) {
    SCOPED_TRACE(testing::Message() << "offsets (" << o << "," << o << ")");
    const FigureRun run = run_figure(m, g, {8, 6, 3, 0}, {o, o}, bases);
    std::size_t oob = 0;  // counted from the figure: pixels with w or h outside the tensor
    for (const NHW& b : bases)
      oob += (b.w + o < 0 || b.w + o >= 9 || b.h + o < 0 || b.h + o >= 14) ? 1 : 0;
    EXPECT_EQ(run.oob.size(), oob);
  }
  // Spot values: offsets (0,0) fill the 14 pixels at w = -2, -1; (4,4) fill 22.
  EXPECT_EQ(run_figure(m, g, {8, 6, 3, 0}, {0, 0}, bases).oob.size(), 14u);
  EXPECT_EQ(run_figure(m, g, {8, 6, 3, 0}, {4, 4}, bases).oob.size(), 22u);
}

// seed0 ¶130, Fig. 8e vs im2col: with the filter kept inside, one 8x8 tile at (0,0,0,0) of NHWC
// 64x14x8x64 serves a 3x3 filter position with only the 6x6 = 36 pixels whose output's whole
// window lies in the tile ("tile quantization"); an im2col request for the same filter
// position loads 64 pixels and all 64 are used. Both loads run on the engine.
TEST(Im2colFigures, Fig8eTileQuantization) {
  const std::uint64_t W = 8, H = 14;
  TensorMap tile = make_map(DataType::kUint32, {64, W, H, 64}, {0, 0}, {0, 0}, 8, 64);
  tile.mode = Mode::kTiled;
  tile.box_dim = {8, 8, 8, 1, 0};
  tile.pixel_box_lower_corner = {};
  tile.pixel_box_upper_corner = {};
  tile.channels_per_pixel = 0;
  tile.pixels_per_column = 0;
  mem::GlobalMemory g;
  write_encoded(tile, g);
  auto smem = make_smem(4096);
  const SmemTarget t{.smem = smem.get(), .offset = 0};
  auto r = load_tile(tile, std::array<std::int32_t, 4>{0, 0, 0, 0}, g, std::span(&t, 1));
  ASSERT_TRUE(r.ok()) << r.error().message;
  TensorMap as_column = make_map(DataType::kUint32, {64, W, H, 64}, {0, 0}, {0, 0}, 8, 64);
  std::set<NHW> in_tile;  // the 64 pixels of the tile, decoded from shared memory
  for (const DecodedPixel& px : decode_box(as_column, *smem, 0, 0)) {
    ASSERT_FALSE(px.oob);
    in_tile.insert({px.src.n, px.src.h, px.src.w});
  }
  ASSERT_EQ(in_tile.size(), 64u);
  // A tile pixel serves filter position (s, r) when it is tap (s, r) of an output whose whole
  // 3x3 window was loaded.
  auto window_loaded = [&](std::int64_t bw, std::int64_t bh) {
    for (std::int64_t j = 0; j < 3; ++j)
      for (std::int64_t i = 0; i < 3; ++i)
        if (!in_tile.count({0, bh + j, bw + i})) return false;
    return true;
  };
  for (std::int64_t s = 0; s < 3; ++s)
    for (std::int64_t rr = 0; rr < 3; ++rr) {
      int used = 0;
      for (const NHW& p : in_tile)
        used += window_loaded(p.w - s, p.h - rr) ? 1 : 0;
      EXPECT_EQ(used, 36) << "tile mode, filter position (" << s << "," << rr << ")";
    }
  // im2col: corners (0,0)/(-2,-2) keep every filter base's window inside the tensor; each
  // loaded pixel is tap (s, r) of a distinct valid output, so all 64 feed the GEMM.
  const TensorMap m = make_map(DataType::kUint32, {64, W, H, 64}, {0, 0}, {-2, -2}, 8, 64);
  for (std::uint16_t s = 0; s < 3; ++s) {
    for (std::uint16_t rr = 0; rr < 3; ++rr) {
      const auto bases = rows_from(0, 0, 0, range(0, 5), range(0, 11), 64);
      const FigureRun run = run_figure(m, g, {0, 0, 0, 0}, {s, rr}, bases);
      std::set<NHW> used;
      for (std::size_t p = 0; p < run.loaded.size(); ++p) {
        const NHW& b = bases[p];
        const bool window_inside = b.w >= 0 && b.w + 2 < static_cast<std::int64_t>(W) && b.h >= 0 &&
                                   b.h + 2 < static_cast<std::int64_t>(H);
        if (window_inside) used.insert(run.loaded[p]);
      }
      EXPECT_TRUE(run.oob.empty());
      EXPECT_EQ(used.size(), 64u) << "im2col, filter position (" << s << "," << rr << ")";
    }
  }
}

// ---- walk rules -------------------------------------------------------------------------------

TEST(Im2colWalk, WrapsWidthThenHeightThenImage) {
  // NHWC 2x3x4xC: from the last pixel of image 0's last row, the next is image 1's first.
  const TensorMap m = make_map(DataType::kUint32, {4, 4, 3, 2}, {0, 0}, {0, 0}, 4, 6);
  mem::GlobalMemory g;
  write_encoded(m, g);
  const auto bases =
      std::vector<NHW>{{0, 2, 2}, {0, 2, 3}, {1, 0, 0}, {1, 0, 1}, {1, 0, 2}, {1, 0, 3}};
  const FigureRun run = run_figure(m, g, {0, 2, 2, 0}, {0, 0}, bases);
  EXPECT_TRUE(run.oob.empty());
  // Past the last image the pixels are OOB (N coordinate 2 >= 2).
  const auto tail =
      std::vector<NHW>{{1, 2, 2}, {1, 2, 3}, {2, 0, 0}, {2, 0, 1}, {2, 0, 2}, {2, 0, 3}};
  const FigureRun past = run_figure(m, g, {0, 2, 2, 1}, {0, 0}, tail);
  EXPECT_EQ(past.oob.size(), 4u);
}

TEST(Im2colWalk, Rank3WrapsWidthIntoImage) {
  const TensorMap m = make_map(DataType::kUint32, {2, 5, 3}, {-1}, {1}, 2, 9, {3});
  auto w = walk_im2col(m, std::array<std::int32_t, 3>{0, 2, 0}, std::array<std::uint16_t, 1>{1});
  ASSERT_TRUE(w.ok()) << w.error().message;
  EXPECT_EQ(w->box[0], (Im2colExtent{.lower = -1, .upper = 5, .stride = 3}));
  // Bases 2, 5, then -1, 2, 5 in each next image (the grid restarts at the lower corner).
  std::vector<std::pair<std::int64_t, std::int64_t>> got;
  for (const Im2colPixel& p : w->pixels)
    got.emplace_back(p.n, p.whd[0]);
  const std::vector<std::pair<std::int64_t, std::int64_t>> want{
      {0, 3}, {0, 6}, {1, 0}, {1, 3}, {1, 6}, {2, 0}, {2, 3}, {2, 6}, {3, 0}};
  EXPECT_EQ(got, want);
}

TEST(Im2colWalk, Rank5WrapsWidthHeightDepthImage) {
  // NDHWC 2x2x2x2: 16 pixels from the first one cover image 0 then image 1 in W, H, D order.
  const TensorMap m = make_map(DataType::kUint32, {3, 2, 2, 2, 2}, {0, 0, 0}, {0, 0, 0}, 3, 16);
  mem::GlobalMemory g;
  write_encoded(m, g);
  auto smem = make_smem(4096);
  const SmemTarget t{.smem = smem.get(), .offset = 0};
  auto r = load_im2col(m, std::array<std::int32_t, 5>{0, 0, 0, 0, 0},
                       std::array<std::uint16_t, 3>{0, 0, 0}, g, std::span(&t, 1));
  ASSERT_TRUE(r.ok()) << r.error().message;
  const auto decoded = decode_box(m, *smem, 0, 0);
  for (std::int64_t p = 0; p < 16; ++p) {
    const Coord want{.n = p / 8, .d = p / 4 % 2, .h = p / 2 % 2, .w = p % 2, .c = 0};
    EXPECT_FALSE(decoded[p].oob);
    EXPECT_EQ(decoded[p].src, want) << "pixel " << p;
  }
}

TEST(Im2colWalk, OffStrideStartStepsFromTheStartThenRestartsAtTheCorner) {
  const TensorMap m = make_map(DataType::kUint32, {1, 10, 2}, {0}, {0}, 1, 6, {4});
  auto w = walk_im2col(m, std::array<std::int32_t, 3>{0, 3, 0}, std::array<std::uint16_t, 1>{0});
  ASSERT_TRUE(w.ok());
  std::vector<std::int64_t> ws;
  for (const Im2colPixel& p : w->pixels)
    ws.push_back(p.whd[0]);
  EXPECT_EQ(ws, (std::vector<std::int64_t>{3, 7, 0, 4, 8, 0}));
}

TEST(Im2colWalk, CountIndependentOfStrideTraversedPositionsAreCeilBoxOverStride) {
  for (std::uint32_t stride = 1; stride <= 8; ++stride) {
    const TensorMap m =
        make_map(DataType::kUint32, {4, 13, 11, 3}, {-2, -1}, {1, 0}, 4, 50, {stride, stride});
    auto w = walk_im2col(m, std::array<std::int32_t, 4>{0, -2, -1, 0},
                         std::array<std::uint16_t, 2>{0, 0});
    ASSERT_TRUE(w.ok());
    EXPECT_EQ(w->pixels.size(), 50u);
    const Im2colExtent wb = w->box[0], hb = w->box[1];
    EXPECT_EQ(wb.size(), 13 + 2 + 1);
    EXPECT_EQ(wb.positions(), (16 + stride - 1) / stride);
    std::set<std::int64_t> cols;
    for (const Im2colPixel& p : w->pixels)
      if (p.n == 0 && p.whd[1] == hb.lower) cols.insert(p.whd[0]);
    EXPECT_EQ(static_cast<std::int64_t>(cols.size()), std::min<std::int64_t>(wb.positions(), 50));
  }
}

TEST(Im2colCopy, PartialChannelsFromAnyChannelCoordinate) {
  // C = 10, 8 channels per pixel: runs from c = -4 (4 filled), 0 (none), 4 (2 filled), 8 (6
  // filled), 12 and -8 (all). Channel runs start on 16 B (4 x u32): Hopper faults otherwise.
  const TensorMap m = make_map(DataType::kUint32, {10, 3, 2, 1}, {0, 0}, {0, 0}, 8, 6);
  mem::GlobalMemory g;
  write_encoded(m, g);
  for (std::int32_t c0 : {-4, 0, 4, 8, 12, -8}) {
    SCOPED_TRACE(testing::Message() << "c0 " << c0);
    auto smem = make_smem(4096);
    const SmemTarget t{.smem = smem.get(), .offset = 0};
    auto r = load_im2col(m, std::array<std::int32_t, 4>{c0, 0, 0, 0},
                         std::array<std::uint16_t, 2>{0, 0}, g, std::span(&t, 1));
    ASSERT_TRUE(r.ok()) << r.error().message;
    const std::int64_t in = std::max<std::int64_t>(
        0, std::min<std::int64_t>(c0 + 8, 10) - std::max<std::int64_t>(c0, 0));
    EXPECT_EQ(r->oob_elements, 6 * (8 - in));
    std::uint64_t requested = 0;  // one run per in-bounds pixel (a run may straddle a line)
    for (const GlobalRequest& q : r->global_requests)
      requested += q.bytes;
    EXPECT_EQ(requested, static_cast<std::uint64_t>(6 * in * 4));
    EXPECT_GE(r->global_requests.size(), in > 0 ? 6u : 0u);
    const auto decoded = decode_box(m, *smem, 0, c0);
    for (std::size_t p = 0; p < decoded.size(); ++p) {
      EXPECT_EQ(decoded[p].oob, in == 0);
      if (in > 0) {
        EXPECT_EQ(decoded[p].src, (Coord{0, 0, static_cast<std::int64_t>(p) / 3,
                                         static_cast<std::int64_t>(p) % 3, c0}));
      }
    }
  }
}

// ---- shared-memory layout ---------------------------------------------------------------------

TEST(Im2colCopy, EverySwizzleKeepsThePixelSetOnlyPositionsMove) {
  // 32 channels x 4 B = 128 B per pixel: legal with every mode whose span is 128 B; 32B/64B
  // spans get 8 / 16 channels.
  const std::array<Swizzle, 7> modes{Swizzle::kNone,        Swizzle::k32B,
                                     Swizzle::k64B,         Swizzle::k128B,
                                     Swizzle::k128BAtom32B, Swizzle::k128BAtom32BFlip8B,
                                     Swizzle::k128BAtom64B};
  for (std::uint32_t channels : {8u, 16u, 32u}) {
    TensorMap plain = make_map(DataType::kUint32, {40, 7, 5, 2}, {-1, -1}, {-1, -1}, channels, 40);
    mem::GlobalMemory g;
    write_encoded(plain, g);
    const std::array<std::int32_t, 4> coords{4, 4, 2, 0};
    const std::array<std::uint16_t, 2> offsets{1, 2};
    auto ref_smem = make_smem(16 * 1024);
    const SmemTarget rt{.smem = ref_smem.get(), .offset = 2048};
    ASSERT_TRUE(load_im2col(plain, coords, offsets, g, std::span(&rt, 1)).ok());
    const std::uint64_t bytes = std::uint64_t{channels} * 40 * 4;
    const auto reference = read_box(*ref_smem, 2048, Swizzle::kNone, bytes, bytes);
    for (Swizzle mode : modes) {
      if (swizzle_span_bytes(mode) != 0 && channels * 4 > swizzle_span_bytes(mode)) continue;
      SCOPED_TRACE(testing::Message() << name(mode) << " " << channels << " channels");
      TensorMap m = plain;
      m.swizzle = mode;
      auto smem = make_smem(16 * 1024);
      const SmemTarget t{.smem = smem.get(), .offset = 2048};
      auto r = load_im2col(m, coords, offsets, g, std::span(&t, 1));
      ASSERT_TRUE(r.ok()) << r.error().message;
      const std::uint64_t row = channels * 4, pitch = pixel_pitch(mode, row);
      // Same pixels once unswizzled, each pixel starting its own swizzle span.
      EXPECT_EQ(read_box(*smem, 2048, mode, bytes, row), reference);
      if (mode != Swizzle::kNone && bytes >= 256) {
        EXPECT_NE(std::memcmp(&smem->bytes()[2048], &ref_smem->bytes()[2048], bytes), 0)
            << "positions move";
      }
      // Nothing outside the footprint, nor in the gaps after short pixels, is written.
      std::vector<bool> data(smem->size(), false);
      for (std::uint64_t i = 0; i < bytes; ++i)
        data[swizzle_offset(mode, static_cast<std::uint32_t>(2048 + i / row * pitch + i % row))] =
            true;
      for (std::uint32_t i = 0; i < smem->size(); ++i) {
        if (!data[i]) {
          ASSERT_EQ(smem->bytes()[i], kSentinel) << "byte " << i;
        }
      }
    }
  }
}

TEST(Im2colCopy, MulticastWritesEveryCtaAndReadsGlobalOnce) {
  const TensorMap m = make_map(DataType::kUint16, {24, 6, 6, 2}, {-1, -1}, {-1, -1}, 16, 20);
  mem::GlobalMemory g;
  write_pattern(m, g);
  auto a = make_smem(8192), b = make_smem(8192), c = make_smem(8192);
  std::array<mem::SharedMemory*, 3> cluster{a.get(), b.get(), c.get()};
  auto targets = multicast_targets(cluster, 0b101, 1024);
  ASSERT_TRUE(targets.ok());
  const std::array<std::int32_t, 4> coords{8, 3, 1, 0};
  const std::array<std::uint16_t, 2> offsets{2, 0};
  auto multi = load_im2col(m, coords, offsets, g, *targets);
  ASSERT_TRUE(multi.ok()) << multi.error().message;
  auto single_smem = make_smem(8192);
  const SmemTarget one{.smem = single_smem.get(), .offset = 1024};
  auto single = load_im2col(m, coords, offsets, g, std::span(&one, 1));
  ASSERT_TRUE(single.ok());
  EXPECT_EQ(multi->destinations, 2u);
  EXPECT_EQ(multi->bytes_per_destination, 16u * 20 * 2);
  EXPECT_EQ(multi->bytes_per_destination, box_bytes(m));
  EXPECT_EQ(multi->global_requests, single->global_requests);  // read once for all CTAs
  EXPECT_TRUE(std::equal(a->bytes().begin(), a->bytes().end(), single_smem->bytes().begin()));
  EXPECT_TRUE(std::equal(c->bytes().begin(), c->bytes().end(), single_smem->bytes().begin()));
  EXPECT_TRUE(untouched(*b));
}

TEST(Im2colCopy, OobFillNanPatternForFloatTypes) {
  for (DataType t : {DataType::kFloat16, DataType::kFloat32, DataType::kBfloat16}) {
    SCOPED_TRACE(name(t));
    TensorMap m = make_map(t, {8, 4, 4, 1}, {-1, -1}, {-1, -1}, 8, 16);
    m.oob_fill = OobFill::kNanRequestZeroFma;
    mem::GlobalMemory g;
    write_pattern(m, g);
    auto smem = make_smem(4096);
    const SmemTarget tg{.smem = smem.get(), .offset = 0};
    // From the box corner (-1,-1): row -1 and column -1 are OOB: 4 + 3 = 7 pixels.
    auto r = load_im2col(m, std::array<std::int32_t, 4>{0, -1, -1, 0},
                         std::array<std::uint16_t, 2>{0, 0}, g, std::span(&tg, 1));
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ(r->oob_elements, 7u * 8);
    const std::uint32_t e = elem_bytes(m);
    const auto fill = oob_fill_pattern(m);
    ASSERT_EQ(fill.size(), e);
    // The fill is a NaN of the format: exponent all ones, mantissa non-zero.
    std::uint64_t bits = 0;
    std::memcpy(&bits, fill.data(), e);
    const int mant = t == DataType::kFloat32 ? 23 : t == DataType::kFloat16 ? 10 : 7;
    const int expo = t == DataType::kFloat32 ? 8 : t == DataType::kFloat16 ? 5 : 8;
    EXPECT_EQ(bits >> mant & ((1u << expo) - 1), (1u << expo) - 1u);
    EXPECT_NE(bits & ((std::uint64_t{1} << mant) - 1), 0u);
    for (std::uint32_t p = 0; p < 16; ++p) {
      const std::int64_t h = -1 + static_cast<std::int64_t>(p / 4);
      const std::int64_t w = -1 + static_cast<std::int64_t>(p % 4);
      const bool oob = h < 0 || w < 0;
      for (std::uint32_t j = 0; j < 8; ++j) {
        const std::byte* got = &smem->bytes()[(p * 8 + j) * e];
        for (std::uint32_t k = 0; k < e; ++k) {
          const std::byte want = oob ? fill[k] : pattern_byte({0, 0, h, w, j}, k);
          ASSERT_EQ(got[k], want) << "pixel " << p << " channel " << j << " byte " << k;
        }
      }
    }
    // The same load with OOB_FILL_NONE fills zeros.
    TensorMap zero = m;
    zero.oob_fill = OobFill::kNone;
    auto smem0 = make_smem(4096);
    const SmemTarget t0{.smem = smem0.get(), .offset = 0};
    ASSERT_TRUE(load_im2col(zero, std::array<std::int32_t, 4>{0, -1, -1, 0},
                            std::array<std::uint16_t, 2>{0, 0}, g, std::span(&t0, 1))
                    .ok());
    for (std::uint32_t i = 0; i < 4 * 8 * e; ++i)
      ASSERT_EQ(smem0->bytes()[i], std::byte{0});
  }
}

TEST(Im2colCopy, RequestsCoverExactlyTheInBoundsBytesInLines) {
  // 48 channels x 8 B = 384 B per pixel from c = 6: each run spans several 128 B lines.
  const TensorMap m = make_map(DataType::kUint64, {60, 5, 3, 2}, {-1, 0}, {0, 0}, 48, 12);
  mem::GlobalMemory g;
  write_pattern(m, g);
  auto smem = make_smem(8192);
  const SmemTarget t{.smem = smem.get(), .offset = 0};
  auto r = load_im2col(m, std::array<std::int32_t, 4>{6, -1, 1, 0},
                       std::array<std::uint16_t, 2>{0, 0}, g, std::span(&t, 1));
  ASSERT_TRUE(r.ok()) << r.error().message;
  std::uint64_t total = 0;
  for (const GlobalRequest& q : r->global_requests) {
    EXPECT_LE(q.bytes, kLineBytes);
    EXPECT_EQ(q.address / kLineBytes, (q.address + q.bytes - 1) / kLineBytes) << "crosses a line";
    total += q.bytes;
  }
  // Pixels: row 1 from w=-1 (6 positions, w=-1 OOB), row 2 (6, one OOB): 10 in bounds.
  EXPECT_EQ(total, 10u * 48 * 8);
  EXPECT_EQ(r->oob_elements, 2u * 48);
}

// Packed types move whole 16-value groups (box_walk.h transfer units): packed in global memory,
// padded with zeros to 16 B in shared memory for the ALIGN16B types; OOB groups are zeros.
TEST(Im2colCopy, PackedTypesMoveWholeGroups) {
  struct Case {
    DataType type;
    std::uint32_t values, global_bytes, smem_bytes, channels;
    Swizzle swizzle;
  };
  for (const Case& k : {Case{DataType::k16U4Align16B, 16, 8, 16, 128, Swizzle::k128B},
                        Case{DataType::k16U6Align16B, 16, 12, 16, 128, Swizzle::kNone},
                        Case{DataType::k16U4Align8B, 2, 1, 1, 64, Swizzle::k64B}}) {
    SCOPED_TRACE(name(k.type));
    const std::uint64_t C = 256, W = 3, H = 2, N = 2;
    TensorMap m = make_map(DataType::kUint8, {C, W, H, N}, {-1, 0}, {0, 0}, k.channels, 9);
    m.data_type = k.type;
    m.swizzle = k.swizzle;
    const std::uint64_t row = C / k.values * k.global_bytes;  // packed bytes of one pixel
    m.global_strides[0] = (row + 15) / 16 * 16;
    m.global_strides[1] = m.global_strides[0] * W;
    m.global_strides[2] = m.global_strides[1] * H;
    std::vector<std::byte> host(m.global_strides[2] * N, kPadding);
    for (std::int64_t n = 0; n < static_cast<std::int64_t>(N); ++n)
      for (std::int64_t h = 0; h < static_cast<std::int64_t>(H); ++h)
        for (std::int64_t w = 0; w < static_cast<std::int64_t>(W); ++w)
          for (std::uint64_t b = 0; b < row; ++b)
            host[n * m.global_strides[2] + h * m.global_strides[1] + w * m.global_strides[0] + b] =
                pattern_byte({n, 0, h, w, static_cast<std::int64_t>(b)}, 0);
    mem::GlobalMemory g;
    ASSERT_TRUE(g.write(m.global_address, host).ok());
    for (std::int32_t c0 : {0, 128, -32, 224}) {
      SCOPED_TRACE(testing::Message() << "c0 " << c0);
      auto smem = make_smem(8192);
      const SmemTarget t{.smem = smem.get(), .offset = 0};
      // Bases from (w -1, h 0): row 0 w -1..2, row 1, then image 1; w = -1 is OOB.
      auto r = load_im2col(m, std::array<std::int32_t, 4>{c0, -1, 0, 0},
                           std::array<std::uint16_t, 2>{0, 0}, g, std::span(&t, 1));
      ASSERT_TRUE(r.ok()) << r.error().message;
      const std::uint32_t units = k.channels / k.values;
      const std::uint64_t row_smem = std::uint64_t{units} * k.smem_bytes;
      EXPECT_EQ(r->bytes_per_destination, row_smem * 9);
      EXPECT_EQ(r->bytes_per_destination, box_bytes(m));
      const auto box = read_box(*smem, 0, k.swizzle, row_smem * 9, row_smem);
      std::uint64_t oob = 0;
      for (std::uint32_t p = 0; p < 9; ++p) {
        const std::int64_t n = p / 8, h = p % 8 / 4, w = -1 + static_cast<std::int64_t>(p % 4);
        for (std::uint32_t i = 0; i < units; ++i) {
          const std::int64_t c = c0 + static_cast<std::int64_t>(i * k.values);
          const bool in = w >= 0 && c >= 0 && c + k.values <= static_cast<std::int64_t>(C);
          oob += in ? 0 : k.values;
          for (std::uint32_t b = 0; b < k.smem_bytes; ++b) {
            std::byte want{0};
            if (in && b < k.global_bytes) {
              const std::int64_t byte = c / k.values * k.global_bytes + b;
              want = pattern_byte({n, 0, h, w, byte}, 0);
            }
            ASSERT_EQ(box[p * row_smem + i * k.smem_bytes + b], want)
                << "pixel " << p << " unit " << i << " byte " << b;
          }
        }
      }
      EXPECT_EQ(r->oob_elements, oob);
    }
  }
}

// ---- bad requests -----------------------------------------------------------------------------

struct BadCase {
  const char* what;
  std::function<void(TensorMap&, std::vector<std::int32_t>&, std::vector<std::uint16_t>&,
                     SmemTarget&)>
      edit;
  const char* expect;  // a phrase the one-line message must contain
};

TEST(Im2colErrors, EveryBadRequestIsOneLineAndWritesNothing) {
  auto smem = make_smem(8192);
  auto other = make_smem(8192);
  const std::vector<BadCase> cases = {
      {"tiled map", [](auto& m, auto&, auto&, auto&) { m.mode = Mode::kTiled; }, "mode is TILED"},
      {"rank 2", [](auto& m, auto&, auto&, auto&) { m.rank = 2; }, "rank 2 is outside [3, 5]"},
      {"too few coordinates", [](auto&, auto& c, auto&, auto&) { c.pop_back(); },
       "3 coordinates given for a rank-4 tensor map (need 4: C, W, H, N)"},
      {"too many offsets", [](auto&, auto&, auto& o, auto&) { o.push_back(0); },
       "3 im2col offsets given for a rank-4 tensor map (need 2: W, H)"},
      {"offset beyond 8 bits at rank 4", [](auto&, auto&, auto& o, auto&) { o[1] = 256; },
       "im2col offset 1 (H) = 256 is outside [0, 255]"},
      {"filter base left of the box", [](auto&, auto& c, auto&, auto&) { c[1] = -2; },
       "filter base W = -2 is outside the bounding box [-1, 4]"},
      {"filter base below the box", [](auto&, auto& c, auto&, auto&) { c[2] = 5; },
       "filter base H = 5 is outside the bounding box [-1, 2]"},
      {"misaligned destination", [](auto&, auto&, auto&, auto& t) { t.offset = 64; },
       "offset 0x40 is not 128-byte aligned"},
      {"channels not starting on 16 B", [](auto&, auto& c, auto&, auto&) { c[0] = 2; },
       "channel coordinate = 2 puts the box's first byte at 2 x 4 B = 8 B"},
      {"destination outside the window", [](auto&, auto&, auto&, auto& t) { t.offset = 8064; },
       "outside the CTA window"},
      {"no shared memory", [](auto&, auto&, auto&, auto& t) { t.smem = nullptr; },
       "has no shared-memory window"},
      {"pixel wider than the swizzle span",
       [](auto& m, auto&, auto&, auto&) {
         m.swizzle = Swizzle::k32B;
         m.channels_per_pixel = 16;
       },
       "64 B per pixel exceeds the 32B swizzle span of 32 B"},
      {"interleaved layout", [](auto& m, auto&, auto&, auto&) { m.interleave = Interleave::k16B; },
       "interleave 16B is not modelled"},
      {"packed type off its 16-value groups",
       [](auto& m, auto& c, auto&, auto&) {
         m.data_type = DataType::k16U4Align8B;
         c[0] = 2;
       },
       "C coordinate 2 of a 16U4_ALIGN8B map is not a multiple of 16"},
      {"zero pixels", [](auto& m, auto&, auto&, auto&) { m.pixels_per_column = 0; },
       "pixels_per_column 0 is outside [1, 1024]"},
      {"too many channels", [](auto& m, auto&, auto&, auto&) { m.channels_per_pixel = 257; },
       "channels_per_pixel 257 is outside [1, 256]"},
      {"traversal stride 0", [](auto& m, auto&, auto&, auto&) { m.element_strides[2] = 0; },
       "element_strides[2] (H) = 0 is outside [1, 8]"},
      {"corner beyond rank-4 precision",
       [](auto& m, auto&, auto&, auto&) { m.pixel_box_lower_corner[0] = -129; },
       "pixel_box_lower_corner[0] (W) = -129 is outside [-128, 127]"},
      {"zero height", [](auto& m, auto&, auto&, auto&) { m.global_dim[2] = 0; },
       "global_dim[2] = 0 is outside [1, 2^32]"},
      {"empty box",
       [](auto& m, auto&, auto&, auto&) {
         m.pixel_box_lower_corner[0] = 3;
         m.pixel_box_upper_corner[0] = -6;
       },
       "bounding box along W is empty"},
  };
  for (const BadCase& bc : cases) {
    SCOPED_TRACE(bc.what);
    TensorMap m = make_map(DataType::kUint32, {8, 6, 4, 2}, {-1, -1}, {-1, -1}, 8, 16);
    mem::GlobalMemory g;
    write_encoded(m, g);
    std::vector<std::int32_t> coords{0, 2, 1, 0};
    std::vector<std::uint16_t> offsets{1, 1};
    SmemTarget t{.smem = smem.get(), .offset = 0};
    bc.edit(m, coords, offsets, t);
    // A second, valid destination must stay untouched too.
    const std::array<SmemTarget, 2> dst{SmemTarget{.smem = other.get(), .offset = 0}, t};
    auto r = load_im2col(m, coords, offsets, g, dst);
    ASSERT_FALSE(r.ok());
    // The timing-only form rejects it with the same errors.
    auto dry = load_im2col_requests(m, coords, offsets, dst);
    ASSERT_FALSE(dry.ok());
    ASSERT_EQ(dry.errors().size(), r.errors().size());
    for (std::size_t i = 0; i < r.errors().size(); ++i)
      EXPECT_EQ(dry.errors()[i].message, r.errors()[i].message);
    bool found = false;
    for (const Error& e : r.errors()) {
      EXPECT_EQ(e.message.find('\n'), std::string::npos) << e.message;
      found = found || e.message.find(bc.expect) != std::string::npos;
    }
    EXPECT_TRUE(found) << "got: " << r.error().message;
    EXPECT_TRUE(untouched(*smem));
    EXPECT_TRUE(untouched(*other));
  }
  // No destination at all.
  TensorMap m = make_map(DataType::kUint32, {8, 6, 4, 2}, {-1, -1}, {-1, -1}, 8, 16);
  mem::GlobalMemory g;
  auto r = load_im2col(m, std::array<std::int32_t, 4>{0, 0, 0, 0},
                       std::array<std::uint16_t, 2>{0, 0}, g, {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("no shared-memory destination"), std::string::npos);
}

TEST(Im2colErrors, OffsetPrecisionFollowsRank) {
  // PTX: 16-bit offsets at rank 3, 8-bit at rank 4, 5-bit at rank 5.
  const TensorMap r3 = make_map(DataType::kUint8, {16, 4, 1}, {0}, {0}, 16, 1);
  EXPECT_TRUE(
      walk_im2col(r3, std::array<std::int32_t, 3>{0, 0, 0}, std::array<std::uint16_t, 1>{65535})
          .ok());
  const TensorMap r4 = make_map(DataType::kUint8, {16, 4, 4, 1}, {0, 0}, {0, 0}, 16, 1);
  EXPECT_TRUE(
      walk_im2col(r4, std::array<std::int32_t, 4>{0, 0, 0, 0}, std::array<std::uint16_t, 2>{255, 0})
          .ok());
  EXPECT_FALSE(
      walk_im2col(r4, std::array<std::int32_t, 4>{0, 0, 0, 0}, std::array<std::uint16_t, 2>{256, 0})
          .ok());
  const TensorMap r5 = make_map(DataType::kUint8, {16, 4, 4, 4, 1}, {0, 0, 0}, {0, 0, 0}, 16, 1);
  EXPECT_TRUE(walk_im2col(r5, std::array<std::int32_t, 5>{0, 0, 0, 0, 0},
                          std::array<std::uint16_t, 3>{0, 31, 0})
                  .ok());
  auto bad = walk_im2col(r5, std::array<std::int32_t, 5>{0, 0, 0, 0, 0},
                         std::array<std::uint16_t, 3>{0, 0, 32});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("im2col offset 2 (D) = 32 is outside [0, 31]"),
            std::string::npos);
}

TEST(Im2colErrors, AddressSpaceWrapIsAnErrorAndWritesNothing) {
  TensorMap m = make_map(DataType::kUint32, {8, 4, 4, 2}, {0, 0}, {0, 0}, 8, 16);
  m.global_address = ~std::uint64_t{0} - 255;  // the second row already wraps
  mem::GlobalMemory g;
  auto smem = make_smem(4096);
  const SmemTarget t{.smem = smem.get(), .offset = 0};
  auto r = load_im2col(m, std::array<std::int32_t, 4>{0, 0, 0, 0},
                       std::array<std::uint16_t, 2>{0, 0}, g, std::span(&t, 1));
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(untouched(*smem));
  auto dry = load_im2col_requests(m, std::array<std::int32_t, 4>{0, 0, 0, 0},
                                  std::array<std::uint16_t, 2>{0, 0}, std::span(&t, 1));
  ASSERT_FALSE(dry.ok());
  EXPECT_EQ(dry.error().message, r.error().message);
}

// ---- random cross-check against a naive reference ----------------------------------------------

// The reference walk: nested loops over n, d, h, w on each dimension's stride grid; only the
// very first pass of each loop starts at the request's filter base instead of the lower corner.
std::vector<Coord> reference_pixels(const TensorMap& m, std::span<const std::int32_t> coords,
                                    std::span<const std::uint16_t> offsets) {
  const std::uint32_t spatial = m.rank - 2;
  std::array<std::int64_t, 3> lo{}, hi{}, start{}, step{1, 1, 1}, off{};
  for (std::uint32_t s = 0; s < spatial; ++s) {
    lo[s] = m.pixel_box_lower_corner[s];
    hi[s] = static_cast<std::int64_t>(m.global_dim[s + 1]) - 1 + m.pixel_box_upper_corner[s];
    start[s] = coords[s + 1];
    step[s] = m.element_strides[s + 1];
    off[s] = offsets[s];
  }
  std::vector<Coord> out;
  bool fd = true, fh = true, fw = true;
  for (std::int64_t n = coords[m.rank - 1]; out.size() < m.pixels_per_column; ++n)
    for (std::int64_t d = std::exchange(fd, false) ? start[2] : lo[2]; d <= hi[2]; d += step[2])
      for (std::int64_t h = std::exchange(fh, false) ? start[1] : lo[1]; h <= hi[1]; h += step[1])
        for (std::int64_t w = std::exchange(fw, false) ? start[0] : lo[0]; w <= hi[0]; w += step[0])
          if (out.size() < m.pixels_per_column)
            out.push_back({.n = n, .d = d + off[2], .h = h + off[1], .w = w + off[0], .c = 0});
  return out;
}

// A random im2col map (rank 3-5, any non-packed type and swizzle, corners, strides, fill) and
// a load request on it: coordinates inside the filter-base box, offsets 0-4.
struct RandomIm2col {
  TensorMap m;
  std::vector<std::int32_t> coords;
  std::vector<std::uint16_t> offsets;
};

RandomIm2col random_im2col(sim::Rng& rng) {
  const std::array<DataType, 8> types{DataType::kUint8,    DataType::kUint16, DataType::kFloat16,
                                      DataType::kBfloat16, DataType::kUint32, DataType::kFloat32,
                                      DataType::kUint64,   DataType::kFloat64};
  const std::array<Swizzle, 7> modes{Swizzle::kNone,        Swizzle::k32B,
                                     Swizzle::k64B,         Swizzle::k128B,
                                     Swizzle::k128BAtom32B, Swizzle::k128BAtom32BFlip8B,
                                     Swizzle::k128BAtom64B};
  auto pick = [&](std::int64_t lo, std::int64_t hi) {  // inclusive
    return lo + static_cast<std::int64_t>(rng.uniform(static_cast<std::uint64_t>(hi - lo + 1)));
  };
  TensorMap m;
  m.mode = Mode::kIm2col;
  m.rank = static_cast<std::uint32_t>(pick(3, 5));
  m.data_type = types[pick(0, types.size() - 1)];
  const std::uint32_t e = element_bits(m.data_type) / 8;
  const std::uint32_t spatial = m.rank - 2;
  const std::array<std::int64_t, 3> max_dim{9, 7, 4};
  m.global_dim[0] = pick(1, 40);
  for (std::uint32_t s = 0; s < spatial; ++s)
    m.global_dim[s + 1] = pick(1, max_dim[s]);
  m.global_dim[m.rank - 1] = pick(1, 3);
  m.global_address = kBase + 16 * pick(0, 64);
  std::uint64_t pitch = (m.global_dim[0] * e + 15) / 16 * 16 + 16 * pick(0, 2);
  for (std::uint32_t i = 0; i + 1 < m.rank; ++i) {
    m.global_strides[i] = pitch;
    pitch = pitch * m.global_dim[i + 1] + 16 * pick(0, 1);
  }
  for (std::uint32_t i = 0; i < m.rank; ++i)
    m.element_strides[i] = static_cast<std::uint32_t>(pick(1, 3));
  for (std::uint32_t s = 0; s < spatial; ++s) {
    do {
      m.pixel_box_lower_corner[s] = static_cast<std::int32_t>(pick(-3, 2));
      m.pixel_box_upper_corner[s] = static_cast<std::int32_t>(pick(-3, 2));
    } while (static_cast<std::int64_t>(m.global_dim[s + 1]) - 1 + m.pixel_box_upper_corner[s] <
             m.pixel_box_lower_corner[s]);
  }
  m.swizzle = modes[pick(0, modes.size() - 1)];
  const std::uint32_t span = swizzle_span_bytes(m.swizzle);
  const std::int64_t max_ch = span == 0 ? 48 : span / e;
  m.channels_per_pixel = static_cast<std::uint32_t>(pick(1, std::min<std::int64_t>(48, max_ch)));
  m.pixels_per_column = static_cast<std::uint32_t>(pick(1, 120));
  if (is_float(m.data_type) && pick(0, 1) == 1) {
    m.oob_fill = OobFill::kNanRequestZeroFma;
  } else if (pick(0, 2) == 0) {  // xpusim's CONSTANT fill
    m.oob_fill = OobFill::kConstant;
    m.oob_fill_value = static_cast<std::uint64_t>(pick(1, 0xFFFFFF)) * 0x9E3779B97F4A7C15ull >>
                       (64 - 8 * std::min<std::uint32_t>(8, e));
  }

  std::vector<std::int32_t> coords(m.rank);
  // Channel runs start on 16 B (Hopper faults otherwise, H200 silicon).
  const std::int64_t per16 = 16 / e;
  coords[0] = static_cast<std::int32_t>(
      per16 * pick(-static_cast<std::int64_t>(m.channels_per_pixel) / per16 - 1,
                   static_cast<std::int64_t>(m.global_dim[0]) / per16));
  const auto box = im2col_bounding_box(m);
  for (std::uint32_t s = 0; s < spatial; ++s)
    coords[s + 1] = static_cast<std::int32_t>(pick(box[s].lower, box[s].upper));
  coords[m.rank - 1] =
      static_cast<std::int32_t>(pick(-1, static_cast<std::int64_t>(m.global_dim[m.rank - 1])));
  std::vector<std::uint16_t> offsets(spatial);
  for (auto& o : offsets)
    o = static_cast<std::uint16_t>(pick(0, 4));
  return {m, coords, offsets};
}

// im2col stores and reductions (seed0 ¶158-¶159, PTX .im2col_no_offs): the column a load with
// zero offsets reads, stored into an empty tensor, lands on exactly the in-bounds elements of the
// naive walk's pixels and nowhere else; added (u32/u64) into a tensor holding the pattern, those
// elements double and the rest stay.
TEST(Im2colRandom, StoresAndReductionsWriteBackWhatALoadReads) {
  sim::Rng rng = sim::Rng::for_stream(0x1A2C02u, "tma.im2col_store_test");
  int checked = 0, with_oob = 0, reduced = 0, swizzled = 0;
  for (int iter = 0; iter < 300; ++iter) {
    RandomIm2col k = random_im2col(rng);
    TensorMap& m = k.m;
    if (m.swizzle == Swizzle::k128BAtom32BFlip8B) m.swizzle = Swizzle::k128BAtom32B;  // load-only
    const std::vector<std::uint16_t> zeros(m.rank - 2, 0);
    const std::uint32_t e = elem_bytes(m);
    SCOPED_TRACE(testing::Message() << "iteration " << iter << " rank " << m.rank << " type "
                                    << name(m.data_type) << " swizzle " << name(m.swizzle));
    mem::GlobalMemory src;
    write_pattern(m, src);
    const std::uint32_t off = std::max<std::uint32_t>(128, swizzle_alignment(m.swizzle));
    auto smem = make_smem(static_cast<std::uint32_t>(off + box_footprint(m) + 128));
    const std::array<SmemTarget, 1> dst{{{.smem = smem.get(), .offset = off}}};
    ASSERT_TRUE(load_im2col(m, k.coords, zeros, src, dst).ok());

    // The elements the walk covers, by the naive reference.
    std::set<std::uint64_t> covered;
    std::uint64_t oob = 0;
    for (Coord x : reference_pixels(m, k.coords, zeros)) {
      for (std::uint32_t j = 0; j < m.channels_per_pixel; ++j) {
        x.c = k.coords[0] + static_cast<std::int64_t>(j);
        if (in_tensor(m, x)) {
          covered.insert(element_offset(m, x));
        } else {
          ++oob;
        }
      }
    }
    const bool add = m.data_type == DataType::kUint32 || m.data_type == DataType::kUint64;
    for (const bool reduce : {false, true}) {
      if (reduce && !add) continue;
      mem::GlobalMemory out;
      if (reduce) write_pattern(m, out);
      auto r = reduce ? reduce_im2col(m, ReduceOp::kAdd, k.coords, *smem, off, out)
                      : store_im2col(m, k.coords, *smem, off, out);
      ASSERT_TRUE(r.ok()) << r.error().message;
      EXPECT_EQ(r->oob_elements, oob);
      std::uint64_t requested = 0;
      for (const GlobalRequest& q : r->global_requests)
        requested += q.bytes;
      EXPECT_EQ(requested, covered.size() * e);
      Coord x;
      for (x.n = 0; x.n < static_cast<std::int64_t>(dim_of(m, 'n')); ++x.n)
        for (x.d = 0; x.d < static_cast<std::int64_t>(dim_of(m, 'd')); ++x.d)
          for (x.h = 0; x.h < static_cast<std::int64_t>(dim_of(m, 'h')); ++x.h)
            for (x.w = 0; x.w < static_cast<std::int64_t>(dim_of(m, 'w')); ++x.w)
              for (x.c = 0; x.c < static_cast<std::int64_t>(dim_of(m, 'c')); ++x.c) {
                const std::uint64_t at = element_offset(m, x);
                std::array<std::byte, 8> got{}, want{};
                ASSERT_TRUE(out.read(m.global_address + at, std::span(got).first(e)).ok());
                const bool in = covered.contains(at);
                std::uint64_t v = 0;
                for (std::uint32_t b = 0; b < e; ++b)
                  v |= std::to_integer<std::uint64_t>(pattern_byte(x, b)) << (8 * b);
                if (reduce) v = in ? 2 * v : v;  // wraps like the u32/u64 add
                for (std::uint32_t b = 0; b < e; ++b)
                  want[b] = reduce || in ? static_cast<std::byte>(v >> (8 * b)) : std::byte{0};
                ASSERT_EQ(got, want) << "element n " << x.n << " d " << x.d << " h " << x.h << " w "
                                     << x.w << " c " << x.c << (reduce ? " (add)" : "");
              }
      reduced += reduce;
    }
    ++checked;
    with_oob += oob > 0;
    swizzled += m.swizzle != Swizzle::kNone;
  }
  EXPECT_EQ(checked, 300);
  EXPECT_GT(with_oob, 50);
  EXPECT_GT(reduced, 30);
  EXPECT_GT(swizzled, 100);
}

TEST(Im2colErrors, StoresRefuseLoadOnlyModesAndUndefinedReductions) {
  TensorMap m = make_map(DataType::kFloat32, {8, 4, 4, 1}, {0, 0}, {0, 0}, 8, 4);
  mem::GlobalMemory g;
  auto smem = make_smem(1024);
  const std::vector<std::int32_t> coords{0, 0, 0, 0};
  EXPECT_EQ(reduce_im2col(m, ReduceOp::kMin, coords, *smem, 0, g).error().message,
            "reduce_im2col: .min is not defined for FLOAT32 elements (supported: add)");
  m.swizzle = Swizzle::k128BAtom32BFlip8B;
  EXPECT_EQ(store_im2col(m, coords, *smem, 0, g).error().message,
            "store_im2col: SWIZZLE_128B_ATOM_32B_FLIP_8B is legal only for loads (PTX ISA: global "
            "-> shared copies)");
  m.swizzle = Swizzle::kNone;
  // The walk's own errors name the store.
  EXPECT_EQ(store_im2col(m, std::vector<std::int32_t>{0, 0, 0}, *smem, 0, g)
                .error()
                .message.rfind("store_im2col: 3 coordinates given", 0),
            0u);
  EXPECT_TRUE(untouched(*smem));
}

TEST(Im2colRandom, MatchesNaiveReference) {
  sim::Rng rng = sim::Rng::for_stream(0x1A2C01u, "tma.im2col_test");
  auto pick = [&](std::int64_t lo, std::int64_t hi) {  // inclusive
    return lo + static_cast<std::int64_t>(rng.uniform(static_cast<std::uint64_t>(hi - lo + 1)));
  };
  int checked = 0, with_oob = 0, with_stride = 0, multi = 0, swizzled = 0, wrapped = 0;
  for (int iter = 0; iter < 600; ++iter) {
    const RandomIm2col k = random_im2col(rng);
    const TensorMap& m = k.m;
    const std::vector<std::int32_t>& coords = k.coords;
    const std::vector<std::uint16_t>& offsets = k.offsets;
    const std::uint32_t e = element_bits(m.data_type) / 8;
    const std::uint32_t spatial = m.rank - 2;

    mem::GlobalMemory g;
    write_pattern(m, g);
    const std::uint32_t align = std::max<std::uint32_t>(128, swizzle_alignment(m.swizzle));
    const std::uint64_t bytes = std::uint64_t{m.channels_per_pixel} * m.pixels_per_column * e;
    const int ctas = static_cast<int>(pick(1, 3));
    std::vector<std::unique_ptr<mem::SharedMemory>> smems;
    std::vector<SmemTarget> dst;
    for (int i = 0; i < ctas; ++i) {
      const auto off = static_cast<std::uint32_t>(align * pick(0, 2));
      smems.push_back(
          make_smem(static_cast<std::uint32_t>(off + box_footprint(m) + 256 + pick(0, 64))));
      dst.push_back({.smem = smems.back().get(), .offset = off});
    }

    SCOPED_TRACE(testing::Message() << "iteration " << iter << " rank " << m.rank << " type "
                                    << name(m.data_type) << " swizzle " << name(m.swizzle));
    // The timing-only form first (it must not write the windows the load then fills).
    auto dry = load_im2col_requests(m, coords, offsets, dst);
    ASSERT_TRUE(dry.ok()) << dry.error().message;
    for (const auto& sm : smems) {
      ASSERT_TRUE(std::all_of(sm->bytes().begin(), sm->bytes().end(),
                              [](std::byte b) { return b == kSentinel; }));
    }
    auto r = load_im2col(m, coords, offsets, g, dst);
    ASSERT_TRUE(r.ok()) << r.error().message;
    // ... and it reports what the load does: requests, counts, destinations.
    EXPECT_EQ(dry->global_requests, r->global_requests);
    EXPECT_EQ(dry->oob_elements, r->oob_elements);
    EXPECT_EQ(dry->elements, r->elements);
    EXPECT_EQ(dry->bytes_per_destination, r->bytes_per_destination);
    EXPECT_EQ(dry->destinations, r->destinations);

    // Expected box image from the reference walk and the pattern function.
    const auto pixels = reference_pixels(m, coords, offsets);
    ASSERT_EQ(pixels.size(), m.pixels_per_column);
    const auto fill = oob_fill_pattern(m);
    std::vector<std::byte> image(bytes);
    std::set<mem::Addr> expected_bytes;
    std::uint64_t oob = 0;
    for (std::size_t p = 0; p < pixels.size(); ++p) {
      for (std::uint32_t j = 0; j < m.channels_per_pixel; ++j) {
        Coord x = pixels[p];
        x.c = coords[0] + static_cast<std::int64_t>(j);
        std::byte* out = &image[(p * m.channels_per_pixel + j) * e];
        if (in_tensor(m, x)) {
          for (std::uint32_t k = 0; k < e; ++k) {
            out[k] = pattern_byte(x, k);
            expected_bytes.insert(m.global_address + element_offset(m, x) + k);
          }
        } else {
          std::memcpy(out, fill.data(), e);
          ++oob;
        }
      }
    }
    EXPECT_EQ(r->oob_elements, oob);
    EXPECT_EQ(r->elements, std::uint64_t{m.channels_per_pixel} * m.pixels_per_column);
    EXPECT_EQ(r->bytes_per_destination, bytes);
    EXPECT_EQ(r->destinations, static_cast<std::uint32_t>(ctas));

    // Requests: within one line each, and together exactly the in-bounds bytes, once.
    std::set<mem::Addr> requested;
    bool dup = false;
    for (const GlobalRequest& q : r->global_requests) {
      ASSERT_GT(q.bytes, 0u);
      ASSERT_LE(q.bytes, kLineBytes);
      ASSERT_EQ(q.address / kLineBytes, (q.address + q.bytes - 1) / kLineBytes);
      for (std::uint32_t k = 0; k < q.bytes; ++k)
        dup = !requested.insert(q.address + k).second || dup;
    }
    EXPECT_FALSE(dup);
    EXPECT_EQ(requested, expected_bytes);

    for (int i = 0; i < ctas; ++i) {
      std::vector<std::byte> want(smems[i]->size(), kSentinel);
      const std::uint64_t row = std::uint64_t{m.channels_per_pixel} * e;
      const std::uint64_t pitch = pixel_pitch(m.swizzle, row);  // each pixel its own span
      for (std::uint64_t b = 0; b < bytes; ++b) {
        const auto at = static_cast<std::uint32_t>(b / row * pitch + b % row);
        want[swizzle_offset(m.swizzle, dst[i].offset + at)] = image[b];
      }
      ASSERT_TRUE(std::equal(want.begin(), want.end(), smems[i]->bytes().begin())) << "CTA " << i;
    }
    ++checked;
    with_oob += oob > 0;
    multi += ctas > 1;
    swizzled += m.swizzle != Swizzle::kNone;
    bool strided = false, wraps = false;
    for (std::uint32_t s = 0; s < spatial; ++s)
      strided = strided || m.element_strides[s + 1] > 1;
    for (const Coord& p : pixels)
      wraps = wraps || p.n != coords[m.rank - 1];
    with_stride += strided;
    wrapped += wraps;
  }
  EXPECT_GE(checked, 500);
  // The generator really covered the interesting cases.
  EXPECT_GT(with_oob, 100);
  EXPECT_GT(with_stride, 100);
  EXPECT_GT(multi, 100);
  EXPECT_GT(swizzled, 100);
  EXPECT_GT(wrapped, 100);
}

}  // namespace
}  // namespace xpusim::tma
