// Kernels by name, so the CLI and scenarios can launch them. A registry is an object the
// caller owns (no global table): each workload folder has a `register_*(KernelRegistry&)`.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "kernel/kernel_args.h"
#include "kernel/launch.h"
#include "kernel/warp.h"
#include "mem/global_memory.h"
#include "sim/registry.h"
#include "sim/result.h"
#include "sim/task.h"

namespace xpusim::kernel {

// A kernel body: run once per warp. A plain function (no captures): a coroutine lambda's
// captures would die with the lambda object, not with the coroutine frame.
using KernelBody = sim::Task<> (*)(Warp&);

// A kernel's host-side reference check of one functional launch with `args` and `launch`: what
// was checked ("dst == src over N u32 elements"), or an error naming the first mismatch.
using KernelCheck = Result<std::string> (*)(const mem::GlobalMemory& memory, const KernelArgs& args,
                                            const LaunchParams& launch);

// A module's device variables (PTX module-scope .global / .const: CUDA __device__ and
// __constant__): one region per chip, shared by every kernel of the module. The chip places it
// at the first launch of one of them (DeviceAllocator), writes `init` there in functional mode,
// names each part in the buffer map and hands its address to the launch
// (KernelArgs::globals_address()).
struct DeviceGlobals {
  struct Part {
    std::string name;  // the buffer map's name: out-of-range accesses name it
    std::uint64_t offset = 0;
    std::uint64_t bytes = 0;
  };
  std::string what;  // for allocation errors: "kernels.ptx: .global/.const variables"
  std::uint64_t bytes = 0;
  std::vector<std::uint8_t> init;  // the region's first bytes (zeros after them)
  std::vector<Part> parts;
  // Pointers in the initial bytes (a table of addresses of the region's own variables): the
  // 8 bytes at `at` get the region's address plus `offset` when it is placed.
  struct Relocation {
    std::uint64_t at = 0;
    std::uint64_t offset = 0;
  };
  std::vector<Relocation> relocations;
};

struct KernelDef {
  std::string name;
  std::string description;
  std::vector<ArgDecl> args;
  KernelBody body = nullptr;
  std::uint32_t static_shared_bytes = 0;  // __shared__ arrays; dynamic comes with the launch
  KernelCheck check = nullptr;            // nullptr: no reference (a run reports "not checked")
  // What the body reads through Warp::context(): e.g. a decoded PTX program (src/ptx/).
  std::shared_ptr<const void> context{};
  // Its module's device variables (nullptr: none); kernels of one module share one.
  std::shared_ptr<const DeviceGlobals> globals{};
  // What the compiled kernel fixes about its launch (PTX .reqntid, .maxntid,
  // .reqnctapercluster; ptxas's register count); zeros: nothing.
  std::uint32_t registers_per_thread = 0;  // overrides the launch's
  Dim3 required_block{0, 0, 0};
  Dim3 max_block{0, 0, 0};
  Dim3 required_cluster{0, 0, 0};  // a launch without a cluster gets this one

  // The launch as this kernel runs it. Errors: a block or cluster its directives forbid.
  Result<LaunchParams> resolve_launch(const LaunchParams& p) const;
};

// The kernels of a run: a sim::Registry (the one pattern of every listable kind) whose entries'
// factory is the definition itself; listed in registration order.
class KernelRegistry {
 public:
  // Errors: an empty or duplicate name, or no body.
  Status add(KernelDef def);
  // Errors: an unknown name, with the closest registered one and the list.
  Result<const KernelDef*> find(std::string_view name) const;
  std::vector<std::string> names() const { return r_.names(); }
  const std::vector<sim::Registry<KernelDef>::Entry>& entries() const { return r_.entries(); }

 private:
  sim::Registry<KernelDef> r_{"kernel", "kernels"};
};

}  // namespace xpusim::kernel
