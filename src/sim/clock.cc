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
}

Tick Clock::edge(Cycles k) const {
  return mul_div(k, num_, den_, /*round_up=*/true);
}

Cycles Clock::cycle_at(Tick t) const {
  return mul_div(t, den_, num_, /*round_up=*/false);
}

Tick Clock::next_edge(Tick t) const {
  const Cycles c = cycle_at(t);
  const Tick e = edge(c);
  return e == t ? t : edge(c + 1);
}

Cycles Clock::next_cycle() const {
  const Tick t = queue_->now();
  const Cycles c = cycle_at(t);
  return edge(c) == t ? c : c + 1;
}

}  // namespace xpusim::sim
