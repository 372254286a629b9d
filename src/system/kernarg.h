// The kernarg segment a launch's dispatch packet points at (HSA kernarg_address): the kernel's
// explicit arguments in CUDA's parameter layout (each little-endian at its natural alignment,
// its size: u8 1 B, u16 2 B, u32/s32/f32 4 B, u64/s64/f64/ptr 8 B), then, 8-byte aligned, the
// launch attributes the 64-byte AQL packet has no field for (cluster dims, GPU_CGA grouping,
// multicast placement, priority, registers per thread), as AMD code objects append hidden kernel
// arguments after the explicit ones:
//
//   +0  u32 magic 0x4C555058 ("XPUL")   +4  u16 cluster x, y, z   +10 u16 GPC_CGAs per GPU_CGA
//   +12 u32 priority                    +16 u16 registers/thread  +18 u8 flags (bit 0 multicast)
//   +19 u8 policy (0: the chip's; k: the k-th of sched::policy_names())  +20..23 reserved, 0
//
// The command processor reads the segment back from simulated memory when it launches the
// kernel, so a packet that points at other kernargs (a condensed diff) launches with them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "kernel/kernel_args.h"
#include "kernel/launch.h"
#include "sim/result.h"

namespace xpusim::system {

inline constexpr std::uint32_t kKernargMagic = 0x4C555058;
inline constexpr std::uint64_t kLaunchAttributeBytes = 24;

// Bytes of the explicit arguments of `signature` (the attributes start at this, rounded to 8).
std::uint64_t explicit_kernarg_bytes(const std::vector<kernel::ArgDecl>& signature);
// Explicit arguments plus the attribute block.
std::uint64_t kernarg_bytes(const std::vector<kernel::ArgDecl>& signature);

// The segment for `args` (already checked against the signature) and the launch's attributes.
// Errors: an attribute wider than its field (cluster dim or GPC_CGAs per GPU_CGA or µGPU_CGA
// above 65535, CPC_CGAs per GPC_CGA above 255, registers per thread above 65535), a launch with
// both GPU_CGAs and µGPU_CGAs, an unknown policy.
Result<std::vector<std::byte>> encode_kernarg(const kernel::KernelArgs& args,
                                              const kernel::LaunchParams& params);

struct DecodedKernarg {
  kernel::KernelArgs args;
  kernel::Dim3 cluster{};
  std::uint32_t gpc_cgas_per_gpu_cga = 1;
  std::uint32_t gpc_cgas_per_ugpu_cga = 0;  // 0: no µGPU_CGAs
  std::uint32_t cpc_cgas_per_gpc_cga = 0;   // 0: no CPC level
  std::uint32_t priority = 0;
  std::uint32_t registers_per_thread = 32;
  bool multicast = false;
  std::string policy;  // "": the chip's
};
// Errors: a segment shorter than kernarg_bytes(signature), a wrong magic word, non-zero
// reserved bytes or flags, a policy index past the known policies, a zero cluster dim or
// grouping.
Result<DecodedKernarg> decode_kernarg(std::span<const std::byte> bytes,
                                      const std::vector<kernel::ArgDecl>& signature);

}  // namespace xpusim::system
