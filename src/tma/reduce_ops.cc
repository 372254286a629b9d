#include "tma/reduce_ops.h"

#include <bit>
#include <cmath>
#include <cstring>

#include "sim/float_formats.h"

namespace xpusim::tma {

namespace {

constexpr std::uint16_t kNan16 = kCanonicalNan16;
constexpr std::uint32_t kNan32 = 0x7FFFFFFF;
constexpr std::uint64_t kNan64 = 0x7FFFFFFFFFFFFFFF;

float flush(float f) {
  return std::fpclassify(f) == FP_SUBNORMAL ? std::copysign(0.0f, f) : f;
}

std::uint16_t reduce_16(ReduceOp op, bool bf, std::uint16_t d, std::uint16_t s) {
  const float a = bf ? bf16_to_float(d) : half_to_float(d);
  const float b = bf ? bf16_to_float(s) : half_to_float(s);
  if (op == ReduceOp::kAdd) {
    const float r = a + b;
    if (std::isnan(r)) return kNan16;
    return bf ? float_to_bf16(r) : float_to_half(r);
  }
  // PTX min/max: a NaN operand yields the other one; -0 orders below +0. The result is one of
  // the operands, so return its encoding rather than a re-rounded value.
  const bool want_min = op == ReduceOp::kMin;
  if (std::isnan(a) && std::isnan(b)) return kNan16;
  if (std::isnan(a)) return s;
  if (std::isnan(b)) return d;
  if (a == b) return std::signbit(a) == want_min ? d : s;  // equal up to the sign of zero
  return (a < b) == want_min ? d : s;
}

std::uint32_t reduce_f32(bool ftz, std::uint32_t d, std::uint32_t s) {
  float a = std::bit_cast<float>(d), b = std::bit_cast<float>(s);
  if (ftz) a = flush(a), b = flush(b);
  float r = a + b;
  if (std::isnan(r)) return kNan32;
  if (ftz) r = flush(r);
  return std::bit_cast<std::uint32_t>(r);
}

std::uint64_t reduce_f64(std::uint64_t d, std::uint64_t s) {
  const double r = std::bit_cast<double>(d) + std::bit_cast<double>(s);
  return std::isnan(r) ? kNan64 : std::bit_cast<std::uint64_t>(r);
}

template <class U, class S>
U reduce_int(ReduceOp op, U d, U s) {
  switch (op) {
    case ReduceOp::kAdd:
      return static_cast<U>(d + s);
    case ReduceOp::kMin:
      return static_cast<S>(s) < static_cast<S>(d) ? s : d;
    case ReduceOp::kMax:
      return static_cast<S>(s) > static_cast<S>(d) ? s : d;
    case ReduceOp::kInc:
      return d >= s ? U{0} : static_cast<U>(d + 1);
    case ReduceOp::kDec:
      return (d == 0 || d > s) ? s : static_cast<U>(d - 1);
    case ReduceOp::kAnd:
      return d & s;
    case ReduceOp::kOr:
      return d | s;
    case ReduceOp::kXor:
      return d ^ s;
  }
  return d;
}

template <class T, class F>
void each(std::span<std::byte> dst, std::span<const std::byte> src, F f) {
  for (std::size_t i = 0; i + sizeof(T) <= dst.size(); i += sizeof(T)) {
    T d, s;
    std::memcpy(&d, dst.data() + i, sizeof(T));
    std::memcpy(&s, src.data() + i, sizeof(T));
    d = f(d, s);
    std::memcpy(dst.data() + i, &d, sizeof(T));
  }
}

}  // namespace

bool reduce_supported(ReduceOp op, DataType t) {
  const bool arith = op == ReduceOp::kAdd || op == ReduceOp::kMin || op == ReduceOp::kMax;
  const bool bitwise = op == ReduceOp::kAnd || op == ReduceOp::kOr || op == ReduceOp::kXor;
  switch (t) {
    case DataType::kUint32:
      return true;
    case DataType::kInt32:
    case DataType::kUint64:
    case DataType::kInt64:
      return arith || bitwise;
    case DataType::kFloat16:
    case DataType::kBfloat16:
      return arith;
    case DataType::kFloat32:
    case DataType::kFloat32Ftz:
    case DataType::kTfloat32:
    case DataType::kTfloat32Ftz:
    case DataType::kFloat64:
      return op == ReduceOp::kAdd;
    default:
      return false;
  }
}

std::string supported_reduce_ops(DataType t) {
  std::string out;
  for (ReduceOp op : {ReduceOp::kAdd, ReduceOp::kMin, ReduceOp::kMax, ReduceOp::kInc,
                      ReduceOp::kDec, ReduceOp::kAnd, ReduceOp::kOr, ReduceOp::kXor}) {
    if (!reduce_supported(op, t)) continue;
    if (!out.empty()) out += ", ";
    out += name(op);
  }
  return out.empty() ? "none" : out;
}

void reduce_elements(ReduceOp op, DataType t, std::span<std::byte> dst,
                     std::span<const std::byte> src) {
  XPUSIM_CHECK(dst.size() == src.size() && reduce_supported(op, t), "checked by the caller");
  switch (t) {
    case DataType::kUint32:
      return each<std::uint32_t>(dst, src, [op](std::uint32_t d, std::uint32_t s) {
        return reduce_int<std::uint32_t, std::uint32_t>(op, d, s);
      });
    case DataType::kInt32:
      return each<std::uint32_t>(dst, src, [op](std::uint32_t d, std::uint32_t s) {
        return reduce_int<std::uint32_t, std::int32_t>(op, d, s);
      });
    case DataType::kUint64:
      return each<std::uint64_t>(dst, src, [op](std::uint64_t d, std::uint64_t s) {
        return reduce_int<std::uint64_t, std::uint64_t>(op, d, s);
      });
    case DataType::kInt64:
      return each<std::uint64_t>(dst, src, [op](std::uint64_t d, std::uint64_t s) {
        return reduce_int<std::uint64_t, std::int64_t>(op, d, s);
      });
    case DataType::kFloat16:
    case DataType::kBfloat16: {
      const bool bf = t == DataType::kBfloat16;
      return each<std::uint16_t>(
          dst, src, [op, bf](std::uint16_t d, std::uint16_t s) { return reduce_16(op, bf, d, s); });
    }
    case DataType::kFloat32:
    case DataType::kTfloat32:
    case DataType::kFloat32Ftz:
    case DataType::kTfloat32Ftz: {
      const bool ftz = t == DataType::kFloat32Ftz || t == DataType::kTfloat32Ftz;
      return each<std::uint32_t>(
          dst, src, [ftz](std::uint32_t d, std::uint32_t s) { return reduce_f32(ftz, d, s); });
    }
    case DataType::kFloat64:
      return each<std::uint64_t>(dst, src, reduce_f64);
    default:
      return;
  }
}

}  // namespace xpusim::tma
