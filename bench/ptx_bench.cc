// Simulation speed of the PTX front end (src/ptx, docs/ptx.md; issue 45): PTX kernels on the
// whole H100 config (132 SMs, functional mode, the default ChipOptions), each iteration one
// launch run to completion on a freshly built chip (building it and placing the data are not
// timed).
//   BM_PtxAlu/<iters>       : compute-bound: 528 CTAs x 256 threads (4 a SM), each thread a loop of
//                             <iters> x 24 integer and f32 instructions (mad/xor/shl/shr/add,
//                             fma/add/sub/mul: two int and two float chains) plus the loop's own
//                             add, setp and bra; one store at the end. Checked on a sample of
//                             threads against a host reference.
//   BM_StreamCopyPtx/<MiB>  : stream_copy as nvcc compiles it (kStreamCopyPtx below):
//                             dst[i] = src[i], u32, a grid-stride loop, one element a thread an
//                             iteration, over a <MiB> buffer, 528 CTAs x 256 threads (the
//                             stream-copy scenario's launch).
//   BM_StreamCopyCpp/<MiB>  : the same launch of the C++ kernel stream_copy
//                             (src/workloads/kernels.cc), the baseline: the PTX one's target is
//                             at most 2x its host time.
// Counters: rates per second of the timed region's CPU time (one thread):
//   warp_instr_per_s   BM_PtxAlu: PTX warp instructions executed (counted exactly from the
//                      program: the target is >= 3 M on one core); the stream copies: the SMs'
//                      issued warp instructions (an ALU batch counts its issue slots)
//   sm_issue_per_s     BM_PtxAlu: the SMs' issued warp instructions (the same figure when each
//                      instruction takes one issue slot)
//   cycles_per_s       simulated SM cycles
// and per iteration: sim_cycles and sim_us, the simulated run (the PTX and C++ copies should be
// close). docs/performance.md, "PTX front end", records the figures.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "config/chip_spec.h"
#include "huge_pages_main.h"
#include "kernel/registry.h"
#include "ptx/parser.h"
#include "ptx/ptx_kernel.h"
#include "sim/simulation.h"
#include "system/chip.h"
#include "workloads/kernels.h"

namespace xpusim::system {
namespace {

using kernel::Addr;

// Hand-written in nvcc's style. Per thread: 14 instructions before the loop (the guard's setp
// and bra included), 27 an iteration (24 arithmetic, add, setp, bra), 8 after it (the store and
// ret).
constexpr const char* kAluPtx = R"(//
// xpusim bench/ptx_bench.cc: an ALU-bound loop (hand-written)
//

.version 9.0
.target sm_90a
.address_size 64

	// .globl	alu_loop

.visible .entry alu_loop(
	.param .u64 alu_loop_param_0,
	.param .u32 alu_loop_param_1
)
{
	.reg .pred 	%p<3>;
	.reg .b32 	%r<17>;
	.reg .f32 	%f<9>;
	.reg .b64 	%rd<5>;


	ld.param.u64 	%rd1, [alu_loop_param_0];
	ld.param.u32 	%r1, [alu_loop_param_1];
	mov.u32 	%r2, %ctaid.x;
	mov.u32 	%r3, %ntid.x;
	mov.u32 	%r4, %tid.x;
	mad.lo.s32 	%r5, %r2, %r3, %r4;
	mov.u32 	%r6, %r5;
	xor.b32 	%r7, %r5, -1640531527;
	mov.u32 	%r8, 0;
	cvt.rn.f32.u32 	%f1, %r5;
	mov.f32 	%f2, 0f3F800000;
	mov.f32 	%f3, 0f40000000;
	setp.eq.s32 	%p1, %r1, 0;
	@%p1 bra 	$L__BB0_3;

$L__BB0_2:
	mad.lo.s32 	%r6, %r6, 1664525, 1013904223;
	xor.b32 	%r7, %r7, %r6;
	shl.b32 	%r9, %r6, 5;
	add.s32 	%r7, %r7, %r9;
	shr.u32 	%r10, %r7, 3;
	xor.b32 	%r6, %r6, %r10;
	mad.lo.s32 	%r7, %r7, 22695477, 1;
	add.s32 	%r11, %r6, %r7;
	xor.b32 	%r12, %r11, %r5;
	shl.b32 	%r13, %r12, 1;
	add.s32 	%r6, %r6, %r13;
	xor.b32 	%r7, %r7, %r12;
	fma.rn.f32 	%f2, %f2, 0f3F000000, %f1;
	fma.rn.f32 	%f3, %f3, 0f3F400000, %f2;
	add.f32 	%f4, %f2, %f3;
	mul.f32 	%f5, %f4, 0f3E800000;
	fma.rn.f32 	%f2, %f5, 0f3F000000, %f2;
	sub.f32 	%f6, %f3, %f5;
	fma.rn.f32 	%f3, %f6, 0f3F000000, %f4;
	add.f32 	%f7, %f2, %f6;
	mul.f32 	%f8, %f7, 0f3F000000;
	fma.rn.f32 	%f2, %f8, 0f3F400000, %f1;
	add.f32 	%f3, %f3, %f8;
	mul.f32 	%f3, %f3, 0f3F000000;
	add.s32 	%r8, %r8, 1;
	setp.lt.u32 	%p2, %r8, %r1;
	@%p2 bra 	$L__BB0_2;

$L__BB0_3:
	cvt.rzi.u32.f32 	%r14, %f3;
	xor.b32 	%r15, %r14, %r6;
	add.s32 	%r16, %r15, %r7;
	cvta.to.global.u64 	%rd2, %rd1;
	mul.wide.u32 	%rd3, %r5, 4;
	add.s64 	%rd4, %rd2, %rd3;
	st.global.u32 	[%rd4], %r16;
	ret;

}
)";
constexpr std::uint64_t kAluPrologue = 14, kAluPerIteration = 27, kAluEpilogue = 8;

// The loop above on the host, for one thread.
std::uint32_t alu_reference(std::uint32_t tid, std::uint32_t iters) {
  std::uint32_t r6 = tid, r7 = tid ^ 0x9E3779B9u;
  const float f1 = static_cast<float>(tid);
  float f2 = 1.0f, f3 = 2.0f;
  for (std::uint32_t k = 0; k < iters; ++k) {
    r6 = r6 * 1664525u + 1013904223u;
    r7 ^= r6;
    r7 += r6 << 5;
    r6 ^= r7 >> 3;
    r7 = r7 * 22695477u + 1u;
    const std::uint32_t r12 = (r6 + r7) ^ tid;
    r6 += r12 << 1;
    r7 ^= r12;
    f2 = std::fma(f2, 0.5f, f1);
    f3 = std::fma(f3, 0.75f, f2);
    const float f4 = f2 + f3;
    const float f5 = f4 * 0.25f;
    f2 = std::fma(f5, 0.5f, f2);
    const float f6 = f3 - f5;
    f3 = std::fma(f6, 0.5f, f4);
    const float f8 = (f2 + f6) * 0.5f;
    f2 = std::fma(f8, 0.75f, f1);
    f3 = (f3 + f8) * 0.5f;
  }
  // cvt.rzi.u32.f32: truncation, saturating (f3 stays positive and far below 2^32 here).
  return (static_cast<std::uint32_t>(std::trunc(f3)) ^ r6) + r7;
}

// The output of `nvcc -ptx -arch=sm_90a -O3` (CUDA 13.0) for
//   extern "C" __global__ void stream_copy(const unsigned* __restrict__ src,
//                                          unsigned* __restrict__ dst, unsigned long long n) {
//     const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
//   #pragma unroll 1
//     for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
//          i < n; i += stride)
//       dst[i] = src[i];
//   }
// `unroll 1` keeps the C++ kernel's pattern (one load in flight a thread); without it nvcc
// unrolls the grid-stride loop four times.
constexpr const char* kStreamCopyPtx = R"(//
// Generated by NVIDIA NVVM Compiler
//
// Compiler Build ID: CL-36424714
// Cuda compilation tools, release 13.0, V13.0.88
// Based on NVVM 7.0.1
//

.version 9.0
.target sm_90a
.address_size 64

	// .globl	stream_copy

.visible .entry stream_copy(
	.param .u64 stream_copy_param_0,
	.param .u64 stream_copy_param_1,
	.param .u64 stream_copy_param_2
)
{
	.reg .pred 	%p<3>;
	.reg .b32 	%r<6>;
	.reg .b64 	%rd<18>;


	ld.param.u64 	%rd8, [stream_copy_param_0];
	ld.param.u64 	%rd9, [stream_copy_param_1];
	ld.param.u64 	%rd10, [stream_copy_param_2];
	mov.u32 	%r1, %ntid.x;
	cvt.u64.u32 	%rd1, %r1;
	mov.u32 	%r2, %ctaid.x;
	mul.wide.u32 	%rd11, %r2, %r1;
	mov.u32 	%r3, %tid.x;
	cvt.u64.u32 	%rd12, %r3;
	add.s64 	%rd17, %rd11, %rd12;
	setp.ge.u64 	%p1, %rd17, %rd10;
	@%p1 bra 	$L__BB0_3;

	mov.u32 	%r4, %nctaid.x;
	cvt.u64.u32 	%rd13, %r4;
	mul.lo.s64 	%rd3, %rd13, %rd1;
	cvta.to.global.u64 	%rd4, %rd8;
	cvta.to.global.u64 	%rd5, %rd9;

$L__BB0_2:
	.pragma "nounroll";
	shl.b64 	%rd14, %rd17, 2;
	add.s64 	%rd15, %rd4, %rd14;
	ld.global.nc.u32 	%r5, [%rd15];
	add.s64 	%rd16, %rd5, %rd14;
	st.global.u32 	[%rd16], %r5;
	add.s64 	%rd17, %rd17, %rd3;
	setp.lt.u64 	%p2, %rd17, %rd10;
	@%p2 bra 	$L__BB0_2;

$L__BB0_3:
	ret;

}
)";

// 4 CTAs of 256 threads a SM: 32 warps on each of the 132.
constexpr std::uint32_t kCtas = 4 * 132, kThreads = 256;
const kernel::LaunchParams kLaunch{.grid = {kCtas, 1, 1},
                                   .cluster = {1, 1, 1},
                                   .block = {kThreads, 1, 1},
                                   .dynamic_shared_bytes = 0,
                                   .registers_per_thread = 32};

const config::ChipSpec& h100() {
  static const config::ChipSpec spec =
      config::load_chip_file(std::filesystem::path(XPUSIM_CONFIG_DIR) / "chips/h100-sxm5.yaml")
          .value();
  return spec;
}

// `entry` of the PTX `text` (kept for the program's run), or null with the error on stderr.
const kernel::KernelDef* ptx_kernel(const char* text, const std::string& entry) {
  auto module = ptx::parse_module(text, "ptx_bench:" + entry);
  if (!module.ok()) {
    std::fprintf(stderr, "%s\n", module.error().message.c_str());
    return nullptr;
  }
  auto def =
      ptx::make_kernel(std::make_shared<const ptx::Module>(std::move(module).value()), entry);
  if (!def.ok()) {
    std::fprintf(stderr, "%s\n", def.error().message.c_str());
    return nullptr;
  }
  return new kernel::KernelDef(std::move(def).value());
}

struct Totals {
  double cycles = 0, issued = 0, sim_us = 0;
};

// Builds the chip (untimed), lets `setup` place data and make the arguments, runs one launch
// of `k` (timed) and lets `check` look at the memory (untimed). False: skipped with an error.
template <typename Setup, typename Check>
bool run_once(benchmark::State& state, const kernel::KernelDef& k, Setup setup, Check check,
              Totals& t) {
  state.PauseTiming();
  auto sim = std::make_unique<sim::Simulation>(1);
  auto chip = Chip::create(*sim, h100(), ChipOptions{}).value();
  const auto args = setup(*chip);
  if (!args) {
    state.SkipWithError("setup failed");
    return false;
  }
  const auto id = chip->launch(k, kLaunch, *args);
  if (!id.ok()) {
    state.SkipWithError(id.error().message.c_str());
    return false;
  }
  state.ResumeTiming();

  sim->run();

  state.PauseTiming();
  if (const auto f = chip->fault()) {
    state.SkipWithError(f->message.c_str());
    return false;
  }
  if (!chip->all_done()) {
    state.SkipWithError("the kernel did not complete");
    return false;
  }
  if (!check(*chip)) {
    state.SkipWithError("wrong results");
    return false;
  }
  t.cycles += static_cast<double>(chip->clock().cycle_at(sim->now()));
  t.sim_us += static_cast<double>(sim->now()) * 1e-6;  // ps
  for (std::uint32_t s = 0; s < chip->num_sms(); ++s)
    t.issued += static_cast<double>(chip->sm(s).warp_instructions());
  chip.reset();  // the chip's components before the simulation they hang off
  sim.reset();
  state.ResumeTiming();
  return true;
}

benchmark::Counter rate(double v) {
  return benchmark::Counter(v, benchmark::Counter::kIsRate);
}

void report(benchmark::State& state, const Totals& t) {
  state.counters["cycles_per_s"] = rate(t.cycles);
  const double iters = static_cast<double>(state.iterations());
  state.counters["sim_cycles"] = t.cycles / iters;
  state.counters["sim_us"] = t.sim_us / iters;
}

void BM_PtxAlu(benchmark::State& state) {
  static const kernel::KernelDef* def = ptx_kernel(kAluPtx, "alu_loop");
  if (def == nullptr) {
    state.SkipWithError("alu_loop did not parse");
    return;
  }
  const auto iters = static_cast<std::uint32_t>(state.range(0));
  constexpr std::uint32_t kTotalThreads = kCtas * kThreads;
  Addr out = 0;
  const auto setup = [&](Chip& chip) -> std::optional<kernel::KernelArgs> {
    auto a = chip.allocate("out", std::uint64_t{kTotalThreads} * 4);
    if (!a.ok()) return std::nullopt;
    out = *a;
    return kernel::KernelArgs().ptr(out).u32(iters);
  };
  const auto check = [&](Chip& chip) {
    for (std::uint32_t tid = 0; tid < kTotalThreads; tid += 997) {
      std::uint32_t got = 0;
      if (!chip.memory().read(out + 4ull * tid, std::as_writable_bytes(std::span(&got, 1))).ok() ||
          got != alu_reference(tid, iters))
        return false;
    }
    return true;
  };
  Totals t;
  for (auto _ : state)
    if (!run_once(state, *def, setup, check, t)) return;
  report(state, t);
  const std::uint64_t per_warp = kAluPrologue + kAluPerIteration * iters + kAluEpilogue;
  const double executed = static_cast<double>(per_warp * (kTotalThreads / kernel::kWarpSize)) *
                          static_cast<double>(state.iterations());
  state.counters["warp_instr_per_s"] = rate(executed);
  state.counters["sm_issue_per_s"] = rate(t.issued);
}
BENCHMARK(BM_PtxAlu)->Arg(32)->Unit(benchmark::kMillisecond)->Iterations(3);

// One launch of a stream_copy over <MiB>, src[i] = a hash of i, checked dst == src.
void stream_copy_bench(benchmark::State& state, const kernel::KernelDef& def) {
  const std::uint64_t n = (static_cast<std::uint64_t>(state.range(0)) << 20) / 4;
  std::vector<std::uint32_t> data(n);
  for (std::uint64_t i = 0; i < n; ++i)
    data[i] = static_cast<std::uint32_t>(i * 2654435761u);
  Addr src = 0, dst = 0;
  const auto setup = [&](Chip& chip) -> std::optional<kernel::KernelArgs> {
    auto s = chip.allocate("src", n * 4);
    auto d = chip.allocate("dst", n * 4);
    if (!s.ok() || !d.ok() || !chip.memory().write(*s, std::as_bytes(std::span(data))).ok())
      return std::nullopt;
    src = *s;
    dst = *d;
    return kernel::KernelArgs().ptr(src).ptr(dst).u64(n);
  };
  const auto check = [&](Chip& chip) {
    std::vector<std::uint32_t> got(n);
    return chip.memory().read(dst, std::as_writable_bytes(std::span(got))).ok() && got == data;
  };
  Totals t;
  for (auto _ : state)
    if (!run_once(state, def, setup, check, t)) return;
  report(state, t);
  state.counters["warp_instr_per_s"] = rate(t.issued);
}

void BM_StreamCopyPtx(benchmark::State& state) {
  static const kernel::KernelDef* def = ptx_kernel(kStreamCopyPtx, "stream_copy");
  if (def == nullptr) {
    state.SkipWithError("stream_copy did not parse");
    return;
  }
  stream_copy_bench(state, *def);
}
BENCHMARK(BM_StreamCopyPtx)->Arg(16)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_StreamCopyCpp(benchmark::State& state) {
  static const kernel::KernelDef* def = [] {
    static kernel::KernelRegistry registry;
    if (!workloads::register_kernels(registry).ok())
      return static_cast<const kernel::KernelDef*>(nullptr);
    auto k = registry.find("stream_copy");
    return k.ok() ? *k : nullptr;
  }();
  if (def == nullptr) {
    state.SkipWithError("no stream_copy kernel");
    return;
  }
  stream_copy_bench(state, *def);
}
BENCHMARK(BM_StreamCopyCpp)->Arg(16)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace
}  // namespace xpusim::system

int main(int argc, char** argv) {
  return xpusim::bench::main_with_huge_pages(argc, argv);
}
