// Kernels by name, so the CLI and scenarios can launch them. A registry is an object the
// caller owns (no global table): each workload folder has a `register_*(KernelRegistry&)`.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "kernel/kernel_args.h"
#include "kernel/warp.h"
#include "sim/result.h"
#include "sim/task.h"

namespace xpusim::kernel {

// A kernel body: run once per warp. A plain function (no captures): a coroutine lambda's
// captures would die with the lambda object, not with the coroutine frame.
using KernelBody = sim::Task<> (*)(Warp&);

struct KernelDef {
  std::string name;
  std::string description;
  std::vector<ArgDecl> args;
  KernelBody body = nullptr;
  std::uint32_t static_shared_bytes = 0;  // __shared__ arrays; dynamic comes with the launch
};

class KernelRegistry {
 public:
  // Errors: an empty or duplicate name, or no body.
  Status add(KernelDef def);
  // Errors: an unknown name, with the closest registered one and the list.
  Result<const KernelDef*> find(std::string_view name) const;
  std::vector<std::string> names() const;

 private:
  std::map<std::string, KernelDef, std::less<>> kernels_;
};

}  // namespace xpusim::kernel
