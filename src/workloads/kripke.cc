#include "workloads/kripke.h"

#include <fmt/format.h>

#include <array>
#include <string>
#include <vector>

#include "kernel/warp.h"
#include "workloads/ubench/common.h"

namespace xpusim::workloads {
namespace {

using kernel::Addr;
using kernel::Warp;

constexpr std::array<const char*, 6> kSteps = {"ltimes",     "scattering", "source",
                                               "lplustimes", "sweep",      "population"};

std::uint32_t scale_of(std::size_t k) {
  return static_cast<std::uint32_t>(2 * k + 3);
}
std::uint32_t offset_of(std::size_t k) {
  return static_cast<std::uint32_t>(k + 1);
}

// y[i] = x[i] * a + b for i < n, a grid-stride loop.
sim::Task<> kripke_step(Warp& w) {
  const Addr x = w.args().get_ptr(0), y = w.args().get_ptr(1);
  const std::uint64_t n = w.args().get_u64(2);
  const std::uint32_t a = w.args().get_u32(3), b = w.args().get_u32(4);
  const std::uint64_t stride =
      std::uint64_t{w.params().grid.count()} * w.params().threads_per_block();
  for (auto i = w.global_thread_ids(); i[0] < n;) {
    kernel::LaneMask m = 0;
    for (std::uint32_t l = 0; l < kernel::kWarpSize; ++l)
      m |= i[l] < n ? kernel::LaneMask{1} << l : 0;
    m &= w.thread_mask();
    if (m == 0) break;
    auto v = co_await w.load_global<std::uint32_t>(Warp::lane_addresses(x, 4, i), m);
    co_await w.alu(2);  // the multiply-add, waiting for the load
    for (auto& e : v)
      e = e * a + b;
    co_await w.store_global<std::uint32_t>(Warp::lane_addresses(y, 4, i), v, m);
    co_await w.alu_chain(4);  // index step, compare, branch
    for (auto& e : i)
      e += stride;
  }
}

class Kripke final : public system::Workload {
 public:
  std::string_view name() const override { return "kripke"; }
  std::string_view description() const override {
    return "seed3's Kripke loop on the SMs: 6 dependent small kernels x iterations on one queue "
           "(dispatch mode from the scenario's queues; its figures are the queue's and the run's)";
  }
  std::vector<system::ParamDecl> params() const override {
    return {{"iterations", "loop iterations (6 launches each)", 20, 1, 10'000},
            {"elements", "u32 words each kernel reads and writes", 4096, 1, 1 << 24},
            {"ctas", "CTAs per kernel", 8, 1, 1 << 16},
            {"threads", "threads per CTA", 128, 32, 1024}};
  }

  Status setup(system::Chip& chip, const kernel::KernelRegistry& kernels,
               const system::ParamValues& v) override {
    iterations_ = ubench::param(v, "iterations");
    elements_ = ubench::param(v, "elements");
    std::array<const kernel::KernelDef*, 6> defs{};
    for (std::size_t k = 0; k < kSteps.size(); ++k) {
      auto d = kernels.find(fmt::format("kripke.{}", kSteps[k]));
      if (!d) return d.errors();
      defs[k] = *d;
    }
    for (int b = 0; b < 2; ++b) {
      auto at = chip.allocate(fmt::format("{}: buffer {}", name(), b), 4 * elements_);
      if (!at) return at.errors();
      buffers_[b] = *at;
    }
    ids_.clear();
    if (chip.options().functional) {
      std::vector<std::uint32_t> x(elements_);
      for (std::uint64_t i = 0; i < elements_; ++i)
        x[i] = static_cast<std::uint32_t>(i);
      if (auto st = chip.memory().write(buffers_[0], std::as_bytes(std::span(x))); !st) return st;
    }
    const kernel::LaunchParams p{
        .grid = {static_cast<std::uint32_t>(ubench::param(v, "ctas")), 1, 1},
        .block = {static_cast<std::uint32_t>(ubench::param(v, "threads")), 1, 1}};
    std::optional<std::uint32_t> previous;
    for (std::uint64_t it = 0; it < iterations_; ++it) {
      for (std::size_t k = 0; k < kSteps.size(); ++k) {
        const auto args = kernel::KernelArgs()
                              .ptr(buffers_[k % 2])
                              .ptr(buffers_[(k + 1) % 2])
                              .u64(elements_)
                              .u32(scale_of(k))
                              .u32(offset_of(k));
        system::LaunchOptions o;
        if (previous) o.after.push_back(*previous);
        auto id = chip.launch(*defs[k], p, args, {}, o);
        if (!id) return id.errors();
        previous = *id;
        ids_.push_back(*id);
      }
    }
    return Ok{};
  }

  Result<std::vector<system::Measurement>> report(system::Chip& chip) override {
    for (const std::uint32_t id : ids_) {
      if (auto st = ubench::check_completed(chip, id, name()); !st) return st.errors();
    }
    if (chip.options().functional) {
      std::vector<std::uint32_t> want(elements_), got(elements_);
      for (std::uint64_t i = 0; i < elements_; ++i) {
        std::uint32_t e = static_cast<std::uint32_t>(i);
        for (std::uint64_t it = 0; it < iterations_; ++it) {
          for (std::size_t k = 0; k < kSteps.size(); ++k)
            e = e * scale_of(k) + offset_of(k);
        }
        want[i] = e;
      }
      if (auto st = chip.memory().read(buffers_[0], std::as_writable_bytes(std::span(got))); !st) {
        return st.errors();
      }
      for (std::uint64_t i = 0; i < elements_; ++i) {
        if (got[i] != want[i]) {
          return Error{
              fmt::format("kripke: x[{}] = {:#x} at {:#x} after {} iterations, expected "
                          "{:#x}",
                          i, got[i], buffers_[0] + 4 * i, iterations_, want[i])};
        }
      }
    }
    // The digest §3 formula with this chip's costs and the measured kernel times (Σ X_k, launch
    // to completion): every dispatch packet costs fetch + decode + setup + cleanup, a condensed
    // packet fetch + decode + cleanup (intermediate kernels need none, ¶146), each of its
    // kernels diff + setup; the doorbell once, when the agent first wakes.
    const system::CommandProcessor& cp = chip.command_processor();
    const cp::AgentTiming& t = chip.cp_timing();
    const cp::KernelAgent& agent = cp.agent(chip.run(ids_.front()).queue);
    // Its own launches' records; the packet counts, Σ X_k and the total are its queue's and the
    // run's (alone on the chip, as in the shipped scenario, they are its own).
    const std::uint64_t kernels = ids_.size();
    const std::uint64_t dispatches = cp.dispatch_packets(), condensed = cp.condensed_packets();
    double overhead = 0;
    for (const std::uint32_t id : ids_) {
      if (const cp::LaunchRecord* r = chip.agent_record(id)) {
        overhead += static_cast<double>(r->overhead_cycles);
      }
    }
    const std::uint64_t formula =
        agent.execution_cycles() + t.doorbell_cycles +
        dispatches * (t.fetch_cycles + t.decode_cycles + t.setup_cycles + t.cleanup_cycles) +
        condensed * (t.fetch_cycles + t.decode_cycles + t.cleanup_cycles) +
        (kernels - dispatches) * (t.diff_cycles + t.setup_cycles);
    const double total = static_cast<double>(chip.clock().cycle_at(chip.root().sim().now()));
    const double k = static_cast<double>(kernels);
    return std::vector<system::Measurement>{
        {.name = "kernels",
         .measured = k,
         .configured = std::nullopt,
         .unit = "",
         .note = "6 per iteration"},
        {.name = "packets fetched",
         .measured = static_cast<double>(agent.packets()),
         .configured = std::nullopt,
         .unit = "",
         .note = fmt::format("{} dispatch ({} reference), {} condensed", dispatches,
                             cp.reference_packets(), condensed)},
        {.name = "packet bytes per kernel",
         .measured = static_cast<double>(agent.packets()) * 64 / k,
         .configured = std::nullopt,
         .unit = "B",
         .note = "64 B a packet, over every kernel"},
        {.name = "dispatch overhead per kernel",
         .measured = overhead / k,
         .configured = std::nullopt,
         .unit = "cycles",
         .note = "the agent's doorbell, fetch, decode, setup, diff and cleanup"},
        {.name = "kernel time per kernel",
         .measured = static_cast<double>(agent.execution_cycles()) / k,
         .configured = std::nullopt,
         .unit = "cycles",
         .note = "launch to completion on the SMs (X_k)"},
        {.name = "total",
         .measured = total,
         .configured = static_cast<double>(formula),
         .unit = "cycles",
         .note = "configured: the seed3 timing formula with the measured X_k"},
    };
  }

 private:
  std::uint64_t iterations_ = 0, elements_ = 0;
  Addr buffers_[2] = {0, 0};
  std::vector<std::uint32_t> ids_;  // its launches, in order
};

}  // namespace

Status register_kripke(kernel::KernelRegistry& kernels, system::WorkloadRegistry& workloads) {
  for (const char* step : kSteps) {
    if (auto st = kernels.add({.name = fmt::format("kripke.{}", step),
                               .description = "y[i] = x[i]*a + b over n u32 words (a Kripke step)",
                               .args = {{"x", kernel::ArgKind::kPtr},
                                        {"y", kernel::ArgKind::kPtr},
                                        {"n", kernel::ArgKind::kU64},
                                        {"a", kernel::ArgKind::kU32},
                                        {"b", kernel::ArgKind::kU32}},
                               .body = kripke_step,
                               .static_shared_bytes = 0});
        !st) {
      return st;
    }
  }
  return workloads.add(std::make_unique<Kripke>());
}

}  // namespace xpusim::workloads
