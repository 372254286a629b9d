// The PTX mbarrier's out-of-line parts: init/inval, token waits, the packed word, the hang
// report line and every error message (the hot operations are inline in mbarrier.h).
#include "core/mbarrier.h"

#include <fmt/format.h>

namespace xpusim::core {
namespace {

constexpr const char* kContents = "PTX ISA 'Contents of the mbarrier object'";
constexpr const char* kWait = "PTX ISA 'mbarrier.test_wait/mbarrier.try_wait'";

std::string tx_phrase(std::int32_t tx) {
  if (tx == 0) return "no transaction bytes outstanding";
  if (tx > 0) return fmt::format("{} transaction bytes outstanding", tx);
  return fmt::format("{} transaction bytes completed before they were expected", -std::int64_t{tx});
}

}  // namespace

std::string MBarrierState::describe() const {
  if (!initialized) return "not initialized";
  return fmt::format("phase {} mod {} (parity {}): {} of {} arrivals pending, {}", phase,
                     kMBarrierPhaseModulus, parity, pending, expected, tx_phrase(tx_count));
}

Status MBarrier::init(std::uint32_t count) {
  if (initialized())
    return Error{fmt::format(
        "mbarrier.init count {}: the mbarrier is already initialized ({}); invalidate it with "
        "mbarrier.inval first (PTX ISA 'mbarrier.init': undefined behaviour)",
        count, state().describe())};
  if (count == 0 || count > kMBarrierMaxCount)
    return Error{
        fmt::format("mbarrier.init count {}: must be in 1..{} (expected arrival count, {})", count,
                    kMBarrierMaxCount, kContents)};
  *this = MBarrier{};
  pending_ = expected_ = count;
  return Ok{};
}

Status MBarrier::inval() {
  if (!initialized()) return not_initialized(Op::inval);
  *this = MBarrier{};
  return Ok{};
}

Status MBarrier::increment_pending() {
  if (!initialized()) return not_initialized(Op::increment_pending);
  if (pending_ == kMBarrierMaxCount)
    return Error{fmt::format(
        "cp.async.mbarrier.arrive: would raise the pending arrival count from {} to {}; it must "
        "stay <= {} (PTX ISA 'cp.async.mbarrier.arrive': undefined behaviour)",
        pending_, pending_ + 1, kMBarrierMaxCount)};
  ++pending_;
  return Ok{};
}

Result<bool> MBarrier::wait_on(Op op, MBarrierToken state) const {
  if (!initialized()) return not_initialized(op);
  if (!state.valid())
    return Error{
        fmt::format("{} state {:#x}: not a state returned by an arrive on an mbarrier ({})",
                    name(op), state.bits(), kWait)};
  const std::uint32_t behind =
      (phase_ + kMBarrierPhaseModulus - state.phase()) % kMBarrierPhaseModulus;
  if (behind == 0) return false;  // the current, incomplete phase
  if (behind == 1) return true;   // the immediately preceding phase, complete
  return Error{fmt::format(
      "{} state of phase {} mod {}: the mbarrier is in phase {}; only the current phase or the "
      "one before it may be tested ({})",
      name(op), state.phase(), kMBarrierPhaseModulus, phase_, kWait)};
}

Result<std::uint32_t> MBarrier::pending_count(MBarrierToken state) {
  if (!state.valid() || !state.no_complete())
    return Error{fmt::format(
        "mbarrier.pending_count state {:#x}: not a state returned by mbarrier.arrive.noComplete "
        "or mbarrier.arrive_drop.noComplete (PTX ISA 'mbarrier.pending_count': undefined "
        "behaviour)",
        state.bits())};
  return state.pending_before();
}

Result<MBarrier> MBarrier::unpack(std::uint64_t word) {
  MBarrier b;
  b.pending_ = static_cast<std::uint32_t>(word) & kMBarrierMaxCount;
  b.expected_ = static_cast<std::uint32_t>(word >> 20) & kMBarrierMaxCount;
  const auto tx_field = static_cast<std::int32_t>((word >> 40) & kTxMask);
  b.tx_ = tx_field > kMBarrierMaxTx ? tx_field - (1 << 21) : tx_field;  // sign-extend 21 bits
  b.phase_ = static_cast<std::uint32_t>(word >> 61);
  const auto bad = [word](const std::string& why) {
    return Error{fmt::format("mbarrier word {:#018x}: {}", word, why)};
  };
  if (!b.initialized()) {
    if (word != 0)
      return bad(
          "expected arrival count 0 marks an uninitialized mbarrier, but other fields "
          "are set (an uninitialized mbarrier is all zeros)");
    return b;
  }
  if (b.tx_ < -kMBarrierMaxTx)
    return bad(fmt::format("tx-count {} is out of range: must be in {}..{} ({})", b.tx_,
                           -kMBarrierMaxTx, kMBarrierMaxTx, kContents));
  if (b.pending_ == 0 && b.tx_ == 0)
    return bad(
        "pending arrival count and tx-count are both 0, so the phase would have "
        "completed (PTX ISA 'Phase Completion of the mbarrier object')");
  return b;
}

const char* MBarrier::name(Op op) {
  switch (op) {
    case Op::init:
      return "mbarrier.init";
    case Op::inval:
      return "mbarrier.inval";
    case Op::arrive:
      return "mbarrier.arrive";
    case Op::arrive_expect_tx:
      return "mbarrier.arrive.expect_tx";
    case Op::arrive_no_complete:
      return "mbarrier.arrive.noComplete";
    case Op::arrive_drop:
      return "mbarrier.arrive_drop";
    case Op::arrive_drop_expect_tx:
      return "mbarrier.arrive_drop.expect_tx";
    case Op::arrive_drop_no_complete:
      return "mbarrier.arrive_drop.noComplete";
    case Op::expect_tx:
      return "mbarrier.expect_tx";
    case Op::complete_tx:
      return "mbarrier.complete_tx";
    case Op::increment_pending:
      return "cp.async.mbarrier.arrive";
    case Op::test_wait:
      return "mbarrier.test_wait";
    case Op::try_wait:
      return "mbarrier.try_wait";
    case Op::test_wait_parity:
      return "mbarrier.test_wait.parity";
    case Op::try_wait_parity:
      return "mbarrier.try_wait.parity";
  }
  return "mbarrier";
}

Error MBarrier::not_initialized(Op op) const {
  return Error{fmt::format(
      "{}: the mbarrier is not initialized; every operation except mbarrier.init needs an "
      "initialized mbarrier (PTX ISA 'mbarrier': undefined behaviour)",
      name(op))};
}

Error MBarrier::bad_count(Op op, std::uint32_t count) const {
  return Error{fmt::format("{} count {}: must be in 1..{} ({})", name(op), count, kMBarrierMaxCount,
                           kContents)};
}

Error MBarrier::too_few_pending(Op op, std::uint32_t count) const {
  return Error{fmt::format(
      "{} count {}: more arrivals than are pending ({}); the pending arrival count cannot go "
      "below 0 ({}: undefined behaviour)",
      name(op), count, state().describe(), kContents)};
}

Error MBarrier::drop_to_zero(Op op, std::uint32_t count) const {
  return Error{fmt::format(
      "{} count {}: would lower the expected arrival count from {} to {}; it must stay >= 1 "
      "(PTX ISA 'mbarrier.arrive_drop': zero is undefined behaviour)",
      name(op), count, expected_, std::int64_t{expected_} - count)};
}

Error MBarrier::would_complete(Op op, std::uint32_t count) const {
  return Error{fmt::format(
      "{} count {}: would complete the phase ({}); a .noComplete arrive must not (PTX ISA "
      "'mbarrier.arrive': undefined behaviour)",
      name(op), count, state().describe())};
}

Error MBarrier::tx_out_of_range(Op op, std::uint32_t tx, std::int64_t after) const {
  return Error{
      fmt::format("{} txCount {}: would take tx-count from {} to {}; it must stay in "
                  "{}..{} ({})",
                  name(op), tx, tx_, after, -kMBarrierMaxTx, kMBarrierMaxTx, kContents)};
}

}  // namespace xpusim::core
