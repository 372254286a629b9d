// libFuzzer target: text -> the PTX parser (ptx::parse_module), then each .entry made a kernel
// (ptx::make_kernel) and one warp of it run by the interpreter against a 4 KiB test memory,
// what `ptx:` in a scenario does with a user's module.
//
// The parser returns a module or one-line errors that start with the source name; an entry
// either becomes a kernel or says why; the interpreter ends, faults with a one-line message,
// or is stopped by the step budget here (a PTX loop may never end, as a kernel may).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "fuzz_check.h"
#include "kernel/warp.h"
#include "ptx/interpreter.h"
#include "ptx/parser.h"
#include "ptx/ptx_kernel.h"
#include "unit/ptx/functional_harness.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace xpusim;
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
    ptx::test::FlatMemory arena(4096);  // [0x1000, 0x2000): loads, stores and atomics
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
        if (!arena.apply(in.op()).empty()) break;
        in.complete();
      }
    }
  }
  return 0;
}
