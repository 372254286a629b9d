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
//   - "f16" / "bf16": bitwise per 16-bit element, except that any NaN equals any NaN.
//   - tolerance > 0: maximum relative error (no current case needs it).
//
// Buffers: allocate each at least 128-byte aligned (TMA needs a 16-byte aligned global address
// and 16-byte multiples of row pitch, which the tensor maps below satisfy; cp.async.cg and
// cp.async.bulk need 16-byte aligned addresses).
//
// Hopper cases (sm_90a): a `kTensorMap` argument is a `const __grid_constant__ CUtensorMap` kernel
// parameter, `.param .align 128 .b8 NAME[128]` in nvcc 13's PTX (CUDA 13's cuda.h declares
// CUtensorMap alignas(128); CUDA 12 had 64). The harness encodes `Arg::tensor_map` into those 128
// bytes with its own encoder, as cuTensorMapEncodeTiled would (the simulator only has to
// understand its own encoding). A case with `cluster` other than 1x1x1 is a thread-block-cluster
// launch; it equals the entry's `.reqnctapercluster` (from __cluster_dims__) and divides `grid`.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace xpusim::ptx_corpus {

enum class ArgKind { kPtr, kU32, kS32, kU64, kS64, kF32, kF64, kTensorMap };

// What cuTensorMapEncodeTiled (cuda.h) takes, tiled mode only. Enumerators are cuda.h's names
// without their prefix: data_type "UINT8", "UINT16", "UINT32", "INT32", "UINT64", "INT64",
// "FLOAT16", "FLOAT32", "FLOAT64", "BFLOAT16", ... (CU_TENSOR_MAP_DATA_TYPE_*); interleave "NONE",
// "16B", "32B"; swizzle "NONE", "32B", "64B", "128B"; l2_promotion "NONE", "L2_64B", "L2_128B",
// "L2_256B"; oob_fill "NONE" (zeros) or "NAN_REQUEST_ZERO_FMA".
struct TensorMapSpec {
  std::string buffer;                          // globalAddress: this buffer's device address
  std::string data_type;                       // e.g. "UINT32"
  std::uint32_t rank = 0;                      // tensorRank, 1..5
  std::vector<std::uint64_t> global_dim;       // rank entries, elements, innermost first
  std::vector<std::uint64_t> global_strides;   // rank - 1 entries: bytes, of dims 1..rank-1
  std::vector<std::uint32_t> box_dim;          // rank entries, elements (<= 256 each)
  std::vector<std::uint32_t> element_strides;  // rank entries (all 1 here)
  std::string interleave = "NONE", swizzle = "NONE", l2_promotion = "NONE", oob_fill = "NONE";
};

struct Arg {
  ArgKind kind;
  std::string buffer;  // kPtr: the buffer whose device address is passed
  std::uint64_t bits;  // scalars: the value's bits (f32/f64 as bit patterns, s32 sign-extended)
  TensorMapSpec tensor_map{};  // kTensorMap: the map to encode into the 128-byte parameter
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
  Dim cluster;  // CTAs per cluster; 1x1x1: no cluster (the entry has no .reqnctapercluster)
  std::uint32_t dynamic_shared_bytes = 0;
  std::vector<Buffer> buffers;
  std::vector<Arg> args;             // in .param order
  std::vector<std::string> outputs;  // buffers to compare after the run
  std::string element;   // "u8", "u16", "u32", "s32", "u64", "s64", "f16", "bf16", "f32", "f64"
  double tolerance = 0;  // 0: bit-exact (any NaN == any NaN)
  // Expected final contents of every buffer in `outputs`, from the initial contents of all
  // buffers (keyed by name).
  std::function<BufferMap(const BufferMap& inputs)> reference;
};

// The first batch: plain CUDA kernels (19 cases); no tensor maps, no clusters.
std::vector<Case> corpus_cases();

// The Hopper batch (sm_90a, 17 cases): TMA tile loads / multicast / stores and reduce-adds
// (kTensorMap arguments), clusters with distributed shared memory, cp.async and bulk copies with
// mbarriers, warp-level redux / vote / elect, and warp-level tensor-core GEMMs (ldmatrix,
// mma.sync, stmatrix, wmma). Kept apart so that a harness that does not yet
// encode tensor maps or launch clusters can run corpus_cases() alone.
std::vector<Case> hopper_cases();

}  // namespace xpusim::ptx_corpus
