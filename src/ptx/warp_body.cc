// The kernel body every PTX kernel shares: the interpreter's stops turned into the timing
// model's operations (ALU batches, then the timed operation), until the warp ends or faults.
#include <algorithm>

#include "ptx/interpreter.h"

namespace xpusim::ptx {

sim::Task<> run_ptx_warp(kernel::Warp& w) {
  const auto& program = *static_cast<const Program*>(w.context());
  WarpInterpreter in(program, w);
  w.source = program.module.source.c_str();
  while (true) {
    const WarpInterpreter::Stop stop = in.run();
    w.source_line = in.line();
    const WarpInterpreter::AluWork work = in.take_alu();
    // The batch's timing: its dependent chain, then the rest of its issue slots.
    if (work.issues > 0) {
      const std::uint32_t chain = std::max<std::uint32_t>(work.chain, 1);
      if (chain > 1)
        co_await kernel::Warp::OpAwaiter(
            w, kernel::Op{.kind = kernel::OpKind::kAluChain, .count = chain});
      if (work.issues > chain || chain == 1)
        co_await kernel::Warp::OpAwaiter(
            w, kernel::Op{.kind = kernel::OpKind::kAlu,
                          .count = work.issues - (chain > 1 ? chain : 0)});
    }
    if (work.sfu > 0)
      co_await kernel::Warp::OpAwaiter(w,
                                       kernel::Op{.kind = kernel::OpKind::kSfu, .count = work.sfu});
    if (work.mma > 0)
      co_await kernel::Warp::OpAwaiter(
          w, kernel::Op{.kind = kernel::OpKind::kMmaSync, .count = work.mma});
    if (stop == WarpInterpreter::Stop::kDone) co_return;
    if (stop == WarpInterpreter::Stop::kFault) {
      co_await w.fault(in.fault());
      co_return;
    }
    if (stop == WarpInterpreter::Stop::kOp) {
      co_await kernel::Warp::OpAwaiter(w, in.op());
      in.complete();
    }
  }
}

}  // namespace xpusim::ptx
