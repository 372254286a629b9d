// CGA launch policies of the compute work distributor (seed1 ¶127–171, ¶200–221): the patent's
// water-filling + speed selection, and the baselines it is measured against (digest §5.18).
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sched/gpu_state.h"
#include "sched/grid.h"
#include "sched/waterfill.h"
#include "sim/registry.h"
#include "sim/result.h"

namespace xpusim::sched {

struct CgaPlacement {
  std::uint32_t gpc = 0;  // for kGpuCga / kUgpuCga: the GPC of its first GPC_CGA
  // SM id per CTA, CTA rank order within the CGA (x fastest); a GPU_CGA or µGPU_CGA lists all
  // its CTAs, GPC_CGA by GPC_CGA.
  std::vector<std::uint32_t> sm_of_cta;
  std::uint32_t speed = 0;
  std::vector<std::uint32_t> gpcs;  // kGpuCga / kUgpuCga: the GPC of each GPC_CGA (else empty)
};

struct LaunchStep {
  std::vector<CgaPlacement> cgas;  // launched this step, already applied to the GpuState
  std::uint32_t decision_cycles = 0;
  std::uint32_t probes = 0;  // level probes charged (parallel GPC queries: the max, see policy.cc)
};

struct DecisionCost {  // distributor cycles; documented knobs, defaults are our assumption
  std::uint32_t step_cycles = 2;     // fixed cost of one water-fill step (query + commit)
  std::uint32_t probe_cycles = 1;    // per binary-search probe
  std::uint32_t per_cta_cycles = 1;  // prior art: one CTA per cycle (seed1 ¶130)
};

class Policy {
 public:
  virtual ~Policy() = default;
  virtual std::string_view name() const = 0;
  // How the CWD broadcasts a step's launches: false (default) packs them into sm_mask packets,
  // one CTA per SM per packet (seed1 ¶195); true sends one CTA per packet, as the prior-art
  // distributor launched one CTA at a time (¶127–130).
  virtual bool one_cta_per_packet() const { return false; }
  // Launches the next CGAs of `grid` onto `state`: at most `max_cgas` (units per
  // GridSpec::num_cgas), each all-or-nothing, and for clustered grids at most gpc_budget[g] CGAs
  // on GPC g (per-GPC counter / id pool; span empty = unlimited; for kGpuCga and kUgpuCga it
  // counts GPC_CGAs).
  // Returns an empty step when nothing fits now (decision_cycles still counts the failed query).
  virtual LaunchStep step(GpuState& state, const GridSpec& grid, std::uint64_t max_cgas,
                          std::span<const std::uint32_t> gpc_budget) = 0;
};

// The policies by name: one policy_*.cc each, which defines
// `Status register_policy_<stem>(PolicyRegistry&)` (cmake/registry.cmake lists them).
using PolicyFactory = std::unique_ptr<Policy> (*)(const DecisionCost&);
using PolicyRegistry = sim::Registry<PolicyFactory>;
// Built on each call: "waterfill" (the default) first, then "prior-art", "round-robin",
// "first-fit".
PolicyRegistry policies();

// Thin wrappers over policies(). Unknown name: one line with a did-you-mean and the known ones.
std::vector<std::string> policy_names();
Result<std::unique_ptr<Policy>> make_policy(std::string_view name, const DecisionCost& cost = {});

// ---- Building blocks shared by the policy_*.cc files (and handy in tests). ----

// Per-GPC budget left: unlimited when `budget` is empty, else budget[g] − used[g].
class GpcBudget {
 public:
  GpcBudget(std::span<const std::uint32_t> budget, std::uint32_t num_gpcs);
  bool open(std::uint32_t gpc) const { return open(gpc, 0); }
  // Whether the GPC may take one more CGA after `extra` more than take() has counted.
  bool open(std::uint32_t gpc, std::uint32_t extra) const;
  void take(std::uint32_t gpc) { ++used_[gpc]; }
  void reset() { std::fill(used_.begin(), used_.end(), 0u); }
  // Closes every GPC outside [first, first + count) (a µGPU_CGA's µGPU); limit(0, all) reopens.
  void limit(std::uint32_t first, std::uint32_t count) { lo_ = first, hi_ = first + count; }

 private:
  std::span<const std::uint32_t> budget_;
  std::vector<std::uint32_t> used_;
  std::uint32_t lo_ = 0, hi_ = 0;
};

// Places one cluster (ctas_per_cga CTAs) on some GPC of the shadow, or nothing.
struct ClusterPick {
  std::uint32_t gpc = 0;
  Fill fill;                               // per_sm indexed from first_sm(gpc)
  std::vector<std::uint32_t> sm_of_cta{};  // CTA rank order; empty: cta_sms(fill) (no CPC level)
};
using PickCluster = std::function<std::optional<ClusterPick>(const ShadowState&, const GpcBudget&)>;

// A baseline GPU_CGA launch: `pick` places the GPC_CGAs one by one on a shadow; all fit → commit,
// else nothing (seed1 ¶123). The result names the placement; nullopt when it did not fit.
// `budget` is charged one per GPC_CGA only when the GPU_CGA launches. A µGPU_CGA is tried on
// each µGPU in turn (the first that holds it wins), `pick` seeing only that µGPU's GPCs open.
std::optional<CgaPlacement> place_gpu_cga(GpuState& state, const GridSpec& grid, GpcBudget& budget,
                                          const PickCluster& pick);

// The placement for one cluster reserved on GPC `gpc`.
CgaPlacement cluster_placement(const Topology& topo, const ClusterPick& pick);

// A baseline's fill of one cluster on GPC `gpc`: `fill` over the GPC's SMs; with a CPC level
// (seed1 ¶169), each CPC_CGA in rank order on the lowest CPC that `fill` places it in. nullopt
// when it does not fit.
using FillFn = Fill (*)(std::span<const std::uint32_t> free, std::uint32_t n, bool one_per_sm);
std::optional<ClusterPick> fill_cluster(const ShadowState& shadow, std::uint32_t gpc,
                                        const GridSpec& grid, FillFn fill);

// The prior-art / baseline placement inside one domain: CTA by CTA to the SM with the most free
// slots, ties to the lowest index (seed1 ¶127); one_per_sm for multicast clusters. All-or-nothing.
Fill greedy_fill(std::span<const std::uint32_t> free, std::uint32_t n, bool one_per_sm);

// Whether n CTAs of one cluster fit in `free` (one GPC's SMs): enough slots, or for multicast
// (one_per_sm) enough SMs with a free slot.
bool cluster_fits(std::span<const std::uint32_t> free, std::uint32_t n, bool one_per_sm);

}  // namespace xpusim::sched
