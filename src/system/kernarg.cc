#include "system/kernarg.h"

#include <fmt/format.h>

#include <cstring>
#include <string>

#include "sched/policy.h"

namespace xpusim::system {
namespace {

using kernel::arg_bytes;

std::uint64_t align_up(std::uint64_t v, std::uint64_t a) {
  return (v + a - 1) / a * a;
}

void put(std::vector<std::byte>& out, std::uint64_t at, std::uint64_t value, std::uint64_t n) {
  for (std::uint64_t i = 0; i < n; ++i)
    out[at + i] = static_cast<std::byte>(value >> (8 * i) & 0xFF);
}
std::uint64_t get(std::span<const std::byte> in, std::uint64_t at, std::uint64_t n) {
  std::uint64_t v = 0;
  for (std::uint64_t i = 0; i < n; ++i)
    v |= std::uint64_t{std::to_integer<std::uint8_t>(in[at + i])} << (8 * i);
  return v;
}

}  // namespace

std::uint64_t explicit_kernarg_bytes(const std::vector<kernel::ArgDecl>& signature) {
  std::uint64_t at = 0;
  for (const kernel::ArgDecl& a : signature)
    at = align_up(at, arg_bytes(a.kind)) + arg_bytes(a.kind);
  return at;
}

std::uint64_t kernarg_bytes(const std::vector<kernel::ArgDecl>& signature) {
  return align_up(explicit_kernarg_bytes(signature), 8) + kLaunchAttributeBytes;
}

Result<std::vector<std::byte>> encode_kernarg(const kernel::KernelArgs& args,
                                              const kernel::LaunchParams& p) {
  constexpr std::uint32_t kU16 = 0xFFFF;
  const kernel::Dim3& c = p.cluster;
  if (c.x > kU16 || c.y > kU16 || c.z > kU16) {
    return Error{
        fmt::format("cluster ({},{},{}): each dim must be at most {} (16-bit launch "
                    "attribute)",
                    c.x, c.y, c.z, kU16)};
  }
  if (p.gpc_cgas_per_gpu_cga > kU16) {
    return Error{
        fmt::format("gpu_cga {}: at most {} GPC_CGAs per GPU_CGA", p.gpc_cgas_per_gpu_cga, kU16)};
  }
  if (p.gpc_cgas_per_ugpu_cga > kU16) {
    return Error{fmt::format("ugpu_cga {}: at most {} GPC_CGAs per µGPU_CGA",
                             p.gpc_cgas_per_ugpu_cga, kU16)};
  }
  if (p.gpc_cgas_per_ugpu_cga > 0 && p.gpc_cgas_per_gpu_cga > 1) {
    return Error{fmt::format(
        "gpu_cga {} and ugpu_cga {}: the grouping field holds GPU_CGAs or µGPU_CGAs, not both",
        p.gpc_cgas_per_gpu_cga, p.gpc_cgas_per_ugpu_cga)};
  }
  if (p.cpc_cgas_per_gpc_cga > 0xFF) {
    return Error{
        fmt::format("cpc_cga {}: at most 255 CPC_CGAs per GPC_CGA", p.cpc_cgas_per_gpc_cga)};
  }
  if (p.registers_per_thread > kU16) {
    return Error{fmt::format("registers_per_thread {}: at most {}", p.registers_per_thread, kU16)};
  }
  std::uint64_t at = 0;
  std::vector<std::uint64_t> offsets;
  for (std::size_t i = 0; i < args.size(); ++i) {
    at = align_up(at, arg_bytes(args.kind(i)));
    offsets.push_back(at);
    at += arg_bytes(args.kind(i));
  }
  const std::uint64_t attr = align_up(at, 8);
  std::vector<std::byte> out(attr + kLaunchAttributeBytes, std::byte{0});
  // Each argument's bytes as they are (a float's bit pattern, a signed value's two's complement).
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args.kind(i) == kernel::ArgKind::kTensorMap) {
      const auto blob = args.blob(i);
      std::copy(blob.begin(), blob.end(), out.begin() + static_cast<std::ptrdiff_t>(offsets[i]));
    } else {
      put(out, offsets[i], args.bits(i), arg_bytes(args.kind(i)));
    }
  }
  put(out, attr + 0, kKernargMagic, 4);
  put(out, attr + 4, c.x, 2);
  put(out, attr + 6, c.y, 2);
  put(out, attr + 8, c.z, 2);
  // +10 holds the GPC_CGAs of one GPU_CGA, or of one µGPU_CGA when flag bit 1 is set.
  const bool ugpu = p.gpc_cgas_per_ugpu_cga > 0;
  put(out, attr + 10, ugpu ? p.gpc_cgas_per_ugpu_cga : p.gpc_cgas_per_gpu_cga, 2);
  put(out, attr + 12, p.priority, 4);
  put(out, attr + 16, p.registers_per_thread, 2);
  put(out, attr + 18, (p.multicast ? 1 : 0) | (ugpu ? 2 : 0), 1);
  put(out, attr + 20, p.cpc_cgas_per_gpc_cga, 1);
  if (!p.policy.empty()) {
    const sched::PolicyRegistry policies = sched::policies();
    auto e = policies.find(p.policy);
    if (!e) return e.errors();
    put(out, attr + 19, static_cast<std::uint64_t>(*e - policies.entries().data()) + 1, 1);
  }
  return out;
}

Result<DecodedKernarg> decode_kernarg(std::span<const std::byte> in,
                                      const std::vector<kernel::ArgDecl>& signature) {
  const std::uint64_t need = kernarg_bytes(signature);
  if (in.size() < need) {
    return Error{fmt::format("kernarg segment of {} B: the signature needs {} B", in.size(), need)};
  }
  DecodedKernarg d;
  std::uint64_t at = 0;
  for (const kernel::ArgDecl& a : signature) {
    at = align_up(at, arg_bytes(a.kind));
    if (a.kind == kernel::ArgKind::kTensorMap) {
      d.args.tensor_map(in.subspan(at, kernel::kTensorMapArgBytes));
    } else {
      d.args.from_bits(a.kind, get(in, at, arg_bytes(a.kind)));
    }
    at += arg_bytes(a.kind);
  }
  const std::uint64_t attr = align_up(at, 8);
  if (const auto magic = get(in, attr, 4); magic != kKernargMagic) {
    return Error{fmt::format("kernarg launch attributes at +{}: magic {:#x}, expected {:#x}", attr,
                             magic, kKernargMagic)};
  }
  d.cluster = {.x = static_cast<std::uint32_t>(get(in, attr + 4, 2)),
               .y = static_cast<std::uint32_t>(get(in, attr + 6, 2)),
               .z = static_cast<std::uint32_t>(get(in, attr + 8, 2))};
  d.gpc_cgas_per_gpu_cga = static_cast<std::uint32_t>(get(in, attr + 10, 2));
  d.priority = static_cast<std::uint32_t>(get(in, attr + 12, 4));
  d.registers_per_thread = static_cast<std::uint32_t>(get(in, attr + 16, 2));
  const auto flags = get(in, attr + 18, 1);
  if (flags > 3 || get(in, attr + 21, 3) != 0) {
    return Error{
        fmt::format("kernarg launch attributes at +{}: flags {:#x} and reserved bytes "
                    "+21..23 must be 0 but for bits 0 (multicast) and 1 (µGPU_CGA grouping)",
                    attr, flags)};
  }
  d.multicast = (flags & 1) != 0;
  d.cpc_cgas_per_gpc_cga = static_cast<std::uint32_t>(get(in, attr + 20, 1));
  const std::uint32_t grouping = d.gpc_cgas_per_gpu_cga;
  if ((flags & 2) != 0) {
    d.gpc_cgas_per_ugpu_cga = d.gpc_cgas_per_gpu_cga;
    d.gpc_cgas_per_gpu_cga = 1;
  }
  if (const auto policy = get(in, attr + 19, 1); policy != 0) {
    const auto names = sched::policy_names();
    if (policy > names.size()) {
      return Error{
          fmt::format("kernarg launch attributes at +{}: policy {} is past the {} known policies",
                      attr, policy, names.size())};
    }
    d.policy = std::string(names[policy - 1]);
  }
  if (d.cluster.count() == 0 || grouping == 0) {
    return Error{
        fmt::format("kernarg launch attributes: cluster ({},{},{}) and GPU_CGA / µGPU_CGA "
                    "grouping {} must be at least 1",
                    d.cluster.x, d.cluster.y, d.cluster.z, grouping)};
  }
  return d;
}

}  // namespace xpusim::system
