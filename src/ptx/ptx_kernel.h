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

// The region of `module`'s .global and .const variables (each a part named "NAME (.global)"
// or "NAME (.const)": a fault's message then keeps the PTX line, which names the file), with
// their initializers; nullptr when it has none.
std::shared_ptr<const kernel::DeviceGlobals> device_globals(const Module& module);

// The kernel that runs `entry` of `module`. `globals`: the module's variables, shared by its
// kernels (device_globals(); nullptr: made here, for this kernel alone). Errors: no such .entry
// (with the closest name and the module's entries).
Result<kernel::KernelDef> make_kernel(std::shared_ptr<const Module> module,
                                      const std::string& entry,
                                      std::shared_ptr<const kernel::DeviceGlobals> globals = {});

// Every .entry of `module`, added to `registry`.
Status register_module(std::shared_ptr<const Module> module, kernel::KernelRegistry& registry);

}  // namespace xpusim::ptx
