// libFuzzer target: text -> the PTX parser (ptx::parse_module), then each .entry made a kernel
// (ptx::make_kernel) and one warp of it run by the interpreter against a 4 KiB test memory,
// what `ptx:` in a scenario does with a user's module.
//
// The parser returns a module or one-line errors that start with the source name; an entry
// either becomes a kernel or says why; the interpreter ends, faults with a one-line message,
// or is stopped by the step budget here (a PTX loop may never end, as a kernel may).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "fuzz_check.h"
#include "kernel/warp.h"
#include "ptx/interpreter.h"
#include "ptx/parser.h"
#include "ptx/ptx_kernel.h"

namespace {

using namespace xpusim;

// Applies loads, stores and atomics to [0x1000, 0x2000); anything else is a fault here.
class Arena : public kernel::WarpExecutor {
 public:
  void execute(kernel::Warp&, const kernel::Op&) override {}
  kernel::RegisterFile& registers(kernel::Warp&) override { return regs_; }
  void fault(kernel::Warp&, const std::string&) override {}
  bool apply(const kernel::Op& op) {
    using kernel::OpKind;
    const bool load = op.kind == OpKind::kLoadGlobal || op.kind == OpKind::kLoadShared;
    const bool store = op.kind == OpKind::kStoreGlobal || op.kind == OpKind::kStoreShared;
    const bool atomic = op.kind == OpKind::kAtomicGlobal || op.kind == OpKind::kAtomicShared;
    if (!load && !store && !atomic) return true;
    for (std::uint32_t l = 0; l < kernel::kWarpSize; ++l) {
      if (((op.mask >> l) & 1) == 0) continue;
      const std::uint64_t a = (*op.addr)[l];
      if (a < 0x1000 || a - 0x1000 + op.bytes > bytes_.size()) return false;
      std::byte* m = bytes_.data() + (a - 0x1000);
      std::byte* d = op.data + std::size_t{l} * op.bytes;
      if (load) std::memcpy(d, m, op.bytes);
      if (store) std::memcpy(m, d, op.bytes);
      if (atomic) {
        std::byte old[8];
        const std::byte* swap = op.atom == kernel::AtomOp::kCas
                                    ? d + std::size_t{kernel::kWarpSize} * op.bytes
                                    : nullptr;
        kernel::atom_apply(op.atom, op.atom_type, m, d, swap, old);
        std::memcpy(d, old, op.bytes);
      }
    }
    return true;
  }

 private:
  std::vector<std::byte> bytes_ = std::vector<std::byte>(4096);
  kernel::RegisterFile regs_{kernel::kWarpSize, 8};
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto module = ptx::parse_module(fuzz::as_text(data, size), "fuzz.ptx");
  fuzz::check_reader_errors(module, "fuzz.ptx:");
  if (!module) return 0;
  auto shared = std::make_shared<const ptx::Module>(std::move(module).value());
  for (const ptx::Function& f : shared->functions) {
    if (!f.is_entry) continue;
    auto def = ptx::make_kernel(shared, f.name);
    fuzz::check_reader_errors(def, "fuzz.ptx");
    if (!def) continue;
    const auto& program = *static_cast<const ptx::Program*>(def->context.get());
    Arena arena;
    kernel::KernelArgs args;
    for (std::size_t k = 0; k < f.params.size(); ++k)
      args.u64(0x1000);
    const kernel::LaunchParams params{.grid = {2, 1, 1}, .block = {64, 1, 1}};
    kernel::Warp w(arena, params, args, kernel::WarpCoords{.warp = 1});
    ptx::WarpInterpreter in(program, w);
    for (int step = 0; step < 2000; ++step) {
      const auto stop = in.run();
      (void)in.take_alu();
      if (stop == ptx::WarpInterpreter::Stop::kDone) break;
      if (stop == ptx::WarpInterpreter::Stop::kFault) {
        const std::string& m = in.fault();
        FUZZ_CHECK(m.starts_with("fuzz.ptx"));
        FUZZ_CHECK(m.find_first_of("\r\n") == std::string::npos);
        break;
      }
      if (stop == ptx::WarpInterpreter::Stop::kOp) {
        if (!arena.apply(in.op())) break;
        in.complete();
      }
    }
  }
  return 0;
}
