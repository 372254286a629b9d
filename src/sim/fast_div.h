// FastDiv: exact unsigned 64-bit division by a divisor fixed at run time, as one multiply-high,
// a subtract and two shifts (Granlund & Montgomery, "Division by Invariant Integers using
// Multiplication", PLDI 1994, figure 4.1; the method compilers use for constant divisors).
// The simulator divides by the same few numbers on every memory request (a clock's period, a
// cache's set count, a line or interleave size, a slice or channel count); a hardware 64-bit
// divide costs tens of cycles, this a few. Results are identical to `/` and `%` for every
// dividend and every divisor >= 1.
#pragma once

#include <bit>
#include <cstdint>

namespace xpusim::sim {

class FastDiv {
 public:
  FastDiv() : FastDiv(1) {}
  explicit FastDiv(std::uint64_t d) : d_(d) {
    // l = ceil(log2 d); m = floor(2^64 (2^l - d) / d) + 1 fits in 64 bits for every d >= 1.
    const auto l = static_cast<unsigned>(d <= 1 ? 0 : std::bit_width(d - 1));
    m_ = static_cast<std::uint64_t>((((U128{1} << l) - d) << 64) / (d == 0 ? 1 : d)) + 1;
    sh1_ = l < 1 ? l : 1;
    sh2_ = l > 1 ? l - 1 : 0;
  }

  std::uint64_t divisor() const { return d_; }
  std::uint64_t div(std::uint64_t n) const {
    const auto t = static_cast<std::uint64_t>((U128{m_} * n) >> 64);
    return (t + ((n - t) >> sh1_)) >> sh2_;
  }
  std::uint64_t mod(std::uint64_t n) const { return n - div(n) * d_; }

 private:
  __extension__ using U128 = unsigned __int128;
  std::uint64_t d_ = 1;
  std::uint64_t m_ = 1;
  unsigned sh1_ = 0;
  unsigned sh2_ = 0;
};

}  // namespace xpusim::sim
