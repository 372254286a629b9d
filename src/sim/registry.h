// Registry<Factory>: the pluggable choices of one kind (work-distributor policies, warp
// schedulers, allocation policies, pod shapes), each a name, a one-line description and a
// factory. One template for every kind, so listing, lookup and the unknown-name error read the
// same everywhere. A registry is a value its caller owns (STYLE.md item 5): each kind's builder
// (`sched::policies()`, ...) makes a fresh one per call from the registration function in each
// choice's own file (cmake/registry.cmake lists those files; docs/architecture.md "Registries").
#pragma once

#include <algorithm>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/result.h"

namespace xpusim::sim {

// "policy 'waterfil' is unknown (did you mean 'waterfill'?); known policies: waterfill, ...".
Error unknown_name_error(std::string_view kind, std::string_view plural, std::string_view name,
                         std::span<const std::string> known);
// A built-in registration failed: two files claim one name. A bug, so it aborts with the error.
void check_builtin(const Status& registered);

template <class Factory>
class Registry {
 public:
  struct Entry {
    std::string name;
    std::string description;  // one line, for `xpusim list`
    Factory make{};
    // Listing order, lower first; equal orders keep the order of add(). The builders call the
    // files' registration functions alphabetically, so `order` is what puts a default first.
    int order = 0;
  };

  // `kind` names one entry in errors ("policy"), `plural` the list ("policies").
  Registry(std::string kind, std::string plural)
      : kind_(std::move(kind)), plural_(std::move(plural)) {}

  // Errors: an empty name, a name already registered.
  Status add(Entry e) {
    if (e.name.empty()) return Error{kind_ + ": an entry needs a name, got ''"};
    if (contains(e.name)) {
      return Error{kind_ + " '" + e.name + "' is registered twice; names must be unique"};
    }
    const auto at = std::upper_bound(entries_.begin(), entries_.end(), e.order,
                                     [](int order, const Entry& x) { return order < x.order; });
    entries_.insert(at, std::move(e));
    return Ok{};
  }

  // The entry lives as long as the registry. Errors: an unknown name, one line with the closest
  // known name and the list.
  Result<const Entry*> find(std::string_view name) const {
    for (const Entry& e : entries_) {
      if (e.name == name) return &e;
    }
    return unknown_name_error(kind_, plural_, name, names());
  }

  bool contains(std::string_view name) const {
    return std::any_of(entries_.begin(), entries_.end(),
                       [&](const Entry& e) { return e.name == name; });
  }

  std::vector<std::string> names() const {
    std::vector<std::string> out;
    out.reserve(entries_.size());
    for (const Entry& e : entries_)
      out.push_back(e.name);
    return out;
  }

  const std::vector<Entry>& entries() const { return entries_; }
  const std::string& kind() const { return kind_; }

 private:
  std::string kind_, plural_;
  std::vector<Entry> entries_;  // listing order
};

}  // namespace xpusim::sim
