#include "kernel/registry.h"

#include <fmt/format.h>

namespace xpusim::kernel {

Status KernelRegistry::add(KernelDef def) {
  if (def.body == nullptr) return Error{fmt::format("kernel '{}': no body", def.name)};
  std::string name = def.name;
  std::string description = def.description;
  return r_.add({.name = std::move(name),
                 .description = std::move(description),
                 .make = std::move(def),
                 .order = 0});
}

Result<const KernelDef*> KernelRegistry::find(std::string_view name) const {
  auto e = r_.find(name);
  if (!e) return e.errors();
  return &(*e)->make;
}

Result<LaunchParams> KernelDef::resolve_launch(const LaunchParams& given) const {
  LaunchParams p = given;
  const auto dims = [](const Dim3& d) { return fmt::format("({},{},{})", d.x, d.y, d.z); };
  if (required_block.x != 0 && p.block != required_block) {
    return Error{fmt::format("{}: block {}: the kernel requires {} (.reqntid)", name, dims(p.block),
                             dims(required_block))};
  }
  if (max_block.x != 0 && p.block.count() > max_block.count()) {
    return Error{
        fmt::format("{}: block {} has {} threads: the kernel allows at most {} (.maxntid {})", name,
                    dims(p.block), p.block.count(), max_block.count(), dims(max_block))};
  }
  if (required_cluster.x != 0) {
    if (p.cluster == Dim3{}) {
      p.cluster = required_cluster;
    } else if (p.cluster != required_cluster) {
      return Error{fmt::format("{}: cluster {}: the kernel requires {} (.reqnctapercluster)", name,
                               dims(p.cluster), dims(required_cluster))};
    }
  }
  if (registers_per_thread != 0) p.registers_per_thread = registers_per_thread;
  return p;
}

}  // namespace xpusim::kernel
