#include "tma_case.h"

#include <fmt/format.h>

#include <charconv>
#include <fstream>
#include <sstream>

#include "mem/global_memory.h"
#include "mem/shared_memory.h"
#include "tma/copy_engine.h"
#include "tma/tensor_map_encode.h"

namespace xpusim::silicon {

std::uint64_t splitmix64(std::uint64_t i) {
  std::uint64_t z = i * 0x9E3779B97F4A7C15ull + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

std::uint32_t special_f32(std::uint64_t j) {
  const std::uint64_t r = splitmix64(j ^ 0x5EC1A1ull);
  const std::uint32_t sign = static_cast<std::uint32_t>(r >> 63) << 31;
  const std::uint32_t exp = static_cast<std::uint32_t>((r >> 40) % 254 + 1) << 23;
  const std::uint32_t mant = static_cast<std::uint32_t>(r >> 8) & 0x7FFFFF;
  switch (r % 8) {
    case 0:
      return sign | mant;  // denormal
    case 1:
      return sign | exp | (mant & ~0x1FFFu) | 0x1000;  // a tf32 tie
    case 2:
      return sign | exp | (mant & ~0x1FFFu) | 0x1001;  // just above it
    case 3:
      return sign | exp | (mant & ~0x1FFFu) | 0x0FFF;  // just below it
    case 4:
      return sign | 0x7F800000 | ((mant & 0x1FFF) | 1);  // NaN, low payload
    case 5:
      return sign | ((r >> 16) % 2 == 0 ? 0x7F800000 : 0x7F7FFFFF);  // inf, max
    case 6:
      return sign | (mant & 0x1FFF);  // tiny denormal
    default:
      return sign | exp | mant;  // normal
  }
}

std::uint64_t fnv1a64(const unsigned char* p, std::uint64_t n) {
  std::uint64_t h = 0xCBF29CE484222325ull;
  for (std::uint64_t i = 0; i < n; ++i)
    h = (h ^ p[i]) * 0x100000001B3ull;
  return h;
}

std::uint64_t extent_bytes(const TmaCase& c) {
  if (c.rank == 0 || c.dims.size() != c.rank) return c.offset;
  // Interleaved maps count dimension 0 in 16 B / 32 B chunks (docs/tma.md).
  const std::uint64_t row = c.il != 0
                                ? c.dims[0] * (c.il == 1 ? 16 : 32)
                                : tma::packed_bytes(static_cast<tma::DataType>(c.dtype), c.dims[0]);
  if (c.rank == 1 || c.strides.size() != c.rank - 1) return c.offset + row;
  // The last element's end; with overlapping strides it can lie past strides.back() x dims.
  std::uint64_t last = row;
  for (std::uint32_t d = 1; d < c.rank; ++d)
    last += (c.dims[d] - 1) * c.strides[d - 1];
  return c.offset + std::max(last, c.strides.back() * c.dims.back());
}

namespace {

template <class T>
std::string join(const std::vector<T>& v) {
  return fmt::format("{}", fmt::join(v, ","));
}

template <class T>
bool parse_list(std::string_view s, std::vector<T>& out) {
  out.clear();
  if (s.empty()) return true;
  while (true) {
    const std::size_t comma = s.find(',');
    const std::string_view item = s.substr(0, comma);
    T v{};
    const auto [p, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
    if (ec != std::errc{} || p != item.data() + item.size()) return false;
    out.push_back(v);
    if (comma == std::string_view::npos) return true;
    s.remove_prefix(comma + 1);
  }
}

template <class T>
bool parse_one(std::string_view s, T& out) {
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc{} && p == s.data() + s.size();
}

// Calls f(key, value) for each `key=value` word of a line (up to a `#`).
template <class F>
Status for_each_pair(std::string_view line, F&& f) {
  line = line.substr(0, line.find('#'));
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && line[i] == ' ')
      ++i;
    if (i == line.size()) break;
    const std::size_t end = std::min(line.find(' ', i), line.size());
    const std::string_view word = line.substr(i, end - i);
    const std::size_t eq = word.find('=');
    if (eq == std::string_view::npos) return Error{fmt::format("`{}`: expected key=value", word)};
    if (!f(word.substr(0, eq), word.substr(eq + 1))) {
      return Error{fmt::format("`{}`: bad value for key `{}`", word, word.substr(0, eq))};
    }
    i = end;
  }
  return Ok{};
}

template <class T>
Result<std::vector<T>> load_lines(const std::string& path, Result<T> (*parse)(std::string_view)) {
  std::ifstream in(path);
  if (!in) return Error{fmt::format("{}: cannot open", path)};
  std::vector<T> out;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.find_first_not_of(' ') == std::string::npos || line[0] == '#') continue;
    auto r = parse(line);
    if (!r) return Error{fmt::format("{}:{}: {}", path, n, r.error().message)};
    out.push_back(std::move(*r));
  }
  return out;
}

}  // namespace

std::string format(const TmaCase& c) {
  std::string s = fmt::format("id={} mode={} dtype={} rank={} offset={} dims={} strides={}", c.id,
                              c.im2col ? "im2col" : "tiled", c.dtype, c.rank, c.offset,
                              join(c.dims), join(c.strides));
  if (c.im2col) {
    s +=
        fmt::format(" lower={} upper={} cpp={} ppc={}", join(c.lower), join(c.upper), c.cpp, c.ppc);
  } else {
    s += fmt::format(" box={}", join(c.box));
  }
  s += fmt::format(" estr={} il={} sw={} l2={} oob={} coords={}", join(c.estr), c.il, c.sw, c.l2,
                   c.oob, join(c.coords));
  if (c.im2col) s += fmt::format(" offsets={}", join(c.offsets));
  s += fmt::format(" dst={} tx={} copy={}", c.dst, c.tx, c.copy ? 1 : 0);
  if (c.pat != 0) s += fmt::format(" pat={}", c.pat);
  return s;
}

Result<TmaCase> parse_case(std::string_view line) {
  TmaCase c;
  bool has_id = false;
  auto st = for_each_pair(line, [&](std::string_view k, std::string_view v) {
    if (k == "id") return has_id = parse_one(v, c.id);
    if (k == "mode") return (c.im2col = v == "im2col") || v == "tiled";
    if (k == "dtype") return parse_one(v, c.dtype);
    if (k == "rank") return parse_one(v, c.rank);
    if (k == "offset") return parse_one(v, c.offset);
    if (k == "dims") return parse_list(v, c.dims);
    if (k == "strides") return parse_list(v, c.strides);
    if (k == "box") return parse_list(v, c.box);
    if (k == "estr") return parse_list(v, c.estr);
    if (k == "il") return parse_one(v, c.il);
    if (k == "sw") return parse_one(v, c.sw);
    if (k == "l2") return parse_one(v, c.l2);
    if (k == "oob") return parse_one(v, c.oob);
    if (k == "lower") return parse_list(v, c.lower);
    if (k == "upper") return parse_list(v, c.upper);
    if (k == "cpp") return parse_one(v, c.cpp);
    if (k == "ppc") return parse_one(v, c.ppc);
    if (k == "coords") return parse_list(v, c.coords);
    if (k == "offsets") return parse_list(v, c.offsets);
    if (k == "dst") return parse_one(v, c.dst);
    if (k == "tx") return parse_one(v, c.tx);
    if (k == "pat") return parse_one(v, c.pat) && c.pat <= 1;
    if (k == "copy") {
      int b = 0;
      c.copy = parse_one(v, b) && b == 1;
      return b == 0 || b == 1;
    }
    return false;
  });
  if (!st) return st.errors();
  if (!has_id) return Error{"case: missing id="};
  return c;
}

std::string format(const CaseResult& r) {
  return fmt::format("id={} encode={} copy={} hash={:016x}", r.id, r.encoded ? "ok" : "rejected",
                     r.copy, r.hash);
}

Result<CaseResult> parse_result(std::string_view line) {
  CaseResult r;
  bool has_id = false;
  auto st = for_each_pair(line, [&](std::string_view k, std::string_view v) {
    if (k == "id") return has_id = parse_one(v, r.id);
    if (k == "encode") return (r.encoded = v == "ok") || v == "rejected";
    if (k == "copy") return r.copy = std::string(v), true;
    if (k == "hash") {
      const auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), r.hash, 16);
      return ec == std::errc{} && p == v.data() + v.size();
    }
    return true;  // the silicon side may add keys (error codes, timings)
  });
  if (!st) return st.errors();
  if (!has_id) return Error{"result: missing id="};
  return r;
}

Result<std::vector<TmaCase>> load_cases(const std::string& path) {
  return load_lines<TmaCase>(path, &parse_case);
}
Result<std::vector<CaseResult>> load_results(const std::string& path) {
  return load_lines<CaseResult>(path, &parse_result);
}

Result<tma::TensorMap> encode(const TmaCase& c) {
  if (c.im2col) {
    return tma::encode_im2col({.data_type = static_cast<tma::DataType>(c.dtype),
                               .rank = c.rank,
                               .global_address = kModelBase + c.offset,
                               .global_dim = c.dims,
                               .global_strides = c.strides,
                               .pixel_box_lower_corner = c.lower,
                               .pixel_box_upper_corner = c.upper,
                               .channels_per_pixel = c.cpp,
                               .pixels_per_column = c.ppc,
                               .element_strides = c.estr,
                               .interleave = static_cast<tma::Interleave>(c.il),
                               .swizzle = static_cast<tma::Swizzle>(c.sw),
                               .l2_promotion = static_cast<tma::L2Promotion>(c.l2),
                               .oob_fill = static_cast<tma::OobFill>(c.oob)});
  }
  return tma::encode_tiled({.data_type = static_cast<tma::DataType>(c.dtype),
                            .rank = c.rank,
                            .global_address = kModelBase + c.offset,
                            .global_dim = c.dims,
                            .global_strides = c.strides,
                            .box_dim = c.box,
                            .element_strides = c.estr,
                            .interleave = static_cast<tma::Interleave>(c.il),
                            .swizzle = static_cast<tma::Swizzle>(c.sw),
                            .l2_promotion = static_cast<tma::L2Promotion>(c.l2),
                            .oob_fill = static_cast<tma::OobFill>(c.oob)});
}

CaseResult run_model(const TmaCase& c, std::string* why, std::vector<unsigned char>* bytes) {
  CaseResult r{.id = c.id};
  const auto fail = [&](const Error& e) {
    if (why != nullptr) *why = e.message;
  };
  Result<tma::TensorMap> map = encode(c);
  if (!map) {
    fail(map.error());
    return r;
  }
  r.encoded = true;
  if (!c.copy || c.tx == 0 || smem_span(c) > kMaxSpan) return r;  // as tma_check.cu

  // Only the bytes the tensor spans are written: the model's memory is sparse.
  mem::GlobalMemory global;
  const std::uint64_t first = c.offset / 8, last = (extent_bytes(c) + 7) / 8;
  std::vector<std::byte> words((last - first) * 8);
  for (std::uint64_t w = first; w < last; ++w) {
    const std::uint64_t v = c.pat == 0
                                ? splitmix64(w)
                                : special_f32(2 * w) | std::uint64_t{special_f32(2 * w + 1)} << 32;
    for (int b = 0; b < 8; ++b) {
      words[(w - first) * 8 + b] = static_cast<std::byte>(v >> (8 * b));
    }
  }
  if (auto st = global.write(kModelBase + first * 8, words); !st) {
    fail(st.error());
    r.copy = "rejected";
    return r;
  }
  const std::uint64_t span = smem_span(c);
  mem::SharedMemory smem(static_cast<std::uint32_t>(std::max<std::uint64_t>(span, 1024)));
  std::fill(smem.bytes().begin(), smem.bytes().end(), std::byte{kPoison});
  const tma::SmemTarget target{&smem, c.dst};
  Result<tma::CopyReport> rep = Error{""};
  if (c.im2col) {
    std::vector<std::uint16_t> offs(c.offsets.begin(), c.offsets.end());
    rep = tma::load_im2col(*map, c.coords, offs, global, {&target, 1});
  } else {
    rep = tma::load_tile(*map, c.coords, global, {&target, 1});
  }
  if (!rep) {
    fail(rep.error());
    r.copy = "rejected";
    return r;
  }
  if (rep->bytes_per_destination != c.tx) {
    fail(Error{
        fmt::format("the load wrote {} B, the case says tx={}", rep->bytes_per_destination, c.tx)});
    r.copy = "rejected";
    return r;
  }
  r.copy = "ok";
  const auto* data = reinterpret_cast<const unsigned char*>(smem.bytes().data());
  r.hash = fnv1a64(data, span);
  if (bytes != nullptr) bytes->assign(data, data + span);
  return r;
}

}  // namespace xpusim::silicon
