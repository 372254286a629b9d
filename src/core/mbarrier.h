// The PTX mbarrier: a 64-bit shared-memory barrier that completes a phase when its pending
// arrival count and its tx-count both reach zero. Sections cited as "PTX ISA '<title>'" are
// the subsections of "Parallel Synchronization and Communication Instructions: mbarrier"
// (9.7.13.15.x in PTX ISA 8.x). Functional only: no time and no waiters. Every operation that
// can complete a phase says so, so the SM timing model wakes waiters without polling.
// Semantics, our packed layout and the error rules: docs/mbarrier.md.
#pragma once

#include <cstdint>
#include <string>

#include "sim/result.h"

namespace xpusim::core {

// Limits of .layout::v0, the default and only layout modelled (PTX ISA 'Contents of the
// mbarrier object'): expected, pending and arrive counts, and |tx-count|.
inline constexpr std::uint32_t kMBarrierMaxCount = (1u << 20) - 1;
inline constexpr std::int32_t kMBarrierMaxTx = (1 << 20) - 1;
// Our 64-bit word keeps the phase number modulo 8 (three bits are all that is left).
inline constexpr std::uint32_t kMBarrierPhaseModulus = 8;

// The opaque `state` an arrive returns (PTX: "implementation specific"). Ours holds the phase
// number mod 8 the arrive happened in and the pending count before it (mbarrier.pending_count).
// Layout: [2:0] phase, [27:8] pending before, bit 62 from a .noComplete arrive, bit 63 valid,
// so a zero register is never a valid token.
class MBarrierToken {
 public:
  MBarrierToken() = default;
  static MBarrierToken from_bits(std::uint64_t bits) { return MBarrierToken(bits); }
  static MBarrierToken make(std::uint32_t phase, std::uint32_t pending_before, bool no_complete) {
    return MBarrierToken(kValid | (no_complete ? kNoComplete : 0) |
                         (std::uint64_t{pending_before & kMBarrierMaxCount} << 8) |
                         (phase & (kMBarrierPhaseModulus - 1)));
  }

  std::uint64_t bits() const { return bits_; }
  // Made by make(): the valid bit set and nothing outside the fields.
  bool valid() const { return (bits_ & kValid) != 0 && (bits_ & ~kDefined) == 0; }
  std::uint32_t phase() const { return static_cast<std::uint32_t>(bits_ & 7); }
  std::uint32_t pending_before() const {
    return static_cast<std::uint32_t>(bits_ >> 8) & kMBarrierMaxCount;
  }
  bool no_complete() const { return (bits_ & kNoComplete) != 0; }

  friend bool operator==(const MBarrierToken&, const MBarrierToken&) = default;

 private:
  static constexpr std::uint64_t kValid = std::uint64_t{1} << 63;
  static constexpr std::uint64_t kNoComplete = std::uint64_t{1} << 62;
  static constexpr std::uint64_t kDefined =
      kValid | kNoComplete | (std::uint64_t{kMBarrierMaxCount} << 8) | 7;
  explicit MBarrierToken(std::uint64_t bits) : bits_(bits) {}
  std::uint64_t bits_ = 0;
};

// What an arrive-on returns: the state token and whether this arrive completed the phase.
struct ArriveResult {
  MBarrierToken token;
  bool phase_completed = false;
};

// A snapshot for hang reports.
struct MBarrierState {
  bool initialized = false;
  std::uint32_t phase = 0;  // phase number mod 8
  std::uint32_t parity = 0;
  std::uint32_t pending = 0;   // arrivals still missing in this phase
  std::uint32_t expected = 0;  // arrivals each phase needs
  std::int32_t tx_count = 0;   // > 0: transaction bytes outstanding; < 0: completed early

  // One line, e.g. "phase 3 mod 8 (parity 1): 2 of 4 arrivals pending, 4096 transaction
  // bytes outstanding".
  std::string describe() const;
};

// A default-constructed MBarrier is not initialized and packs to 0, like zero-filled shared
// memory. Every error leaves the object unchanged. Errors name the operation, the value and
// the rule; the caller prefixes where the barrier lives (CTA, shared-memory address).
class MBarrier {
 public:
  MBarrier() = default;

  // mbarrier.init: phase 0, pending = expected = count, tx-count 0 (PTX ISA 'mbarrier.init').
  Status init(std::uint32_t count);
  // mbarrier.inval: back to "not initialized" (PTX ISA 'mbarrier.inval').
  Status inval();

  // mbarrier.arrive: pending -= count (PTX ISA 'Arrive-on operation on mbarrier object').
  Result<ArriveResult> arrive(std::uint32_t count = 1) {
    return arrive_on(Op::arrive, count, 0, false, false);
  }
  // mbarrier.arrive.expect_tx: expect-tx first, then an arrive-on with count 1
  // (PTX ISA 'mbarrier.arrive').
  Result<ArriveResult> arrive_expect_tx(std::uint32_t tx_count) {
    return arrive_on(Op::arrive_expect_tx, 1, tx_count, false, false);
  }
  // mbarrier.arrive.noComplete: an arrive that must not complete the phase.
  Result<ArriveResult> arrive_no_complete(std::uint32_t count) {
    return arrive_on(Op::arrive_no_complete, count, 0, false, true);
  }
  // mbarrier.arrive_drop: expected -= count for all later phases, then arrive-on with count
  // (PTX ISA 'mbarrier.arrive_drop'); .expect_tx arrives with count 1.
  Result<ArriveResult> arrive_drop(std::uint32_t count = 1) {
    return arrive_on(Op::arrive_drop, count, 0, true, false);
  }
  Result<ArriveResult> arrive_drop_expect_tx(std::uint32_t tx_count) {
    return arrive_on(Op::arrive_drop_expect_tx, 1, tx_count, true, false);
  }
  Result<ArriveResult> arrive_drop_no_complete(std::uint32_t count) {
    return arrive_on(Op::arrive_drop_no_complete, count, 0, true, true);
  }

  // mbarrier.expect_tx: tx-count += tx_count (PTX ISA 'expect-tx operation'). True when it
  // completed the phase: PTX gives expect-tx no completion step, but we check after every
  // update so both counts at zero never leave a phase open (docs/mbarrier.md).
  Result<bool> expect_tx(std::uint32_t tx_count);
  // complete-tx (mbarrier.complete_tx, or bytes of a cp.async.bulk landing): tx-count -=
  // tx_count, possibly below 0 (PTX ISA 'complete-tx operation'). True when it completed the
  // phase.
  Result<bool> complete_tx(std::uint32_t tx_count);
  // cp.async.mbarrier.arrive without .noinc: pending += 1 now; the asynchronous arrive-on
  // that follows is an ordinary arrive(1). With .noinc there is only that arrive.
  Status increment_pending();

  // test_wait / try_wait: true iff the phase named by the token (or by the parity) has
  // completed (PTX ISA 'mbarrier.test_wait/mbarrier.try_wait'). try_wait's suspension is
  // the timing model's job; functionally they agree. A token 2..7 phases old is an error.
  Result<bool> test_wait(MBarrierToken state) const { return wait_on(Op::test_wait, state); }
  Result<bool> try_wait(MBarrierToken state) const { return wait_on(Op::try_wait, state); }
  // PTX: valid only for the current phase (false) or the one before it (true), so the
  // previous phase's ("wrong") parity returns true at once. A phase two back has the current
  // parity again and returns false: parity cannot tell them apart.
  Result<bool> test_wait_parity(std::uint32_t phase_parity) const {
    return wait_parity(Op::test_wait_parity, phase_parity);
  }
  Result<bool> try_wait_parity(std::uint32_t phase_parity) const {
    return wait_parity(Op::try_wait_parity, phase_parity);
  }
  // mbarrier.pending_count: the pending count before the .noComplete arrive that made `state`.
  static Result<std::uint32_t> pending_count(MBarrierToken state);

  bool initialized() const { return expected_ != 0; }
  std::uint32_t phase() const { return phase_; }  // mod 8
  std::uint32_t phase_parity() const { return phase_ & 1; }
  std::uint32_t pending() const { return pending_; }
  std::uint32_t expected() const { return expected_; }
  std::int32_t tx_count() const { return tx_; }
  MBarrierState state() const {
    return MBarrierState{.initialized = initialized(),
                         .phase = phase_,
                         .parity = phase_parity(),
                         .pending = pending_,
                         .expected = expected_,
                         .tx_count = tx_};
  }

  // Our 64-bit image in shared memory (the real one is not public):
  //   [19:0] pending  [39:20] expected (0 = not initialized)  [60:40] tx-count (21-bit two's
  //   complement)  [63:61] phase mod 8 (bit 61 = parity).
  std::uint64_t pack() const {
    return std::uint64_t{pending_} | (std::uint64_t{expected_} << 20) |
           (std::uint64_t{static_cast<std::uint32_t>(tx_) & kTxMask} << 40) |
           (std::uint64_t{phase_} << 61);
  }
  // Rejects words no sequence of operations produces (bad bytes, not a barrier).
  static Result<MBarrier> unpack(std::uint64_t word);

  friend bool operator==(const MBarrier&, const MBarrier&) = default;

 private:
  enum class Op : std::uint8_t {
    init,
    inval,
    arrive,
    arrive_expect_tx,
    arrive_no_complete,
    arrive_drop,
    arrive_drop_expect_tx,
    arrive_drop_no_complete,
    expect_tx,
    complete_tx,
    increment_pending,
    test_wait,
    try_wait,
    test_wait_parity,
    try_wait_parity,
  };
  static constexpr std::uint32_t kTxMask = (1u << 21) - 1;

  Result<ArriveResult> arrive_on(Op op, std::uint32_t count, std::uint32_t tx, bool drop,
                                 bool no_complete);
  Result<bool> wait_on(Op op, MBarrierToken state) const;
  Result<bool> wait_parity(Op op, std::uint32_t parity) const {
    if (!initialized()) return not_initialized(op);
    return (parity & 1) != phase_parity();
  }
  // PTX ISA 'Phase Completion of the mbarrier object': both counts zero completes the
  // phase; the phase advances and pending is reloaded from expected (tx-count is zero).
  bool complete_if_done() {
    if (pending_ != 0 || tx_ != 0) return false;
    phase_ = (phase_ + 1) % kMBarrierPhaseModulus;
    pending_ = expected_;
    return true;
  }

  // Error messages (cold, out of line).
  Error not_initialized(Op op) const;
  Error bad_count(Op op, std::uint32_t count) const;
  Error too_few_pending(Op op, std::uint32_t count) const;
  Error drop_to_zero(Op op, std::uint32_t count) const;
  Error would_complete(Op op, std::uint32_t count) const;
  Error tx_out_of_range(Op op, std::uint32_t tx, std::int64_t after) const;
  static const char* name(Op op);

  std::uint32_t pending_ = 0;
  std::uint32_t expected_ = 0;
  std::int32_t tx_ = 0;
  std::uint32_t phase_ = 0;
};

inline Result<ArriveResult> MBarrier::arrive_on(Op op, std::uint32_t count, std::uint32_t tx,
                                                bool drop, bool no_complete) {
  if (!initialized()) return not_initialized(op);
  if (count == 0 || count > kMBarrierMaxCount) return bad_count(op, count);
  // The order PTX gives: expect-tx, then the drop, then the arrive-on. Check all, then apply.
  const std::int64_t tx_after = std::int64_t{tx_} + tx;
  if (tx_after > kMBarrierMaxTx) return tx_out_of_range(op, tx, tx_after);
  if (drop && count >= expected_) return drop_to_zero(op, count);
  if (count > pending_) return too_few_pending(op, count);
  if (no_complete && count == pending_ && tx_after == 0) return would_complete(op, count);
  const MBarrierToken token = MBarrierToken::make(phase_, pending_, no_complete);
  tx_ = static_cast<std::int32_t>(tx_after);
  if (drop) expected_ -= count;
  pending_ -= count;
  return ArriveResult{.token = token, .phase_completed = complete_if_done()};
}

inline Result<bool> MBarrier::expect_tx(std::uint32_t tx_count) {
  if (!initialized()) return not_initialized(Op::expect_tx);
  const std::int64_t after = std::int64_t{tx_} + tx_count;
  if (after > kMBarrierMaxTx) return tx_out_of_range(Op::expect_tx, tx_count, after);
  tx_ = static_cast<std::int32_t>(after);
  return complete_if_done();
}

inline Result<bool> MBarrier::complete_tx(std::uint32_t tx_count) {
  if (!initialized()) return not_initialized(Op::complete_tx);
  const std::int64_t after = std::int64_t{tx_} - tx_count;
  if (after < -kMBarrierMaxTx) return tx_out_of_range(Op::complete_tx, tx_count, after);
  tx_ = static_cast<std::int32_t>(after);
  return complete_if_done();
}

}  // namespace xpusim::core
