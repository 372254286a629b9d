// Building a TensorMap exactly as cuTensorMapEncodeTiled / cuTensorMapEncodeIm2col do (CUDA 13
// cuda.h): the same parameters, and every rule their doc comments state, checked all at once.
// Each broken rule is one line naming the parameter (cuda.h's name) and entry, the value, the
// rule and, where one exists, the nearest valid value:
//   globalStrides[1] = 1000: must be a multiple of 16 (nearest: 992 or 1008)
// The rule list with its cuda.h source is in docs/tma.md ("Tensor maps").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/result.h"
#include "tma/tensor_map.h"

namespace xpusim::tma {

// cuTensorMapEncodeTiled's parameters. Arrays have tensorRank entries (globalStrides:
// tensorRank - 1, the byte strides of dimensions 1..rank-1).
struct TiledParams {
  DataType data_type = DataType::kUint8;  // tensorDataType
  std::uint32_t rank = 0;                 // tensorRank
  std::uint64_t global_address = 0;
  std::vector<std::uint64_t> global_dim = {};
  std::vector<std::uint64_t> global_strides = {};
  std::vector<std::uint32_t> box_dim = {};
  std::vector<std::uint32_t> element_strides = {};
  Interleave interleave = Interleave::kNone;
  Swizzle swizzle = Swizzle::kNone;
  L2Promotion l2_promotion = L2Promotion::kNone;
  OobFill oob_fill = OobFill::kNone;
  std::uint64_t oob_fill_value = 0;  // oob_fill == CONSTANT: the fill element's bits
};

// cuTensorMapEncodeIm2col's parameters. The corners have tensorRank - 2 entries, one per
// spatial dimension, innermost first: index 0 is W (dimension 1), then H, then D (as CUTLASS
// passes them).
struct Im2colParams {
  DataType data_type = DataType::kUint8;
  std::uint32_t rank = 0;
  std::uint64_t global_address = 0;
  std::vector<std::uint64_t> global_dim = {};
  std::vector<std::uint64_t> global_strides = {};
  std::vector<std::int32_t> pixel_box_lower_corner = {};
  std::vector<std::int32_t> pixel_box_upper_corner = {};
  std::uint32_t channels_per_pixel = 0;
  std::uint32_t pixels_per_column = 0;
  std::vector<std::uint32_t> element_strides = {};
  Interleave interleave = Interleave::kNone;
  Swizzle swizzle = Swizzle::kNone;
  L2Promotion l2_promotion = L2Promotion::kNone;
  OobFill oob_fill = OobFill::kNone;
  std::uint64_t oob_fill_value = 0;  // oob_fill == CONSTANT: the fill element's bits
};

// One broken rule. `param` is cuda.h's parameter name ("globalStrides"), `index` the array
// entry or -1, `message` the whole line ("globalStrides[1] = 1000: must be ...").
struct Violation {
  std::string param;
  int index = -1;
  std::string message;
};

// Every rule the parameters break, in parameter order; empty when they are valid.
std::vector<Violation> check_tiled(const TiledParams& p);
std::vector<Violation> check_im2col(const Im2colParams& p);

Result<TensorMap> encode_tiled(const TiledParams& p);
Result<TensorMap> encode_im2col(const Im2colParams& p);

// The parameters a map was encoded from (the inverse of encode_*); requires the right mode.
TiledParams tiled_params(const TensorMap& map);
Im2colParams im2col_params(const TensorMap& map);

// Strides that do not cover the dimension below them (globalStrides[0] < the bytes of
// globalDim[0] elements, globalStrides[i] < globalStrides[i-1] x globalDim[i]): an aliasing
// view, almost always a mistake, so `xpusim tma lint` warns; cuTensorMapEncode accepts it
// (H200 driver, tools/silicon), and so does encode_*. One line per stride.
std::vector<std::string> overlapping_strides(const TensorMap& map);

// What a map uses that cuTensorMapEncodeTiled / Im2col cannot express (xpusim's extensions,
// e.g. oobFill = CONSTANT), one line each naming the field, the value and the rule; empty for
// a map a real GPU can take. `xpusim tma lint --cuda` refuses a map with any.
std::vector<std::string> cuda_extensions(const TensorMap& map);

// Bytes `count` elements of `t` occupy in global memory, rounded up (packed types: 4 or 6
// bits each, cuda.h's boxDim[0] * elementSizeInBytes).
std::uint64_t packed_bytes(DataType t, std::uint64_t count);

}  // namespace xpusim::tma
