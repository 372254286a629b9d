#include "kernel/kernel_args.h"

#include <fmt/format.h>

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
  }
  return "?";
}

KernelArgs& KernelArgs::f32(float v) {
  return push(ArgKind::kF32, std::bit_cast<std::uint32_t>(v));
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

namespace {
bool is_float_kind(ArgKind k) {
  return k == ArgKind::kF32;
}
std::uint32_t kind_bytes(ArgKind k) {
  return k == ArgKind::kU32 || k == ArgKind::kF32 ? 4 : 8;
}
// A PTX .param's rule: same size, and a float only for a float.
bool raw_match(ArgKind given, ArgKind declared) {
  return kind_bytes(given) == kind_bytes(declared) &&
         is_float_kind(given) == is_float_kind(declared);
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
      return Error{fmt::format("kernel {}: argument {} ({}) is a {}, it must be a {}", kernel, i,
                               signature[i].name, to_string(kinds_[i]),
                               to_string(signature[i].kind))};
    }
  }
  return Ok{};
}

}  // namespace xpusim::kernel
