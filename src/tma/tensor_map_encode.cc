// The rules of cuTensorMapEncodeTiled / cuTensorMapEncodeIm2col (CUDA 13 cuda.h doc
// comments). A rule that reads several parameters is checked only when each of them passed
// its own checks, so one mistake gives one line.
#include "tma/tensor_map_encode.h"

#include <algorithm>
#include <numeric>
#include <span>
#include <string_view>

#include <fmt/format.h>

#include "tma/swizzle.h"

namespace xpusim::tma {
namespace {

constexpr std::uint64_t kMaxGlobalDim = std::uint64_t{1} << 32;  // "<= 2^32"
constexpr std::uint64_t kStrideLimit = std::uint64_t{1} << 40;   // "< 2^40"
constexpr std::uint32_t kMaxBoxDim = 256;
constexpr std::uint32_t kMaxElementStride = 8;
constexpr std::uint32_t kMaxChannelsPerPixel = 256;
constexpr std::uint32_t kMaxPixelsPerColumn = 1024;
constexpr std::uint32_t kPackedAlign16BBox = 128;  // boxDim[0] / channelsPerPixel

bool valid_enum(DataType t) {
  return static_cast<unsigned>(t) <= 15;
}
bool valid_enum(Interleave v) {
  return static_cast<unsigned>(v) <= 2;
}
bool valid_enum(Swizzle v) {
  return static_cast<unsigned>(v) <= 6;
}
bool valid_enum(L2Promotion v) {
  return static_cast<unsigned>(v) <= 3;
}
bool valid_enum(OobFill v) {
  return static_cast<unsigned>(v) <= 2;  // 2: CONSTANT, the xpusim extension
}

// The 16U4_ALIGN16B and 16U6_ALIGN16B types share their alignment rules.
bool is_align16b(DataType t) {
  return t == DataType::k16U4Align16B || t == DataType::k16U6Align16B;
}

std::string hex(std::uint64_t v) {
  return fmt::format("{:#x}", v);
}
std::string dec(std::uint64_t v) {
  return fmt::format("{}", v);
}

// " (nearest: a or b)", or "" when there is no candidate.
std::string nearest(const std::vector<std::string>& candidates) {
  if (candidates.empty()) return "";
  return fmt::format(" (nearest: {})", fmt::join(candidates, " or "));
}

// The multiples of m just below and just above v that lie in [lo, hi].
std::vector<std::string> multiples_around(std::uint64_t v, std::uint64_t m, std::uint64_t lo,
                                          std::uint64_t hi, std::string (*show)(std::uint64_t)) {
  std::vector<std::string> out;
  const std::uint64_t down = v / m * m;
  if (down >= lo && down <= hi) out.push_back(show(down));
  if (down <= UINT64_MAX - m && down + m >= lo && down + m <= hi) out.push_back(show(down + m));
  return out;
}

std::string clamp_text(std::uint64_t v, std::uint64_t lo, std::uint64_t hi) {
  return dec(std::clamp(v, lo, hi));
}

// "2 B" or "4 bits": the element size as the header states it.
std::string element_size_text(DataType t) {
  const std::uint32_t bits = element_bits(t);
  return bits % 8 == 0 ? fmt::format("{} B", bits / 8) : fmt::format("{} bits", bits);
}

std::string size_text(DataType t, std::uint64_t count) {
  const std::uint64_t bits = count * element_bits(t);
  return bits % 8 == 0 ? fmt::format("{} B", bits / 8) : fmt::format("{} bits", bits);
}

// The parameters both encoders share, in cuda.h's order.
struct Common {
  DataType data_type;
  std::uint32_t rank;
  std::uint64_t global_address;
  std::span<const std::uint64_t> global_dim;
  std::span<const std::uint64_t> global_strides;
  std::span<const std::uint32_t> element_strides;
  Interleave interleave;
  Swizzle swizzle;
  L2Promotion l2_promotion;
  OobFill oob_fill;
  std::uint64_t oob_fill_value;
  bool im2col;
};

class Checker {
 public:
  explicit Checker(const Common& c) : c_(c) {}

  std::vector<Violation> take() { return std::move(out_); }

  void fail(std::string_view param, int index, std::string_view value, std::string_view rule) {
    const std::string where = index < 0 ? std::string(param) : fmt::format("{}[{}]", param, index);
    out_.push_back(
        Violation{std::string(param), index, fmt::format("{} = {}: {}", where, value, rule)});
  }

  // Enum values first: every later rule reads them.
  void check_enums() {
    type_ok_ = valid_enum(c_.data_type);
    if (!type_ok_) {
      fail("tensorDataType", -1, dec(static_cast<unsigned>(c_.data_type)),
           "not a CUtensorMapDataType value (0 to 15)");
    }
    interleave_ok_ = valid_enum(c_.interleave);
    swizzle_ok_ = valid_enum(c_.swizzle);
  }

  void check_rank() {
    const std::uint32_t lo = c_.im2col ? 3 : 1;
    const std::uint32_t r = c_.rank;
    if (r < lo || r > kMaxRank) {
      fail("tensorRank", -1, dec(r),
           fmt::format("must be in [{}, {}]{}{}", lo, kMaxRank,
                       c_.im2col ? " for an im2col map" : "",
                       nearest({clamp_text(r, lo, kMaxRank)})));
      return;
    }
    rank_ok_ = true;
    if (!c_.im2col && interleave_ok_ && c_.interleave != Interleave::kNone && r < 3) {
      fail("tensorRank", -1, dec(r),
           fmt::format("must be at least 3 when interleave = {}{}", name(c_.interleave),
                       nearest({"3"})));
    }
  }

  // Length of an array against the rank; true when it matches (or the rank is unknown).
  bool check_count(std::string_view param, std::size_t count, std::uint32_t expected,
                   std::string_view expected_text) {
    if (!rank_ok_ || count == expected) return rank_ok_;
    fail(param, -1, fmt::format("{} entr{}", count, count == 1 ? "y" : "ies"),
         fmt::format("must have {} = {} entr{}", expected_text, expected,
                     expected == 1 ? "y" : "ies"));
    return false;
  }

  void check_global_address() {
    std::uint64_t align = 16;
    std::string why;
    if (interleave_ok_ && c_.interleave == Interleave::k32B) {
      align = 32;
      why = " when interleave = 32B";
    } else if (type_ok_ && is_align16b(c_.data_type)) {
      align = 32;
      why = fmt::format(" when tensorDataType = {}", name(c_.data_type));
    }
    const std::uint64_t a = c_.global_address;
    if (a % align != 0) {
      fail("globalAddress", -1, hex(a),
           fmt::format("must be {}-byte aligned{}{}", align, why,
                       nearest(multiples_around(a, align, 0, UINT64_MAX, hex))));
    }
  }

  void check_global_dim() {
    dims_count_ok_ = check_count("globalDim", c_.global_dim.size(), c_.rank, "tensorRank");
    dim_ok_.assign(c_.global_dim.size(), false);
    for (std::size_t i = 0; i < c_.global_dim.size(); ++i) {
      const std::uint64_t d = c_.global_dim[i];
      const int idx = static_cast<int>(i);
      if (d < 1 || d > kMaxGlobalDim) {
        fail("globalDim", idx, dec(d),
             fmt::format("must be in [1, 2^32 = {}]{}", kMaxGlobalDim,
                         nearest({clamp_text(d, 1, kMaxGlobalDim)})));
        continue;
      }
      if (i == 0 && type_ok_) {
        const std::uint64_t m = is_align16b(c_.data_type)                ? 128
                                : c_.data_type == DataType::k16U4Align8B ? 2
                                                                         : 1;
        if (d % m != 0) {
          fail("globalDim", idx, dec(d),
               fmt::format("must be a multiple of {} when tensorDataType = {}{}", m,
                           name(c_.data_type),
                           nearest(multiples_around(d, m, 1, kMaxGlobalDim, dec))));
          continue;
        }
      }
      dim_ok_[i] = true;
    }
  }

  void check_global_strides() {
    const std::uint32_t expected = c_.rank == 0 ? 0 : c_.rank - 1;
    check_count("globalStrides", c_.global_strides.size(), expected, "tensorRank - 1");
    std::uint64_t align = 16;
    std::string why;
    if (interleave_ok_ && c_.interleave == Interleave::k32B) {
      align = 32;
      why = " when interleave = 32B";
    } else if (type_ok_ && is_align16b(c_.data_type)) {
      align = 32;
      why = fmt::format(" when tensorDataType = {}", name(c_.data_type));
    }
    const std::uint64_t largest = (kStrideLimit - 1) / align * align;
    for (std::size_t i = 0; i < c_.global_strides.size(); ++i) {
      const std::uint64_t s = c_.global_strides[i];
      const int idx = static_cast<int>(i);
      if (s >= kStrideLimit) {
        fail("globalStrides", idx, dec(s),
             fmt::format("must be less than 2^40 = {}{}", kStrideLimit, nearest({dec(largest)})));
      } else if (s % align != 0) {
        fail("globalStrides", idx, dec(s),
             fmt::format("must be a multiple of {}{}{}", align, why,
                         nearest(multiples_around(s, align, align, largest, dec))));
      }
    }
    // Strides that do not cover the dimension below are allowed (overlapping_strides).
  }

  // boxDim[0] (tiled) or channelsPerPixel (im2col): the bytes of one inner box row.
  void check_inner_row(std::string_view param, int index, std::uint32_t n, bool multiple_of_16) {
    if (!type_ok_ || !interleave_ok_ || !swizzle_ok_ || c_.interleave != Interleave::kNone) return;
    const std::uint32_t bits = element_bits(c_.data_type);
    const std::string what = index < 0 ? std::string(param) : fmt::format("{}[{}]", param, index);
    const std::string row = fmt::format("{} x {} = {}", what, element_size_text(c_.data_type),
                                        size_text(c_.data_type, n));
    if (multiple_of_16 && (std::uint64_t{n} * bits) % 128 != 0) {
      const std::uint64_t step = 128 / std::gcd<std::uint64_t>(128, bits);
      fail(param, index, dec(n),
           fmt::format("{} must be a multiple of 16 B when interleave = NONE{}", row,
                       nearest(multiples_around(n, step, 1, kMaxBoxDim, dec))));
    }
    const std::uint32_t span = swizzle_span_bytes(c_.swizzle);
    if (span != 0 && std::uint64_t{n} * bits > std::uint64_t{span} * 8) {
      const std::uint64_t most =
          std::min<std::uint64_t>(std::uint64_t{span} * 8 / bits, kMaxBoxDim);
      fail(param, index, dec(n),
           fmt::format("{} must be at most the {} B span of swizzle = {}{}", row, span,
                       name(c_.swizzle), nearest({dec(most)})));
    }
  }

  void check_box_dim(std::span<const std::uint32_t> box) {
    check_count("boxDim", box.size(), c_.rank, "tensorRank");
    for (std::size_t i = 0; i < box.size(); ++i) {
      const std::uint32_t b = box[i];
      const int idx = static_cast<int>(i);
      if (b < 1 || b > kMaxBoxDim) {
        fail("boxDim", idx, dec(b),
             fmt::format("must be in [1, {}]{}", kMaxBoxDim,
                         nearest({clamp_text(b, 1, kMaxBoxDim)})));
        continue;
      }
      if (i != 0) continue;
      if (type_ok_ && is_align16b(c_.data_type) && b != kPackedAlign16BBox) {
        fail("boxDim", 0, dec(b),
             fmt::format("must be {} when tensorDataType = {}{}", kPackedAlign16BBox,
                         name(c_.data_type), nearest({dec(kPackedAlign16BBox)})));
        continue;
      }
      check_inner_row("boxDim", 0, b, true);
    }
  }

  void check_corners(std::span<const std::int32_t> lower, std::span<const std::int32_t> upper) {
    const std::uint32_t spatial = c_.rank >= 2 ? c_.rank - 2 : 0;
    const bool lower_count =
        check_count("pixelBoxLowerCorner", lower.size(), spatial, "tensorRank - 2");
    const bool upper_count =
        check_count("pixelBoxUpperCorner", upper.size(), spatial, "tensorRank - 2");
    if (!rank_ok_) return;  // the allowed range depends on the rank
    // cuda.h: rank 3: [-32768, 32767]; rank 4: [-128, 127]; rank 5: [-16, 15].
    const std::int32_t hi = c_.rank == 3 ? 32767 : c_.rank == 4 ? 127 : 15;
    const std::int32_t lo = -hi - 1;
    const auto check_range = [&](std::string_view param, std::span<const std::int32_t> v) {
      std::vector<bool> ok(v.size(), false);
      for (std::size_t i = 0; i < v.size(); ++i) {
        if (v[i] < lo || v[i] > hi) {
          fail(param, static_cast<int>(i), fmt::format("{}", v[i]),
               fmt::format("must be in [{}, {}] when tensorRank = {}{}", lo, hi, c_.rank,
                           nearest({fmt::format("{}", std::clamp(v[i], lo, hi))})));
        } else {
          ok[i] = true;
        }
      }
      return ok;
    };
    const std::vector<bool> lower_ok = check_range("pixelBoxLowerCorner", lower);
    const std::vector<bool> upper_ok = check_range("pixelBoxUpperCorner", upper);
    if (!lower_count || !upper_count || !dims_count_ok_) return;
    // The bounding box of spatial dimension i+1 holds globalDim - lower + upper pixels
    // (seed0 ¶115); "must have non-zero area".
    for (std::size_t i = 0; i < spatial; ++i) {
      if (!lower_ok[i] || !upper_ok[i] || !dim_ok_[i + 1]) continue;
      const std::int64_t dim = static_cast<std::int64_t>(c_.global_dim[i + 1]);
      const std::int64_t box = dim - lower[i] + upper[i];
      if (box >= 1) continue;
      const std::int64_t fix = std::int64_t{lower[i]} - dim + 1;
      fail("pixelBoxUpperCorner", static_cast<int>(i), fmt::format("{}", upper[i]),
           fmt::format("the bounding box along dimension {} holds globalDim[{}] - "
                       "pixelBoxLowerCorner[{}] + pixelBoxUpperCorner[{}] = {} - {} + {} = {} "
                       "pixels; it must have non-zero area{}",
                       i + 1, i + 1, i, i, dim, lower[i], upper[i], box,
                       fix <= hi ? nearest({fmt::format("{}", fix)}) : ""));
    }
  }

  void check_pixel_counts(std::uint32_t channels, std::uint32_t pixels) {
    if (channels < 1 || channels > kMaxChannelsPerPixel) {
      fail("channelsPerPixel", -1, dec(channels),
           fmt::format("must be in [1, {}]{}", kMaxChannelsPerPixel,
                       nearest({clamp_text(channels, 1, kMaxChannelsPerPixel)})));
    } else if (type_ok_ && is_align16b(c_.data_type) && channels != kPackedAlign16BBox) {
      fail("channelsPerPixel", -1, dec(channels),
           fmt::format("must be {} when tensorDataType = {}{}", kPackedAlign16BBox,
                       name(c_.data_type), nearest({dec(kPackedAlign16BBox)})));
    } else {
      check_inner_row("channelsPerPixel", -1, channels, false);
    }
    if (pixels < 1 || pixels > kMaxPixelsPerColumn) {
      fail("pixelsPerColumn", -1, dec(pixels),
           fmt::format("must be in [1, {}]{}", kMaxPixelsPerColumn,
                       nearest({clamp_text(pixels, 1, kMaxPixelsPerColumn)})));
    }
  }

  void check_element_strides() {
    check_count("elementStrides", c_.element_strides.size(), c_.rank, "tensorRank");
    for (std::size_t i = 0; i < c_.element_strides.size(); ++i) {
      const std::uint32_t e = c_.element_strides[i];
      if (e < 1 || e > kMaxElementStride) {
        fail("elementStrides", static_cast<int>(i), dec(e),
             fmt::format("must be in [1, {}]{}", kMaxElementStride,
                         nearest({clamp_text(e, 1, kMaxElementStride)})));
      }
    }
  }

  void check_interleave() {
    if (!interleave_ok_) {
      fail("interleave", -1, dec(static_cast<unsigned>(c_.interleave)),
           "not a CUtensorMapInterleave value (0 to 2)");
      return;
    }
    if (type_ok_ && c_.data_type == DataType::k16U6Align16B && c_.interleave != Interleave::kNone) {
      fail("interleave", -1, name(c_.interleave),
           fmt::format("must be NONE when tensorDataType = 16U6_ALIGN16B{}", nearest({"NONE"})));
    }
  }

  void check_swizzle() {
    if (!swizzle_ok_) {
      fail("swizzle", -1, dec(static_cast<unsigned>(c_.swizzle)),
           "not a CUtensorMapSwizzle value (0 to 6)");
      return;
    }
    if (interleave_ok_ && c_.interleave == Interleave::k32B && c_.swizzle != Swizzle::k32B) {
      fail("swizzle", -1, name(c_.swizzle),
           fmt::format("must be 32B when interleave = 32B{}", nearest({"32B"})));
      return;
    }
    // The packed types' lists; maps are checked for loads (16U6_ALIGN16B's 128B_ATOM_64B is
    // store-only, and every 16U4_ALIGN16B mode is load-only).
    if (type_ok_ && is_align16b(c_.data_type) && c_.swizzle != Swizzle::kNone &&
        c_.swizzle != Swizzle::k128B && c_.swizzle != Swizzle::k128BAtom32B) {
      const bool store_only =
          c_.data_type == DataType::k16U6Align16B && c_.swizzle == Swizzle::k128BAtom64B;
      fail("swizzle", -1, name(c_.swizzle),
           fmt::format("must be NONE, 128B or 128B_ATOM_32B when tensorDataType = {}{}",
                       name(c_.data_type),
                       store_only ? " (128B_ATOM_64B is store-only; tensor maps are checked for "
                                    "loads)"
                                  : ""));
    }
  }

  void check_l2_promotion() {
    if (!valid_enum(c_.l2_promotion)) {
      fail("l2Promotion", -1, dec(static_cast<unsigned>(c_.l2_promotion)),
           "not a CUtensorMapL2promotion value (0 to 3)");
    }
  }

  // A float fill value is one the text forms can write back (tensor_map_io.h): a NaN only as
  // the format's canonical one (what `.nan` reads as), a tf32 value with its 13 low bits 0.
  void check_float_fill(DataType t, std::uint64_t v) {
    const bool tf32 = t == DataType::kTfloat32 || t == DataType::kTfloat32Ftz;
    std::uint64_t exp = 0, frac = 0, canonical = 0;
    switch (element_bits(t)) {
      case 16:
        exp = t == DataType::kFloat16 ? 0x7C00 : 0x7F80;
        frac = t == DataType::kFloat16 ? 0x3FF : 0x7F;
        canonical = 0x7FFF;
        break;
      case 32:
        exp = 0x7F800000, frac = 0x7FFFFF, canonical = tf32 ? 0x7FFFE000 : 0x7FFFFFFF;
        break;
      default:
        exp = 0x7FF0000000000000, frac = 0xFFFFFFFFFFFFF, canonical = 0x7FFFFFFFFFFFFFFF;
        break;
    }
    if ((v & exp) == exp && (v & frac) != 0 && v != canonical) {
      fail("oobFillValue", -1, hex(v),
           fmt::format("a NaN other than {}'s canonical {} (the only NaN a fill value may be; "
                       "write .nan){}",
                       name(t), hex(canonical), nearest({hex(canonical)})));
    } else if (tf32 && (v & 0x1FFF) != 0) {
      fail("oobFillValue", -1, hex(v),
           fmt::format("not a {} value: its 13 low bits must be 0{}", name(t),
                       nearest({hex(v & ~std::uint64_t{0x1FFF})})));
    }
  }

  void check_oob_fill() {
    if (!valid_enum(c_.oob_fill)) {
      fail("oobFill", -1, dec(static_cast<unsigned>(c_.oob_fill)),
           "not a CUtensorMapFloatOOBfill value (0 to 1) or xpusim's CONSTANT (2)");
      return;
    }
    if (type_ok_ && c_.oob_fill == OobFill::kNanRequestZeroFma && !is_float(c_.data_type)) {
      fail("oobFill", -1, name(c_.oob_fill),
           fmt::format("needs a floating-point, non-packed tensorDataType, got {}{}",
                       name(c_.data_type), nearest({"NONE"})));
    }
    // seed0 ¶78-80: a programmed constant, one element of the tensor's type.
    if (type_ok_ && c_.oob_fill == OobFill::kConstant && is_packed(c_.data_type)) {
      fail("oobFill", -1, name(c_.oob_fill),
           fmt::format("needs a non-packed tensorDataType, got {}{}", name(c_.data_type),
                       nearest({"NONE"})));
      return;
    }
    if (c_.oob_fill != OobFill::kConstant && c_.oob_fill_value != 0) {
      fail("oobFillValue", -1, hex(c_.oob_fill_value),
           fmt::format("only an oobFill = CONSTANT map has a fill value, this one's is {}{}",
                       name(c_.oob_fill), nearest({"0"})));
    }
    if (type_ok_ && c_.oob_fill == OobFill::kConstant) {
      const std::uint32_t bits = element_bits(c_.data_type);
      if (bits < 64 && c_.oob_fill_value >> bits != 0) {
        fail("oobFillValue", -1, hex(c_.oob_fill_value),
             fmt::format("wider than the {} bits of a {} element", bits, name(c_.data_type)));
      } else if (is_float(c_.data_type)) {
        check_float_fill(c_.data_type, c_.oob_fill_value);
      }
    }
  }

 private:
  const Common& c_;
  std::vector<Violation> out_;
  bool type_ok_ = false;
  bool interleave_ok_ = false;
  bool swizzle_ok_ = false;
  bool rank_ok_ = false;
  bool dims_count_ok_ = false;
  std::vector<bool> dim_ok_;
};

template <class P>
Common common_of(const P& p, bool im2col) {
  return Common{p.data_type,       p.rank,       p.global_address, p.global_dim,   p.global_strides,
                p.element_strides, p.interleave, p.swizzle,        p.l2_promotion, p.oob_fill,
                p.oob_fill_value,  im2col};
}

template <class P>
void fill_common(TensorMap& m, const P& p) {
  m.data_type = p.data_type;
  m.rank = p.rank;
  m.global_address = p.global_address;
  std::copy(p.global_dim.begin(), p.global_dim.end(), m.global_dim.begin());
  std::copy(p.global_strides.begin(), p.global_strides.end(), m.global_strides.begin());
  std::copy(p.element_strides.begin(), p.element_strides.end(), m.element_strides.begin());
  m.interleave = p.interleave;
  m.swizzle = p.swizzle;
  m.l2_promotion = p.l2_promotion;
  m.oob_fill = p.oob_fill;
  m.oob_fill_value = p.oob_fill_value;
}

template <class P>
void read_common(P& p, const TensorMap& m) {
  p.data_type = m.data_type;
  p.rank = m.rank;
  p.global_address = m.global_address;
  p.global_dim.assign(m.global_dim.begin(), m.global_dim.begin() + m.rank);
  p.global_strides.assign(m.global_strides.begin(), m.global_strides.begin() + (m.rank - 1));
  p.element_strides.assign(m.element_strides.begin(), m.element_strides.begin() + m.rank);
  p.interleave = m.interleave;
  p.swizzle = m.swizzle;
  p.l2_promotion = m.l2_promotion;
  p.oob_fill = m.oob_fill;
  p.oob_fill_value = m.oob_fill_value;
}

Result<TensorMap> to_result(std::vector<Violation> violations) {
  std::vector<Error> errors;
  errors.reserve(violations.size());
  for (Violation& v : violations)
    errors.push_back(Error{std::move(v.message)});
  return errors;
}

}  // namespace

std::uint64_t packed_bytes(DataType t, std::uint64_t count) {
  return (count * element_bits(t) + 7) / 8;
}

std::vector<Violation> check_tiled(const TiledParams& p) {
  const Common c = common_of(p, false);
  Checker k(c);
  k.check_enums();
  k.check_rank();
  k.check_global_address();
  k.check_global_dim();
  k.check_global_strides();
  k.check_box_dim(p.box_dim);
  k.check_element_strides();
  k.check_interleave();
  k.check_swizzle();
  k.check_l2_promotion();
  k.check_oob_fill();
  return k.take();
}

std::vector<Violation> check_im2col(const Im2colParams& p) {
  const Common c = common_of(p, true);
  Checker k(c);
  k.check_enums();
  k.check_rank();
  k.check_global_address();
  k.check_global_dim();
  k.check_global_strides();
  k.check_corners(p.pixel_box_lower_corner, p.pixel_box_upper_corner);
  k.check_pixel_counts(p.channels_per_pixel, p.pixels_per_column);
  k.check_element_strides();
  k.check_interleave();
  k.check_swizzle();
  k.check_l2_promotion();
  k.check_oob_fill();
  return k.take();
}

Result<TensorMap> encode_tiled(const TiledParams& p) {
  if (auto v = check_tiled(p); !v.empty()) return to_result(std::move(v));
  TensorMap m;
  m.mode = Mode::kTiled;
  fill_common(m, p);
  std::copy(p.box_dim.begin(), p.box_dim.end(), m.box_dim.begin());
  return m;
}

Result<TensorMap> encode_im2col(const Im2colParams& p) {
  if (auto v = check_im2col(p); !v.empty()) return to_result(std::move(v));
  TensorMap m;
  m.mode = Mode::kIm2col;
  fill_common(m, p);
  std::copy(p.pixel_box_lower_corner.begin(), p.pixel_box_lower_corner.end(),
            m.pixel_box_lower_corner.begin());
  std::copy(p.pixel_box_upper_corner.begin(), p.pixel_box_upper_corner.end(),
            m.pixel_box_upper_corner.begin());
  m.channels_per_pixel = p.channels_per_pixel;
  m.pixels_per_column = p.pixels_per_column;
  return m;
}

TiledParams tiled_params(const TensorMap& map) {
  XPUSIM_CHECK(map.mode == Mode::kTiled && map.rank >= 1 && map.rank <= kMaxRank,
               "tiled_params needs a valid tiled map");
  TiledParams p;
  read_common(p, map);
  p.box_dim.assign(map.box_dim.begin(), map.box_dim.begin() + map.rank);
  return p;
}

Im2colParams im2col_params(const TensorMap& map) {
  XPUSIM_CHECK(map.mode == Mode::kIm2col && map.rank >= 3 && map.rank <= kMaxRank,
               "im2col_params needs a valid im2col map");
  Im2colParams p;
  read_common(p, map);
  p.pixel_box_lower_corner.assign(map.pixel_box_lower_corner.begin(),
                                  map.pixel_box_lower_corner.begin() + (map.rank - 2));
  p.pixel_box_upper_corner.assign(map.pixel_box_upper_corner.begin(),
                                  map.pixel_box_upper_corner.begin() + (map.rank - 2));
  p.channels_per_pixel = map.channels_per_pixel;
  p.pixels_per_column = map.pixels_per_column;
  return p;
}

std::vector<std::string> cuda_extensions(const TensorMap& m) {
  std::vector<std::string> out;
  if (m.oob_fill == OobFill::kConstant) {
    out.push_back(fmt::format(
        "oobFill = CONSTANT (oobFillValue = {:#x}): an xpusim extension (seed0 ¶78-80); "
        "CUtensorMapFloatOOBfill has only NONE and NAN_REQUEST_ZERO_FMA",
        m.oob_fill_value));
  }
  return out;
}

std::vector<std::string> overlapping_strides(const TensorMap& m) {
  std::vector<std::string> out;
  for (std::uint32_t i = 0; i + 1 < m.rank && i + 1 < kMaxRank; ++i) {
    const std::uint64_t s = m.global_strides[i];
    std::uint64_t need = 0;  // saturates at 2^64 - 1
    std::string formula;
    if (i == 0) {
      need = packed_bytes(m.data_type, m.global_dim[0]);
      formula = fmt::format("globalDim[0] x {} = {}", element_size_text(m.data_type),
                            size_text(m.data_type, m.global_dim[0]));
    } else {
      if (__builtin_mul_overflow(m.global_strides[i - 1], m.global_dim[i], &need))
        need = UINT64_MAX;
      formula = fmt::format(
          "globalStrides[{}] x globalDim[{}] = {} x {} = {}", i - 1, i, m.global_strides[i - 1],
          m.global_dim[i], need == UINT64_MAX ? std::string("2^64 or more") : std::to_string(need));
    }
    if (s >= need) continue;
    out.push_back(fmt::format(
        "globalStrides[{}] = {} is less than {}, the extent of dimension {}: dimensions {} and {} "
        "overlap (an aliasing view; the driver accepts it)",
        i, s, formula, i, i, i + 1));
  }
  return out;
}

}  // namespace xpusim::tma
