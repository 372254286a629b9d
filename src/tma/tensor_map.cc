// Per-type facts of the TensorMap enums. Names are cuda.h's enumerator names without their
// CU_TENSOR_MAP_<ENUM>_ prefix, so a YAML file reads like the CUDA call it mirrors.
#include "tma/tensor_map.h"

namespace xpusim::tma {

std::uint32_t element_bits(DataType t) {
  switch (t) {
    case DataType::kUint8:
      return 8;
    case DataType::kUint16:
    case DataType::kFloat16:
    case DataType::kBfloat16:
      return 16;
    case DataType::kUint32:
    case DataType::kInt32:
    case DataType::kFloat32:
    case DataType::kFloat32Ftz:
    case DataType::kTfloat32:
    case DataType::kTfloat32Ftz:
      return 32;
    case DataType::kUint64:
    case DataType::kInt64:
    case DataType::kFloat64:
      return 64;
    case DataType::k16U4Align8B:
    case DataType::k16U4Align16B:
      return 4;
    case DataType::k16U6Align16B:
      return 6;
  }
  return 8;
}

bool is_float(DataType t) {
  switch (t) {
    case DataType::kFloat16:
    case DataType::kFloat32:
    case DataType::kFloat64:
    case DataType::kBfloat16:
    case DataType::kFloat32Ftz:
    case DataType::kTfloat32:
    case DataType::kTfloat32Ftz:
      return true;
    default:
      return false;
  }
}

bool is_packed(DataType t) {
  return t == DataType::k16U4Align8B || t == DataType::k16U4Align16B ||
         t == DataType::k16U6Align16B;
}

std::string_view name(DataType t) {
  switch (t) {
    case DataType::kUint8:
      return "UINT8";
    case DataType::kUint16:
      return "UINT16";
    case DataType::kUint32:
      return "UINT32";
    case DataType::kInt32:
      return "INT32";
    case DataType::kUint64:
      return "UINT64";
    case DataType::kInt64:
      return "INT64";
    case DataType::kFloat16:
      return "FLOAT16";
    case DataType::kFloat32:
      return "FLOAT32";
    case DataType::kFloat64:
      return "FLOAT64";
    case DataType::kBfloat16:
      return "BFLOAT16";
    case DataType::kFloat32Ftz:
      return "FLOAT32_FTZ";
    case DataType::kTfloat32:
      return "TFLOAT32";
    case DataType::kTfloat32Ftz:
      return "TFLOAT32_FTZ";
    case DataType::k16U4Align8B:
      return "16U4_ALIGN8B";
    case DataType::k16U4Align16B:
      return "16U4_ALIGN16B";
    case DataType::k16U6Align16B:
      return "16U6_ALIGN16B";
  }
  return "?";
}

std::string_view name(Interleave i) {
  switch (i) {
    case Interleave::kNone:
      return "NONE";
    case Interleave::k16B:
      return "16B";
    case Interleave::k32B:
      return "32B";
  }
  return "?";
}

std::string_view name(Swizzle s) {
  switch (s) {
    case Swizzle::kNone:
      return "NONE";
    case Swizzle::k32B:
      return "32B";
    case Swizzle::k64B:
      return "64B";
    case Swizzle::k128B:
      return "128B";
    case Swizzle::k128BAtom32B:
      return "128B_ATOM_32B";
    case Swizzle::k128BAtom32BFlip8B:
      return "128B_ATOM_32B_FLIP_8B";
    case Swizzle::k128BAtom64B:
      return "128B_ATOM_64B";
  }
  return "?";
}

std::string_view name(L2Promotion p) {
  switch (p) {
    case L2Promotion::kNone:
      return "NONE";
    case L2Promotion::k64B:
      return "L2_64B";
    case L2Promotion::k128B:
      return "L2_128B";
    case L2Promotion::k256B:
      return "L2_256B";
  }
  return "?";
}

std::string_view name(OobFill f) {
  switch (f) {
    case OobFill::kNone:
      return "NONE";
    case OobFill::kNanRequestZeroFma:
      return "NAN_REQUEST_ZERO_FMA";
    case OobFill::kConstant:
      return "CONSTANT";
  }
  return "?";
}

}  // namespace xpusim::tma
