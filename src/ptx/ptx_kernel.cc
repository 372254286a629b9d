#include "ptx/ptx_kernel.h"

#include <fmt/format.h>

#include <algorithm>

#include "ptx/interpreter.h"
#include "sim/suggest.h"

namespace xpusim::ptx {
namespace {

// A .param's argument kind: its size and whether it is a float. An 8-byte integer param also
// takes a pointer (nvcc declares pointers as .u64).
kernel::ArgDecl arg_decl(const Param& p) {
  kernel::ArgDecl d{.name = p.name, .kind = kernel::ArgKind::kU32};
  switch (p.type) {
    case Type::kF32:
      d.kind = kernel::ArgKind::kF32;
      break;
    case Type::kF64:
      d.kind = kernel::ArgKind::kF64;
      break;
    default:
      d.kind = p.bytes == 8   ? kernel::ArgKind::kU64
               : p.bytes == 2 ? kernel::ArgKind::kU16
               : p.bytes == 1 ? kernel::ArgKind::kU8
                              : kernel::ArgKind::kU32;
      break;
  }
  if (p.bytes == kernel::kTensorMapArgBytes && p.type == Type::kB8)
    d.kind = kernel::ArgKind::kTensorMap;
  d.raw_param = true;
  return d;
}

}  // namespace

std::shared_ptr<const kernel::DeviceGlobals> device_globals(const Module& module) {
  auto g = std::make_shared<kernel::DeviceGlobals>();
  g->what = fmt::format("{}: .global/.const variables", module.source);
  g->bytes = module.globals_bytes;
  for (const Variable& v : module.variables) {
    if (v.space != Space::kGlobal && v.space != Space::kConst) continue;
    if (v.bytes > 0)
      g->parts.push_back({.name = fmt::format("{} ({})", v.name, space_name(v.space)),
                          .offset = v.offset,
                          .bytes = v.bytes});
    for (const Variable::AddressOf& a : v.address_of) {
      const Variable& t = module.variables[a.target];
      g->relocations.push_back(
          {.at = v.offset + a.at, .offset = t.offset + static_cast<std::uint64_t>(a.addend)});
    }
    if (v.init.empty()) continue;
    if (g->init.size() < v.offset + v.init.size()) g->init.resize(v.offset + v.init.size());
    std::copy(v.init.begin(), v.init.end(),
              g->init.begin() + static_cast<std::ptrdiff_t>(v.offset));
  }
  if (g->parts.empty()) return nullptr;
  return g;
}

Result<kernel::KernelDef> make_kernel(std::shared_ptr<const Module> module,
                                      const std::string& entry,
                                      std::shared_ptr<const kernel::DeviceGlobals> globals) {
  std::vector<std::string> entries;
  for (const Function& f : module->functions)
    if (f.is_entry) entries.push_back(f.name);
  std::uint32_t index = 0;
  for (; index < module->functions.size(); ++index) {
    const Function& f = module->functions[index];
    if (f.is_entry && f.name == entry) break;
  }
  if (index == module->functions.size()) {
    const std::string near = sim::closest_match(entry, entries);
    std::string list;
    for (const std::string& e : entries)
      list += (list.empty() ? "" : ", ") + e;
    return Error{fmt::format("{}: no .entry '{}'{}; the module's entries: {}", module->source,
                             entry, near.empty() ? "" : fmt::format(" (did you mean '{}'?)", near),
                             list.empty() ? "none" : list)};
  }
  const Function& f = module->functions[index];
  for (const Param& p : f.params) {
    if (p.bytes > 8 && !(p.bytes == kernel::kTensorMapArgBytes && p.type == Type::kB8))
      return Error{
          fmt::format("{}:{}: kernel '{}': param '{}' of {} bytes: only scalar params (up "
                      "to 8 bytes) and 128-byte tensor maps are supported by this front end yet",
                      module->source, f.line, f.name, p.name, p.bytes)};
  }
  bool has_const = false;
  for (const Variable& v : module->variables)
    has_const = has_const || v.space == Space::kConst;
  auto program =
      std::make_shared<Program>(Program{.module = *module, .entry = index, .has_const = has_const});
  kernel::KernelDef def;
  def.name = f.name;
  def.description = fmt::format("PTX .entry from {}", module->source);
  for (const Param& p : f.params)
    def.args.push_back(arg_decl(p));
  def.body = &run_ptx_warp;
  def.static_shared_bytes = (f.shared_bytes + 15) & ~15u;
  const auto dim = [](const std::uint32_t(&d)[3]) {
    return kernel::Dim3{.x = d[0], .y = d[1], .z = d[2]};
  };
  if (f.reqntid[0] != 0) def.required_block = dim(f.reqntid);
  if (f.maxntid[0] != 0) def.max_block = dim(f.maxntid);
  if (f.reqnctapercluster[0] != 0) def.required_cluster = dim(f.reqnctapercluster);
  def.context = std::move(program);
  def.globals = globals != nullptr ? std::move(globals) : device_globals(*module);
  return def;
}

Status register_module(std::shared_ptr<const Module> module, kernel::KernelRegistry& registry) {
  const auto globals = device_globals(*module);
  for (const Function& f : module->functions) {
    if (!f.is_entry) continue;
    auto def = make_kernel(module, f.name, globals);
    if (!def) return def.errors();
    if (auto st = registry.add(std::move(def).value()); !st) return st;
  }
  return Ok{};
}

}  // namespace xpusim::ptx
