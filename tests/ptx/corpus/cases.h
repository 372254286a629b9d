// The PTX corpus case table: for each kernel in this folder (NAME.cu, compiled to the checked-in
// NAME.ptx by regen.sh), the launch (grid, block, dynamic shared memory), the buffers with their
// initial bytes, the kernel arguments in .param order, which buffers to compare after the run,
// and an independent C++ reference that computes those buffers' expected final contents from
// the initial ones (it mirrors CUDA semantics, not the PTX text).
//
// Plain C++20 and the standard library only: no xpusim header. All inputs come from a
// fixed-seed splitmix64, so the table is the same on every platform and library.
//
// Comparison rules (`element`, `tolerance`):
//   - Integer kinds ("u8", "u16", "u32", "s32", "u64", "s64"): the bytes must be equal. The kind
//     is the natural element for error messages; a case whose outputs mix widths (device_calls,
//     int_divmod) names "u32", which every output's size is a multiple of.
//   - "f32" / "f64" with tolerance 0: bit-exact (+0 and -0 differ), except that any NaN equals
//     any NaN (payloads may be canonicalized).
//   - tolerance > 0: maximum relative error (no current case needs it).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace xpusim::ptx_corpus {

enum class ArgKind { kPtr, kU32, kS32, kU64, kS64, kF32, kF64 };

struct Arg {
  ArgKind kind;
  std::string buffer;  // kPtr: the buffer whose device address is passed
  std::uint64_t bits;  // scalars: the value's bits (f32/f64 as bit patterns, s32 sign-extended)
};

struct Buffer {
  std::string name;
  std::vector<std::uint8_t> init;  // initial bytes (little-endian elements)
};

struct Dim {
  std::uint32_t x = 1, y = 1, z = 1;
};

using Bytes = std::vector<std::uint8_t>;
using BufferMap = std::map<std::string, Bytes>;

struct Case {
  std::string file;   // "saxpy" -> saxpy.ptx / saxpy.cu
  std::string entry;  // the .entry name
  Dim grid, block;
  std::uint32_t dynamic_shared_bytes = 0;
  std::vector<Buffer> buffers;
  std::vector<Arg> args;             // in .param order
  std::vector<std::string> outputs;  // buffers to compare after the run
  std::string element;               // "u8", "u16", "u32", "s32", "u64", "s64", "f32", "f64"
  double tolerance = 0;              // 0: bit-exact (any NaN == any NaN)
  // Expected final contents of every buffer in `outputs`, from the initial contents of all
  // buffers (keyed by name).
  std::function<BufferMap(const BufferMap& inputs)> reference;
};

std::vector<Case> corpus_cases();

}  // namespace xpusim::ptx_corpus
