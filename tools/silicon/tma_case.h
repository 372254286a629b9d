// One TMA conformance case: a tensor map (cuTensorMapEncodeTiled / Im2col parameters), one
// load through it, and where its box lands in shared memory. The same text line drives our
// golden model (run_model) and the real cp.async.bulk.tensor (tma_check.cu), so the two
// can be compared byte for byte. Format (one case per line, `#` starts a comment):
//   id=7 mode=tiled dtype=6 rank=3 offset=32 dims=40,7,3 strides=96,672 box=16,4,2
//   estr=1,1,1 il=0 sw=0 l2=0 oob=1 coords=-3,5,1 dst=0 tx=1024 copy=1
// im2col cases carry lower=, upper=, cpp=, ppc= and offsets= instead of box=.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sim/result.h"
#include "tma/tensor_map.h"

namespace xpusim::silicon {

struct TmaCase {
  int id = 0;
  bool im2col = false;
  std::uint32_t dtype = 0;  // CUtensorMapDataType value
  std::uint32_t rank = 0;
  std::uint64_t offset = 0;  // globalAddress - the pattern buffer's base
  std::vector<std::uint64_t> dims, strides;
  std::vector<std::uint32_t> box, estr;
  std::uint32_t il = 0, sw = 0, l2 = 0, oob = 0;  // CUDA enum values
  std::vector<std::int32_t> lower, upper;         // im2col corners (W, H, D)
  std::uint32_t cpp = 0, ppc = 0;                 // channelsPerPixel, pixelsPerColumn
  std::vector<std::int32_t> coords;
  std::vector<std::uint32_t> offsets;  // im2col offsets (W, H, D)
  std::uint32_t dst = 0;               // smem offset from a 1024-aligned base
  std::uint64_t tx = 0;                // bytes the box occupies in shared memory (our model)
  bool copy = false;                   // issue the load (else: encode only)
  std::uint32_t pat = 0;               // global pattern: 0 random words, 1 special floats
};

// What one side (model or silicon) did with a case.
struct CaseResult {
  int id = 0;
  bool encoded = false;       // the encoder accepted the map
  std::string copy = "none";  // none | ok | rejected | timeout | excess_tx | fault
  std::uint64_t hash = 0;     // FNV-1a 64 of smem [0, dst + tx + kGuardBytes)
};

// Bytes after the box that are hashed too: a load must leave them untouched.
inline constexpr std::uint32_t kGuardBytes = 256;
// Shared-memory bytes hashed from the 1024-aligned base. A swizzled box may spread its rows
// one swizzle span apart (16 B rows 128 B apart), so 8x its bytes, then the guard.
inline std::uint64_t smem_span(const TmaCase& c) {
  return c.dst + 8 * c.tx + kGuardBytes;
}
// The most shared memory tma_check.cu gives one case; a case spanning more is encoded only.
inline constexpr std::uint64_t kMaxSpan = 128u << 10;
// The byte shared memory holds before a load (both sides poison it so holes show).
inline constexpr unsigned char kPoison = 0xA5;
// The global pattern: little-endian 64-bit word i of the buffer is splitmix64(i) (pat=0), or
// 32-bit word j is special_f32(j) (pat=1: denormals, rounding ties, NaNs, infinities).
std::uint64_t splitmix64(std::uint64_t i);
std::uint32_t special_f32(std::uint64_t j);
std::uint64_t fnv1a64(const unsigned char* p, std::uint64_t n);
// Bytes of the pattern buffer a case may touch: offset + the tensor's extent.
std::uint64_t extent_bytes(const TmaCase& c);

std::string format(const TmaCase& c);
Result<TmaCase> parse_case(std::string_view line);
std::string format(const CaseResult& r);
Result<CaseResult> parse_result(std::string_view line);

// Reads a file of cases or results; blank lines and `#` comments are skipped.
Result<std::vector<TmaCase>> load_cases(const std::string& path);
Result<std::vector<CaseResult>> load_results(const std::string& path);

// The case's map through our encoder, at globalAddress kModelBase + offset (any 256 B-aligned
// base stands for cudaMalloc's).
inline constexpr std::uint64_t kModelBase = 0x7f0000000000;
Result<tma::TensorMap> encode(const TmaCase& c);

// Our encoder and copy engine on a case. `why` (optional) gets the first error when the
// encoder or the load refuses; `smem` (optional) the hashed shared-memory bytes.
CaseResult run_model(const TmaCase& c, std::string* why = nullptr,
                     std::vector<unsigned char>* smem = nullptr);

}  // namespace xpusim::silicon
