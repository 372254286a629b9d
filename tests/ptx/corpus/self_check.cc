// Self-check of the PTX corpus case table (not part of the CMake build):
//
//   g++ -std=c++20 -O2 -Wall -Wextra -Wpedantic -Werror -o /tmp/self_check
//       tests/ptx/corpus/self_check.cc tests/ptx/corpus/cases.cc   (or clang++-14, same flags)
//   /tmp/self_check tests/ptx/corpus      # the folder argument is optional
//
// For every case: buffer names are unique, pointer arguments and outputs name buffers, the
// reference returns exactly the outputs with their buffers' sizes, and it is deterministic. With
// the folder, also: NAME.ptx has the .entry and its .param list matches the arguments' kinds.
// Then a few spot checks of the references against the host's own conversions (which are IEEE
// on the platforms this is built on). Prints one line per case with a hash of the expected
// outputs, so that two builds (g++ / clang++) can be compared with diff. Exit status 1 on any
// failure.
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cases.h"

namespace {

using xpusim::ptx_corpus::ArgKind;
using xpusim::ptx_corpus::BufferMap;
using xpusim::ptx_corpus::Case;

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
  }
  return "?";
}

// The .param types of `.visible .entry ENTRY(` in the PTX text, in order.
bool entry_params(const std::string& ptx, const std::string& entry,
                  std::vector<std::string>* types) {
  const std::string head = ".entry " + entry + "(";
  const auto at = ptx.find(head);
  if (at == std::string::npos) return false;
  std::istringstream lines(ptx.substr(at + head.size()));
  std::string line;
  while (std::getline(lines, line)) {
    if (line.find(')') != std::string::npos && line.find(".param") == std::string::npos) break;
    std::istringstream words(line);
    std::string w, t;
    if (words >> w >> t && w == ".param") types->push_back(t);
  }
  return true;
}

void check_case(const Case& c, const std::string& dir) {
  const std::string where = c.file + "/" + c.entry;
  std::set<std::string> names;
  BufferMap inputs;
  for (const auto& b : c.buffers) {
    if (!names.insert(b.name).second) fail(where, "duplicate buffer " + b.name);
    if (b.init.empty()) fail(where, "empty buffer " + b.name);
    inputs[b.name] = b.init;
  }
  for (const auto& a : c.args)
    if (a.kind == ArgKind::kPtr && !names.count(a.buffer)) fail(where, "no buffer " + a.buffer);
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
    std::vector<std::string> types;
    if (!f || !entry_params(ss.str(), c.entry, &types)) {
      fail(where, "no .entry " + c.entry + " in " + c.file + ".ptx");
    } else if (types.size() != c.args.size()) {
      fail(where, ".param count " + std::to_string(types.size()) + " != args " +
                      std::to_string(c.args.size()));
    } else {
      for (std::size_t i = 0; i < types.size(); ++i)
        if (types[i] != param_type(c.args[i].kind))
          fail(where, "param " + std::to_string(i) + " is " + types[i] + ", arg kind says " +
                          param_type(c.args[i].kind));
      ptx_note = " ptx-params-ok";
    }
  }
  std::printf(
      "%-18s %-20s grid %2ux%ux%u block %3ux%ux%u dsmem %4u  %zu buffers, %zu args, "
      "outputs %zu B as %s  hash %016llx%s\n",
      c.file.c_str(), c.entry.c_str(), c.grid.x, c.grid.y, c.grid.z, c.block.x, c.block.y,
      c.block.z, c.dynamic_shared_bytes, c.buffers.size(), c.args.size(), bytes, c.element.c_str(),
      static_cast<unsigned long long>(h), ptx_note.c_str());
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

}  // namespace

int main(int argc, char** argv) {
  const std::string dir = argc > 1 ? argv[1] : "";
  const std::vector<Case> cases = xpusim::ptx_corpus::corpus_cases();
  std::set<std::string> entries;
  for (const auto& c : cases) {
    if (!entries.insert(c.file + "/" + c.entry).second) fail(c.entry, "duplicate case");
    check_case(c, dir);
  }
  spot_checks(cases);
  std::printf("%zu cases, %d failures\n", cases.size(), failures);
  return failures ? 1 : 0;
}
