#include "mem/bank_conflicts.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <utility>

namespace xpusim::mem {

namespace {

bool valid_width(std::uint32_t bytes) {
  return bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8 || bytes == 16;
}

std::vector<Error> check_inputs(std::span<const LaneAccess> accesses, const BankGeometry& g) {
  std::vector<Error> errors;
  if (g.banks == 0) errors.push_back(Error{"bank geometry: banks must be at least 1, got 0"});
  if (!std::has_single_bit(g.bank_bytes)) {
    errors.push_back(Error{
        fmt::format("bank geometry: bank_bytes must be a power of two, got {}", g.bank_bytes)});
  }
  std::array<bool, kWarpLanes> seen{};
  const LaneAccess* first = accesses.empty() ? nullptr : &accesses.front();
  for (const LaneAccess& a : accesses) {
    if (a.lane >= kWarpLanes) {
      errors.push_back(
          Error{fmt::format("shared access lane {} is outside 0..{}", a.lane, kWarpLanes - 1)});
    } else if (seen[a.lane]) {
      errors.push_back(Error{fmt::format("shared access lists lane {} twice", a.lane)});
    } else {
      seen[a.lane] = true;
    }
    if (!valid_width(a.bytes)) {
      errors.push_back(Error{fmt::format(
          "shared access of lane {}: width {} B is not 1, 2, 4, 8 or 16", a.lane, a.bytes)});
      continue;
    }
    if (a.bytes != first->bytes && valid_width(first->bytes)) {
      errors.push_back(Error{fmt::format(
          "shared access of lane {}: width {} B differs from lane {}'s {} B (one warp access "
          "has one width)",
          a.lane, a.bytes, first->lane, first->bytes)});
    }
    if (a.address % a.bytes != 0) {
      errors.push_back(Error{
          fmt::format("shared access of lane {}: address {:#x} is not aligned to its {} B width",
                      a.lane, a.address, a.bytes)});
    }
  }
  return errors;
}

}  // namespace

Result<BankConflictCost> bank_conflict_cost(std::span<const LaneAccess> accesses,
                                            const BankGeometry& geometry, const AddressMap& map) {
  if (auto errors = check_inputs(accesses, geometry); !errors.empty()) return errors;
  BankConflictCost cost;
  if (accesses.empty()) return cost;

  // A wavefront returns at most one bank row, so wide accesses are served in lane phases.
  const std::uint32_t bb = geometry.bank_bytes;
  const std::uint64_t row_bytes = std::uint64_t{geometry.banks} * bb;
  const std::uint32_t width = accesses.front().bytes;
  const auto lanes_per_phase =
      static_cast<std::uint32_t>(std::clamp<std::uint64_t>(row_bytes / width, 1, kWarpLanes));

  // (phase, bank, word) keys of every bank word touched, sorted once: a word touched twice is
  // one read (broadcast); the longest run of one bank in a phase is its serialized reads. A
  // stack buffer covers every warp access of <= 16 B lanes on >= 4 B banks (this runs per
  // shared access, so it must not allocate).
  std::array<std::uint64_t, 256> small{};
  std::vector<std::uint64_t> large;
  std::size_t n = 0;
  const auto push = [&](std::uint64_t key) {
    if (n < small.size()) {
      small[n++] = key;
      return;
    }
    if (large.empty()) large.assign(small.begin(), small.end());
    large.push_back(key);
    ++n;
  };
  std::vector<Error> errors;
  for (const LaneAccess& a : accesses) {
    const std::uint64_t phase = a.lane / lanes_per_phase;
    const std::uint32_t first_word = a.address / bb;
    const std::uint32_t last_word = (a.address + (a.bytes - 1)) / bb;
    for (std::uint32_t w = first_word; w <= last_word; ++w) {
      std::uint32_t word = w;
      if (map) {
        const std::uint32_t physical = map(w * bb);
        if (physical % bb != 0) {
          errors.push_back(Error{fmt::format(
              "address map moved word {:#x} of lane {} to {:#x}, which is not {}-byte aligned "
              "(the map must move whole bank words)",
              w * bb, a.lane, physical, bb)});
          continue;
        }
        word = physical / bb;
      }
      push(phase << 48 | std::uint64_t{word % geometry.banks} << 32 | word);
    }
  }
  if (!errors.empty()) return errors;

  const std::span<std::uint64_t> keys =
      large.empty() ? std::span<std::uint64_t>(small.data(), n) : std::span<std::uint64_t>(large);
  std::sort(keys.begin(), keys.end());
  const auto last = std::unique(keys.begin(), keys.end());
  const auto group = [](std::uint64_t k) { return k >> 32; };  // (phase, bank)
  std::uint64_t phase = ~std::uint64_t{0};
  std::uint32_t worst = 0;
  for (auto i = keys.begin(); i != last;) {
    auto j = i;
    while (j != last && group(*j) == group(*i))
      ++j;
    if ((*i >> 48) != phase) {
      if (phase != ~std::uint64_t{0}) {
        cost.wavefronts += worst;
        ++cost.phases;
      }
      phase = *i >> 48;
      worst = 0;
    }
    worst = std::max(worst, static_cast<std::uint32_t>(j - i));
    i = j;
  }
  if (phase != ~std::uint64_t{0}) {
    cost.wavefronts += worst;
    ++cost.phases;
  }
  return cost;
}

BankConflictCost valid_warp_access_cost(std::span<const std::uint64_t, kWarpLanes> addresses,
                                        std::uint32_t mask, std::uint32_t bytes,
                                        const BankGeometry& geometry) {
  BankConflictCost cost;
  if (mask == 0) return cost;
  if (geometry.banks > 64) {
    std::vector<LaneAccess> lanes;
    for (std::uint32_t l = 0; l < kWarpLanes; ++l) {
      if ((mask >> l) & 1) {
        lanes.push_back(
            {.lane = l, .address = static_cast<std::uint32_t>(addresses[l]), .bytes = bytes});
      }
    }
    auto r = bank_conflict_cost(lanes, geometry);
    XPUSIM_CHECK(r.ok(), "valid_warp_access_cost was given an invalid access");
    return *r;
  }
  const std::uint32_t banks = geometry.banks;
  const unsigned shift = static_cast<unsigned>(std::countr_zero(geometry.bank_bytes));
  const std::uint64_t row_bytes = std::uint64_t{banks} << shift;
  const auto lanes_per_phase =
      static_cast<std::uint32_t>(std::clamp<std::uint64_t>(row_bytes / bytes, 1, kWarpLanes));
  // Words a lane touches: one when the width fits a bank word (aligned), else width / word.
  const std::uint32_t words_per_lane = std::max<std::uint32_t>(bytes >> shift, 1);
  // A word's bank: a mask for a power-of-two bank count (every shipped config), no divide.
  const bool pow2 = std::has_single_bit(banks);
  const auto bank_of = [pow2, banks](std::uint32_t w) {
    return pow2 ? w & (banks - 1) : w % banks;
  };
  // Valid only where `seen` has the bank's bit: left uninitialized (no 256 B clear per call).
  std::array<std::uint32_t, 64> word_of;
  // The banks a lane's consecutive words fall in, as a bit set (wrapping past the last bank).
  // A lane wider than a row hits a bank twice itself: no quick test then.
  const bool quick = words_per_lane <= banks;
  const std::uint64_t all_banks = banks == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << banks) - 1;
  const std::uint64_t run =
      words_per_lane >= banks ? all_banks : (std::uint64_t{1} << words_per_lane) - 1;
  const auto lane_banks = [&](std::uint32_t b0) {
    if (words_per_lane >= banks) return all_banks;
    const std::uint64_t low = run << b0 & all_banks;
    return b0 + words_per_lane > banks ? low | run >> (banks - b0) : low;
  };
  // Lanes of a bank word or wider, naturally aligned, each cover one whole group of
  // words_per_lane banks: two overlap exactly when they fall in one group, so the quick test
  // is a bit per group from the address alone, without a branch per lane.
  const bool groups = quick && pow2 && bytes >= geometry.bank_bytes && std::has_single_bit(bytes);
  const auto group_shift = static_cast<unsigned>(std::countr_zero(bytes));
  const std::uint32_t group_mask = banks / words_per_lane - 1;
  for (std::uint32_t first = 0; first < kWarpLanes; first += lanes_per_phase) {
    const std::uint32_t end = std::min(first + lanes_per_phase, kWarpLanes);
    if (groups) {
      std::uint64_t used = 0, twice = 0;
      for (std::uint32_t l = first; l < end; ++l) {
        const std::uint64_t on = (mask >> l) & 1;
        const std::uint64_t bit =
            on << ((static_cast<std::uint32_t>(addresses[l]) >> group_shift) & group_mask);
        twice |= used & bit;
        used |= bit;
      }
      if (used == 0) continue;
      if (twice == 0) {
        ++cost.phases;
        cost.wavefronts += 1;
        continue;
      }
    }
    // Quick test: no two lanes of the phase share a bank (the common, conflict-free layout):
    // one wavefront, without the per-word walk below that broadcasts need.
    if (quick && !groups) {
      std::uint64_t used = 0;
      bool disjoint = true, any = false;
      for (std::uint32_t l = first; l < end; ++l) {
        if (((mask >> l) & 1) == 0) continue;
        any = true;
        const std::uint64_t m =
            lane_banks(bank_of(static_cast<std::uint32_t>(addresses[l]) >> shift));
        if ((used & m) != 0) {
          disjoint = false;
          break;
        }
        used |= m;
      }
      if (!any) continue;
      if (disjoint) {
        ++cost.phases;
        cost.wavefronts += 1;
        continue;
      }
    }
    // One word seen per bank so far (`seen` says which banks have one); a second, different
    // word in a bank sends the phase to the counting path below.
    std::uint64_t seen = 0;
    bool conflict = false, active = false;
    for (std::uint32_t l = first; l < end && !conflict; ++l) {
      if (((mask >> l) & 1) == 0) continue;
      active = true;
      const std::uint32_t w0 = static_cast<std::uint32_t>(addresses[l]) >> shift;
      for (std::uint32_t w = w0; w < w0 + words_per_lane; ++w) {
        const std::uint32_t b = bank_of(w);
        if (((seen >> b) & 1) == 0) {
          seen |= std::uint64_t{1} << b;
          word_of[b] = w;
        } else if (word_of[b] != w) {
          conflict = true;
          break;
        }
      }
    }
    if (!active) continue;
    ++cost.phases;
    if (!conflict) {
      cost.wavefronts += 1;
      continue;
    }
    // Distinct words per bank: sort the phase's (bank, word) keys, count the longest run.
    std::array<std::uint64_t, 64 * 16> keys;  // <= lanes_per_phase x words_per_lane
    std::size_t n = 0;
    for (std::uint32_t l = first; l < end; ++l) {
      if (((mask >> l) & 1) == 0) continue;
      const std::uint32_t w0 = static_cast<std::uint32_t>(addresses[l]) >> shift;
      for (std::uint32_t w = w0; w < w0 + words_per_lane; ++w)
        keys[n++] = std::uint64_t{bank_of(w)} << 32 | w;
    }
    std::sort(keys.begin(), keys.begin() + static_cast<std::ptrdiff_t>(n));
    const auto last = std::unique(keys.begin(), keys.begin() + static_cast<std::ptrdiff_t>(n));
    std::uint32_t worst = 0;
    for (auto i = keys.begin(); i != last;) {
      auto j = i;
      while (j != last && (*j >> 32) == (*i >> 32))
        ++j;
      worst = std::max(worst, static_cast<std::uint32_t>(j - i));
      i = j;
    }
    cost.wavefronts += worst;
  }
  return cost;
}

std::vector<LaneAccess> warp_access(std::span<const std::uint32_t> addresses, std::uint32_t bytes) {
  std::vector<LaneAccess> out;
  out.reserve(addresses.size());
  for (std::size_t i = 0; i < addresses.size(); ++i) {
    out.push_back(
        LaneAccess{.lane = static_cast<std::uint32_t>(i), .address = addresses[i], .bytes = bytes});
  }
  return out;
}

std::vector<LaneAccess> column_chunk_access(std::uint32_t base, std::uint32_t row_pitch,
                                            std::uint32_t chunk_column, std::uint32_t rows) {
  std::vector<LaneAccess> out;
  out.reserve(rows);
  for (std::uint32_t r = 0; r < rows; ++r) {
    out.push_back(
        LaneAccess{.lane = r, .address = base + r * row_pitch + 16 * chunk_column, .bytes = 16});
  }
  return out;
}

std::vector<LaneAccess> ldmatrix_x4_access(std::uint32_t base, std::uint32_t row_pitch,
                                           std::span<const MatrixOrigin, 4> origins) {
  std::vector<LaneAccess> out;
  out.reserve(kWarpLanes);
  for (std::uint32_t lane = 0; lane < kWarpLanes; ++lane) {
    const MatrixOrigin& m = origins[lane / 8];
    out.push_back(LaneAccess{.lane = lane,
                             .address = base + (m.row + lane % 8) * row_pitch + 16 * m.chunk,
                             .bytes = 16});
  }
  return out;
}

std::vector<LaneAccess> ldmatrix_x4_access(std::uint32_t base, std::uint32_t row_pitch) {
  static constexpr std::array<MatrixOrigin, 4> kA16x16{{{.row = 0, .chunk = 0},
                                                        {.row = 8, .chunk = 0},
                                                        {.row = 0, .chunk = 1},
                                                        {.row = 8, .chunk = 1}}};
  return ldmatrix_x4_access(base, row_pitch, kA16x16);
}

}  // namespace xpusim::mem
