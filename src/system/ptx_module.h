// The PTX module a scenario names (`ptx: FILE.ptx`, or `cuda: FILE.cu` compiled by nvcc): read,
// decoded once, and its entries made kernels with what ptxas says of them (registers per
// thread), for a run's kernel registry. docs/ptx.md.
#pragma once

#include <filesystem>
#include <map>
#include <string>

#include "kernel/registry.h"
#include "sim/result.h"

namespace xpusim::system {

// The CUDA tool `name` (nvcc, ptxas): $CUDA_HOME/bin, $CUDA_PATH/bin, /usr/local/cuda/bin, then
// PATH; "" when none is found.
std::string find_cuda_tool(const std::string& name);

// `nvcc -ptx -arch=sm_90a -O3` of `cu` into `ptx`. Errors: no nvcc (saying where it looked),
// or nvcc's failure with its first error line.
Status compile_cuda(const std::filesystem::path& cu, const std::filesystem::path& ptx);

// Registers per thread of each .entry of the PTX file, from `ptxas -arch=sm_90a -v`; empty when
// ptxas is not found. Errors: ptxas rejects the module (its first error line).
Result<std::map<std::string, std::uint32_t>> ptxas_registers(const std::filesystem::path& ptx);

// Every .entry of the module at `ptx` (source name `shown` in messages) into `kernels`, with
// ptxas's register counts when ptxas is found.
Status register_ptx_file(const std::filesystem::path& ptx, const std::string& shown,
                         kernel::KernelRegistry& kernels);

}  // namespace xpusim::system
