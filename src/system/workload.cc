#include "system/workload.h"

#include <fmt/format.h>

#include "sim/suggest.h"

namespace xpusim::system {

Status WorkloadRegistry::add(std::unique_ptr<Workload> w) {
  if (w == nullptr || w->name().empty()) return Error{"workload registry: a workload needs a name"};
  const std::string name(w->name());
  if (workloads_.contains(name)) return Error{fmt::format("workload {}: registered twice", name)};
  workloads_.emplace(name, std::move(w));
  return Ok{};
}

Result<Workload*> WorkloadRegistry::find(std::string_view name) const {
  const auto it = workloads_.find(name);
  if (it != workloads_.end()) return it->second.get();
  const std::vector<std::string> all = names();
  return Error{fmt::format("workload '{}' is not registered{}; workloads: {}", name,
                           sim::did_you_mean(name, all), fmt::join(all, ", "))};
}

std::vector<std::string> WorkloadRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& [n, w] : workloads_)
    out.push_back(n);
  return out;
}

Result<ParamValues> resolve_params(const Workload& w, const ParamValues& overrides) {
  ParamValues out;
  const std::vector<ParamDecl> decls = w.params();
  std::vector<std::string> valid;
  for (const ParamDecl& d : decls) {
    out[d.name] = d.default_value;
    valid.push_back(d.name);
  }
  for (const auto& [name, value] : overrides) {
    const auto it = out.find(name);
    if (it == out.end()) {
      return Error{fmt::format("{}: unknown parameter '{}'{}; parameters: {}", w.name(), name,
                               sim::did_you_mean(name, valid), fmt::join(valid, ", "))};
    }
    it->second = value;
  }
  for (const ParamDecl& d : decls) {
    const std::uint64_t v = out[d.name];
    if (v < d.min || v > d.max) {
      return Error{fmt::format("{}: parameter {} = {} is outside [{}, {}]", w.name(), d.name, v,
                               d.min, d.max)};
    }
  }
  return out;
}

}  // namespace xpusim::system
