#include "system/chip_launcher.h"

#include <fmt/format.h>

namespace xpusim::system {

ChipLauncher::ChipLauncher(sim::Simulation& sim, std::string_view name, const sim::Clock& clock,
                           const config::ChipSpec& spec, const ChipLauncherConfig& cfg,
                           std::unique_ptr<sched::Policy> policy)
    : chip_(sim, name),
      topology_(sched::Topology::from_chip(spec)),
      max_cluster_size_(spec.topology.max_cluster_size),
      cwd_(std::make_unique<sched::WorkDistributor>(chip_, topology_, std::move(policy), clock,
                                                    cfg.timing)),
      sms_(std::make_unique<sched::ModelledSms>(chip_, *cwd_, clock, cfg.runtime)) {
  cwd_->set_executor(sms_.get());
}

ChipLauncher::~ChipLauncher() = default;

Result<std::unique_ptr<ChipLauncher>> ChipLauncher::create(sim::Simulation& sim,
                                                           std::string_view name,
                                                           const sim::Clock& clock,
                                                           const config::ChipSpec& spec,
                                                           const ChipLauncherConfig& cfg) {
  auto policy = sched::make_policy(cfg.policy, cfg.cost);
  if (!policy) return policy.errors();
  return std::unique_ptr<ChipLauncher>(
      new ChipLauncher(sim, name, clock, spec, cfg, std::move(policy).value()));
}

Result<sched::GridSpec> ChipLauncher::grid_of(const cp::DispatchPacket& kernel) const {
  const auto it = kernels_.find(kernel.kernel_object);
  const KernelResources r = it == kernels_.end() ? KernelResources{} : it->second;
  std::uint32_t ctas[3] = {1, 1, 1};
  std::uint32_t threads = 1;
  for (int d = 0; d < 3; ++d) {
    const std::uint32_t wg = kernel.workgroup_size[d], grid = kernel.grid_size[d];
    if (wg == 0 || grid == 0) {
      return Error{
          fmt::format("dispatch dimension {}: workgroup_size {} and grid_size {} must "
                      "both be >= 1 (HSA: unused dimensions are 1)",
                      "xyz"[d], wg, grid)};
    }
    ctas[d] = grid / wg + (grid % wg != 0 ? 1 : 0);  // a partial workgroup is a whole CTA
    threads *= wg;
  }
  sched::GridSpec g;
  g.grid = {.x = ctas[0], .y = ctas[1], .z = ctas[2]};
  g.cluster = r.cluster;
  g.kind = r.cluster.count() > 1 ? sched::ClusterKind::kGpcCga : sched::ClusterKind::kNone;
  g.shape = {.threads = threads,
             .registers_per_thread = r.registers_per_thread,
             .shared_bytes = kernel.group_segment_size};
  g.priority = r.priority;
  if (auto st = sched::check_grid(topology_, g, max_cluster_size_); !st) return st.errors();
  return g;
}

Status ChipLauncher::launch(const cp::DispatchPacket& kernel, Done done) {
  auto grid = grid_of(kernel);
  if (!grid) return grid.errors();
  cwd_->submit(*grid, [done = std::move(done)](const sched::WorkDistributor::GridTimes& t) {
    done({.first_start = t.first_start, .completed = t.completed});
  });
  if (!started_) {
    started_ = true;
    cwd_->start();
  }
  return Ok{};
}

}  // namespace xpusim::system
