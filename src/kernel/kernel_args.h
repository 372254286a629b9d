// Kernel arguments: a flat list of typed scalars, as CUDA passes a kernel's parameters. A kernel
// declares its signature when it registers; a launch whose arguments do not match (count or
// type) is an error naming the argument, before any warp runs.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/result.h"

namespace xpusim::kernel {

// The scalar kinds a kernel parameter may have (PTX .param types: .u8, .u16, .u32, .s32, .u64,
// .s64, .f32, .f64; ptr is a 64-bit address).
// kTensorMap: a 128-byte CUtensorMap passed by value (`const __grid_constant__ CUtensorMap`,
// PTX `.param .align 128 .b8 p[128]`).
enum class ArgKind : std::uint8_t {
  kU32,
  kU64,
  kF32,
  kPtr,
  kS32,
  kS64,
  kU16,
  kU8,
  kF64,
  kTensorMap
};
inline constexpr std::size_t kTensorMapArgBytes = 128;
std::string_view to_string(ArgKind k);
// Its size in bytes, which is also its alignment in a kernarg segment: 1, 2, 4, 8 or 128.
std::uint64_t arg_bytes(ArgKind k);

struct ArgDecl {
  std::string name;  // for error messages and `xpusim` listings
  ArgKind kind = ArgKind::kU32;
  // A PTX .param: any integer kind of `kind`'s size matches (an 8-byte one a pointer too),
  // floats only the same float kind.
  bool raw_param = false;
};

class KernelArgs {
 public:
  KernelArgs& u32(std::uint32_t v) { return push(ArgKind::kU32, v); }
  KernelArgs& u64(std::uint64_t v) { return push(ArgKind::kU64, v); }
  KernelArgs& f32(float v);
  KernelArgs& ptr(std::uint64_t address) { return push(ArgKind::kPtr, address); }
  KernelArgs& s32(std::int32_t v) { return push(ArgKind::kS32, static_cast<std::uint32_t>(v)); }
  KernelArgs& s64(std::int64_t v) { return push(ArgKind::kS64, static_cast<std::uint64_t>(v)); }
  KernelArgs& u16(std::uint16_t v) { return push(ArgKind::kU16, v); }
  KernelArgs& u8(std::uint8_t v) { return push(ArgKind::kU8, v); }
  KernelArgs& f64(double v);
  KernelArgs& tensor_map(std::span<const std::byte> blob);  // kTensorMapArgBytes of them
  // An argument from its bytes as a kernarg segment holds them (little-endian, arg_bytes(k) of
  // them): what a decoder or a front end reading raw parameters has. Higher bits must be 0.
  KernelArgs& from_bits(ArgKind k, std::uint64_t bits);

  std::size_t size() const { return kinds_.size(); }
  ArgKind kind(std::size_t i) const { return kinds_[i]; }

  // Typed reads; the signature check at launch makes a mismatch an internal error here.
  std::uint32_t get_u32(std::size_t i) const;
  std::uint64_t get_u64(std::size_t i) const;
  float get_f32(std::size_t i) const;
  std::uint64_t get_ptr(std::size_t i) const;
  std::int32_t get_s32(std::size_t i) const;
  std::int64_t get_s64(std::size_t i) const;
  std::uint16_t get_u16(std::size_t i) const;
  std::uint8_t get_u8(std::size_t i) const;
  double get_f64(std::size_t i) const;
  // Argument i's bytes as a number (any kind but kTensorMap; a float's bit pattern, an s32 not
  // sign-extended).
  std::uint64_t bits(std::size_t i) const { return bits_[i]; }
  // A kTensorMap argument's 128 bytes.
  std::span<const std::byte> blob(std::size_t i) const;
  // Where the launch's kernarg segment sits in device memory (0: not launched through the
  // command processor): the parameters' own addresses, as PTX `cvta.param` gives them.
  std::uint64_t segment_address() const { return segment_; }
  void set_segment_address(std::uint64_t a) { segment_ = a; }
  // Where the kernel's module variables (KernelDef::globals) sit in device memory (0: none
  // placed).
  std::uint64_t globals_address() const { return globals_; }
  void set_globals_address(std::uint64_t a) { globals_ = a; }

  // Errors: a different count, or argument i of another kind (named by its declared name).
  Status check(std::string_view kernel, const std::vector<ArgDecl>& signature) const;

 private:
  KernelArgs& push(ArgKind k, std::uint64_t bits) {
    kinds_.push_back(k);
    bits_.push_back(bits);
    return *this;
  }
  std::uint64_t at(std::size_t i, ArgKind k) const;
  std::vector<ArgKind> kinds_;
  std::vector<std::uint64_t> bits_;  // kTensorMap: the index in blobs_
  std::vector<std::array<std::byte, kTensorMapArgBytes>> blobs_;
  std::uint64_t segment_ = 0;
  std::uint64_t globals_ = 0;
};

}  // namespace xpusim::kernel
