// Element semantics of the TMA reductions (seed0 ¶159; PTX cp.reduce.async.bulk(.tensor)):
// which operation each element type supports and what it computes, bit for bit.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "tma/copy_engine.h"
#include "tma/tensor_map.h"

namespace xpusim::tma {

// Whether `op` is defined on elements of type `t`:
//   UINT32            add min max inc dec and or xor
//   INT32/UINT64/INT64 add min max and or xor   (INT64 add = the u64 add's bits)
//   FLOAT16/BFLOAT16  add min max
//   FLOAT32(_FTZ), TFLOAT32(_FTZ), FLOAT64   add
// Nothing else (8/16-bit integers and packed types have no reductions).
bool reduce_supported(ReduceOp op, DataType t);

// The ops `t` supports, comma-separated (for error messages); "none" if there are none.
std::string supported_reduce_ops(DataType t);

// dst[i] = op(dst[i], src[i]) for each little-endian element of `t` in the spans (same size).
//  - integers wrap; inc: d >= s ? 0 : d + 1; dec: (d == 0 || d > s) ? s : d - 1 (atomicInc/Dec);
//  - float add rounds to nearest even in the element's own format (f16/bf16 via float, which
//    is exact enough: 24 >= 2*11 + 2 makes the double rounding innocuous); *_FTZ types flush
//    subnormal inputs and results to sign-preserving zero;
//  - min/max order -0 below +0, return the other operand when one is NaN;
//  - every NaN result is the canonical 0x7FFF..FF of the format.
void reduce_elements(ReduceOp op, DataType t, std::span<std::byte> dst,
                     std::span<const std::byte> src);

}  // namespace xpusim::tma
