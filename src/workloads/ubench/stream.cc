// Streaming read bandwidth of the L2 and of HBM, the way STREAM-like GPU benchmarks (Chips and
// Cheese's, Luo et al. 2024) measure it: every SM full of warps, each lane loading 16 B per
// instruction in a grid-stride loop, bytes / elapsed time. The addresses never depend on the
// data, so both modes time it identically. The L2 variant warms the buffer into L2 with an
// untimed launch first; each launch starts when the previous one has finished.
#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "mem/memory_system.h"
#include "workloads/ubench/common.h"
#include "workloads/ubench/families.h"

namespace xpusim::workloads::ubench {
namespace {

using kernel::Addr;
using kernel::Lanes;
using U32 = std::uint32_t;
using U64 = std::uint64_t;

constexpr std::string_view kKernel = "ubench.stream_read";
constexpr U64 kLaneBytes = 16;                          // LDG.128
constexpr U64 kChunk = kLaneBytes * kernel::kWarpSize;  // one warp instruction
// Odd and small: CTAs b and b + 7 share an SM neither when CTAs are dealt round-robin over the
// SMs nor when neighbours are packed together (the L1 hit stat in the report checks).
constexpr U64 kRotateCtas = 7;

struct Vec16 {
  U64 lo, hi;
};

// Args: base, bytes, passes, first pass, out. In pass q the warps' roles rotate by
// kRotateCtas CTAs: role r reads chunks r, r + G, ... of the G-warp grid, so an SM never
// re-reads lines it read in the previous pass (its L1 would serve them, not the L2). Each warp
// writes the sum of the 8 B words it read to out[its index].
sim::Task<> stream_read(kernel::Warp& w) {
  const kernel::KernelArgs& a = w.args();
  const Addr base = a.get_ptr(0), out = a.get_ptr(4);
  const U64 bytes = a.get_u64(1), passes = a.get_u64(2), first = a.get_u64(3);
  const kernel::Dim3& b = w.block_id();
  const kernel::Dim3& g = w.params().grid;
  const U64 warps = w.params().warps_per_block();
  const U64 grid_warps = g.count() * warps;
  const U64 gw = ((U64{b.z} * g.y + b.y) * g.x + b.x) * warps + w.warp_id();
  Lanes<U64> sum{};
  for (U64 q = first; q < first + passes; ++q) {
    const U64 role = (gw + q * kRotateCtas * warps) % grid_warps;
    for (U64 off = role * kChunk; off < bytes; off += grid_warps * kChunk) {
      const auto v = co_await w.load_global<Vec16>(
          kernel::lanes<Addr>([&](U32 l) { return base + off + kLaneBytes * l; }));
      for (U32 l = 0; l < kernel::kWarpSize; ++l)
        sum[l] += v[l].lo + v[l].hi;
    }
  }
  U64 total = 0;
  for (const U64 s : sum)
    total += s;
  co_await w.store_global<U64>(Lanes<Addr>{out + 8 * gw}, Lanes<U64>{total}, 1);
}

enum class Target : std::uint8_t { kL2, kHbm };

// Cache counters, read before and after the timed launches.
struct Counts {
  double l1_hits = 0, l1_misses = 0, l2_hits = 0, l2_misses = 0;
};

Result<Counts> counts(system::Chip& chip) {
  Counts c;
  for (std::uint32_t sm = 0; sm < chip.num_sms(); ++sm) {
    const std::string l1 = chip.memory_system().l1(sm).path();
    auto hits = stat_value(chip, l1 + ".load_hits");
    auto misses = stat_value(chip, l1 + ".load_misses");
    if (!hits || !misses) return Error{"L1 hit/miss stats are missing"};
    c.l1_hits += *hits;
    c.l1_misses += *misses;
  }
  const std::string l2 = chip.memory_system().l2().path();
  auto hits = stat_value(chip, l2 + ".hits");
  auto misses = stat_value(chip, l2 + ".misses");
  auto merged = stat_value(chip, l2 + ".merged_misses");
  if (!hits || !misses || !merged) return Error{"L2 hit/miss stats are missing"};
  c.l2_hits = *hits;
  c.l2_misses = *misses + *merged;
  return c;
}

double ratio(double part, double other) {
  return part + other == 0 ? 0 : part / (part + other);
}

// One launch of the chain: `passes` reads of [base, base + bytes).
struct Pass {
  Addr base = 0;
  U64 bytes = 0, passes = 1, first = 0;  // first: the rotation of its first pass
  U64 read() const { return bytes * passes; }
};

// Sum of the words i in [first, last) of the pattern (word i holds i), mod 2^64.
U64 pattern_sum(U64 first, U64 last) {
  const U64 n = last - first, pair = first + last - 1;  // n * pair / 2 without overflow first
  return n % 2 == 0 ? n / 2 * pair : pair / 2 * n;
}

// The launches run one after another (each queued when the previous completes). Two timed
// launches, the second reading twice what the first does, give the steady-state bandwidth
// from their difference: launch ramp-up and drain cancel out (a simulated run is too short
// for them to vanish in the average, as they do in a real benchmark's long loop).
class StreamBandwidth final : public system::Workload {
 public:
  StreamBandwidth(Target target, std::string name, std::string description, U64 footprint)
      : target_(target),
        name_(std::move(name)),
        description_(std::move(description)),
        footprint_default_(footprint) {}

  std::string_view name() const override { return name_; }
  std::string_view description() const override { return description_; }
  std::vector<system::ParamDecl> params() const override {
    std::vector<system::ParamDecl> p{
        {.name = "footprint",
         .description = "bytes the buffer spans: best a multiple of 512 B x "
                        "the grid's warps (the default, on H100), so that "
                        "every warp reads as many chunks",
         .default_value = footprint_default_,
         .min = kChunk,
         .max = U64{1} << 34},
        {.name = "ctas_per_sm",
         .description = "CTAs per SM in the grid",
         .default_value = 2,
         .min = 1,
         .max = 32},
        {.name = "threads",
         .description = "threads per CTA (a multiple of 32)",
         .default_value = 1024,
         .min = 32,
         .max = 1024}};
    if (target_ == Target::kL2) {
      p.push_back({.name = "passes",
                   .description = "reads of the buffer by the first timed launch (the second "
                                  "reads it twice as often)",
                   .default_value = 1,
                   .min = 1,
                   .max = 64});
    }
    return p;
  }

  Status setup(system::Chip& chip, const kernel::KernelRegistry& kernels,
               const system::ParamValues& values) override {
    const U64 f = param(values, "footprint");
    const U64 threads = param(values, "threads");
    if (f % kChunk != 0 || threads % kernel::kWarpSize != 0) {
      return Error{fmt::format("{}: footprint {} must be a multiple of {} and threads {} of 32",
                               name_, f, kChunk, threads)};
    }
    if (auto st = check_target(chip, f); !st) return st;
    auto k = kernels.find(kKernel);
    if (!k) return k.errors();
    kernel_ = *k;
    ctas_ = param(values, "ctas_per_sm") * chip.num_sms();
    launch_ = {.grid = {static_cast<U32>(ctas_), 1, 1},
               .cluster = {1, 1, 1},
               .block = {static_cast<U32>(threads), 1, 1},
               .dynamic_shared_bytes = 0,
               .registers_per_thread = 32};
    // L2: warm the buffer into L2, then read it p and 2p times. HBM: a cold buffer, then a
    // cold one twice as large (every line misses: nothing touched it before).
    auto b = allocate(chip, name_, 8 * ctas_ * launch_.warps_per_block(),
                      target_ == Target::kL2 ? f : 3 * f);
    if (!b) return b.errors();
    buffers_ = *b;
    const Addr kData = buffers_.data;
    if (target_ == Target::kL2) {
      const U64 p = param(values, "passes");
      plan_ = {{.base = kData, .bytes = f, .passes = 1, .first = 0},
               {.base = kData, .bytes = f, .passes = p, .first = 1},
               {.base = kData, .bytes = f, .passes = 2 * p, .first = 1 + p}};
    } else {
      plan_ = {{.base = kData, .bytes = f, .passes = 1, .first = 0},
               {.base = kData + f, .bytes = 2 * f, .passes = 1, .first = 0}};
    }
    if (chip.options().functional) {
      const Pass& last = plan_.back();
      if (auto st = write_pattern(chip, kData, last.base + last.bytes - kData); !st) return st;
    }
    ids_.clear();
    failed_.reset();
    return queue(chip);
  }

  Result<std::vector<system::Measurement>> report(system::Chip& chip) override {
    if (failed_) return *failed_;
    if (ids_.size() != plan_.size()) {
      return Error{fmt::format("{}: {} of {} launches ran", name_, ids_.size(), plan_.size())};
    }
    for (const std::uint32_t id : ids_) {
      if (auto st = check_completed(chip, id, name_); !st) return st.errors();
    }
    if (chip.options().functional) {
      if (auto st = check_sums(chip); !st) return st.errors();
    }
    const Pass& a = plan_[plan_.size() - 2];
    const Pass& b = plan_.back();
    const system::KernelRun& ra = chip.run(ids_[ids_.size() - 2]);
    const system::KernelRun& rb = chip.run(ids_.back());
    const auto ps = [](const system::KernelRun& r) {
      return static_cast<double>(r.completed - r.first_start);
    };
    auto after = counts(chip);
    if (!after) return after.errors();
    const config::ChipSpec& s = chip.spec();
    const bool l2 = target_ == Target::kL2;
    const double peak =
        l2 ? static_cast<double>(U64{s.l2.slices} * s.l2.slice_bytes_per_cycle * s.clocks.l2_hz)
           : static_cast<double>(s.hbm.bandwidth_bytes_per_s);
    const std::string what = l2 ? "L2 read bandwidth" : "HBM read bandwidth";
    const std::string shape =
        fmt::format("{} CTAs of {} threads, 16 B per lane", ctas_, launch_.threads_per_block());
    // bytes per ps = TB/s; x 1000 = GB/s.
    return std::vector<system::Measurement>{
        {.name = what,
         .measured = static_cast<double>(b.read() - a.read()) / (ps(rb) - ps(ra)) * 1e3,
         .configured = peak / 1e9,
         .unit = "GB/s",
         .note = fmt::format("steady state: (read {} B - read {} B) / difference of the two "
                             "launches' times; {}; configured = {}",
                             b.read(), a.read(), shape,
                             l2 ? "slices x slice_bytes_per_cycle x L2 clock" : "hbm.bandwidth")},
        {.name = what + ", whole launch",
         .measured = static_cast<double>(b.read()) / ps(rb) * 1e3,
         .configured = peak / 1e9,
         .unit = "GB/s",
         .note =
             fmt::format("{} B / the second launch's time, ramp-up and drain included", b.read())},
        {.name = "L2 hit rate of the timed launches",
         .measured = ratio(after->l2_hits - before_.l2_hits, after->l2_misses - before_.l2_misses),
         .configured = l2 ? 1.0 : 0.0,
         .unit = "ratio",
         .note = "L2 reads that found their sectors resident"},
        {.name = "L1 hit rate of the timed launches",
         .measured = ratio(after->l1_hits - before_.l1_hits, after->l1_misses - before_.l1_misses),
         .configured = 0.0,
         .unit = "ratio",
         .note = "loads the L1s served (they would inflate the figure)"}};
  }

 private:
  // Queues the next launch of the plan; its completion queues the one after.
  Status queue(system::Chip& chip) {
    const std::size_t i = ids_.size();
    if (i + 2 == plan_.size()) {  // the first timed launch
      auto c = counts(chip);
      if (!c) return c.errors();
      before_ = *c;
    }
    const Pass& p = plan_[i];
    const kernel::KernelArgs args =
        kernel::KernelArgs().ptr(p.base).u64(p.bytes).u64(p.passes).u64(p.first).ptr(
            buffers_.results);
    auto id = chip.launch(*kernel_, launch_, args, [this, &chip](const system::KernelRun&) {
      if (ids_.size() == plan_.size()) return;
      if (auto st = queue(chip); !st) failed_ = st.error();
    });
    if (!id) return id.errors();
    ids_.push_back(*id);
    return Ok{};
  }

  // The last launch's warps each wrote the sum of what they read.
  Status check_sums(system::Chip& chip) const {
    const Pass& b = plan_.back();
    auto sums = read_words(chip, buffers_.results, ctas_ * launch_.warps_per_block());
    if (!sums) return sums.errors();
    U64 got = 0;
    for (const U64 v : *sums)
      got += v;
    const U64 first = (b.base - buffers_.data) / 8;
    const U64 want = b.passes * pattern_sum(first, first + b.bytes / 8);
    if (got == want) return Ok{};
    return Error{fmt::format("{}: the warps' sums add to {}, expected {}", name_, got, want)};
  }

  // The L2 variant's buffer must fit the L2 with room to spare (set conflicts stay rare).
  Status check_target(const system::Chip& chip, U64 footprint) const {
    const U64 l2 = chip.spec().l2.size_bytes;
    if (target_ == Target::kHbm || footprint <= l2 / 2) return Ok{};
    return Error{fmt::format("{}: footprint {} B is above half the {} B L2", name_, footprint, l2)};
  }

  // 8 B word i (from `data`) holds i, so the sum over any range is known.
  static Status write_pattern(system::Chip& chip, Addr data, U64 bytes) {
    std::vector<U64> block(1 << 17);
    for (U64 done = 0; done < bytes / 8; done += block.size()) {
      const U64 n = std::min<U64>(block.size(), bytes / 8 - done);
      for (U64 i = 0; i < n; ++i)
        block[i] = done + i;
      if (auto st = chip.memory().write(data + 8 * done, std::as_bytes(std::span(block.data(), n)));
          !st) {
        return st;
      }
    }
    return Ok{};
  }

  Target target_;
  std::string name_, description_;
  U64 footprint_default_;
  U64 ctas_ = 0;
  Buffers buffers_;
  const kernel::KernelDef* kernel_ = nullptr;
  kernel::LaunchParams launch_{};
  std::vector<Pass> plan_;
  std::vector<std::uint32_t> ids_;
  std::optional<Error> failed_;  // a launch queued from a completion callback was refused
  Counts before_;
};

}  // namespace

Status register_stream(kernel::KernelRegistry& kernels, system::WorkloadRegistry& workloads) {
  if (auto st = kernels.add({.name = std::string(kKernel),
                             .description = "grid-stride streaming read, 16 B per lane, each "
                                            "warp writing the sum of what it read",
                             .args = {{"base", kernel::ArgKind::kPtr},
                                      {"bytes", kernel::ArgKind::kU64},
                                      {"passes", kernel::ArgKind::kU64},
                                      {"first_pass", kernel::ArgKind::kU64},
                                      {"out", kernel::ArgKind::kPtr}},
                             .body = stream_read,
                             .static_shared_bytes = 0});
      !st) {
    return st;
  }
  // 4.125 MiB: one 512 B chunk per warp of the default grid on H100 (264 CTAs of 32 warps).
  constexpr U64 kFootprint = 264 * 32 * kChunk;
  if (auto st = workloads.add(std::make_unique<StreamBandwidth>(
          Target::kL2, "ubench.l2_bandwidth",
          "L2 read bandwidth: every SM streams a 4.125 MiB buffer warmed into L2", kFootprint));
      !st) {
    return st;
  }
  return workloads.add(std::make_unique<StreamBandwidth>(
      Target::kHbm, "ubench.hbm_bandwidth",
      "HBM read bandwidth: every SM streams cold buffers (every line misses L2)", kFootprint));
}

}  // namespace xpusim::workloads::ubench
