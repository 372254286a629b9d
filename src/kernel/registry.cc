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

}  // namespace xpusim::kernel
