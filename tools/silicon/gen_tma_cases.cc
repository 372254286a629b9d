// Writes a deterministic set of TMA conformance cases (tma_case.h) and our model's results on
// them. The cases run on a real Hopper GPU through tma_check.cu; the conformance test
// (tests/unit/tma/silicon_conformance_test.cc) compares our model with what the GPU did.
//   xpusim_gen_tma_cases CASES_OUT MODEL_RESULTS_OUT [COUNT] [SEED]
//   xpusim_gen_tma_cases --refresh-tx CASES OUT     (tx= from today's model)
//   xpusim_gen_tma_cases --dump CASES BYTES         (our shared-memory bytes per case)
// Most cases are maps our encoder accepts, loaded at random coordinates (out-of-bounds ones
// too); about one in six breaks an encoder rule, to compare which maps each side refuses.
#include <fmt/format.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "tma/copy_engine.h"
#include "tma/tensor_map_encode.h"
#include "tma_case.h"

namespace xs = xpusim::silicon;
namespace tma = xpusim::tma;

namespace {

struct Rng {
  std::uint64_t state;
  std::uint64_t next() { return xs::splitmix64(state++); }
  // Uniform in [lo, hi] (hi - lo small: the modulo bias does not matter here).
  std::int64_t in(std::int64_t lo, std::int64_t hi) {
    return lo + static_cast<std::int64_t>(next() % static_cast<std::uint64_t>(hi - lo + 1));
  }
  bool chance(int percent) { return in(0, 99) < percent; }
};

constexpr std::uint64_t kMaxExtent = 4u << 20;  // bytes of the pattern a case may span
constexpr std::uint64_t kMaxBox = 12u << 10;    // box bytes (up to 8x that hashed: tma_case.h)

std::uint64_t round_up(std::uint64_t v, std::uint64_t m) {
  return (v + m - 1) / m * m;
}

std::uint32_t esize(std::uint32_t dtype) {
  return std::max<std::uint32_t>(1, tma::element_bits(static_cast<tma::DataType>(dtype)) / 8);
}

// Sm90 has the 13 classic types and the 4 classic swizzles; the rest is sm_100's.
std::uint32_t pick_dtype(Rng& r) {
  return static_cast<std::uint32_t>(r.in(0, 12));
}

void pick_strides(Rng& r, xs::TmaCase& c, std::uint64_t align) {
  c.strides.clear();
  std::uint64_t s = round_up(c.dims[0] * esize(c.dtype), align);
  for (std::uint32_t d = 1; d < c.rank; ++d) {
    if (r.chance(40)) s += align * static_cast<std::uint64_t>(r.in(1, 4));
    c.strides.push_back(s);
    s *= c.dims[d];
  }
}

// Coordinates mostly inside the tensor, some hanging over an edge, a few wholly outside.
std::int32_t pick_coord(Rng& r, std::int64_t dim, std::int64_t box) {
  if (r.chance(10)) return static_cast<std::int32_t>(r.in(-box - 4, dim + 4));
  if (r.chance(30)) return static_cast<std::int32_t>(r.in(-box / 2 - 1, dim));
  return static_cast<std::int32_t>(r.in(0, std::max<std::int64_t>(0, dim - box)));
}

// Hopper faults (illegal instruction) on a box whose first byte in dimension 0 is not 16 B
// aligned: most cases start on a 16 B multiple, one in seven does not.
void align_inner(Rng& r, xs::TmaCase& c) {
  if (r.chance(15)) return;
  const std::int32_t k = static_cast<std::int32_t>(std::max<std::uint32_t>(1, 16 / esize(c.dtype)));
  const std::int32_t c0 = c.coords[0];
  c.coords[0] = (c0 >= 0 ? c0 / k : -((-c0 + k - 1) / k)) * k;
}

// Rounding and flushing of the float types: f32, f32 ftz, tf32, tf32 ftz over special values.
xs::TmaCase special(Rng& r) {
  xs::TmaCase c;
  const std::uint32_t types[] = {7, 10, 11, 12};
  c.dtype = types[r.in(0, 3)];
  c.rank = static_cast<std::uint32_t>(r.in(1, 2));
  c.box = {static_cast<std::uint32_t>(4 * r.in(1, 16))};
  c.dims = {static_cast<std::uint64_t>(r.in(1, 80))};
  if (c.rank == 2)
    c.box.push_back(static_cast<std::uint32_t>(r.in(1, 8))), c.dims.push_back(r.in(1, 12));
  c.estr.assign(c.rank, 1);
  pick_strides(r, c, 16);
  c.oob = r.chance(50) ? 1 : 0;
  c.offset = 16 * static_cast<std::uint64_t>(r.in(0, 64));
  for (std::uint32_t d = 0; d < c.rank; ++d) {
    c.coords.push_back(pick_coord(r, static_cast<std::int64_t>(c.dims[d]), c.box[d]));
  }
  c.coords[0] = c.coords[0] / 4 * 4;
  c.pat = 1;
  return c;
}

xs::TmaCase tiled(Rng& r) {
  xs::TmaCase c;
  c.dtype = pick_dtype(r);
  const std::uint32_t es = esize(c.dtype);
  c.rank = static_cast<std::uint32_t>(r.chance(15) ? r.in(4, 5) : r.in(1, 3));
  if (c.rank >= 3 && r.chance(20)) c.il = static_cast<std::uint32_t>(r.in(1, 2));
  c.sw = c.il == 2 ? 1 : static_cast<std::uint32_t>(r.in(0, 3));
  const std::uint32_t span = c.sw == 0 ? 256 * es : 16u << c.sw;  // row bytes allowed
  std::uint32_t row = c.il != 0
                          ? (c.il == 1 ? 16 : 32) * static_cast<std::uint32_t>(r.in(1, 2))
                          : 16 * static_cast<std::uint32_t>(r.in(1, std::min(16u, span / 16)));
  row = std::min(row, span);
  c.box.push_back(std::max<std::uint32_t>(1, std::min<std::uint32_t>(256, row / es)));
  c.dims.push_back(static_cast<std::uint64_t>(r.in(1, 3 * c.box[0] + 8)));
  for (std::uint32_t d = 1; d < c.rank; ++d) {
    c.box.push_back(static_cast<std::uint32_t>(r.chance(70) ? r.in(1, 8) : r.in(1, 64)));
    c.dims.push_back(static_cast<std::uint64_t>(r.in(1, 2 * c.box[d] + 5)));
  }
  for (std::uint32_t d = 0; d < c.rank; ++d) {
    c.estr.push_back(r.chance(20) ? static_cast<std::uint32_t>(r.in(2, 4)) : 1);
  }
  pick_strides(r, c, c.il == 2 ? 32 : 16);
  c.l2 = static_cast<std::uint32_t>(r.in(0, 3));
  c.oob = tma::is_float(static_cast<tma::DataType>(c.dtype)) && r.chance(50) ? 1 : 0;
  c.offset = (c.il == 2 ? 32 : 16) * static_cast<std::uint64_t>(r.in(0, 8));
  for (std::uint32_t d = 0; d < c.rank; ++d) {
    c.coords.push_back(pick_coord(r, static_cast<std::int64_t>(c.dims[d]), c.box[d]));
  }
  if (c.il == 0) align_inner(r, c);
  return c;
}

xs::TmaCase im2col(Rng& r) {
  xs::TmaCase c;
  c.im2col = true;
  c.dtype = pick_dtype(r);
  const std::uint32_t es = esize(c.dtype);
  c.rank = static_cast<std::uint32_t>(r.in(3, 5));
  c.sw = static_cast<std::uint32_t>(r.in(0, 3));
  const std::uint32_t span = c.sw == 0 ? 256 * es : 16u << c.sw;
  const std::uint32_t row =
      std::min<std::uint32_t>(span, 16 * static_cast<std::uint32_t>(r.in(1, 8)));
  c.cpp = std::max<std::uint32_t>(1, std::min<std::uint32_t>(256, row / es));
  c.dims.push_back(static_cast<std::uint64_t>(r.in(c.cpp, 2 * c.cpp + 8)));  // C
  const std::int32_t lim = c.rank == 3 ? 8 : (c.rank == 4 ? 8 : 4);
  for (std::uint32_t d = 1; d + 1 < c.rank; ++d) {
    c.dims.push_back(static_cast<std::uint64_t>(r.in(2, 12)));
    c.lower.push_back(static_cast<std::int32_t>(r.in(-std::min(lim, 3), 1)));
    c.upper.push_back(static_cast<std::int32_t>(r.in(-3, std::min(lim - 1, 2))));
  }
  c.dims.push_back(static_cast<std::uint64_t>(r.in(1, 3)));  // N
  for (std::uint32_t d = 0; d < c.rank; ++d) {
    c.estr.push_back(d == 0 || d + 1 == c.rank || !r.chance(25) ? 1 : 2);
  }
  pick_strides(r, c, 16);
  c.ppc = static_cast<std::uint32_t>(r.chance(50) ? r.in(1, 32) : r.in(33, 256));
  c.l2 = static_cast<std::uint32_t>(r.in(0, 3));
  c.oob = tma::is_float(static_cast<tma::DataType>(c.dtype)) && r.chance(50) ? 1 : 0;
  c.offset = 16 * static_cast<std::uint64_t>(r.in(0, 8));
  c.coords.push_back(static_cast<std::int32_t>(r.in(0, static_cast<std::int64_t>(c.dims[0]) - 1)));
  for (std::uint32_t d = 1; d + 1 < c.rank; ++d) {
    const auto dim = static_cast<std::int64_t>(c.dims[d]);
    c.coords.push_back(static_cast<std::int32_t>(r.in(c.lower[d - 1], dim - 1)));
    c.offsets.push_back(static_cast<std::uint32_t>(r.in(0, 2)));
  }
  c.coords.push_back(
      static_cast<std::int32_t>(r.in(0, static_cast<std::int64_t>(c.dims.back()) - 1)));
  align_inner(r, c);
  return c;
}

// One rule broken on purpose (or an sm_100-only feature, which an sm_90 driver may refuse).
void break_rule(Rng& r, xs::TmaCase& c) {
  switch (r.in(0, 11)) {
    case 0:
      if (!c.strides.empty()) c.strides[0] += 8;
      break;  // rule 9
    case 1:
      c.offset += 8;
      break;  // rule 6
    case 2:
      if (!c.im2col)
        c.box[0] = 257;
      else
        c.cpp = 257;
      break;  // rules 12, 23
    case 3:
      c.estr[0] = 9;
      break;  // rule 15
    case 4:
      c.dims[c.rank - 1] = 0;
      break;  // rule 7
    case 5:
      c.dtype = static_cast<std::uint32_t>(r.in(0, 5));
      c.oob = 1;
      break;  // rule 20
    case 6:
      if (!c.strides.empty()) c.strides.back() = c.strides[0];
      break;  // rule 11
    case 7:
      c.sw = 3;
      if (!c.im2col)
        c.box[0] = 256;
      else
        c.cpp = 256;
      break;  // rule 18
    case 8:
      c.il = 2;
      c.sw = static_cast<std::uint32_t>(r.in(2, 3));
      break;  // rule 17
    case 9:
      c.dtype = static_cast<std::uint32_t>(r.in(13, 15));
      break;  // sm_100 types
    case 10:
      c.sw = static_cast<std::uint32_t>(r.in(4, 6));
      break;  // sm_100 swizzles
    default:
      if (c.im2col)
        c.ppc = 1025;
      else
        c.box.back() = 0;
      break;  // rules 24, 12
  }
  c.copy = false;
}

// Probes after the random cases: strides that overlap the dimension below (which the
// driver accepts), and plain interleaved boxes (whose layout our model does not match yet).
std::vector<xs::TmaCase> probes(Rng& r) {
  std::vector<xs::TmaCase> out;
  for (int k = 0; k < 12; ++k) {
    xs::TmaCase c;
    c.dtype = 6;  // f16
    c.rank = k < 6 ? 2 : 3;
    c.dims = {64, static_cast<std::uint64_t>(r.in(4, 12))};
    c.box = {static_cast<std::uint32_t>(8 * r.in(1, 8)), static_cast<std::uint32_t>(r.in(1, 4))};
    if (c.rank == 3) c.dims.push_back(static_cast<std::uint64_t>(r.in(2, 5))), c.box.push_back(2);
    c.strides = {static_cast<std::uint64_t>(16 * r.in(1, k < 6 ? 7 : 8))};  // < 128 B: overlap
    if (c.rank == 3) c.strides.push_back(c.strides[0] * static_cast<std::uint64_t>(r.in(1, 3)));
    c.estr.assign(c.rank, 1);
    c.sw = static_cast<std::uint32_t>(r.in(0, 3));
    if (c.sw != 0) c.box[0] = std::min<std::uint32_t>(c.box[0], (16u << c.sw) / 2);
    for (std::uint32_t d = 0; d < c.rank; ++d)
      c.coords.push_back(d == 0 ? 8 * static_cast<std::int32_t>(r.in(0, 4))
                                : static_cast<std::int32_t>(r.in(0, 2)));
    out.push_back(c);
  }
  for (int k = 0; k < 24; ++k) {
    xs::TmaCase c;
    c.il = k < 12 ? 1 : 2;
    c.sw = c.il == 2 ? 1 : static_cast<std::uint32_t>(k % 2);
    c.dtype = k % 3 == 0 ? 0 : (k % 3 == 1 ? 6 : 7);  // u8, f16, f32
    c.rank = 3;
    const std::uint32_t chunk = c.il == 1 ? 16 : 32;
    c.box = {chunk / esize(c.dtype), static_cast<std::uint32_t>(r.in(1, 4)),
             static_cast<std::uint32_t>(r.in(1, 3))};
    c.dims = {c.box[0], static_cast<std::uint64_t>(r.in(4, 9)),
              static_cast<std::uint64_t>(r.in(2, 4))};
    c.estr.assign(c.rank, 1);
    pick_strides(r, c, chunk);
    c.coords = {0, static_cast<std::int32_t>(r.in(0, 3)), static_cast<std::int32_t>(r.in(0, 1))};
    out.push_back(c);
  }
  return out;
}

std::uint64_t model_tx(const xs::TmaCase& c) {
  auto map = xs::encode(c);
  return map ? tma::box_bytes(*map) : 0;
}

}  // namespace

// --dump CASES BYTES: our model's shared-memory bytes per case, in tma_check's BYTES format
// (int32 id, int32 length, the bytes), to diff a case the hashes say differs.
int dump(const char* cases_path, const char* out_path) {
  auto cases = xs::load_cases(cases_path);
  if (!cases) {
    std::fprintf(stderr, "%s\n", cases.error().message.c_str());
    return 2;
  }
  std::ofstream out(out_path, std::ios::binary);
  for (const xs::TmaCase& c : *cases) {
    std::vector<unsigned char> bytes;
    if (xs::run_model(c, nullptr, &bytes).copy != "ok") continue;
    const std::int32_t hdr[2] = {c.id, static_cast<std::int32_t>(bytes.size())};
    out.write(reinterpret_cast<const char*>(hdr), sizeof hdr);
    out.write(reinterpret_cast<const char*>(bytes.data()),
              static_cast<std::streamsize>(bytes.size()));
  }
  return 0;
}

// --refresh-tx CASES OUT: the same cases with tx= recomputed by today's model (after a model
// change that alters box sizes, so that the GPU's mbarrier expects what the model says).
int refresh_tx(const char* cases_path, const char* out_path) {
  auto cases = xs::load_cases(cases_path);
  if (!cases) {
    std::fprintf(stderr, "%s\n", cases.error().message.c_str());
    return 2;
  }
  std::ifstream in(cases_path);
  std::ofstream out(out_path);
  std::string line;
  std::size_t next = 0;
  while (std::getline(in, line)) {
    if (line.rfind("id=", 0) != 0) {
      out << line << "\n";
      continue;
    }
    xs::TmaCase c = (*cases)[next++];
    c.tx = model_tx(c);
    out << xs::format(c) << "\n";
  }
  return 0;
}

int main(int argc, char** argv) {
  if (argc == 4 && std::string(argv[1]) == "--dump") return dump(argv[2], argv[3]);
  if (argc == 4 && std::string(argv[1]) == "--refresh-tx") return refresh_tx(argv[2], argv[3]);
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s CASES_OUT MODEL_RESULTS_OUT [COUNT] [SEED]\n", argv[0]);
    return 2;
  }
  const int count = argc > 3 ? std::atoi(argv[3]) : 800;
  Rng r{argc > 4 ? std::strtoull(argv[4], nullptr, 0) : 2026};
  std::ofstream cases(argv[1]), results(argv[2]);
  cases << "# TMA conformance cases (tools/silicon/tma_case.h); written by xpusim_gen_tma_cases "
        << count << " " << r.state << "\n";
  results << "# our model's results on those cases (run_model)\n";
  for (int id = 0; id < count;) {
    const int kind = static_cast<int>(r.in(0, 99));
    xs::TmaCase c = kind < 7 ? special(r) : (kind < 35 ? im2col(r) : tiled(r));
    c.copy = true;
    if (c.pat == 0 && r.chance(15)) break_rule(r, c);
    if (extent_bytes(c) > kMaxExtent) continue;
    c.tx = model_tx(c);
    if (c.tx > kMaxBox) continue;
    // Mostly the 1024 B-aligned base; sometimes 128 B steps off it (swizzle keys on bits 4-9).
    if (r.chance(10)) c.dst = 128 * static_cast<std::uint32_t>(r.in(1, 7));
    c.id = id++;
    std::string why;
    const xs::CaseResult m = xs::run_model(c, &why);
    cases << xs::format(c) << "\n";
    results << xs::format(m) << (why.empty() ? "" : "  # " + why) << "\n";
  }
  int id = count;
  for (xs::TmaCase c : probes(r)) {
    c.copy = true;
    c.tx = model_tx(c);
    c.id = id++;
    std::string why;
    const xs::CaseResult m = xs::run_model(c, &why);
    cases << xs::format(c) << "\n";
    results << xs::format(m) << (why.empty() ? "" : "  # " + why) << "\n";
  }
  return 0;
}
