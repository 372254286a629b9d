#include "kernel/registry.h"

#include <fmt/format.h>

#include "sim/suggest.h"

namespace xpusim::kernel {

Status KernelRegistry::add(KernelDef def) {
  if (def.name.empty()) return Error{"kernel registry: a kernel needs a name"};
  if (def.body == nullptr) return Error{fmt::format("kernel {}: no body", def.name)};
  if (kernels_.contains(def.name)) {
    return Error{fmt::format("kernel {}: registered twice", def.name)};
  }
  std::string name = def.name;
  kernels_.emplace(std::move(name), std::move(def));
  return Ok{};
}

Result<const KernelDef*> KernelRegistry::find(std::string_view name) const {
  const auto it = kernels_.find(name);
  if (it != kernels_.end()) return &it->second;
  const std::vector<std::string> all = names();
  return Error{fmt::format("kernel '{}' is not registered{}; kernels: {}", name,
                           sim::did_you_mean(name, all), fmt::join(all, ", "))};
}

std::vector<std::string> KernelRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& [n, d] : kernels_)
    out.push_back(n);
  return out;
}

}  // namespace xpusim::kernel
