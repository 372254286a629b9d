#include "sim/clock.h"

#include <numeric>

#include "sim/result.h"

namespace xpusim::sim {

namespace {
__extension__ using u128 = unsigned __int128;

constexpr std::uint64_t kPsPerSecond = 1'000'000'000'000ULL;

// floor(a * b / c) or ceil(...) without overflow of the product.
std::uint64_t mul_div(std::uint64_t a, std::uint64_t b, std::uint64_t c, bool round_up) {
  std::uint64_t prod;
  if (!__builtin_mul_overflow(a, b, &prod)) {
    return prod / c + (round_up && prod % c != 0 ? 1 : 0);
  }
  const u128 wide = static_cast<u128>(a) * b;
  const u128 q = wide / c + (round_up && wide % c != 0 ? 1 : 0);
  XPUSIM_CHECK(q <= ~std::uint64_t{0}, "clock conversion overflows 64-bit ticks");
  return static_cast<std::uint64_t>(q);
}
}  // namespace

Clock::Clock(EventQueue& queue, std::uint64_t frequency_hz) : queue_(&queue), hz_(frequency_hz) {
  XPUSIM_CHECK(frequency_hz > 0 && frequency_hz <= kPsPerSecond,
               "clock frequency must be in (0 Hz, 1 THz]");
  const std::uint64_t g = std::gcd(kPsPerSecond, frequency_hz);
  num_ = kPsPerSecond / g;
  den_ = frequency_hz / g;
  num_div_ = FastDiv(num_);
  den_div_ = FastDiv(den_);
}

Tick Clock::edge_wide(Cycles k) const {
  return mul_div(k, num_, den_, /*round_up=*/true);
}

Cycles Clock::cycle_at_wide(Tick t) const {
  return mul_div(t, den_, num_, /*round_up=*/false);
}

}  // namespace xpusim::sim
