// Kernel arguments: a flat list of typed scalars, as CUDA passes a kernel's parameters. A kernel
// declares its signature when it registers; a launch whose arguments do not match (count or
// type) is an error naming the argument, before any warp runs.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sim/result.h"

namespace xpusim::kernel {

enum class ArgKind : std::uint8_t { kU32, kU64, kF32, kPtr };
std::string_view to_string(ArgKind k);

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

  std::size_t size() const { return kinds_.size(); }
  ArgKind kind(std::size_t i) const { return kinds_[i]; }

  // Typed reads; the signature check at launch makes a mismatch an internal error here.
  std::uint32_t get_u32(std::size_t i) const;
  std::uint64_t get_u64(std::size_t i) const;
  float get_f32(std::size_t i) const;
  std::uint64_t get_ptr(std::size_t i) const;
  // Argument i's bits whatever its kind (an interpreted kernel's param block).
  std::uint64_t raw(std::size_t i) const { return bits_.at(i); }
  // Where the launch's kernarg segment sits in device memory (0: not launched through the
  // command processor): the parameters' own addresses, as PTX `cvta.param` gives them.
  std::uint64_t segment_address() const { return segment_; }
  void set_segment_address(std::uint64_t a) { segment_ = a; }

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
  std::vector<std::uint64_t> bits_;
  std::uint64_t segment_ = 0;
};

}  // namespace xpusim::kernel
