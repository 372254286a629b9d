#include "system/workload.h"

#include <fmt/format.h>

#include "sim/suggest.h"

namespace xpusim::system {

Status WorkloadRegistry::add(std::unique_ptr<Workload> w) {
  if (w == nullptr) return Error{"workload registry: a null workload"};
  std::string name(w->name());
  std::string description(w->description());
  return r_.add({.name = std::move(name),
                 .description = std::move(description),
                 .make = std::move(w),
                 .order = 0});
}

Result<Workload*> WorkloadRegistry::find(std::string_view name) const {
  auto e = r_.find(name);
  if (!e) return e.errors();
  return (*e)->make.get();
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
