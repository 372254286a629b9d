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
  const auto ctas = cp::workgroups(kernel);
  if (!ctas) return ctas.errors();
  const std::uint32_t threads =
      std::uint32_t{kernel.workgroup_size[0]} * kernel.workgroup_size[1] * kernel.workgroup_size[2];
  sched::GridSpec g;
  g.grid = {.x = (*ctas)[0], .y = (*ctas)[1], .z = (*ctas)[2]};
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
