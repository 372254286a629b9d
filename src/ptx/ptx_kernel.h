// A PTX module's entries as kernels: each `.entry` becomes a kernel::KernelDef whose body is
// the interpreter (interpreter.h) and whose signature comes from its `.param` list, so a
// scenario launches it like any registered kernel.
#pragma once

#include <memory>
#include <string>

#include "kernel/registry.h"
#include "ptx/module.h"
#include "sim/result.h"

namespace xpusim::ptx {

// The kernel that runs `entry` of `module`. Errors: no such .entry (with the closest name and
// the module's entries).
Result<kernel::KernelDef> make_kernel(std::shared_ptr<const Module> module,
                                      const std::string& entry);

// Every .entry of `module`, added to `registry`.
Status register_module(std::shared_ptr<const Module> module, kernel::KernelRegistry& registry);

}  // namespace xpusim::ptx
