// Runs one warp of a PTX program without a chip: the interpreter's loads, stores and atomics
// applied to a flat test memory at once, every other operation completed at once. For tests of
// instruction semantics, where the timing model has nothing to add.
#pragma once

#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "kernel/warp.h"
#include "ptx/interpreter.h"
#include "ptx/parser.h"
#include "ptx/ptx_kernel.h"

namespace xpusim::ptx::test {

class FlatMemory : public kernel::WarpExecutor {
 public:
  static constexpr kernel::Addr kBase = 0x1000;
  explicit FlatMemory(std::size_t bytes) : bytes_(bytes, 0) {}
  void execute(kernel::Warp&, const kernel::Op&) override {}
  kernel::RegisterFile& registers(kernel::Warp&) override { return regs_; }
  void fault(kernel::Warp&, const std::string&) override {}
  std::vector<std::uint8_t>& bytes() { return bytes_; }

  // Applies a timed op's data effect (global and shared share this one memory in tests).
  std::string apply(const kernel::Op& op) {
    using kernel::OpKind;
    const bool load = op.kind == OpKind::kLoadGlobal || op.kind == OpKind::kLoadShared;
    const bool store = op.kind == OpKind::kStoreGlobal || op.kind == OpKind::kStoreShared;
    const bool atomic = op.kind == OpKind::kAtomicGlobal || op.kind == OpKind::kAtomicShared;
    if (!load && !store && !atomic) return "";
    for (std::uint32_t l = 0; l < kernel::kWarpSize; ++l) {
      if (((op.mask >> l) & 1) == 0) continue;
      const kernel::Addr a = (*op.addr)[l];
      if (a < kBase || a - kBase + op.bytes > bytes_.size()) return "out of range";
      std::uint8_t* m = bytes_.data() + (a - kBase);
      std::byte* d = op.data + std::size_t{l} * op.bytes;
      if (load) std::memcpy(d, m, op.bytes);
      if (store) std::memcpy(m, d, op.bytes);
      if (atomic) {
        std::byte old[8];
        const std::byte* swap = op.atom == kernel::AtomOp::kCas
                                    ? d + std::size_t{kernel::kWarpSize} * op.bytes
                                    : nullptr;
        kernel::atom_apply(op.atom, op.atom_type, reinterpret_cast<std::byte*>(m), d, swap, old);
        std::memcpy(d, old, op.bytes);
      }
    }
    return "";
  }

 private:
  std::vector<std::uint8_t> bytes_;
  kernel::RegisterFile regs_{kernel::kWarpSize, 8};
};

// Runs warp `warp` of a block of `threads` threads to its end; returns "" or the fault.
// The module `text` (named `source` in messages) read and its entry `entry` made a kernel: the
// kernel, or the reader's errors.
inline Result<kernel::KernelDef> kernel_of(const std::string& text, const std::string& entry = "t",
                                           const std::string& source = "row.ptx") {
  auto module = parse_module(text, source);
  if (!module) return module.errors();
  return make_kernel(std::make_shared<const Module>(std::move(module).value()), entry);
}

inline std::string run_warp(const Program& program, FlatMemory& memory,
                            const kernel::KernelArgs& args, std::uint32_t threads = 32,
                            std::uint32_t warp = 0) {
  const kernel::LaunchParams params{.grid = {1, 1, 1}, .block = {threads, 1, 1}};
  kernel::Warp w(memory, params, args, kernel::WarpCoords{.warp = warp});
  WarpInterpreter in(program, w);
  for (int guard = 0; guard < 1'000'000; ++guard) {
    const auto stop = in.run();
    (void)in.take_alu();
    if (stop == WarpInterpreter::Stop::kDone) return "";
    if (stop == WarpInterpreter::Stop::kFault) return in.fault();
    if (stop == WarpInterpreter::Stop::kOp) {
      if (auto e = memory.apply(in.op()); !e.empty()) return e;
      in.complete();
    }
  }
  return "did not end";
}

}  // namespace xpusim::ptx::test
