// The PTX mbarrier functional model (src/core/mbarrier.h), checked case by case and against
// a naive reference that follows the PTX ISA text literally.
#include "core/mbarrier.h"

#include <cstdint>
#include <random>
#include <string>

#include <gtest/gtest.h>

namespace xpusim::core {
namespace {

// Asserts a Result is ok and returns its value.
template <class T>
T ok(Result<T> r) {
  EXPECT_TRUE(r.ok()) << r.error().message;
  return r.ok() ? r.value() : T{};
}

// Asserts a Result is an error, one line, containing every fragment.
template <class T>
void expect_error(const Result<T>& r, std::initializer_list<const char*> fragments) {
  ASSERT_FALSE(r.ok());
  const std::string& m = r.error().message;
  EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  for (const char* f : fragments)
    EXPECT_NE(m.find(f), std::string::npos) << f << " in: " << m;
}

MBarrier make(std::uint32_t count) {
  MBarrier b;
  ok(b.init(count));
  return b;
}

TEST(MBarrier, InitSetsPhaseZeroAndBothCounts) {
  MBarrier b;
  EXPECT_FALSE(b.initialized());
  EXPECT_EQ(b.pack(), 0u);
  ok(b.init(4));
  EXPECT_TRUE(b.initialized());
  EXPECT_EQ(b.phase(), 0u);
  EXPECT_EQ(b.pending(), 4u);
  EXPECT_EQ(b.expected(), 4u);
  EXPECT_EQ(b.tx_count(), 0);
  ok(make(1).inval());
  MBarrier max;
  ok(max.init(kMBarrierMaxCount));
  EXPECT_EQ(max.pending(), (1u << 20) - 1);
}

TEST(MBarrier, PhaseCompletesOnLastArrivalAndReloadsPending) {
  MBarrier b = make(3);
  EXPECT_FALSE(ok(b.arrive()).phase_completed);
  EXPECT_FALSE(ok(b.arrive()).phase_completed);
  EXPECT_EQ(b.pending(), 1u);
  const ArriveResult last = ok(b.arrive());
  EXPECT_TRUE(last.phase_completed);
  EXPECT_EQ(b.phase(), 1u);
  EXPECT_EQ(b.pending(), 3u);
  // An arrive with a count counts that many arrivals.
  EXPECT_TRUE(ok(b.arrive(3)).phase_completed);
  EXPECT_EQ(b.phase(), 2u);
}

TEST(MBarrier, PhaseWaitsForTxCountEvenAfterAllArrivals) {
  MBarrier b = make(2);
  EXPECT_FALSE(ok(b.arrive_expect_tx(4096)).phase_completed);
  EXPECT_FALSE(ok(b.arrive()).phase_completed);  // arrivals done, bytes not
  EXPECT_EQ(b.pending(), 0u);
  EXPECT_EQ(b.tx_count(), 4096);
  EXPECT_FALSE(ok(b.complete_tx(1024)));
  EXPECT_FALSE(ok(b.complete_tx(2048)));
  EXPECT_EQ(b.phase(), 0u);
  EXPECT_TRUE(ok(b.complete_tx(1024)));  // the last bytes complete the phase
  EXPECT_EQ(b.phase(), 1u);
  EXPECT_EQ(b.pending(), 2u);
  EXPECT_EQ(b.tx_count(), 0);
}

TEST(MBarrier, TxBeforeArrivalsCompletesOnLastArrival) {
  MBarrier b = make(2);
  ok(b.expect_tx(512));
  EXPECT_FALSE(ok(b.complete_tx(512)));  // tx-count is 0 but arrivals are missing
  EXPECT_FALSE(ok(b.arrive()).phase_completed);
  EXPECT_TRUE(ok(b.arrive()).phase_completed);
  EXPECT_EQ(b.phase(), 1u);
}

TEST(MBarrier, CompleteTxBeforeExpectTxGoesNegativeThenCompletes) {
  // A multicast TMA can land bytes before this CTA's producer announces them.
  MBarrier b = make(1);
  EXPECT_FALSE(ok(b.complete_tx(4096)));
  EXPECT_EQ(b.tx_count(), -4096);
  EXPECT_EQ(b.state().describe(),
            "phase 0 mod 8 (parity 0): 1 of 1 arrivals pending, 4096 transaction bytes "
            "completed before they were expected");
  // expect-tx runs before the arrive-on, so the arrive sees tx-count 0 and completes.
  EXPECT_TRUE(ok(b.arrive_expect_tx(4096)).phase_completed);
  EXPECT_EQ(b.phase(), 1u);
  EXPECT_EQ(b.tx_count(), 0);
}

TEST(MBarrier, NegativeTxCountHoldsThePhaseUntilExpected) {
  MBarrier b = make(1);
  ok(b.complete_tx(100));
  EXPECT_FALSE(ok(b.arrive()).phase_completed);  // pending 0, tx-count -100: not zero
  EXPECT_EQ(b.phase(), 0u);
  EXPECT_FALSE(ok(b.expect_tx(60)));
  EXPECT_TRUE(ok(b.expect_tx(40)));  // tx-count back to 0 with no arrival pending
  EXPECT_EQ(b.phase(), 1u);
}

TEST(MBarrier, ParityWaits) {
  MBarrier b = make(1);
  // Phase 0 is current: waiting on parity 0 waits, parity 1 (the "previous" phase) passes.
  EXPECT_FALSE(ok(b.test_wait_parity(0)));
  EXPECT_TRUE(ok(b.try_wait_parity(1)));
  ok(b.arrive());
  EXPECT_TRUE(ok(b.test_wait_parity(0)));
  EXPECT_FALSE(ok(b.test_wait_parity(1)));
  // Only the integer's parity counts.
  EXPECT_TRUE(ok(b.test_wait_parity(2)));
  EXPECT_FALSE(ok(b.test_wait_parity(7)));
  // Two phases later phase 2 has parity 0 again: a wait for phase 0 blocks (PTX: only the
  // current or the preceding phase may be tested).
  ok(b.arrive());
  EXPECT_EQ(b.phase(), 2u);
  EXPECT_FALSE(ok(b.test_wait_parity(0)));
}

TEST(MBarrier, StateTokenNamesThePhaseItArrivedOn) {
  MBarrier b = make(2);
  const MBarrierToken t0 = ok(b.arrive()).token;
  EXPECT_TRUE(t0.valid());
  EXPECT_EQ(t0.phase(), 0u);
  EXPECT_FALSE(ok(b.test_wait(t0)));
  const MBarrierToken t0b = ok(b.arrive()).token;  // completes phase 0; token is of phase 0
  EXPECT_EQ(t0b.phase(), 0u);
  EXPECT_TRUE(ok(b.test_wait(t0)));
  EXPECT_TRUE(ok(b.try_wait(t0b)));
  const MBarrierToken t1 = ok(b.arrive()).token;
  EXPECT_EQ(t1.phase(), 1u);
  EXPECT_FALSE(ok(b.test_wait(t1)));
  EXPECT_TRUE(ok(b.test_wait(t0)));
  // The token survives a trip through a 64-bit register.
  EXPECT_EQ(MBarrierToken::from_bits(t1.bits()), t1);
  // Phase numbers wrap at 8 in the token as in the word.
  MBarrier c = make(1);
  for (int i = 0; i < 9; ++i)
    ok(c.arrive());
  EXPECT_EQ(c.phase(), 1u);
  EXPECT_EQ(ok(c.arrive()).token.phase(), 1u);
}

TEST(MBarrier, StaleTokenIsAnError) {
  MBarrier b = make(1);
  const MBarrierToken t0 = ok(b.arrive()).token;
  ok(b.arrive());  // phase 2 now; t0's phase is two behind
  expect_error(b.test_wait(t0), {"mbarrier.test_wait", "phase 0 mod 8", "phase 2",
                                 "current phase or the one before"});
  expect_error(b.try_wait(MBarrierToken{}), {"mbarrier.try_wait state 0x0", "not a state"});
  expect_error(b.test_wait(MBarrierToken::from_bits(t0.bits() | 0x10)), {"not a state"});
}

TEST(MBarrier, PendingCountOfANoCompleteArrive) {
  MBarrier b = make(5);
  const ArriveResult r = ok(b.arrive_no_complete(2));
  EXPECT_FALSE(r.phase_completed);
  EXPECT_EQ(ok(MBarrier::pending_count(r.token)), 5u);
  EXPECT_EQ(b.pending(), 3u);
  expect_error(MBarrier::pending_count(ok(b.arrive()).token),
               {"mbarrier.pending_count", "not a state returned by mbarrier.arrive.noComplete"});
}

TEST(MBarrier, ArriveDropLowersTheExpectedCountForLaterPhases) {
  MBarrier b = make(4);
  EXPECT_FALSE(ok(b.arrive_drop()).phase_completed);
  EXPECT_EQ(b.expected(), 3u);
  EXPECT_EQ(b.pending(), 3u);  // this phase still loses the dropped thread's arrival
  ok(b.arrive(2));
  EXPECT_TRUE(ok(b.arrive()).phase_completed);
  EXPECT_EQ(b.pending(), 3u);  // the next phase needs only 3
  // A drop that completes the phase reloads pending from the lowered count.
  ok(b.arrive(2));
  EXPECT_TRUE(ok(b.arrive_drop()).phase_completed);
  EXPECT_EQ(b.expected(), 2u);
  EXPECT_EQ(b.pending(), 2u);
  // With a count, and with expect_tx (then its arrive count is 1).
  EXPECT_FALSE(ok(b.arrive_drop_expect_tx(64)).phase_completed);
  EXPECT_EQ(b.expected(), 1u);
  EXPECT_EQ(b.pending(), 1u);
  EXPECT_EQ(b.tx_count(), 64);
  EXPECT_FALSE(ok(b.arrive()).phase_completed);
  EXPECT_TRUE(ok(b.complete_tx(64)));
  EXPECT_EQ(b.pending(), 1u);
  MBarrier c = make(6);
  ok(c.arrive_drop(2));
  EXPECT_EQ(c.expected(), 4u);
  EXPECT_EQ(c.pending(), 4u);
  ok(c.arrive_drop_no_complete(1));
  EXPECT_EQ(c.expected(), 3u);
}

TEST(MBarrier, CpAsyncArriveWithoutNoincIsNetZero) {
  MBarrier b = make(1);
  ok(b.increment_pending());  // cp.async.mbarrier.arrive: +1 now, arrive-on later
  EXPECT_EQ(b.pending(), 2u);
  EXPECT_FALSE(ok(b.arrive()).phase_completed);  // the thread's own arrive
  EXPECT_TRUE(ok(b.arrive()).phase_completed);   // the cp.async completion
  EXPECT_EQ(b.pending(), 1u);
}

TEST(MBarrier, ErrorsOnAnUninitializedBarrier) {
  MBarrier b;
  const char* rule = "needs an initialized mbarrier";
  expect_error(b.arrive(), {"mbarrier.arrive:", "not initialized", rule});
  expect_error(b.arrive_expect_tx(8), {"mbarrier.arrive.expect_tx:", rule});
  expect_error(b.arrive_drop(), {"mbarrier.arrive_drop:", rule});
  expect_error(b.expect_tx(8), {"mbarrier.expect_tx:", rule});
  expect_error(b.complete_tx(8), {"mbarrier.complete_tx:", rule});
  expect_error(b.increment_pending(), {"cp.async.mbarrier.arrive:", rule});
  expect_error(b.test_wait(MBarrierToken::make(0, 1, false)), {"mbarrier.test_wait:", rule});
  expect_error(b.try_wait_parity(0), {"mbarrier.try_wait.parity:", rule});
  expect_error(b.inval(), {"mbarrier.inval:", rule});
  EXPECT_EQ(b, MBarrier{});
}

TEST(MBarrier, InitErrors) {
  MBarrier b;
  expect_error(b.init(0), {"mbarrier.init count 0", "1..1048575", "Contents of the mbarrier"});
  expect_error(b.init(1u << 20), {"mbarrier.init count 1048576", "1..1048575"});
  ok(b.init(2));
  expect_error(b.init(2), {"mbarrier.init count 2", "already initialized",
                           "phase 0 mod 8 (parity 0): 2 of 2 arrivals pending", "mbarrier.inval"});
  ok(b.inval());
  ok(b.init(3));  // after inval the memory may hold a new barrier
}

TEST(MBarrier, ArriveErrorsLeaveTheBarrierUnchanged) {
  MBarrier b = make(2);
  ok(b.expect_tx(4096));
  ok(b.arrive(2));  // pending 0, bytes outstanding
  const MBarrier before = b;
  expect_error(b.arrive(), {"mbarrier.arrive count 1", "more arrivals than are pending",
                            "0 of 2 arrivals pending, 4096 transaction bytes outstanding",
                            "cannot go below 0", "undefined behaviour"});
  expect_error(b.arrive(0), {"mbarrier.arrive count 0", "must be in 1..1048575"});
  expect_error(b.arrive(1u << 20), {"count 1048576"});
  EXPECT_EQ(b, before);
  MBarrier c = make(3);
  expect_error(c.arrive(4), {"mbarrier.arrive count 4", "3 of 3 arrivals pending"});
  expect_error(c.arrive_no_complete(3),
               {"mbarrier.arrive.noComplete count 3", "would complete the phase",
                ".noComplete arrive must not"});
  EXPECT_EQ(c, make(3));
}

TEST(MBarrier, ArriveDropErrors) {
  MBarrier b = make(2);
  expect_error(b.arrive_drop(2), {"mbarrier.arrive_drop count 2", "from 2 to 0", "must stay >= 1",
                                  "mbarrier.arrive_drop': zero"});
  expect_error(b.arrive_drop(5), {"from 2 to -3"});
  MBarrier one = make(1);
  expect_error(one.arrive_drop_expect_tx(16), {"mbarrier.arrive_drop.expect_tx count 1"});
  EXPECT_EQ(b, make(2));
  EXPECT_EQ(one, make(1));
}

TEST(MBarrier, TxCountRangeErrors) {
  MBarrier b = make(1);
  ok(b.expect_tx(kMBarrierMaxTx));
  expect_error(b.expect_tx(1), {"mbarrier.expect_tx txCount 1", "from 1048575 to 1048576",
                                "-1048575..1048575", "Contents of the mbarrier object"});
  expect_error(b.arrive_expect_tx(1), {"mbarrier.arrive.expect_tx txCount 1"});
  EXPECT_EQ(b.pending(), 1u);  // the failed arrive.expect_tx did not arrive either
  MBarrier c = make(1);
  expect_error(c.expect_tx(0xffffffffu), {"txCount 4294967295", "to 4294967295"});
  ok(c.complete_tx(kMBarrierMaxTx));
  expect_error(c.complete_tx(1), {"mbarrier.complete_tx txCount 1", "from -1048575 to -1048576"});
  EXPECT_EQ(c.tx_count(), -kMBarrierMaxTx);
}

TEST(MBarrier, PendingLimitForCpAsync) {
  MBarrier b;
  ok(b.init(kMBarrierMaxCount));
  expect_error(b.increment_pending(),
               {"cp.async.mbarrier.arrive", "from 1048575 to 1048576", "must stay <= 1048575"});
}

TEST(MBarrier, DescribeForHangReports) {
  MBarrier b = make(4);
  ok(b.arrive_expect_tx(4096));
  ok(b.arrive());
  for (int i = 0; i < 3; ++i) {
    ok(b.arrive(2));
    ok(b.complete_tx(4096));
    ok(b.arrive_expect_tx(4096));
    ok(b.arrive());
  }
  EXPECT_EQ(b.state().describe(),
            "phase 3 mod 8 (parity 1): 2 of 4 arrivals pending, 4096 transaction bytes "
            "outstanding");
  EXPECT_EQ(make(1).state().describe(),
            "phase 0 mod 8 (parity 0): 1 of 1 arrivals pending, no transaction bytes "
            "outstanding");
  EXPECT_EQ(MBarrier{}.state().describe(), "not initialized");
}

TEST(MBarrier, PackedLayout) {
  MBarrier b = make(4);
  EXPECT_EQ(b.pack(), 4u | (4u << 20));
  ok(b.arrive());
  ok(b.complete_tx(1));  // tx-count -1: all 21 bits set
  const std::uint64_t w = b.pack();
  EXPECT_EQ(w & 0xfffff, 3u);
  EXPECT_EQ((w >> 20) & 0xfffff, 4u);
  EXPECT_EQ((w >> 40) & 0x1fffff, 0x1fffffu);
  EXPECT_EQ(w >> 61, 0u);
  ok(b.expect_tx(1));
  ok(b.arrive(3));
  EXPECT_EQ(b.pack() >> 61, 1u);
  EXPECT_EQ(ok(MBarrier::unpack(b.pack())), b);
  EXPECT_EQ(ok(MBarrier::unpack(0)), MBarrier{});
}

TEST(MBarrier, UnpackRejectsWordsNoBarrierHolds) {
  expect_error(MBarrier::unpack(0x5),
               {"mbarrier word 0x0000000000000005", "uninitialized mbarrier is all zeros"});
  // tx-count field -2^20 is outside -(2^20-1)..2^20-1.
  const std::uint64_t low_tx = 1 | (1u << 20) | (std::uint64_t{1} << 60);
  expect_error(MBarrier::unpack(low_tx), {"tx-count -1048576 is out of range"});
  // Both counts zero: that phase would have completed.
  expect_error(MBarrier::unpack(std::uint64_t{2} << 20), {"would have completed"});
}

// The reference: plain integers and the PTX text, one rule at a time. Not shared with the
// model: unbounded phase number, separate flags, no packing.
struct NaiveMBarrier {
  bool initialized = false;
  long long phase = 0;
  long long pending = 0;
  long long expected = 0;
  long long tx = 0;

  static constexpr long long kMax = (1 << 20) - 1;

  // "Phase Completion": pending arrivals zero and tx-count zero.
  bool maybe_complete() {
    if (pending == 0 && tx == 0) {
      ++phase;
      pending = expected;
      return true;
    }
    return false;
  }
  bool init(long long count) {
    if (initialized || count < 1 || count > kMax) return false;
    *this = NaiveMBarrier{.initialized = true, .pending = count, .expected = count};
    return true;
  }
  bool inval() {
    if (!initialized) return false;
    *this = NaiveMBarrier{};
    return true;
  }
  // Returns ok, sets completed. Order from the PTX text: expect-tx, drop, arrive-on.
  bool arrive(long long count, long long expect, bool drop, bool no_complete, bool& completed) {
    if (!initialized || count < 1 || count > kMax) return false;
    if (tx + expect > kMax) return false;
    if (drop && expected - count < 1) return false;
    if (pending - count < 0) return false;
    if (no_complete && pending - count == 0 && tx + expect == 0) return false;
    tx += expect;
    if (drop) expected -= count;
    pending -= count;
    completed = maybe_complete();
    return true;
  }
  bool expect_tx(long long n, bool& completed) {
    if (!initialized || tx + n > kMax) return false;
    tx += n;
    completed = maybe_complete();
    return true;
  }
  bool complete_tx(long long n, bool& completed) {
    if (!initialized || tx - n < -kMax) return false;
    tx -= n;
    completed = maybe_complete();
    return true;
  }
  bool increment() {
    if (!initialized || pending + 1 > kMax) return false;
    ++pending;
    return true;
  }
};

void expect_same(const MBarrier& b, const NaiveMBarrier& n, int step) {
  ASSERT_EQ(b.initialized(), n.initialized) << "step " << step;
  if (!n.initialized) {
    EXPECT_EQ(b.pack(), 0u) << "step " << step;
    return;
  }
  EXPECT_EQ(b.phase(), static_cast<std::uint32_t>(n.phase % 8)) << "step " << step;
  EXPECT_EQ(b.phase_parity(), static_cast<std::uint32_t>(n.phase % 2)) << "step " << step;
  EXPECT_EQ(b.pending(), n.pending) << "step " << step;
  EXPECT_EQ(b.expected(), n.expected) << "step " << step;
  EXPECT_EQ(b.tx_count(), n.tx) << "step " << step;
}

TEST(MBarrier, RandomOperationsMatchTheNaiveReferenceThroughPackedWords) {
  std::mt19937_64 rng(20240607);
  MBarrier b;
  NaiveMBarrier n;
  MBarrierToken last_token;
  long long last_token_phase = -1;
  int completions = 0, errors = 0, negative_tx = 0;
  const auto pick = [&](std::uint64_t lo, std::uint64_t hi) {
    return static_cast<std::uint32_t>(std::uniform_int_distribution<std::uint64_t>(lo, hi)(rng));
  };
  // Often exactly what finishes the phase (the reference's remaining count), mostly small
  // values, sometimes huge ones to hit every range rule.
  const auto count = [&] {
    const std::uint32_t k = pick(0, 9);
    if (k < 4 && n.pending > 0) return static_cast<std::uint32_t>(n.pending);
    return k == 4 ? pick(0, 1u << 21) : pick(1, 3);
  };
  const auto tx = [&](long long finishing) {
    const std::uint32_t k = pick(0, 19);
    if (k < 8 && finishing > 0) return static_cast<std::uint32_t>(finishing);
    return k == 8 ? pick(0, 0xffffffffu) : k == 9 ? pick(1u << 19, 1u << 20) : 128 * pick(0, 8);
  };
  const auto more_tx = [&] { return tx(-n.tx); };  // expect_tx closing a negative tx-count
  const auto less_tx = [&] { return tx(n.tx); };   // complete_tx closing a positive one
  // Weights of ops 0..13 (the switch below): arrivals and complete_tx most often, drops and
  // inval rarely, so barriers live for many phases.
  std::discrete_distribution<int> op_mix({2, 1, 4, 4, 3, 1, 1, 1, 2, 3, 3, 1, 1, 2});
  for (int step = 0; step < 10000; ++step) {
    auto op = static_cast<std::uint32_t>(op_mix(rng));
    if (!n.initialized && pick(0, 3) != 0) op = 0;  // an uninitialized barrier is mostly init
    if (op == 1 && pick(0, 3) != 0) continue;       // and a barrier lives for many phases
    bool completed = false;
    bool ref_ok = false;
    bool model_ok = false;
    bool model_completed = false;
    const auto take = [&](const Result<ArriveResult>& r) {
      model_ok = r.ok();
      if (!r.ok()) return;
      model_completed = r->phase_completed;
      last_token = r->token;
      last_token_phase = n.phase - (completed ? 1 : 0);
      EXPECT_EQ(r->token.phase(), static_cast<std::uint32_t>(last_token_phase % 8));
    };
    const auto take_bool = [&](const auto& r) {
      model_ok = r.ok();
      if (r.ok()) model_completed = r.value();
    };
    switch (op) {
      case 0: {
        const std::uint32_t c = pick(0, 9) == 0 ? pick(0, 1u << 21) : pick(1, 4);
        ref_ok = n.init(c);
        model_ok = b.init(c).ok();
        break;
      }
      case 1:
        ref_ok = n.inval();
        model_ok = b.inval().ok();
        break;
      case 2:
      case 3: {
        const std::uint32_t c = count();
        ref_ok = n.arrive(c, 0, false, false, completed);
        take(b.arrive(c));
        break;
      }
      case 4: {
        const std::uint32_t t = more_tx();
        ref_ok = n.arrive(1, t, false, false, completed);
        take(b.arrive_expect_tx(t));
        break;
      }
      case 5: {
        const std::uint32_t c = count();
        ref_ok = n.arrive(c, 0, false, true, completed);
        take(b.arrive_no_complete(c));
        break;
      }
      case 6: {
        const std::uint32_t c = count();
        ref_ok = n.arrive(c, 0, true, false, completed);
        take(b.arrive_drop(c));
        break;
      }
      case 7: {
        const std::uint32_t t = more_tx();
        ref_ok = n.arrive(1, t, true, false, completed);
        take(b.arrive_drop_expect_tx(t));
        break;
      }
      case 8: {
        const std::uint32_t t = more_tx();
        ref_ok = n.expect_tx(t, completed);
        take_bool(b.expect_tx(t));
        break;
      }
      case 9:
      case 10: {
        const std::uint32_t t = less_tx();
        ref_ok = n.complete_tx(t, completed);
        take_bool(b.complete_tx(t));
        break;
      }
      case 11:
        ref_ok = n.increment();
        model_ok = b.increment_pending().ok();
        break;
      case 12: {
        // Parity waits: completed iff the current phase has the other parity.
        const std::uint32_t p = pick(0, 3);
        const auto r = b.test_wait_parity(p);
        ASSERT_EQ(r.ok(), n.initialized) << "step " << step;
        if (r.ok()) {
          EXPECT_EQ(*r, (n.phase % 2) != p % 2) << "step " << step;
        }
        continue;
      }
      case 13: {
        // Token waits: valid for the token's phase and the next one only.
        if (!n.initialized || last_token_phase < 0) continue;
        const auto r = b.test_wait(last_token);
        const long long behind = n.phase - last_token_phase;
        if (behind == 0 || behind == 1) {
          ASSERT_TRUE(r.ok()) << r.error().message;
          EXPECT_EQ(*r, behind == 1) << "step " << step;
        } else if (behind % 8 > 1) {
          EXPECT_FALSE(r.ok()) << "step " << step;
        }
        continue;
      }
    }
    ASSERT_EQ(model_ok, ref_ok) << "step " << step << " op " << op;
    EXPECT_EQ(model_completed, ref_ok && completed) << "step " << step << " op " << op;
    if (!ref_ok) ++errors;
    if (ref_ok && completed) ++completions;
    if (n.tx < 0) ++negative_tx;
    if (op == 0 || op == 1) last_token_phase = -1;  // a new barrier: old tokens mean nothing

    // The barrier lives in a 64-bit word between operations, as in shared memory.
    const std::uint64_t w = b.pack();
    const Result<MBarrier> u = MBarrier::unpack(w);
    ASSERT_TRUE(u.ok()) << "step " << step << ": " << u.error().message;
    ASSERT_EQ(u->pack(), w);
    b = *u;
    expect_same(b, n, step);
  }
  // The sequence must have exercised the interesting paths.
  EXPECT_GT(completions, 300);
  EXPECT_GT(errors, 300);
  EXPECT_GT(negative_tx, 100);
}

}  // namespace
}  // namespace xpusim::core
