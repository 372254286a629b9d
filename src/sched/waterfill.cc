#include "sched/waterfill.h"

#include <algorithm>
#include <limits>
#include <numeric>

#include "sim/result.h"

namespace xpusim::sched {

namespace {

// CTAs placed when the water stands h above the deepest lake bottom N: Σ max(0, f − (N − h)).
std::uint64_t volume(std::span<const std::uint32_t> free, std::uint32_t N, std::uint32_t h) {
  std::uint64_t v = 0;
  for (const std::uint32_t f : free)
    if (std::uint64_t{f} + h > N) v += std::uint64_t{f} + h - N;
  return v;
}

}  // namespace

std::uint64_t Fill::placed() const {
  return std::accumulate(per_sm.begin(), per_sm.end(), 0ull);
}

Fill waterfill(std::span<const std::uint32_t> free, std::uint32_t n, bool all_or_nothing,
               LevelSearch search) {
  Fill r;
  r.per_sm.assign(free.size(), 0);
  const std::uint64_t total = std::accumulate(free.begin(), free.end(), std::uint64_t{0});
  if (total < n) {
    if (all_or_nothing) return r;  // ¶154, Fig. 16a 2006→2008: a CGA launches whole or not at all
    n = static_cast<std::uint32_t>(total);  // plain grid: fill every slot now (¶154)
  }
  r.ok = true;
  if (n == 0) return r;

  // Largest h in [0, N] with volume(h) <= n; volume(0) = 0 always qualifies.
  const std::uint32_t N = *std::max_element(free.begin(), free.end());
  std::uint32_t h = 0;
  if (search == LevelSearch::kBinary) {
    // ¶155: try N/2, then N/4 if too much water, else 3N/4, ...
    std::uint32_t lo = 0, hi = N;
    while (lo < hi) {
      const std::uint32_t mid = lo + (hi - lo + 1) / 2;
      ++r.probes;
      if (volume(free, N, mid) <= n) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    h = lo;
  } else {
    // ¶156: for small N, raise the level one row at a time.
    while (h < N) {
      ++r.probes;
      if (volume(free, N, h + 1) > n) break;
      ++h;
    }
  }
  r.level = h;

  // ¶157: R leftovers go to the SMs at the surface (f >= N − h) in priority order, chosen by an
  // exclusive prefix popcount; R < #surface SMs because volume(h + 1) > n when h < N.
  const std::uint32_t surface = N - h;
  const std::uint64_t R = n - volume(free, N, h);
  std::uint64_t prefix = 0;  // exclusive popcount of surface SMs before i
  for (std::size_t i = 0; i < free.size(); ++i) {
    if (free[i] >= N - h) r.per_sm[i] = free[i] - (N - h);
    if (surface > 0 && free[i] >= surface) {
      if (prefix < R) ++r.per_sm[i];
      ++prefix;
    }
  }
  XPUSIM_CHECK(h == N ? R == 0 : R < prefix, "the surface SMs take the leftovers");

  r.speed = std::numeric_limits<std::uint32_t>::max();
  for (std::size_t i = 0; i < free.size(); ++i)
    if (r.per_sm[i] > 0) r.speed = std::min(r.speed, free[i] - r.per_sm[i]);  // ¶167
  return r;
}

std::vector<std::uint32_t> cta_sms(const Fill& fill, std::uint32_t first_sm) {
  std::vector<std::uint32_t> sms;
  sms.reserve(fill.placed());
  for (std::size_t i = 0; i < fill.per_sm.size(); ++i)
    sms.insert(sms.end(), fill.per_sm[i], first_sm + static_cast<std::uint32_t>(i));
  return sms;
}

}  // namespace xpusim::sched
