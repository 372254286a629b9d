// The kernel API without an SM: argument signatures, the registry's errors, and the
// coordinates a warp computes (partial last warp, global thread ids).
#include <gtest/gtest.h>

#include <array>
#include <utility>

#include "kernel/op.h"
#include "kernel/registry.h"

namespace xpusim::kernel {
namespace {

sim::Task<> nothing(Warp&) {
  co_return;
}

class NoExecutor : public WarpExecutor {
 public:
  void execute(Warp&, const Op&) override {}
  RegisterFile& registers(Warp&) override { return regs; }
  void fault(Warp&, const std::string&) override {}
  RegisterFile regs{kWarpSize, 8};
};

TEST(KernelArgs, ASignatureMismatchNamesTheArgumentAndBothKinds) {
  const std::vector<ArgDecl> sig = {{"x", ArgKind::kPtr}, {"n", ArgKind::kU32}};
  EXPECT_TRUE(KernelArgs().ptr(0x1000).u32(7).check("axpy", sig).ok());
  const auto wrong = KernelArgs().ptr(0x1000).f32(7).check("axpy", sig);
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.error().message, "kernel axpy: argument 1 (n) is a f32, it must be a u32");
  const auto count = KernelArgs().ptr(0x1000).check("axpy", sig);
  ASSERT_FALSE(count.ok());
  EXPECT_EQ(count.error().message, "kernel axpy: 1 arguments given, it takes 2 (ptr x, u32 n)");
  KernelArgs a;
  a.f32(1.5f).u64(1ull << 40);
  EXPECT_EQ(a.get_f32(0), 1.5f);
  EXPECT_EQ(a.get_u64(1), 1ull << 40);
}

// Registers read 0 until written, through every accessor, whether or not the file's words
// exist yet (they are allocated at the first write).
TEST(RegisterFile, EveryRegisterReadsZeroUntilWritten) {
  RegisterFile regs(kWarpSize, 16);
  const RegisterFile& view = regs;
  EXPECT_EQ(view.at(31, 15), 0u);
  for (const std::uint32_t w : view.thread(3))
    EXPECT_EQ(w, 0u);
  RegisterFile fresh(2, 4);
  fresh.at(1, 2) = 7;
  EXPECT_EQ(std::as_const(fresh).at(1, 2), 7u);
  EXPECT_EQ(std::as_const(fresh).at(0, 2), 0u);
  EXPECT_EQ(fresh.thread(1)[2], 7u);
  RegisterFile spans(2, 4);
  spans.thread(0)[1] = 5;
  EXPECT_EQ(std::as_const(spans).at(0, 1), 5u);
  EXPECT_EQ(std::as_const(spans).at(1, 1), 0u);
}

TEST(KernelRegistry, UnknownNamesSuggestTheClosestAndDuplicatesAreRefused) {
  KernelRegistry r;
  ASSERT_TRUE(r.add({.name = "stream_copy", .description = "", .args = {}, .body = nothing}).ok());
  EXPECT_FALSE(r.add({.name = "stream_copy", .description = "", .args = {}, .body = nothing}).ok());
  EXPECT_FALSE(r.add({.name = "x", .description = "", .args = {}, .body = nullptr}).ok());
  const auto miss = r.find("stream_cpy");
  ASSERT_FALSE(miss.ok());
  EXPECT_EQ(miss.error().message,
            "kernel 'stream_cpy' is unknown (did you mean 'stream_copy'?); known kernels: "
            "stream_copy");
  ASSERT_TRUE(r.find("stream_copy").ok());
}

TEST(Warp, CoordinatesOfAPartialLastWarp) {
  NoExecutor ex;
  KernelArgs args;
  LaunchParams p{.grid = {4, 1, 1}, .block = {80, 1, 1}};  // 80 threads: warps of 32, 32, 16
  Warp w2(ex, p, args, WarpCoords{.block_id = {3, 0, 0}, .warp = 2});
  EXPECT_EQ(w2.thread_mask(), 0xFFFFu);
  EXPECT_EQ(w2.global_thread_ids()[0], 3u * 80 + 64);
  Warp w0(ex, p, args, WarpCoords{.block_id = {0, 0, 0}, .warp = 0});
  EXPECT_EQ(w0.thread_mask(), kAllLanes);
  EXPECT_EQ(Warp::elect_one(0b1000), 3u);
  EXPECT_EQ(Warp::lane_addresses(0x100, 8, w0.global_thread_ids())[5], 0x100u + 40);
}

// A warp suspended on an operation knows its kernel's frame and the frame's size (the SM's
// prefetch hint reads that much of it before resuming).
// Not inlined, as a kernel called through its KernelDef is not: Clang would put the frame of an
// inlined coroutine into this test's stack frame (no operator new, so no size to read).
[[gnu::noinline]] sim::Task<> keeps_a_kilobyte(Warp& w, std::uint32_t* sum) {
  std::array<std::uint32_t, 256> a{};  // from memory: not foldable
  for (std::uint32_t i = 0; i < 256; ++i)
    a[i] = *sum + i;
  co_await w.alu(1);
  for (const std::uint32_t v : a)
    *sum += v;
}

TEST(Warp, ASuspendedWarpKnowsItsFrameAndItsSize) {
  NoExecutor ex;
  KernelArgs args;
  LaunchParams p{.grid = {1, 1, 1}, .block = {32, 1, 1}};
  Warp w(ex, p, args, WarpCoords{});
  EXPECT_EQ(w.frame(), nullptr);
  std::uint32_t sum = 0;
  const auto h = keeps_a_kilobyte(w, &sum).release();
  h.resume();  // runs to the alu, which NoExecutor leaves pending
  EXPECT_EQ(w.frame(), h.address());
  EXPECT_GE(w.frame_bytes(), 1024u);
  EXPECT_LT(w.frame_bytes(), 2048u);
  w.resume();
  EXPECT_EQ(sum, 255u * 256 / 2);
  EXPECT_TRUE(h.done());
  h.destroy();
}

TEST(Op, CopyOpCopiesEveryField) {
  // An executor copies the awaiter's Op with copy_op, and an awaiter initializes its own with
  // copy_of (field by field, for speed): every field must arrive, whatever its value.
  const Lanes<Addr> lanes{};
  std::byte data[4];
  bool result = false;
  std::uint64_t value = 0;
  const MmInstruction* mm = reinterpret_cast<const MmInstruction*>(&value);
  const TmaOp* tma = reinterpret_cast<const TmaOp*>(&result);
  const Op from{.kind = OpKind::kMbarArriveRemote,
                .mask = 0x1234'5678,
                .count = 3,
                .bytes = 16,
                .addr = &lanes,
                .data = data,
                .barrier = 5,
                .mbar = 72,
                .tx_bytes = 4096,
                .parity = 1,
                .result = &result,
                .value = &value,
                .reg = 9,
                .mm = mm,
                .rank = 7,
                .tma = tma};
  Op assigned;
  copy_op(assigned, from);
  const Op made = copy_of(from);  // what an awaiter's Op is initialized with
  for (const Op& to : {assigned, made}) {
    EXPECT_EQ(to.kind, from.kind);
    EXPECT_EQ(to.mask, from.mask);
    EXPECT_EQ(to.count, from.count);
    EXPECT_EQ(to.bytes, from.bytes);
    EXPECT_EQ(to.addr, from.addr);
    EXPECT_EQ(to.data, from.data);
    EXPECT_EQ(to.barrier, from.barrier);
    EXPECT_EQ(to.mbar, from.mbar);
    EXPECT_EQ(to.tx_bytes, from.tx_bytes);
    EXPECT_EQ(to.parity, from.parity);
    EXPECT_EQ(to.result, from.result);
    EXPECT_EQ(to.value, from.value);
    EXPECT_EQ(to.reg, from.reg);
    EXPECT_EQ(to.mm, from.mm);
    EXPECT_EQ(to.rank, from.rank);
    EXPECT_EQ(to.tma, from.tma);
  }
}

}  // namespace
}  // namespace xpusim::kernel
