// Self-check of the PTX corpus case table (not part of the CMake build):
//
//   g++ -std=c++20 -O2 -Wall -Wextra -Wpedantic -Werror -o /tmp/self_check
//       tests/ptx/corpus/self_check.cc tests/ptx/corpus/cases.cc   (or clang++-14, same flags)
//   /tmp/self_check tests/ptx/corpus      # the folder argument is optional
//
// For every case: buffer names are unique, pointer arguments and outputs name buffers, the
// reference returns exactly the outputs with their buffers' sizes, and it is deterministic;
// tensor-map arguments are valid for cuTensorMapEncodeTiled (tiled, as cuda.h states the rules)
// and stay inside their buffer; the cluster shape divides the grid. With the folder, also:
// NAME.ptx has the .entry, its .param list matches the arguments' kinds (a tensor map is
// `.param .align 64|128 .b8 NAME[128]`) and its .reqnctapercluster matches the cluster shape.
// Then a few spot checks of the references against the host's own conversions (which are IEEE
// on the platforms this is built on) and of the Hopper references' invariants. Prints one line per
// case with a hash of the expected outputs, so that two builds (g++ / clang++) can be compared with
// diff. Exit status 1 on any failure.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "cases.h"

namespace {

using xpusim::ptx_corpus::ArgKind;
using xpusim::ptx_corpus::BufferMap;
using xpusim::ptx_corpus::Case;
using xpusim::ptx_corpus::Dim;
using xpusim::ptx_corpus::TensorMapSpec;

int failures = 0;

void fail(const std::string& where, const std::string& what) {
  std::fprintf(stderr, "FAIL %s: %s\n", where.c_str(), what.c_str());
  ++failures;
}

std::uint64_t fnv1a(const std::vector<std::uint8_t>& b, std::uint64_t h) {
  for (const auto c : b)
    h = (h ^ c) * 0x100000001b3ull;
  return h;
}

const char* param_type(ArgKind k) {
  switch (k) {
    case ArgKind::kPtr:
    case ArgKind::kU64:
    case ArgKind::kS64:
      return ".u64";
    case ArgKind::kU32:
    case ArgKind::kS32:
      return ".u32";
    case ArgKind::kF32:
      return ".f32";
    case ArgKind::kF64:
      return ".f64";
    case ArgKind::kTensorMap:
      return ".align";  // .param .align 128 .b8 NAME[128], checked in full by entry_params' caller
  }
  return "?";
}

// The .param declarations of `.visible .entry ENTRY(` in the PTX text, in order (whole lines,
// trimmed, without a trailing comma), and the entry's `.reqnctapercluster X, Y, Z` if any.
bool entry_params(const std::string& ptx, const std::string& entry, std::vector<std::string>* decls,
                  Dim* cluster) {
  const std::string head = ".entry " + entry + "(";
  const auto at = ptx.find(head);
  if (at == std::string::npos) return false;
  std::istringstream lines(ptx.substr(at + head.size()));
  std::string line;
  bool params_done = false;
  while (std::getline(lines, line)) {
    const auto b = line.find_first_not_of(" \t");
    line = b == std::string::npos ? "" : line.substr(b);
    while (!line.empty() && (line.back() == ',' || line.back() == ' ' || line.back() == '\r'))
      line.pop_back();
    if (!params_done) {
      if (line.rfind(".param", 0) == 0) {
        decls->push_back(line);
        continue;
      }
      if (line.find(')') != std::string::npos) params_done = true;
      continue;
    }
    if (line.rfind("{", 0) == 0) break;  // the body: the directives are done
    unsigned x = 1, y = 1, z = 1;
    if (std::sscanf(line.c_str(), ".reqnctapercluster %u, %u, %u", &x, &y, &z) == 3)
      *cluster = {x, y, z};
  }
  return true;
}

// Bytes per element of a cuda.h tensor-map data type; 0 for an unknown name (the packed
// sub-byte types are not used here and are rejected).
std::uint64_t element_bytes(const std::string& t) {
  static const std::map<std::string, std::uint64_t> sizes = {
      {"UINT8", 1},       {"UINT16", 2},   {"UINT32", 4},      {"INT32", 4},   {"UINT64", 8},
      {"INT64", 8},       {"FLOAT16", 2},  {"FLOAT32", 4},     {"FLOAT64", 8}, {"BFLOAT16", 2},
      {"FLOAT32_FTZ", 4}, {"TFLOAT32", 4}, {"TFLOAT32_FTZ", 4}};
  const auto it = sizes.find(t);
  return it == sizes.end() ? 0 : it->second;
}

// cuTensorMapEncodeTiled's requirements (cuda.h) that the spec alone can violate, and the
// tensor's extent against its buffer.
void check_tensor_map(const std::string& where, const TensorMapSpec& t,
                      const std::map<std::string, std::size_t>& sizes) {
  const auto buf = sizes.find(t.buffer);
  if (buf == sizes.end()) return fail(where, "tensor map: no buffer " + t.buffer);
  const std::uint64_t es = element_bytes(t.data_type);
  if (es == 0) return fail(where, "tensor map: data type " + t.data_type);
  if (t.rank < 1 || t.rank > 5 || t.global_dim.size() != t.rank ||
      t.global_strides.size() + 1 != t.rank || t.box_dim.size() != t.rank ||
      t.element_strides.size() != t.rank)
    return fail(where, "tensor map: rank and array sizes disagree");
  const std::set<std::string> interleave = {"NONE", "16B", "32B"};
  const std::set<std::string> swizzle = {"NONE", "32B", "64B", "128B"};
  const std::set<std::string> l2 = {"NONE", "L2_64B", "L2_128B", "L2_256B"};
  const std::set<std::string> oob = {"NONE", "NAN_REQUEST_ZERO_FMA"};
  if (!interleave.count(t.interleave) || !swizzle.count(t.swizzle) || !l2.count(t.l2_promotion) ||
      !oob.count(t.oob_fill))
    fail(where, "tensor map: an enumerator is not a cuda.h name");
  std::uint64_t last = 0;  // byte offset of the last element
  for (std::uint32_t i = 0; i < t.rank; ++i) {
    if (t.global_dim[i] == 0 || t.global_dim[i] > (1ull << 32))
      fail(where, "tensor map: globalDim out of (0, 2^32]");
    if (t.box_dim[i] == 0 || t.box_dim[i] > 256) fail(where, "tensor map: boxDim out of (0, 256]");
    if (t.element_strides[i] == 0 || t.element_strides[i] > 8)
      fail(where, "tensor map: elementStrides out of (0, 8]");
    const std::uint64_t stride = i == 0 ? es : t.global_strides[i - 1];
    if (i > 0 && (stride % 16 != 0 || stride >= (1ull << 40)))
      fail(where, "tensor map: globalStrides must be multiples of 16 below 2^40");
    last += (t.global_dim[i] - 1) * stride;
  }
  if (t.interleave == "NONE" && (t.box_dim[0] * es) % 16 != 0)
    fail(where, "tensor map: boxDim[0] * element size must be a multiple of 16 bytes");
  if (t.rank > 1 && t.global_strides[0] < t.global_dim[0] * es)
    fail(where, "tensor map: rows overlap (globalStrides[0] < globalDim[0] * element size)");
  if (last + es > buf->second) fail(where, "tensor map: the tensor runs past buffer " + t.buffer);
}

void check_case(const Case& c, const std::string& dir) {
  const std::string where = c.file + "/" + c.entry;
  std::set<std::string> names;
  std::map<std::string, std::size_t> sizes;
  BufferMap inputs;
  for (const auto& b : c.buffers) {
    if (!names.insert(b.name).second) fail(where, "duplicate buffer " + b.name);
    if (b.init.empty()) fail(where, "empty buffer " + b.name);
    inputs[b.name] = b.init;
    sizes[b.name] = b.init.size();
  }
  for (const auto& a : c.args) {
    if (a.kind == ArgKind::kPtr && !names.count(a.buffer)) fail(where, "no buffer " + a.buffer);
    if (a.kind == ArgKind::kTensorMap) check_tensor_map(where, a.tensor_map, sizes);
  }
  if (c.cluster.x * c.cluster.y * c.cluster.z == 0 || c.grid.x % c.cluster.x != 0 ||
      c.grid.y % c.cluster.y != 0 || c.grid.z % c.cluster.z != 0 ||
      c.cluster.x * c.cluster.y * c.cluster.z > 8)
    fail(where, "cluster shape does not divide the grid (or has more than 8 CTAs)");
  for (const auto& o : c.outputs)
    if (!names.count(o)) fail(where, "no output buffer " + o);
  if (c.element.empty()) fail(where, "no element kind");
  if (!c.reference) {
    fail(where, "no reference");
    return;
  }
  if (c.grid.x * c.grid.y * c.grid.z == 0 || c.block.x * c.block.y * c.block.z == 0 ||
      c.block.x * c.block.y * c.block.z > 1024)
    fail(where, "bad launch shape");

  const BufferMap expected = c.reference(inputs);
  if (expected.size() != c.outputs.size()) fail(where, "reference returns a different set");
  std::uint64_t h = 0xcbf29ce484222325ull;
  std::size_t bytes = 0;
  for (const auto& o : c.outputs) {
    const auto it = expected.find(o);
    if (it == expected.end()) {
      fail(where, "reference lacks " + o);
      continue;
    }
    if (it->second.size() != inputs[o].size())
      fail(where, o + ": reference size " + std::to_string(it->second.size()) + " != buffer " +
                      std::to_string(inputs[o].size()));
    bool poison_left = it->second.size() >= 4;
    for (std::size_t i = 0; i + 3 < it->second.size() && poison_left; i += 4)
      poison_left = it->second[i] == 0xcd && it->second[i + 1] == 0xcd &&
                    it->second[i + 2] == 0xcd && it->second[i + 3] == 0xcd;
    if (poison_left) fail(where, o + ": the reference left the poison fill");
    h = fnv1a(it->second, h);
    bytes += it->second.size();
  }
  if (c.reference(inputs) != expected) fail(where, "reference not deterministic");

  std::string ptx_note;
  if (!dir.empty()) {
    std::ifstream f(dir + "/" + c.file + ".ptx");
    std::stringstream ss;
    ss << f.rdbuf();
    std::vector<std::string> decls;
    Dim cluster;
    if (!f || !entry_params(ss.str(), c.entry, &decls, &cluster)) {
      fail(where, "no .entry " + c.entry + " in " + c.file + ".ptx");
    } else if (decls.size() != c.args.size()) {
      fail(where, ".param count " + std::to_string(decls.size()) + " != args " +
                      std::to_string(c.args.size()));
    } else {
      for (std::size_t i = 0; i < decls.size(); ++i) {
        std::istringstream words(decls[i]);
        std::string w, t, align, b8, name;
        words >> w >> t;
        if (t != param_type(c.args[i].kind))
          fail(where, "param " + std::to_string(i) + " is " + t + ", arg kind says " +
                          param_type(c.args[i].kind));
        if (c.args[i].kind == ArgKind::kTensorMap) {
          words >> align >> b8 >> name;
          if ((align != "64" && align != "128") || b8 != ".b8" || name.size() < 5 ||
              name.substr(name.size() - 5) != "[128]")
            fail(where,
                 "param " + std::to_string(i) + " is not .align 64|128 .b8 NAME[128]: " + decls[i]);
        }
      }
      if (cluster.x != c.cluster.x || cluster.y != c.cluster.y || cluster.z != c.cluster.z)
        fail(where, ".reqnctapercluster differs from the case's cluster shape");
      ptx_note = " ptx-params-ok";
    }
  }
  std::printf(
      "%-18s %-20s grid %2ux%ux%u block %3ux%ux%u cluster %ux%ux%u dsmem %4u  %zu buffers, "
      "%zu args, outputs %zu B as %s  hash %016llx%s\n",
      c.file.c_str(), c.entry.c_str(), c.grid.x, c.grid.y, c.grid.z, c.block.x, c.block.y,
      c.block.z, c.cluster.x, c.cluster.y, c.cluster.z, c.dynamic_shared_bytes, c.buffers.size(),
      c.args.size(), bytes, c.element.c_str(), static_cast<unsigned long long>(h),
      ptx_note.c_str());
}

template <class T>
std::vector<T> typed(const std::vector<std::uint8_t>& b) {
  std::vector<T> v(b.size() / sizeof(T));
  std::memcpy(v.data(), b.data(), v.size() * sizeof(T));
  return v;
}

const Case* find(const std::vector<Case>& cases, const std::string& entry) {
  for (const auto& c : cases)
    if (c.entry == entry) return &c;
  return nullptr;
}

BufferMap inputs_of(const Case& c) {
  BufferMap m;
  for (const auto& b : c.buffers)
    m[b.name] = b.init;
  return m;
}

bool same_f32(float a, float b) {
  return (std::isnan(a) && std::isnan(b)) ||
         std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b);
}

// The hand-written conversions against the host's (IEEE, round to nearest even) casts.
void spot_checks(const std::vector<Case>& cases) {
  const Case* fr = find(cases, "float_results");
  if (!fr) {
    fail("spot", "no float_results case");
    return;
  }
  const BufferMap in = inputs_of(*fr);
  const auto out = typed<float>(fr->reference(in).at("out"));
  const auto d = typed<double>(in.at("d"));
  const auto k = typed<std::int32_t>(in.at("k"));
  const auto f = typed<float>(in.at("f"));
  const std::size_t n = k.size();
  int checked = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (!same_f32(out[0 * n + i], static_cast<float>(k[i]))) fail("spot", "int->float rn");
    if (!same_f32(out[2 * n + i], static_cast<float>(static_cast<std::uint32_t>(k[i]))))
      fail("spot", "uint->float rn");
    if (!same_f32(out[5 * n + i], static_cast<float>(d[i])))
      fail("spot", "double->float " + std::to_string(i));
    if (!same_f32(out[6 * n + i], f[i] * 3.0f)) fail("spot", "x*3 " + std::to_string(i));
    // rz never has a larger magnitude than rn and is exactly k when k fits 24 bits.
    const float rz = out[1 * n + i];
    if (std::fabs(rz) > std::fabs(out[0 * n + i]) ||
        (k[i] > -(1 << 24) && k[i] < (1 << 24) && rz != static_cast<float>(k[i])))
      fail("spot", "int->float rz " + std::to_string(i));
    checked += 5;
  }
#if defined(__FLT16_MAX__) && (defined(__x86_64__) || defined(__aarch64__))
  // Half round trip against the compiler's _Float16 (round to nearest even).
  for (std::size_t i = 0; i < n; ++i) {
    __extension__ const _Float16 h = static_cast<_Float16>(f[i]);
    if (!same_f32(out[3 * n + i], static_cast<float>(h)))
      fail("spot", "half round trip " + std::to_string(i));
    ++checked;
  }
#endif
  std::printf("spot checks: %d conversions agree with the host\n", checked);
}

// Invariants of the Hopper references, each stated another way than the reference computes it.
void hopper_spot_checks(const std::vector<Case>& cases) {
  int checked = 0;
  if (const Case* c = find(cases, "tma_tile_load")) {
    // Zero-filled elements: the boxes at (bx * 32 - 8, by * 8 - 3) and 5 right, 4 down, of a
    // 100 x 20 tensor have 24 * 256 - (sum over boxes of the in-bounds area) zeros (the random
    // inputs hold no 0).
    std::size_t in_bounds = 0;
    for (int by = 0; by < 3; ++by)
      for (int bx = 0; bx < 4; ++bx)
        for (int load = 0; load < 2; ++load) {
          const int x0 = bx * 32 - 8 + 5 * load, y0 = by * 8 - 3 + 4 * load;
          const int w = std::min(x0 + 32, 100) - std::max(x0, 0);
          const int h = std::min(y0 + 8, 20) - std::max(y0, 0);
          in_bounds += static_cast<std::size_t>(std::max(w, 0) * std::max(h, 0));
        }
    const auto out = typed<std::uint32_t>(c->reference(inputs_of(*c)).at("out"));
    const auto zeros = static_cast<std::size_t>(std::count(out.begin(), out.end(), 0u));
    if (zeros != out.size() - in_bounds || in_bounds == out.size() || in_bounds == 0)
      fail("spot", "tma_tile_load zero fill " + std::to_string(zeros));
    ++checked;
  }
  if (const Case* c = find(cases, "tma_multicast")) {
    const auto out = typed<std::uint32_t>(c->reference(inputs_of(*c)).at("out"));
    const auto t = typed<std::uint32_t>(inputs_of(*c).at("in"));
    // The two CTAs of a cluster hold the same tile; the four clusters' tiles tile the tensor.
    std::multiset<std::uint32_t> all(out.begin(), out.end()), tensor;
    for (const auto x : t) {
      tensor.insert(x);
      tensor.insert(x);
    }
    for (std::size_t b = 0; b < 8; b += 2)
      if (!std::equal(out.begin() + static_cast<long>(b * 256),
                      out.begin() + static_cast<long>((b + 1) * 256),
                      out.begin() + static_cast<long>((b + 1) * 256)))
        fail("spot", "tma_multicast cluster pair differs");
    if (all != tensor) fail("spot", "tma_multicast tiles do not cover the tensor twice");
    ++checked;
  }
  if (const Case* c = find(cases, "dsmem_exchange")) {
    const auto counts = typed<std::uint32_t>(c->reference(inputs_of(*c)).at("counts"));
    for (const auto n : counts)
      if (n != 64 * 65 / 2 * (1 + 2 + 3 + 4)) fail("spot", "dsmem_exchange counter");
    ++checked;
  }
  if (const Case* c = find(cases, "tma_store_reduce")) {
    // Sum over `acc` grows by the sum of every tile element that lands inside the tensor, which
    // is counted here per tensor element (how many boxes cover it) rather than per box.
    const BufferMap in = inputs_of(*c);
    const auto before = typed<std::uint32_t>(in.at("acc"));
    const auto after = typed<std::uint32_t>(c->reference(in).at("acc"));
    std::uint32_t grow = 0, want = 0;
    for (std::size_t i = 0; i < after.size(); ++i)
      grow += after[i] - before[i];
    for (int y = 0; y < 20; ++y)
      for (int x = 0; x < 40; ++x)
        for (int by = 0; by < 3; ++by)
          for (int bx = 0; bx < 3; ++bx) {
            const int col = x - (bx * 12 - 2), r = y - (by * 6 - 1);
            if (col >= 0 && col < 16 && r >= 0 && r < 8)
              want += (static_cast<std::uint32_t>(by * 3 + bx) * 0x01000193u +
                       static_cast<std::uint32_t>(r * 16 + col)) ^
                      0x5a5a0000u;
          }
    if (grow != want) fail("spot", "tma_store_reduce reduce-add total");
    ++checked;
  }
  if (const Case* c = find(cases, "warp_intrinsics")) {
    // Both sides of every warp are present and the all() outcomes differ between warps.
    const auto out = typed<std::uint32_t>(c->reference(inputs_of(*c)).at("out"));
    std::set<std::uint32_t> votes;
    for (std::size_t t = 0; t < out.size() / 12; ++t) {
      const std::uint32_t m = out[t * 12];
      if (m == 0 || m == ~0u) fail("spot", "warp_intrinsics: a warp takes one side only");
      votes.insert(out[t * 12 + 8] | (out[t * 12 + 9] & 0x10000u));
    }
    if (votes.size() < 4) fail("spot", "warp_intrinsics: too few distinct vote outcomes");
    ++checked;
  }
  std::printf("spot checks: %d Hopper reference invariants hold\n", checked);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string dir = argc > 1 ? argv[1] : "";
  std::vector<Case> cases = xpusim::ptx_corpus::corpus_cases();
  for (auto& c : xpusim::ptx_corpus::hopper_cases())
    cases.push_back(std::move(c));
  std::set<std::string> entries;
  for (const auto& c : cases) {
    if (!entries.insert(c.file + "/" + c.entry).second) fail(c.entry, "duplicate case");
    check_case(c, dir);
  }
  spot_checks(cases);
  hopper_spot_checks(cases);
  std::printf("%zu cases, %d failures\n", cases.size(), failures);
  return failures ? 1 : 0;
}
