#include "kernel/kernel_args.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>

namespace xpusim::kernel {

std::string_view to_string(ArgKind k) {
  switch (k) {
    case ArgKind::kU32:
      return "u32";
    case ArgKind::kU64:
      return "u64";
    case ArgKind::kF32:
      return "f32";
    case ArgKind::kPtr:
      return "ptr";
    case ArgKind::kS32:
      return "s32";
    case ArgKind::kS64:
      return "s64";
    case ArgKind::kU16:
      return "u16";
    case ArgKind::kU8:
      return "u8";
    case ArgKind::kF64:
      return "f64";
    case ArgKind::kTensorMap:
      return "tensor_map";
  }
  return "?";
}

std::uint64_t arg_bytes(ArgKind k) {
  switch (k) {
    case ArgKind::kU8:
      return 1;
    case ArgKind::kU16:
      return 2;
    case ArgKind::kU32:
    case ArgKind::kS32:
    case ArgKind::kF32:
      return 4;
    case ArgKind::kU64:
    case ArgKind::kS64:
    case ArgKind::kF64:
    case ArgKind::kPtr:
      return 8;
    case ArgKind::kTensorMap:
      return kTensorMapArgBytes;
  }
  return 8;
}

KernelArgs& KernelArgs::f32(float v) {
  return push(ArgKind::kF32, std::bit_cast<std::uint32_t>(v));
}

KernelArgs& KernelArgs::f64(double v) {
  return push(ArgKind::kF64, std::bit_cast<std::uint64_t>(v));
}

KernelArgs& KernelArgs::tensor_map(std::span<const std::byte> blob) {
  XPUSIM_CHECK(blob.size() == kTensorMapArgBytes, "a tensor map argument is 128 bytes");
  std::array<std::byte, kTensorMapArgBytes> b{};
  std::copy(blob.begin(), blob.end(), b.begin());
  blobs_.push_back(b);
  return push(ArgKind::kTensorMap, blobs_.size() - 1);
}

std::span<const std::byte> KernelArgs::blob(std::size_t i) const {
  XPUSIM_CHECK(i < kinds_.size() && kinds_[i] == ArgKind::kTensorMap, "not a tensor map argument");
  return blobs_[bits_[i]];
}

KernelArgs& KernelArgs::from_bits(ArgKind k, std::uint64_t bits) {
  XPUSIM_CHECK(k != ArgKind::kTensorMap, "a tensor map argument is made from its bytes");
  XPUSIM_CHECK(arg_bytes(k) == 8 || bits >> (8 * arg_bytes(k)) == 0,
               "kernel argument bits wider than its kind");
  return push(k, bits);
}

std::uint64_t KernelArgs::at(std::size_t i, ArgKind k) const {
  XPUSIM_CHECK(i < kinds_.size() && kinds_[i] == k, "kernel argument read with the wrong type");
  return bits_[i];
}

std::uint32_t KernelArgs::get_u32(std::size_t i) const {
  return static_cast<std::uint32_t>(at(i, ArgKind::kU32));
}
std::uint64_t KernelArgs::get_u64(std::size_t i) const {
  return at(i, ArgKind::kU64);
}
float KernelArgs::get_f32(std::size_t i) const {
  return std::bit_cast<float>(static_cast<std::uint32_t>(at(i, ArgKind::kF32)));
}
std::uint64_t KernelArgs::get_ptr(std::size_t i) const {
  return at(i, ArgKind::kPtr);
}
std::int32_t KernelArgs::get_s32(std::size_t i) const {
  return std::bit_cast<std::int32_t>(static_cast<std::uint32_t>(at(i, ArgKind::kS32)));
}
std::int64_t KernelArgs::get_s64(std::size_t i) const {
  return std::bit_cast<std::int64_t>(at(i, ArgKind::kS64));
}
std::uint16_t KernelArgs::get_u16(std::size_t i) const {
  return static_cast<std::uint16_t>(at(i, ArgKind::kU16));
}
std::uint8_t KernelArgs::get_u8(std::size_t i) const {
  return static_cast<std::uint8_t>(at(i, ArgKind::kU8));
}
double KernelArgs::get_f64(std::size_t i) const {
  return std::bit_cast<double>(at(i, ArgKind::kF64));
}

namespace {
bool is_float_kind(ArgKind k) {
  return k == ArgKind::kF32 || k == ArgKind::kF64;
}
// A PTX .param's rule: same size, and a float only for the same float.
bool raw_match(ArgKind given, ArgKind declared) {
  return arg_bytes(given) == arg_bytes(declared) && is_float_kind(given) == is_float_kind(declared);
}
// What a PTX .param of `declared`'s size and class takes, for the mismatch message.
std::string raw_rule(ArgKind declared) {
  switch (arg_bytes(declared)) {
    case 1:
      return "a u8 (a .param of 1 byte)";
    case 2:
      return "a u16 (a .param of 2 bytes)";
    case 4:
      return is_float_kind(declared) ? "an f32 (an .f32 .param)"
                                     : "a u32 or s32 (a 4-byte integer .param)";
    case 8:
      return is_float_kind(declared) ? "an f64 (an .f64 .param)"
                                     : "a u64, s64 or ptr (an 8-byte integer .param)";
    default:
      return "a tensor_map (a 128-byte .param)";
  }
}
}  // namespace

Status KernelArgs::check(std::string_view kernel, const std::vector<ArgDecl>& signature) const {
  if (kinds_.size() != signature.size()) {
    std::string want;
    for (const ArgDecl& a : signature)
      want += fmt::format("{}{} {}", want.empty() ? "" : ", ", to_string(a.kind), a.name);
    return Error{fmt::format("kernel {}: {} arguments given, it takes {} ({})", kernel,
                             kinds_.size(), signature.size(), want.empty() ? "none" : want)};
  }
  for (std::size_t i = 0; i < signature.size(); ++i) {
    if (kinds_[i] != signature[i].kind &&
        !(signature[i].raw_param && raw_match(kinds_[i], signature[i].kind))) {
      return Error{fmt::format("kernel {}: argument {} ({}) is a {}, it must be {}", kernel, i,
                               signature[i].name, to_string(kinds_[i]),
                               signature[i].raw_param
                                   ? raw_rule(signature[i].kind)
                                   : fmt::format("a {}", to_string(signature[i].kind)))};
    }
  }
  return Ok{};
}

}  // namespace xpusim::kernel
