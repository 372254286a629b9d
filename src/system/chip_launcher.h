// The command processor in front of a work distributor whose CTAs run on ModelledSms (a
// synthetic run-time model, sched/runtime_model.h): the launcher of the `xpusim cp replay`
// study, where a kernel's run time is a parameter. A cp::GridLauncher that turns an AQL
// dispatch into a work-distributor grid, submits it, and reports completion when the CWD has
// heard the grid's last CTA exit. Real kernels take system::Chip's path instead (chip.h).
//
// Dispatch → grid (HSA System Architecture spec, kernel dispatch packet):
//  - CTAs per dimension = ceil(grid_size / workgroup_size) (HSA allows a partial last
//    workgroup; it occupies a whole CTA), threads = the workgroup's work-items, shared memory =
//    group_segment_size.
//  - What AQL does not carry (registers per thread, cluster dims, priority) comes from the
//    kernel's registration (set_kernel), as a real runtime reads it from the code object.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "config/chip_spec.h"
#include "cp/grid_launcher.h"
#include "sched/distributor.h"
#include "sched/grid.h"
#include "sched/modelled_sms.h"
#include "sched/policy.h"
#include "sched/runtime_model.h"
#include "sim/component.h"

namespace xpusim::system {

// What a kernel's code object says beyond the dispatch packet.
struct KernelResources {
  std::uint32_t registers_per_thread = 32;
  sched::Dim3 cluster{1, 1, 1};  // (1,1,1): a plain grid
  std::uint32_t priority = 0;
};

struct ChipLauncherConfig {
  std::string policy = "waterfill";
  sched::DecisionCost cost;
  sched::DistributorTiming timing;
  sched::RuntimeModel runtime;  // how long each CTA runs
};

class ChipLauncher : public cp::GridLauncher {
 public:
  // Builds the root component `name` (stats `chip0.cwd.*`, `chip0.sms.*`). Errors: unknown
  // policy.
  static Result<std::unique_ptr<ChipLauncher>> create(sim::Simulation& sim, std::string_view name,
                                                      const sim::Clock& clock,
                                                      const config::ChipSpec& spec,
                                                      const ChipLauncherConfig& cfg);
  ~ChipLauncher() override;

  void set_kernel(std::uint64_t kernel_object, const KernelResources& r) {
    kernels_[kernel_object] = r;
  }
  // Errors: the grid check_grid rejects (a workgroup no SM holds, a cluster that does not divide
  // the grid, ...), or a workgroup/grid size of 0.
  Status launch(const cp::DispatchPacket& kernel, Done done) override;
  // The grid a dispatch becomes (no launch); errors as launch().
  Result<sched::GridSpec> grid_of(const cp::DispatchPacket& kernel) const;

  const sched::WorkDistributor& distributor() const { return *cwd_; }

 private:
  ChipLauncher(sim::Simulation& sim, std::string_view name, const sim::Clock& clock,
               const config::ChipSpec& spec, const ChipLauncherConfig& cfg,
               std::unique_ptr<sched::Policy> policy);

  sim::Component chip_;
  sched::Topology topology_;
  std::uint32_t max_cluster_size_;
  std::unique_ptr<sched::WorkDistributor> cwd_;
  std::unique_ptr<sched::ModelledSms> sms_;
  std::map<std::uint64_t, KernelResources> kernels_;
  bool started_ = false;
};

}  // namespace xpusim::system
