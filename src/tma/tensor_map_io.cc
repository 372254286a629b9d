// YAML and JSON forms of a TensorMap. Everything read goes back through the encoder.
#include "tma/tensor_map_io.h"

#include <algorithm>
#include <bit>
#include <cctype>
#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>
#include <nlohmann/json.hpp>

#include "config/yaml_node.h"
#include "sim/file_read.h"
#include "sim/float_formats.h"
#include "sim/one_line.h"
#include "sim/suggest.h"
#include "tma/load_convert.h"
#include "tma/tensor_map_encode.h"

namespace xpusim::tma {
namespace {

// ---- enum names -----------------------------------------------------------------------------

template <class E>
std::vector<std::string> names_of(unsigned count) {
  std::vector<std::string> out;
  for (unsigned i = 0; i < count; ++i)
    out.emplace_back(name(static_cast<E>(i)));
  return out;
}

// cuda.h's enumerator prefix, accepted in front of a short name.
template <class E>
std::string_view cuda_prefix();
template <>
std::string_view cuda_prefix<DataType>() {
  return "CU_TENSOR_MAP_DATA_TYPE_";
}
template <>
std::string_view cuda_prefix<Interleave>() {
  return "CU_TENSOR_MAP_INTERLEAVE_";
}
template <>
std::string_view cuda_prefix<Swizzle>() {
  return "CU_TENSOR_MAP_SWIZZLE_";
}
template <>
std::string_view cuda_prefix<L2Promotion>() {
  return "CU_TENSOR_MAP_L2_PROMOTION_";
}
template <>
std::string_view cuda_prefix<OobFill>() {
  return "CU_TENSOR_MAP_FLOAT_OOB_FILL_";
}

// ---- document reader ------------------------------------------------------------------------

using Pos = config::SourcePos;
Pos pos_of(const YAML::Mark& m) {
  return config::yaml_pos(m);
}

std::string describe(const YAML::Node& node) {
  return config::describe_yaml_node(node);
}

enum class Kind {
  kMode,
  kDataType,
  kInterleave,
  kSwizzle,
  kL2Promotion,
  kOobFill,
  kFillValue,
  kU32,
  kU64,
  kU32List,
  kU64List,
  kI32List
};

// Which maps a key belongs to.
enum class Modes { kBoth, kTiled, kIm2col };

// The one table of a tensor map file's keys: the reader checks against it and
// tensor_map_schema() prints it.
struct KeyDecl {
  std::string_view key;
  Kind kind;
  Modes modes;
  bool required;
  std::string_view cuda_param;  // the encoder's name for it
  std::string_view description;
};

// How many names each enum has (tensor_map.h).
constexpr unsigned kDataTypes = 16, kInterleaves = 3, kSwizzles = 7, kL2Promotions = 4,
                   kOobFills = 3;

constexpr KeyDecl kKeys[] = {
    {"mode", Kind::kMode, Modes::kBoth, false, "mode",
     "tiled (the default) or im2col; it decides which box keys the map takes"},
    {"dataType", Kind::kDataType, Modes::kBoth, true, "tensorDataType",
     "The element type, with or without cuda.h's CU_TENSOR_MAP_DATA_TYPE_ prefix"},
    {"rank", Kind::kU32, Modes::kBoth, true, "tensorRank", "Dimensions, 1 to 5 (im2col: 3 to 5)"},
    {"globalAddress", Kind::kU64, Modes::kBoth, true, "globalAddress",
     "The tensor's base address, 16-byte aligned; decimal or 0x hex"},
    {"globalDim", Kind::kU64List, Modes::kBoth, true, "globalDim",
     "Elements per dimension, innermost first"},
    {"globalStrides", Kind::kU64List, Modes::kBoth, false, "globalStrides",
     "Bytes between consecutive indices of dimensions 1.. (rank - 1 entries; required from "
     "rank 2)"},
    {"boxDim", Kind::kU32List, Modes::kTiled, true, "boxDim",
     "Tiled maps: the box's elements per dimension"},
    {"pixelBoxLowerCorner", Kind::kI32List, Modes::kIm2col, true, "pixelBoxLowerCorner",
     "im2col maps: the bounding box's lower corner offsets (rank - 2 entries)"},
    {"pixelBoxUpperCorner", Kind::kI32List, Modes::kIm2col, true, "pixelBoxUpperCorner",
     "im2col maps: the bounding box's upper corner offsets (rank - 2 entries)"},
    {"channelsPerPixel", Kind::kU32, Modes::kIm2col, true, "channelsPerPixel",
     "im2col maps: channels loaded per pixel"},
    {"pixelsPerColumn", Kind::kU32, Modes::kIm2col, true, "pixelsPerColumn",
     "im2col maps: pixels loaded per column"},
    {"elementStrides", Kind::kU32List, Modes::kBoth, false, "elementStrides",
     "Traversal stride per dimension (default: all 1)"},
    {"interleave", Kind::kInterleave, Modes::kBoth, false, "interleave",
     "Interleaved layout (cuda.h CU_TENSOR_MAP_INTERLEAVE_*)"},
    {"swizzle", Kind::kSwizzle, Modes::kBoth, false, "swizzle",
     "Shared-memory swizzle (cuda.h CU_TENSOR_MAP_SWIZZLE_*)"},
    {"l2Promotion", Kind::kL2Promotion, Modes::kBoth, false, "l2Promotion",
     "L2 promotion of the loads (cuda.h CU_TENSOR_MAP_L2_PROMOTION_*)"},
    {"oobFill", Kind::kOobFill, Modes::kBoth, false, "oobFill",
     "What out-of-bounds elements read (cuda.h CU_TENSOR_MAP_FLOAT_OOB_FILL_*, or CONSTANT: "
     "oobFillValue, an xpusim extension)"},
    {"oobFillValue", Kind::kFillValue, Modes::kBoth, false, "oobFillValue",
     "oobFill: CONSTANT only (xpusim extension, seed0 ¶78-80): the value out-of-bounds elements "
     "read, a number of the map's dataType (floats rounded to nearest even; .nan, .inf, -.inf)"},
};

bool applies(const KeyDecl& k, Mode mode) {
  return k.modes == Modes::kBoth || (k.modes == Modes::kTiled) == (mode == Mode::kTiled);
}

std::string_view mode_name(Mode m) {
  return m == Mode::kTiled ? "tiled" : "im2col";
}

// An oobFillValue's bits as the number the reader takes back to the same bits.
// A float type's fill value as a double (exact: every value of these formats is a double).
double fill_value_double(DataType t, std::uint64_t bits) {
  const auto b32 = static_cast<std::uint32_t>(bits);
  const auto b16 = static_cast<std::uint16_t>(bits);
  return t == DataType::kFloat64    ? std::bit_cast<double>(bits)
         : t == DataType::kFloat16  ? half_to_float(b16)
         : t == DataType::kBfloat16 ? bf16_to_float(b16)
                                    : std::bit_cast<float>(b32);
}

std::string fill_value_text(DataType t, std::uint64_t bits) {
  if (!is_float(t)) {
    if (t == DataType::kInt32) return fmt::format("{}", static_cast<std::int32_t>(bits));
    if (t == DataType::kInt64) return fmt::format("{}", static_cast<std::int64_t>(bits));
    return fmt::format("{}", bits);
  }
  const double d = fill_value_double(t, bits);
  if (std::isnan(d)) return ".nan";
  if (std::isinf(d)) return d < 0 ? "-.inf" : ".inf";
  return fmt::format("{}", d);
}

// Reads one document into encoder parameters, recording where each value came from.
class MapReader {
 public:
  MapReader(std::string source, bool with_positions)
      : source_(std::move(source)), with_positions_(with_positions) {}

  Result<TensorMap> read(const std::string& text) {
    YAML::Node root;
    try {
      root = YAML::Load(text);
    } catch (const YAML::Exception& e) {
      error(pos_of(e.mark), "", fmt::format("YAML syntax error: {}", e.msg));
      return take_errors();
    }
    if (!root.IsMap()) {
      error(root.IsNull() ? Pos{1, 1} : pos_of(root.Mark()), "",
            fmt::format("expected a mapping with keys {}, got {}", key_list(Mode::kTiled),
                        describe(root)));
      return take_errors();
    }
    root_pos_ = pos_of(root.Mark());
    walk(root);
    if (!errors_.empty()) return take_errors();
    return encode();
  }

 private:
  struct Entry {
    Pos pos;
    std::string text;
  };

  void error(Pos pos, std::string_view key, std::string_view message) {
    std::string text = source_;
    if (with_positions_ && pos.line > 0) text += fmt::format(":{}:{}", pos.line, pos.column);
    text += ": ";
    if (!key.empty()) text += fmt::format("{}: ", key);
    text += message;
    // Keys and values are quoted as the user wrote them, line breaks included.
    errors_.push_back(Entry{pos, sim::one_line(text)});
  }

  std::vector<Error> take_errors() {
    std::stable_sort(errors_.begin(), errors_.end(), [](const Entry& a, const Entry& b) {
      return std::pair(a.pos.line, a.pos.column) < std::pair(b.pos.line, b.pos.column);
    });
    std::vector<Error> out;
    for (Entry& e : errors_)
      out.push_back(Error{std::move(e.text)});
    return out;
  }

  static std::string key_list(Mode mode) {
    std::vector<std::string_view> keys;
    for (const KeyDecl& k : kKeys)
      if (applies(k, mode)) keys.push_back(k.key);
    return fmt::format("{}", fmt::join(keys, ", "));
  }

  void walk(const YAML::Node& root) {
    // The mode decides which keys belong, so it is read first.
    for (const auto& kv : root) {
      if (kv.first.IsScalar() && kv.first.Scalar() == "mode") {
        const YAML::Node& v = kv.second;
        if (v.IsScalar() && (v.Scalar() == "tiled" || v.Scalar() == "im2col")) {
          mode_ = v.Scalar() == "tiled" ? Mode::kTiled : Mode::kIm2col;
        } else {
          error(value_pos(v, pos_of(kv.first.Mark())), "mode",
                fmt::format("{} is not one of tiled, im2col", describe(v)));
          mode_ok_ = false;
        }
      }
    }
    std::vector<std::string> valid;
    for (const KeyDecl& k : kKeys)
      if (applies(k, mode_)) valid.emplace_back(k.key);
    std::map<std::string, Pos> seen;
    for (const auto& kv : root) {
      const Pos key_pos = pos_of(kv.first.Mark());
      if (!kv.first.IsScalar()) {
        error(key_pos, "", fmt::format("keys must be plain strings, got {}", describe(kv.first)));
        continue;
      }
      const std::string& key = kv.first.Scalar();
      if (auto [it, fresh] = seen.emplace(key, key_pos); !fresh) {
        error(key_pos, key, fmt::format("duplicate key; first given at line {}", it->second.line));
        continue;
      }
      const KeyDecl* decl = nullptr;
      for (const KeyDecl& k : kKeys)
        if (k.key == key) decl = &k;
      if (decl == nullptr) {
        error(key_pos, key,
              fmt::format("unknown key '{}'{}; valid keys here: {}", key,
                          sim::did_you_mean(key, valid), key_list(mode_)));
        continue;
      }
      if (!mode_ok_) continue;
      if (!applies(*decl, mode_)) {
        error(key_pos, key,
              decl->modes == Modes::kIm2col
                  ? fmt::format("only an im2col map has this key (add 'mode: im2col')")
                  : fmt::format("not used by an im2col map, whose box is pixelBoxLowerCorner, "
                                "pixelBoxUpperCorner, channelsPerPixel and pixelsPerColumn"));
        continue;
      }
      if (decl->kind == Kind::kMode) continue;
      value_pos_[std::string(decl->cuda_param)] = value_pos(kv.second, key_pos);
      read_value(*decl, kv.second, key_pos);
    }
    if (!mode_ok_) return;
    for (const KeyDecl& k : kKeys) {
      if (!applies(k, mode_) || seen.contains(std::string(k.key))) continue;
      if (k.required) {
        error(root_pos_, k.key, fmt::format("missing required key '{}'", k.key));
      } else if (k.key == "globalStrides" && rank_ && *rank_ >= 2) {
        error(root_pos_, k.key,
              fmt::format("missing key 'globalStrides' (rank = {} needs rank - 1 = {} "
                          "stride{}, in bytes)",
                          *rank_, *rank_ - 1, *rank_ == 2 ? "" : "s"));
      }
    }
  }

  static Pos value_pos(const YAML::Node& v, Pos key_pos) {
    return v.IsNull() ? key_pos : pos_of(v.Mark());
  }

  // Integers: decimal or 0x hex; '-' only where the parameter is signed.
  std::optional<std::int64_t> read_int(const YAML::Node& v, const std::string& path, Pos pos,
                                       std::int64_t lo, std::uint64_t hi,
                                       std::uint64_t* wide = nullptr) {
    if (!v.IsScalar()) {
      error(pos, path, fmt::format("expected an integer, got {}", describe(v)));
      return std::nullopt;
    }
    std::string_view s = v.Scalar();
    const bool negative = s.starts_with('-');
    if (negative) s.remove_prefix(1);
    int base = 10;
    if (s.starts_with("0x") || s.starts_with("0X")) {
      base = 16;
      s.remove_prefix(2);
    }
    std::uint64_t mag = 0;
    bool digits = !s.empty();
    for (char c : s) {
      const int d = std::isdigit(static_cast<unsigned char>(c)) ? c - '0'
                    : base == 16 && std::isxdigit(static_cast<unsigned char>(c))
                        ? std::tolower(static_cast<unsigned char>(c)) - 'a' + 10
                        : -1;
      if (d < 0) {
        digits = false;
        break;
      }
      if (__builtin_mul_overflow(mag, static_cast<std::uint64_t>(base), &mag) ||
          __builtin_add_overflow(mag, static_cast<std::uint64_t>(d), &mag)) {
        error(pos, path, fmt::format("{} does not fit in 64 bits", v.Scalar()));
        return std::nullopt;
      }
    }
    if (!digits) {
      error(pos, path, fmt::format("expected an integer, got {}", describe(v)));
      return std::nullopt;
    }
    const bool below = negative && (lo >= 0 || mag > static_cast<std::uint64_t>(-(lo + 1)) + 1);
    if (below || (!negative && mag > hi)) {
      error(pos, path, fmt::format("{} is out of range [{}, {}]", v.Scalar(), lo, hi));
      return std::nullopt;
    }
    if (wide != nullptr) *wide = mag;
    return negative ? -static_cast<std::int64_t>(mag) : static_cast<std::int64_t>(mag & INT64_MAX);
  }

  template <class T>
  bool read_list(const KeyDecl& k, const YAML::Node& v, Pos key_pos, std::vector<T>& out) {
    const Pos pos = value_pos(v, key_pos);
    const std::string key(k.key);
    if (!v.IsSequence()) {
      error(pos, key, fmt::format("expected a sequence of integers, got {}", describe(v)));
      return false;
    }
    bool good = true;
    for (std::size_t i = 0; i < v.size(); ++i) {
      const YAML::Node item = v[i];
      const Pos ipos = value_pos(item, pos);
      const std::string path = fmt::format("{}[{}]", key, i);
      value_pos_[fmt::format("{}[{}]", k.cuda_param, i)] = ipos;
      std::uint64_t wide = 0;
      const auto n = read_int(item, path, ipos, std::numeric_limits<T>::min(),
                              std::numeric_limits<T>::max(), &wide);
      if (!n) {
        good = false;
        continue;
      }
      out.push_back(std::is_signed_v<T> ? static_cast<T>(*n) : static_cast<T>(wide));
    }
    return good;
  }

  template <class E>
  void read_enum(const KeyDecl& k, const YAML::Node& v, Pos pos, unsigned count, E& out) {
    const std::vector<std::string> choices = names_of<E>(count);
    if (v.IsScalar()) {
      std::string_view s = v.Scalar();
      if (s.starts_with(cuda_prefix<E>())) s.remove_prefix(cuda_prefix<E>().size());
      for (unsigned i = 0; i < count; ++i) {
        if (choices[i] == s) {
          out = static_cast<E>(i);
          return;
        }
      }
    }
    const std::string word = v.IsScalar() ? v.Scalar() : "";
    error(pos, k.key,
          fmt::format("{} is not one of {}{}", describe(v), fmt::join(choices, ", "),
                      sim::did_you_mean(word, choices)));
  }

  void read_value(const KeyDecl& k, const YAML::Node& v, Pos key_pos) {
    const Pos pos = value_pos(v, key_pos);
    const std::string key(k.key);
    std::uint64_t wide = 0;
    switch (k.kind) {
      case Kind::kMode:
        return;
      case Kind::kDataType:
        return read_enum(k, v, pos, kDataTypes, data_type_);
      case Kind::kInterleave:
        return read_enum(k, v, pos, kInterleaves, interleave_);
      case Kind::kSwizzle:
        return read_enum(k, v, pos, kSwizzles, swizzle_);
      case Kind::kL2Promotion:
        return read_enum(k, v, pos, kL2Promotions, l2_promotion_);
      case Kind::kOobFill:
        return read_enum(k, v, pos, kOobFills, oob_fill_);
      case Kind::kFillValue:
        fill_node_ = v;
        fill_pos_ = pos;
        return;
      case Kind::kU64:
        if (read_int(v, key, pos, 0, UINT64_MAX, &wide)) global_address_ = wide;
        return;
      case Kind::kU32:
        if (!read_int(v, key, pos, 0, UINT32_MAX, &wide)) return;
        if (key == "rank") rank_ = static_cast<std::uint32_t>(wide);
        if (key == "channelsPerPixel") channels_ = static_cast<std::uint32_t>(wide);
        if (key == "pixelsPerColumn") pixels_ = static_cast<std::uint32_t>(wide);
        return;
      case Kind::kU64List:
        read_list(k, v, key_pos, key == "globalDim" ? global_dim_ : global_strides_);
        return;
      case Kind::kU32List:
        if (key == "boxDim") {
          read_list(k, v, key_pos, box_dim_);
        } else if (read_list(k, v, key_pos, element_strides_)) {
          element_strides_given_ = true;
        }
        return;
      case Kind::kI32List:
        read_list(k, v, key_pos, key == "pixelBoxLowerCorner" ? lower_ : upper_);
        return;
    }
  }

  // Positions an encoder violation at the value it names (the whole key when it is absent).
  Pos where(const Violation& v) const {
    if (v.index >= 0) {
      auto it = value_pos_.find(fmt::format("{}[{}]", v.param, v.index));
      if (it != value_pos_.end()) return it->second;
    }
    auto it = value_pos_.find(v.param);
    return it != value_pos_.end() ? it->second : root_pos_;
  }

  template <class P>
  void fill(P& p) const {
    p.data_type = data_type_;
    p.rank = rank_.value_or(0);
    p.global_address = global_address_;
    p.global_dim = global_dim_;
    p.global_strides = global_strides_;
    // elementStrides defaults to all ones (what CUTLASS passes).
    p.element_strides = element_strides_given_
                            ? element_strides_
                            : std::vector<std::uint32_t>(p.rank <= kMaxRank ? p.rank : 0, 1);
    p.interleave = interleave_;
    p.swizzle = swizzle_;
    p.l2_promotion = l2_promotion_;
    p.oob_fill = oob_fill_;
  }

  // oobFillValue as an element of the map's dataType: its bits (seed0 ¶78-80).
  std::optional<std::uint64_t> fill_value_bits() {
    const YAML::Node& v = *fill_node_;
    const DataType t = data_type_;
    const std::uint32_t bits = element_bits(t);
    if (is_packed(t)) return 0;  // the encoder refuses CONSTANT for packed types
    if (!is_float(t)) {
      const bool is_signed = t == DataType::kInt32 || t == DataType::kInt64;
      const std::uint64_t top = bits == 64 ? UINT64_MAX : (std::uint64_t{1} << bits) - 1;
      const std::int64_t lo = is_signed ? -static_cast<std::int64_t>(top >> 1) - 1 : 0;
      const std::uint64_t hi = is_signed ? top >> 1 : top;
      std::uint64_t wide = 0;
      const auto n = read_int(v, "oobFillValue", fill_pos_, lo, hi, &wide);
      if (!n) return std::nullopt;
      const std::uint64_t b = *n < 0 ? static_cast<std::uint64_t>(*n) : wide;
      return bits == 64 ? b : b & top;
    }
    std::string text = v.IsScalar() ? v.Scalar() : "";
    std::transform(text.begin(), text.end(), text.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    const bool minus = text.starts_with('-');
    std::string_view body(text);
    if (minus || body.starts_with('+')) body.remove_prefix(1);
    if (body.starts_with('.')) body.remove_prefix(body == ".nan" || body == ".inf" ? 1 : 0);
    double d = 0;
    if (body == "nan") {
      d = std::numeric_limits<double>::quiet_NaN();
    } else if (body == "inf") {
      d = minus ? -std::numeric_limits<double>::infinity()
                : std::numeric_limits<double>::infinity();
    } else {
      const char* end = text.data() + text.size();
      const char* from = text.starts_with('+') ? text.data() + 1 : text.data();
      const auto [ptr, ec] = std::from_chars(from, end, d);
      if (text.empty() || ec != std::errc() || ptr != end) {
        error(fill_pos_, "oobFillValue",
              fmt::format("expected a number (or .nan, .inf, -.inf) for a {} map, got {}", name(t),
                          describe(v)));
        return std::nullopt;
      }
    }
    const double max = t == DataType::kFloat16    ? 65504.0
                       : t == DataType::kBfloat16 ? 0x1.FEp127
                       : t == DataType::kFloat64  ? std::numeric_limits<double>::max()
                                                  : std::numeric_limits<float>::max();
    if (std::isfinite(d) && std::fabs(d) > max) {
      error(fill_pos_, "oobFillValue",
            fmt::format("{} is outside the finite range of {} (magnitude at most {}); write .inf "
                        "for infinity",
                        v.Scalar(), name(t), max));
      return std::nullopt;
    }
    switch (t) {
      case DataType::kFloat64:
        return std::isnan(d) ? 0x7FFFFFFFFFFFFFFFull : std::bit_cast<std::uint64_t>(d);
      case DataType::kFloat16:
        return float_to_half(static_cast<float>(d));
      case DataType::kBfloat16:
        return float_to_bf16(static_cast<float>(d));
      default: {  // FLOAT32(_FTZ), TFLOAT32(_FTZ): NaN is the canonical 0x7FFFFFFF
        const std::uint32_t f =
            std::isnan(d) ? 0x7FFFFFFFu : std::bit_cast<std::uint32_t>(static_cast<float>(d));
        return load_converts(t) ? round_to_tf32(f) : f;
      }
    }
  }

  Result<TensorMap> encode() {
    std::uint64_t fill_value = 0;
    if (fill_node_ && oob_fill_ != OobFill::kConstant) {
      error(fill_pos_, "oobFillValue",
            fmt::format("only an 'oobFill: CONSTANT' map has a fill value (oobFill is {})",
                        name(oob_fill_)));
    } else if (!fill_node_ && oob_fill_ == OobFill::kConstant) {
      error(where(Violation{.param = "oobFill", .index = -1, .message = ""}), "oobFill",
            "CONSTANT needs 'oobFillValue', the value out-of-bounds elements read");
    } else if (fill_node_) {
      if (auto b = fill_value_bits()) fill_value = *b;
    }
    if (!errors_.empty()) return take_errors();
    std::vector<Violation> violations;
    if (mode_ == Mode::kTiled) {
      TiledParams p;
      fill(p);
      p.oob_fill_value = fill_value;
      p.box_dim = box_dim_;
      violations = check_tiled(p);
      if (violations.empty()) return encode_tiled(p);
    } else {
      Im2colParams p;
      fill(p);
      p.oob_fill_value = fill_value;
      p.pixel_box_lower_corner = lower_;
      p.pixel_box_upper_corner = upper_;
      p.channels_per_pixel = channels_;
      p.pixels_per_column = pixels_;
      violations = check_im2col(p);
      if (violations.empty()) return encode_im2col(p);
    }
    for (const Violation& v : violations)
      error(where(v), "", v.message);
    return take_errors();
  }

  std::string source_;
  bool with_positions_;
  std::vector<Entry> errors_;
  Pos root_pos_{1, 1};
  std::map<std::string, Pos> value_pos_;  // by cuda.h parameter name, and "name[i]"

  Mode mode_ = Mode::kTiled;
  bool mode_ok_ = true;
  DataType data_type_ = DataType::kUint8;
  std::optional<std::uint32_t> rank_;
  std::uint64_t global_address_ = 0;
  std::vector<std::uint64_t> global_dim_, global_strides_;
  std::vector<std::uint32_t> box_dim_, element_strides_;
  bool element_strides_given_ = false;
  std::vector<std::int32_t> lower_, upper_;
  std::uint32_t channels_ = 0, pixels_ = 0;
  Interleave interleave_ = Interleave::kNone;
  Swizzle swizzle_ = Swizzle::kNone;
  L2Promotion l2_promotion_ = L2Promotion::kNone;
  OobFill oob_fill_ = OobFill::kNone;
  std::optional<YAML::Node> fill_node_;
  Pos fill_pos_{1, 1};
};

template <class T, std::size_t N>
std::vector<T> first(const std::array<T, N>& a, std::size_t n) {
  return std::vector<T>(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(n));
}

Result<TensorMap> parse_json_text(std::string_view text, std::string_view source, bool positions) {
  try {
    [[maybe_unused]] const nlohmann::json parsed = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    // Position of the byte nlohmann stopped at (e.byte is 1-based).
    int line = 1, column = 1;
    for (std::size_t i = 0; i + 1 < e.byte && i < text.size(); ++i) {
      if (text[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    std::string msg = e.what();
    if (auto colon = msg.find(": "); colon != std::string::npos) msg = msg.substr(colon + 2);
    const std::string where =
        positions ? fmt::format("{}:{}:{}", source, line, column) : std::string(source);
    // The message quotes the text nlohmann stopped at.
    return Error{sim::one_line(fmt::format("{}: JSON syntax error: {}", where, msg))};
  } catch (const nlohmann::json::exception& e) {
    // Valid syntax nlohmann cannot hold, e.g. a number beyond a double ("1e400"): no position.
    std::string msg = e.what();
    if (auto bracket = msg.find("] "); bracket != std::string::npos) msg = msg.substr(bracket + 2);
    return Error{sim::one_line(fmt::format("{}: JSON error: {}", source, msg))};
  }
  // JSON is YAML's flow style; YAML forbids tabs as indentation, JSON strings cannot hold a
  // raw tab, so every tab is plain whitespace and may become a space (columns unchanged).
  std::string as_yaml(text);
  std::replace(as_yaml.begin(), as_yaml.end(), '\t', ' ');
  return MapReader(std::string(source), positions).read(as_yaml);
}

}  // namespace

std::string to_yaml(const TensorMap& m) {
  const auto list = [](const auto& v) { return fmt::format("[{}]", fmt::join(v, ", ")); };
  const std::size_t r = m.rank;
  std::string out;
  out += fmt::format("mode: {}\n", mode_name(m.mode));
  out += fmt::format("dataType: {}\n", name(m.data_type));
  out += fmt::format("rank: {}\n", m.rank);
  out += fmt::format("globalAddress: {:#x}\n", m.global_address);
  out += fmt::format("globalDim: {}\n", list(first(m.global_dim, r)));
  out += fmt::format("globalStrides: {}\n", list(first(m.global_strides, r - 1)));
  if (m.mode == Mode::kTiled) {
    out += fmt::format("boxDim: {}\n", list(first(m.box_dim, r)));
  } else {
    out += fmt::format("pixelBoxLowerCorner: {}\n", list(first(m.pixel_box_lower_corner, r - 2)));
    out += fmt::format("pixelBoxUpperCorner: {}\n", list(first(m.pixel_box_upper_corner, r - 2)));
    out += fmt::format("channelsPerPixel: {}\n", m.channels_per_pixel);
    out += fmt::format("pixelsPerColumn: {}\n", m.pixels_per_column);
  }
  out += fmt::format("elementStrides: {}\n", list(first(m.element_strides, r)));
  out += fmt::format("interleave: {}\n", name(m.interleave));
  out += fmt::format("swizzle: {}\n", name(m.swizzle));
  out += fmt::format("l2Promotion: {}\n", name(m.l2_promotion));
  out += fmt::format("oobFill: {}\n", name(m.oob_fill));
  if (m.oob_fill == OobFill::kConstant) {
    out += fmt::format("oobFillValue: {}\n", fill_value_text(m.data_type, m.oob_fill_value));
  }
  return out;
}

nlohmann::json to_json(const TensorMap& m) {
  const std::size_t r = m.rank;
  nlohmann::json j;
  j["mode"] = mode_name(m.mode);
  j["dataType"] = name(m.data_type);
  j["rank"] = m.rank;
  j["globalAddress"] = m.global_address;
  j["globalDim"] = first(m.global_dim, r);
  j["globalStrides"] = first(m.global_strides, r - 1);
  if (m.mode == Mode::kTiled) {
    j["boxDim"] = first(m.box_dim, r);
  } else {
    j["pixelBoxLowerCorner"] = first(m.pixel_box_lower_corner, r - 2);
    j["pixelBoxUpperCorner"] = first(m.pixel_box_upper_corner, r - 2);
    j["channelsPerPixel"] = m.channels_per_pixel;
    j["pixelsPerColumn"] = m.pixels_per_column;
  }
  j["elementStrides"] = first(m.element_strides, r);
  j["interleave"] = name(m.interleave);
  j["swizzle"] = name(m.swizzle);
  j["l2Promotion"] = name(m.l2_promotion);
  j["oobFill"] = name(m.oob_fill);
  if (m.oob_fill == OobFill::kConstant) {
    const std::string text = fill_value_text(m.data_type, m.oob_fill_value);
    // JSON has no NaN or infinity: those stay strings, which the reader takes.
    if (text == ".nan" || text == ".inf" || text == "-.inf") {
      j["oobFillValue"] = text == ".nan" ? "nan" : text == ".inf" ? "inf" : "-inf";
    } else if (is_float(m.data_type)) {
      // From the bits, not the text: std::stod refuses subnormals (tma_blob_fuzz).
      j["oobFillValue"] = fill_value_double(m.data_type, m.oob_fill_value);
    } else if (m.data_type == DataType::kInt32) {
      j["oobFillValue"] = static_cast<std::int32_t>(m.oob_fill_value);
    } else if (m.data_type == DataType::kInt64) {
      j["oobFillValue"] = static_cast<std::int64_t>(m.oob_fill_value);
    } else {
      j["oobFillValue"] = m.oob_fill_value;
    }
  }
  return j;
}

Result<TensorMap> parse_tensor_map_yaml(std::string_view text, std::string_view source_name) {
  return MapReader(std::string(source_name), true).read(std::string(text));
}

Result<TensorMap> parse_tensor_map_json(std::string_view text, std::string_view source_name) {
  return parse_json_text(text, source_name, true);
}

Result<TensorMap> from_json(const nlohmann::json& json) {
  // Positions in text the caller never saw would mislead, so errors name only the key.
  return parse_json_text(json.dump(), "<json>", false);
}

Result<TensorMap> load_tensor_map_file(const std::filesystem::path& path) {
  const std::string ext = path.extension().string();
  const bool json = ext == ".json";
  if (!json && ext != ".yaml" && ext != ".yml") {
    return Error{
        fmt::format("{}: unknown tensor map file extension '{}' (use .yaml, .yml or .json)",
                    path.string(), ext)};
  }
  auto text = read_file_bounded(path, "tensor map file");
  if (!text) return text.errors();
  return json ? parse_tensor_map_json(*text, path.string())
              : parse_tensor_map_yaml(*text, path.string());
}

nlohmann::ordered_json tensor_map_schema() {
  using Json = nlohmann::ordered_json;
  Json props = Json::object();
  Json required = Json::array();
  const auto names = [](std::vector<std::string> v) {
    Json out = Json::array();
    for (std::string& n : v)
      out.push_back(std::move(n));
    return out;
  };
  for (const KeyDecl& k : kKeys) {
    Json node = Json::object();
    switch (k.kind) {
      case Kind::kMode:
        node = {{"type", "string"}, {"enum", {"tiled", "im2col"}}, {"default", "tiled"}};
        break;
      case Kind::kDataType:
        node = {{"type", "string"}, {"enum", names(names_of<DataType>(kDataTypes))}};
        break;
      case Kind::kInterleave:
        node = {{"type", "string"}, {"enum", names(names_of<Interleave>(kInterleaves))}};
        break;
      case Kind::kSwizzle:
        node = {{"type", "string"}, {"enum", names(names_of<Swizzle>(kSwizzles))}};
        break;
      case Kind::kL2Promotion:
        node = {{"type", "string"}, {"enum", names(names_of<L2Promotion>(kL2Promotions))}};
        break;
      case Kind::kOobFill:
        node = {{"type", "string"}, {"enum", names(names_of<OobFill>(kOobFills))}};
        break;
      case Kind::kFillValue:
        node = {{"type", Json::array({"number", "string"})}};
        break;
      case Kind::kU32:
        node = {{"type", "integer"}, {"minimum", 0}, {"maximum", UINT32_MAX}};
        break;
      case Kind::kU64:
        node = {{"type", Json::array({"integer", "string"})}, {"minimum", 0}};
        break;
      case Kind::kU32List:
        node = {{"type", "array"},
                {"items", {{"type", "integer"}, {"minimum", 0}, {"maximum", UINT32_MAX}}}};
        break;
      case Kind::kU64List:
        node = {{"type", "array"}, {"items", {{"type", "integer"}, {"minimum", 0}}}};
        break;
      case Kind::kI32List:
        node = {{"type", "array"},
                {"items", {{"type", "integer"}, {"minimum", INT32_MIN}, {"maximum", INT32_MAX}}}};
        break;
    }
    // A key both modes need is required; a mode's own keys say so in their description.
    if (k.kind >= Kind::kInterleave && k.kind <= Kind::kOobFill) node["default"] = node["enum"][0];
    node["description"] = k.description;
    node["x-modes"] = k.modes == Modes::kBoth    ? Json::array({"tiled", "im2col"})
                      : k.modes == Modes::kTiled ? Json::array({"tiled"})
                                                 : Json::array({"im2col"});
    if (k.required && k.modes == Modes::kBoth) required.push_back(k.key);
    props[std::string(k.key)] = std::move(node);
  }
  return {{"$schema", "https://json-schema.org/draft/2020-12/schema"},
          {"title", "xpusim tensor map"},
          {"description",
           "A tensor map file (YAML or JSON) xpusim tma lint, copy and layout read; keys as "
           "cuda.h's cuTensorMapEncode parameters (docs/tma.md)"},
          {"type", "object"},
          {"properties", std::move(props)},
          {"required", std::move(required)},
          {"additionalProperties", false}};
}

}  // namespace xpusim::tma
