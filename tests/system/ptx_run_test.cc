// `ptx:` and `cuda:` scenarios through the CLI: a user's module runs on the chip, its outputs
// are written, and bad modules, launches and kernels are one-line errors that name the PTX
// file and line.
#include <cstring>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli_harness.h"

namespace xpusim::test {
namespace {

// out[i] = in[i] * 3 + 1 for i < n; 64 threads per CTA, as .reqntid says.
constexpr const char* kTriple = R"(.version 9.0
.target sm_90a
.address_size 64

.visible .entry triple(
	.param .u64 triple_param_0,
	.param .u64 triple_param_1,
	.param .u32 triple_param_2
)
.reqntid 64, 1, 1
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<8>;
	.reg .b64 	%rd<8>;

	ld.param.u64 	%rd1, [triple_param_0];
	ld.param.u64 	%rd2, [triple_param_1];
	ld.param.u32 	%r1, [triple_param_2];
	mov.u32 	%r2, %ctaid.x;
	mov.u32 	%r3, %tid.x;
	mad.lo.s32 	%r4, %r2, 64, %r3;
	setp.ge.u32 	%p1, %r4, %r1;
	@%p1 bra 	$L__done;
	mul.wide.u32 	%rd3, %r4, 4;
	add.s64 	%rd4, %rd1, %rd3;
	ld.global.u32 	%r5, [%rd4];
	mad.lo.s32 	%r6, %r5, 3, 1;
	add.s64 	%rd5, %rd2, %rd3;
	st.global.u32 	[%rd5], %r6;
$L__done:
	ret;
}
)";

class PtxCli : public CliTest {
 protected:
  void write(const std::string& name, const std::string& text) const {
    std::ofstream(dir_ / name, std::ios::binary) << text;
  }
  std::string scenario(const std::string& module_key, const std::string& block = "64",
                       const std::string& n = "1000") const {
    return fmt::format(
        "chip: tiny\n{}\nkernel: triple\nlaunch: {{grid: [16, 1, 1], block: [{}, 1, 1]}}\n"
        "buffers:\n  in: {{file: in.bin}}\n  out: {{bytes: 4096}}\n"
        "args: [{{ptr: in}}, {{ptr: out}}, {{u32: {}}}]\noutputs: {{out: out.bin}}\n",
        module_key, block, n);
  }
};

TEST_F(PtxCli, AModuleRunsOnTheChipAndWritesItsOutput) {
  std::string in(4096, '\0');
  for (std::size_t i = 0; i < 1024; ++i) {
    const std::uint32_t v = static_cast<std::uint32_t>(i * 2654435761u);
    std::memcpy(in.data() + 4 * i, &v, 4);
  }
  write("in.bin", in);
  write("triple.ptx", kTriple);
  write("k.yaml", scenario("ptx: triple.ptx"));
  const CliRun r = run("run k.yaml");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("kernel triple on tiny"), std::string::npos) << r.out;
  const std::string out = file("out.bin");
  ASSERT_EQ(out.size(), 4096u);
  for (std::size_t i = 0; i < 1024; ++i) {
    std::uint32_t got = 0, x = 0;
    std::memcpy(&got, out.data() + 4 * i, 4);
    std::memcpy(&x, in.data() + 4 * i, 4);
    ASSERT_EQ(got, i < 1000 ? x * 3 + 1 : 0u) << i;  // past n: untouched (zero-filled buffer)
  }
}

TEST_F(PtxCli, BadModulesLaunchesAndKernelsAreOneLineErrors) {
  write("in.bin", std::string(4096, '\0'));
  write("triple.ptx", kTriple);
  // No such file.
  write("k.yaml", scenario("ptx: nope.ptx"));
  CliRun r = run("run k.yaml");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "error: k.yaml:2:6: ptx: nope.ptx: no such file\n");
  // A syntax error: the PTX file, line, column and token.
  std::string bad = kTriple;
  bad.replace(bad.find("mad.lo.s32 \t%r6"), 10, "mad.lo.q32");
  write("bad.ptx", bad);
  write("k.yaml", scenario("ptx: bad.ptx"));
  r = run("run k.yaml");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err,
            "error: k.yaml:2:6: ptx: bad.ptx:27:2: 'mad.lo.q32': unsupported modifier '.q32' (at "
            "'mad.lo.q32')\n");
  // Both keys.
  write("k.yaml", "cuda: k.cu\n" + scenario("ptx: triple.ptx"));
  r = run("run k.yaml");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("ptx and cuda are exclusive"), std::string::npos) << r.err;
  // A block the kernel's .reqntid forbids.
  write("k.yaml", scenario("ptx: triple.ptx", "128"));
  r = run("run k.yaml");
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.err.find("triple: block (128,1,1): the kernel requires (64,1,1) (.reqntid)"),
            std::string::npos)
      << r.err;
  // An argument of the wrong kind names the .param and what fits it.
  write("k.yaml",
        "chip: tiny\nptx: triple.ptx\nkernel: triple\nlaunch: {grid: 1, block: 64}\n"
        "buffers: {in: {bytes: 64}, out: {bytes: 64}}\n"
        "args: [{ptr: in}, {ptr: out}, {f32: 1.0}]\n");
  r = run("run k.yaml");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("argument 2 (triple_param_2) is a f32, it must be a u32 or s32 (a 4-byte "
                       "integer .param)"),
            std::string::npos)
      << r.err;
  // A kernel that stores past its buffer: the fault names block, warp, lane and PTX line.
  write("k.yaml",
        "chip: tiny\nptx: triple.ptx\nkernel: triple\nlaunch: {grid: 16, block: 64}\n"
        "buffers: {in: {bytes: 4096}, out: {bytes: 2048}}\n"
        "args: [{ptr: in}, {ptr: out}, {u32: 1000}]\noutputs: {out: out.bin}\n");
  r = run("run k.yaml");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("triple: block (9,0,0) warp 0: lane 0: store of 4 bytes at "),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("(at triple.ptx:29)"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "out.bin"));
}

// Module variables: a .const table read by ld.const through a register and at [tab+4], a
// .global read through a generic address; n = 1 stores just past 'bias', n = 2 stores into
// the .const table through a register.
constexpr const char* kLook = R"(.version 9.0
.target sm_90a
.address_size 64

.const .align 4 .b8 tab[16] = {10, 0, 0, 0, 20, 0, 0, 0, 30, 0, 0, 0, 40};
.visible .global .align 4 .u32 bias = 1000;

.visible .entry look(
	.param .u64 look_param_0,
	.param .u32 look_param_1
)
{
	.reg .pred 	%p<3>;
	.reg .b32 	%r<9>;
	.reg .b64 	%rd<10>;

	ld.param.u64 	%rd1, [look_param_0];
	ld.param.u32 	%r1, [look_param_1];
	mov.u32 	%r2, %tid.x;
	and.b32 	%r3, %r2, 3;
	mul.wide.u32 	%rd2, %r3, 4;
	mov.u64 	%rd3, tab;
	add.s64 	%rd4, %rd3, %rd2;
	ld.const.u32 	%r4, [%rd4];
	ld.const.u32 	%r5, [tab+4];
	mov.u64 	%rd5, bias;
	cvta.global.u64 	%rd6, %rd5;
	ld.u32 	%r6, [%rd6];
	add.s32 	%r7, %r4, %r5;
	add.s32 	%r8, %r7, %r6;
	cvta.to.global.u64 	%rd7, %rd1;
	mul.wide.u32 	%rd8, %r2, 4;
	add.s64 	%rd9, %rd7, %rd8;
	st.global.u32 	[%rd9], %r8;
	setp.eq.u32 	%p1, %r1, 1;
	@%p1 st.global.u32 	[bias+4], %r8;
	setp.eq.u32 	%p2, %r1, 2;
	@%p2 st.global.u32 	[%rd4], %r8;
	ret;
}
)";

TEST_F(PtxCli, ModuleVariablesAreInitializedAndBoundsChecked) {
  write("look.ptx", kLook);
  const auto scenario = [](int n) {
    return fmt::format(
        "chip: tiny\nptx: look.ptx\nkernel: look\nlaunch: {{grid: 1, block: 32}}\n"
        "buffers: {{out: {{bytes: 128}}}}\nargs: [{{ptr: out}}, {{u32: {}}}]\n"
        "outputs: {{out: out.bin}}\n",
        n);
  };
  write("k.yaml", scenario(0));
  CliRun r = run("run k.yaml");
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string out = file("out.bin");
  ASSERT_EQ(out.size(), 128u);
  for (std::uint32_t i = 0; i < 32; ++i) {
    std::uint32_t got = 0;
    std::memcpy(&got, out.data() + 4 * i, 4);
    const std::uint32_t tab[4] = {10, 20, 30, 40};
    EXPECT_EQ(got, tab[i & 3] + 20 + 1000) << i;
  }
  fs::remove(dir_ / "out.bin");
  // Past the variable: the buffer check names it.
  write("k.yaml", scenario(1));
  r = run("run k.yaml");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("0 bytes past the end of 'bias (.global)'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("(at look.ptx:36)"), std::string::npos) << r.err;
  // A store into a .const variable, through a register.
  write("k.yaml", scenario(2));
  r = run("run k.yaml");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("'tab' is a .const variable"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("look.ptx:38"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "out.bin"));
}

// Per PTX line: the warp-instructions, the lane shares of a divergent guard, and stall cycles
// whose sums are the SMs' stall counters (every warp of the run is a PTX warp).
TEST_F(PtxCli, APtxProfileCountsEachLineAndItsStalls) {
  write("in.bin", std::string(4096, '\0'));
  write("triple.ptx", kTriple);
  write("k.yaml", scenario("ptx: triple.ptx"));
  CliRun r = run("--stats st.json run k.yaml --ptx-profile prof.csv");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("ptx profile prof.csv: 15 lines"), std::string::npos) << r.out;
  const std::vector<std::string> rows = lines(file("prof.csv"));
  ASSERT_EQ(rows.size(), 16u);
  EXPECT_EQ(rows[0],
            "file,line,warp_instructions,active_lane_share,predicated_on_share,stall_issue,"
            "stall_dependency,stall_memory,stall_barrier,source");
  // 16 CTAs of 2 warps; 1000 of the 1024 threads pass the bounds check, 24 take the branch.
  EXPECT_EQ(rows[1].substr(0, rows[1].find(",0,")), "triple.ptx,16,32,1.0000,1.0000");
  const auto row_of = [&](int line) {
    for (const std::string& row : rows)
      if (row.starts_with(fmt::format("triple.ptx,{},", line))) return row;
    return std::string();
  };
  EXPECT_TRUE(row_of(23).starts_with("triple.ptx,23,32,1.0000,0.0234,")) << row_of(23);
  EXPECT_TRUE(row_of(23).ends_with(",@%p1 bra $L__done;")) << row_of(23);
  EXPECT_TRUE(row_of(29).starts_with("triple.ptx,29,32,0.9766,0.9766,")) << row_of(29);
  EXPECT_TRUE(row_of(29).ends_with(",\"st.global.u32 [%rd5], %r6;\"")) << row_of(29);
  std::uint64_t sums[4] = {};
  for (std::size_t i = 1; i < rows.size(); ++i) {
    std::istringstream in(rows[i]);
    std::string f;
    for (int col = 0; col < 9 && std::getline(in, f, ','); ++col)
      if (col >= 5) sums[col - 5] += std::stoull(f);
  }
  EXPECT_GT(sums[2], 0u);  // the loads' memory waits
  const nlohmann::json stats = nlohmann::json::parse(file("st.json"))["figures"]["stall_cycles"];
  const char* names[4] = {"issue", "dependency", "memory", "barrier"};
  for (int k = 0; k < 4; ++k)
    EXPECT_EQ(static_cast<double>(sums[k]), stats[names[k]].get<double>()) << names[k];
}

// A kernel that waits forever: the hang report names each warp's PTX line, and the profile is
// still written; a profile of a run with no PTX kernel, or to a file that cannot be written,
// is refused before anything runs.
TEST_F(PtxCli, AHangIsReportedByPtxLineAndProfileFlagsAreChecked) {
  std::string spin = kTriple;
  spin.replace(spin.find("\tmul.wide.u32"), 0,
               "\tmbarrier.init.shared.b64 [bar], 1000;\n"
               "\tmbarrier.arrive.shared.b64 %rd6, [bar];\n"
               "$L__spin:\n"
               "\tmbarrier.try_wait.parity.shared.b64 %p1, [bar], 0;\n"
               "\t@!%p1 bra $L__spin;\n");
  spin.replace(spin.find("\t.reg .b64 \t%rd<8>;"), 0, "\t.shared .align 8 .b64 bar;\n");
  write("spin.ptx", spin);
  write("in.bin", std::string(4096, '\0'));
  write("k.yaml", scenario("ptx: spin.ptx"));
  CliRun r = run("run k.yaml --ptx-profile prof.csv");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("hang report:"), std::string::npos) << r.err;
  // The try_wait loop parks the warp at its line (28, the declaration and the init and arrive above
  // it inserted).
  EXPECT_NE(r.err.find("triple block (0,0,0) warp 0: mbarrier at 0x0 waiting for parity 0"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("at spin.ptx:28\n"), std::string::npos) << r.err;
  EXPECT_NE(file("prof.csv").find("\nspin.ptx,28,"), std::string::npos) << file("prof.csv");

  write("c.yaml",
        "chip: tiny\nkernel: stream_copy\nlaunch: {grid: 1, block: 64}\n"
        "buffers: {a: {bytes: 256}, b: {bytes: 256}}\nargs: [{ptr: a}, {ptr: b}, {u64: 64}]\n");
  r = run("run c.yaml --ptx-profile prof2.csv");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err,
            "error: --ptx-profile = prof2.csv: the scenario runs no PTX kernel (a profile needs "
            "ptx: or cuda:)\n");
  r = run("run k.yaml --ptx-profile no/such/dir/p.csv");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "error: --ptx-profile = no/such/dir/p.csv: cannot open the file for writing\n");
}

// tools/silicon's own kernels as nvcc compiles them (tools/silicon/ptx) against the C++ kernels
// and workloads that stand for them (docs/fidelity.md, "The same kernel, two front ends"): the
// streaming kernels within 10 % of the C++ ones (here over 8 MiB; below that the PTX kernels' span
// bookkeeping, a bar.sync, two %globaltimer reads and a store, is no longer small), the DSMEM chase
// too; the shared chase pays its loop's dependent add/setp/bra after each load (3 cycles a hop, a
// load holds its warp until its data return).
TEST_F(PtxCli, TheSiliconKernelsTimeAsTheirCppStandIns) {
  const fs::path ptx_dir = XPUSIM_SILICON_PTX_DIR;
  fs::copy_file(ptx_dir / "kernels.ptx", dir_ / "kernels.ptx");
  fs::copy_file(ptx_dir / "latency.ptx", dir_ / "latency.ptx");
  const auto ran = [&](const std::string& yaml) -> double {
    write("s.yaml", yaml);
    const CliRun r = run("run s.yaml");
    EXPECT_EQ(r.code, 0) << r.err;
    const auto at = r.out.find(" ran ");
    return at == std::string::npos ? 0 : std::stod(r.out.substr(at + 5));
  };
  const std::string launch =
      "chip: h100-sxm5\nlaunch: {grid: [528, 1, 1], block: [256, 1, 1]}\n"
      "buffers:\n  src: {bytes: 8MiB, fill: iota32}\n  dst: {bytes: 8MiB}\n  span: {bytes: 8448}\n";
  for (const auto& [cpp, ptx] :
       {std::pair{"kernel: stream_copy\nargs: [{ptr: src}, {ptr: dst}, {u64: 2097152}]\n",
                  "ptx: kernels.ptx\nkernel: _Z11stream_copyPKjPjyPy\n"
                  "args: [{ptr: src}, {ptr: dst}, {u64: 2097152}, {ptr: span}]\n"},
        std::pair{"kernel: stream_fill\nargs: [{ptr: dst}, {u64: 2097152}]\n",
                  "ptx: kernels.ptx\nkernel: _Z11stream_fillPjyPy\n"
                  "args: [{ptr: dst}, {u64: 2097152}, {ptr: span}]\n"}}) {
    const double c = ran(launch + cpp), p = ran(launch + ptx);
    EXPECT_GT(c, 1000.0) << cpp;
    EXPECT_NEAR(p / c, 1.0, 0.10) << ptx << ": PTX " << p << " cycles, C++ " << c;
  }
  // A chase's out[0] over its hops against the workload's measurement.
  const auto per_hop = [&](const std::string& yaml, double hops) {
    write("s.yaml",
          "chip: h100-sxm5\nptx: latency.ptx\nbuffers: {out: {bytes: 40}}\n"
          "outputs: {out: out.bin}\n" +
              yaml);
    const CliRun r = run("run s.yaml");
    EXPECT_EQ(r.code, 0) << r.err;
    std::uint64_t cycles = 0;
    std::memcpy(&cycles, file("out.bin").data(), 8);
    return static_cast<double>(cycles) / hops;
  };
  const auto measured = [&](const std::string& scenario, const std::string& name) {
    const CliRun r = run(fmt::format("run '{}/scenarios/{}'", XPUSIM_CONFIG_DIR, scenario));
    EXPECT_EQ(r.code, 0) << r.err;
    const auto at = r.out.find("  " + name + " ");
    return at == std::string::npos ? 0 : std::stod(r.out.substr(at + name.size() + 3));
  };
  const double dsmem = per_hop(
      "kernel: _Z11chase_dsmemjjjjPy\nlaunch: {grid: 2, block: 32, dynamic_shared_bytes: 132096}\n"
      "args: [{u32: 512}, {u32: 8}, {u32: 512}, {u32: 512}, {ptr: out}]\n",
      512);
  EXPECT_NEAR(dsmem / measured("ubench-dsmem-latency.yaml", "DSMEM load latency"), 1.0, 0.10);
  const double shared = per_hop(
      "kernel: _Z12chase_sharedjjjjPy\nlaunch: {grid: 1, block: 32, dynamic_shared_bytes: 8192}\n"
      "args: [{u32: 2048}, {u32: 4}, {u32: 2048}, {u32: 2048}, {ptr: out}]\n",
      2048);
  EXPECT_NEAR(shared - measured("ubench-shared-latency.yaml", "shared load latency"), 3.0, 0.5);
}

// oobFill: CONSTANT reaches a real kernel: tma_tile_load (the corpus kernel) loads boxes that
// run past every edge of a 100 x 20 u32 tensor; out-of-bounds elements read the constant.
TEST_F(PtxCli, ATensorMapArgumentsConstantFillReachesTheKernel) {
  fs::copy_file(fs::path(XPUSIM_PTX_CORPUS_DIR) / "tma_tile_load.ptx", dir_ / "t.ptx");
  write("s.yaml",
        "chip: tiny\nptx: t.ptx\nkernel: tma_tile_load\n"
        "launch: {grid: [4, 3, 1], block: [128, 1, 1]}\n"
        "buffers:\n  in: {bytes: 8000, fill: iota32}\n  out: {bytes: 24576}\n"
        "args: [{tensor_map: {dataType: UINT32, rank: 2, globalAddress: in, globalDim: [100, 20], "
        "globalStrides: [400], boxDim: [32, 8], oobFill: CONSTANT, oobFillValue: 0xDEADBEEF}}, "
        "{ptr: out}]\noutputs: {out: out.bin}\n");
  const CliRun r = run("run s.yaml");
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string out = file("out.bin");
  ASSERT_EQ(out.size(), 24576u);
  std::size_t filled = 0;
  for (std::uint32_t cta = 0; cta < 12; ++cta)
    for (std::uint32_t load = 0; load < 2; ++load)
      for (std::uint32_t i = 0; i < 256; ++i) {
        const std::int64_t x = (cta % 4) * 32 + i % 32 + 4 * load - 8;
        const std::int64_t y = (cta / 4) * 8 + i / 32 + 4 * load - 3;
        const bool inside = x >= 0 && x < 100 && y >= 0 && y < 20;
        std::uint32_t got = 0;
        std::memcpy(&got, out.data() + 4 * ((cta * 2 + load) * 256 + i), 4);
        ASSERT_EQ(got, inside ? static_cast<std::uint32_t>(y * 100 + x) : 0xDEADBEEFu)
            << "cta " << cta << " load " << load << " element " << i;
        filled += inside ? 0 : 1;
      }
  EXPECT_GT(filled, 1000u);  // every edge box reads some of the fill
}

// tma_rewrite (the corpus kernel) publishes a tensor map into a global slot twice, each time
// with fence.proxy.tensormap::generic.acquire on the slot: the second publication invalidates
// the TMA unit's cached copy, so no load finds it stale, and each load reads its own tensor.
TEST_F(PtxCli, AFencedTensorMapRewriteInvalidatesTheCachedCopy) {
  fs::copy_file(fs::path(XPUSIM_PTX_CORPUS_DIR) / "tma_rewrite.ptx", dir_ / "t.ptx");
  std::string in2(8000, '\0');
  for (std::uint32_t i = 0; i < 2000; ++i) {
    const std::uint32_t v = 1000000 + i;
    std::memcpy(in2.data() + 4 * i, &v, 4);
  }
  write("in2.bin", in2);
  const std::string map =
      "dataType: UINT32, rank: 2, globalDim: [100, 20], globalStrides: [400], "
      "boxDim: [32, 8]";
  write("s.yaml", fmt::format("chip: tiny\nptx: t.ptx\nkernel: tma_rewrite\n"
                              "launch: {{grid: [1, 1, 1], block: [128, 1, 1]}}\n"
                              "buffers:\n  in1: {{bytes: 8000, fill: iota32}}\n"
                              "  in2: {{file: in2.bin}}\n  slot: {{bytes: 128}}\n"
                              "  out: {{bytes: 2048}}\n"
                              "args: [{{tensor_map: {{globalAddress: in1, {0}}}}}, "
                              "{{tensor_map: {{globalAddress: in2, {0}}}}}, {{ptr: slot}}, "
                              "{{ptr: out}}]\noutputs: {{out: out.bin}}\n",
                              map));
  const CliRun r = run("--stats st.json run s.yaml");
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string out = file("out.bin");
  ASSERT_EQ(out.size(), 2048u);
  for (std::uint32_t i = 0; i < 512; ++i) {
    std::uint32_t got = 0;
    std::memcpy(&got, out.data() + 4 * i, 4);
    const std::uint32_t at = (i % 256) / 32 * 100 + i % 32;
    ASSERT_EQ(got, i < 256 ? at : 1000000 + at) << i;
  }
  const nlohmann::json stats = nlohmann::json::parse(file("st.json"));
  double invalidations = 0, stale = 0;
  for (const auto& [path, unit] : stats.items()) {
    if (!path.ends_with(".tma")) continue;
    invalidations += unit["descriptor_invalidations"]["value"].get<double>();
    stale += unit["descriptor_stale"]["value"].get<double>();
  }
  EXPECT_EQ(invalidations, 1);  // the first publication found nothing cached
  EXPECT_EQ(stale, 0);
}

// An im2col store (.im2col_no_offs, seed0 ¶158) from a real kernel: im2col_roundtrip loads the
// 8-pixel column starting at (w 4, n 0) of an NWC tensor (C 16, W 8, N 2) and stores it back
// through a map over `out`: pixels w 4..7 of image 0 and w 0..3 of image 1 are copied.
TEST_F(PtxCli, AnIm2colStoreWritesTheColumnBack) {
  fs::copy_file(fs::path(XPUSIM_TEST_DATA_DIR) / "ptx" / "im2col_roundtrip.ptx", dir_ / "r.ptx");
  const std::string map =
      "mode: im2col, dataType: UINT32, rank: 3, globalDim: [16, 8, 2], "
      "globalStrides: [64, 512], pixelBoxLowerCorner: [0], "
      "pixelBoxUpperCorner: [0], channelsPerPixel: 16, pixelsPerColumn: 8";
  write("s.yaml",
        fmt::format("chip: tiny\nptx: r.ptx\nkernel: im2col_roundtrip\n"
                    "launch: {{grid: [1, 1, 1], block: [32, 1, 1]}}\n"
                    "buffers:\n  in: {{bytes: 1024, fill: iota32}}\n"
                    "  out: {{bytes: 1024}}\n"
                    "args: [{{tensor_map: {{globalAddress: in, {0}}}}}, "
                    "{{tensor_map: {{globalAddress: out, {0}}}}}, {{s32: 4}}, {{s32: 0}}]\n"
                    "outputs: {{out: out.bin}}\n",
                    map));
  const CliRun r = run("run s.yaml");
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string out = file("out.bin");
  ASSERT_EQ(out.size(), 1024u);
  for (std::uint32_t i = 0; i < 256; ++i) {
    const std::uint32_t n = i / 128, w = i / 16 % 8;
    const bool covered = (n == 0 && w >= 4) || (n == 1 && w < 4);
    std::uint32_t got = 0;
    std::memcpy(&got, out.data() + 4 * i, 4);
    ASSERT_EQ(got, covered ? i : 0u) << "n " << n << " w " << w << " c " << i % 16;
  }
}

TEST_F(PtxCli, ACudaFileIsCompiledByNvcc) {
  if (!fs::exists("/usr/local/cuda/bin/nvcc") && std::system("command -v nvcc > /dev/null") != 0)
    GTEST_SKIP() << "nvcc not found";
  write("in.bin", std::string(4096, '\x01'));
  write("k.cu",
        "extern \"C\" __global__ void __launch_bounds__(64) triple(const unsigned* in, unsigned* "
        "out, unsigned n) {\n  unsigned i = blockIdx.x * 64 + threadIdx.x;\n  if (i < n) out[i] = "
        "in[i] * 3 + 1;\n}\n");
  write("k.yaml", scenario("cuda: k.cu"));
  const CliRun r = run("run k.yaml");
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string out = file("out.bin");
  std::uint32_t v = 0;
  std::memcpy(&v, out.data(), 4);
  EXPECT_EQ(v, 0x01010101u * 3 + 1);
  // A compile error is nvcc's first error line.
  write("k.cu", "extern \"C\" __global__ void triple(unsigned* p) { undeclared = 1; }\n");
  const CliRun e = run("run k.yaml");
  EXPECT_EQ(e.code, 2);
  EXPECT_NE(e.err.find("error: k.yaml:2:7: cuda: k.cu: nvcc failed: "), std::string::npos) << e.err;
  EXPECT_NE(e.err.find("undeclared"), std::string::npos) << e.err;
}

}  // namespace
}  // namespace xpusim::test
