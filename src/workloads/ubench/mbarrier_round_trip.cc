// mbarrier round trip: two warps of one CTA ping-pong on two mbarriers (count 1 each). Warp 0
// arrives on A and waits for B's phase; warp 1 waits for A's phase and arrives on B. One round
// trip is two arrive -> wait-parity hand-offs, the producer/consumer handshake of CUTLASS
// pipelines with nothing in between.
#include <fmt/format.h>

#include <memory>

#include "workloads/ubench/common.h"
#include "workloads/ubench/families.h"

namespace xpusim::workloads::ubench {
namespace {

using kernel::Addr;
using kernel::Lanes;
using U64 = std::uint64_t;

constexpr std::string_view kKernel = "ubench.mbarrier_ping_pong";
constexpr std::uint32_t kA = 0, kB = 8;  // shared offsets of the two mbarriers

// Args: warm-up round trips, timed round trips, out. Warp 0 writes out[0] = timed cycles less
// the clock reads' own cost, out[1] = 1 if both barriers ended on the last phase.
sim::Task<> ping_pong(kernel::Warp& w) {
  const kernel::KernelArgs& a = w.args();
  const U64 warm = a.get_u64(0), timed = a.get_u64(1);
  const Addr out = a.get_ptr(2);
  const U64 total = warm + timed;
  if (w.warp_id() == 0) {
    co_await w.mbarrier_init(kA, 1);
    co_await w.mbarrier_init(kB, 1);
  }
  co_await w.sync_threads();
  if (w.warp_id() == 1) {
    for (U64 i = 0; i < total; ++i) {
      co_await w.mbarrier_wait_parity(kA, static_cast<std::uint32_t>(i & 1));
      co_await w.mbarrier_arrive(kB);
    }
    co_return;
  }
  U64 c0 = 0, c1 = 0;
  for (U64 i = 0; i < total; ++i) {
    if (i == warm) {
      c0 = co_await w.clock();
      c1 = co_await w.clock();
    }
    co_await w.mbarrier_arrive(kA);
    co_await w.mbarrier_wait_parity(kB, static_cast<std::uint32_t>(i & 1));
  }
  const U64 c2 = co_await w.clock();
  const auto last = static_cast<std::uint32_t>((total - 1) & 1);
  const bool a_done = co_await w.mbarrier_try_wait_parity(kA, last);
  const bool b_done = co_await w.mbarrier_try_wait_parity(kB, last);
  co_await w.store_global<U64>(Lanes<Addr>{out, out + 8},
                               Lanes<U64>{(c2 - c1) - (c1 - c0), U64{a_done && b_done}}, 0b11);
}

class MbarrierRoundTrip final : public system::Workload {
 public:
  std::string_view name() const override { return "ubench.mbarrier_round_trip"; }
  std::string_view description() const override {
    return "mbarrier round trip: two warps ping-pong on two mbarriers (arrive / wait_parity)";
  }
  std::vector<system::ParamDecl> params() const override {
    return {{.name = "round_trips",
             .description = "timed round trips",
             .default_value = 1024,
             .min = 1,
             .max = 1 << 20},
            {.name = "warmup",
             .description = "untimed round trips first",
             .default_value = 16,
             .min = 0,
             .max = 1 << 20}};
  }

  Status setup(system::Chip& chip, const kernel::KernelRegistry& kernels,
               const system::ParamValues& values) override {
    if (auto st = require_functional(chip, name(), "its clock64 result comes back through memory");
        !st)
      return st;
    round_trips_ = param(values, "round_trips");
    auto k = kernels.find(kKernel);
    if (!k) return k.errors();
    auto b = allocate(chip, name(), 16);
    if (!b) return b.errors();
    results_ = b->results;
    const kernel::LaunchParams p{.grid = {1, 1, 1},
                                 .cluster = {1, 1, 1},
                                 .block = {64, 1, 1},
                                 .dynamic_shared_bytes = 0,
                                 .registers_per_thread = 32};
    auto id = chip.launch(
        **k, p, kernel::KernelArgs().u64(param(values, "warmup")).u64(round_trips_).ptr(results_));
    if (!id) return id.errors();
    launch_ = *id;
    return Ok{};
  }

  Result<std::vector<system::Measurement>> report(system::Chip& chip) override {
    if (auto st = check_completed(chip, launch_, name()); !st) return st.errors();
    auto out = read_words(chip, results_, 2);
    if (!out) return out.errors();
    if ((*out)[1] != 1) {
      return Error{fmt::format("{}: the mbarriers did not end on the last phase", name())};
    }
    // Each hand-off: the arrive completes the phase at issue and the parked waiter issues again
    // mbarrier_latency later (core/sm.cc mbarrier_op); its own arrive then goes out at once.
    const core::SmTiming& t = chip.timing();
    return std::vector<system::Measurement>{
        {.name = "mbarrier round trip",
         .measured = static_cast<double>((*out)[0]) / static_cast<double>(round_trips_),
         .configured = 2.0 * t.mbarrier_latency,
         .unit = "cycles",
         .note = fmt::format("{} round trips of two warps on one SM; configured = 2 x "
                             "mbarrier_latency {}",
                             round_trips_, t.mbarrier_latency)}};
  }

 private:
  U64 round_trips_ = 0;
  std::uint32_t launch_ = 0;
  kernel::Addr results_ = 0;
};

}  // namespace

Status register_mbarrier_round_trip(kernel::KernelRegistry& kernels,
                                    system::WorkloadRegistry& workloads) {
  if (auto st = kernels.add({.name = std::string(kKernel),
                             .description = "two warps ping-pong on two mbarriers, timing the "
                                            "round trips with clock64",
                             .args = {{"warmup", kernel::ArgKind::kU64},
                                      {"round_trips", kernel::ArgKind::kU64},
                                      {"out", kernel::ArgKind::kPtr}},
                             .body = ping_pong,
                             .static_shared_bytes = 16});
      !st) {
    return st;
  }
  return workloads.add(std::make_unique<MbarrierRoundTrip>());
}

}  // namespace xpusim::workloads::ubench
