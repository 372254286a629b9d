// Kernels that parse but do something the machine forbids: each stops its warp with a one-line
// fault naming the PTX line and the rule, never a crash (several rows came from ptx_parser_fuzz).
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "ptx/parser.h"
#include "ptx/ptx_kernel.h"
#include "unit/ptx/functional_harness.h"

namespace xpusim::ptx {
namespace {

constexpr const char* kPrologue = R"(.version 8.0
.target sm_90a
.address_size 64
.visible .entry t(.param .u64 t_p)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  .shared .align 4 .b32 s_var;
  .local .align 4 .b32 l_var;
)";

struct Row {
  const char* body;  // line 10 onwards
  const char* want;  // a substring of the fault
};

const Row kRows[] = {
    // ld.param of a .shared variable once read the (empty) param block (ptx_parser_fuzz).
    {"ld.param.u32 %r1, [s_var];",
     "row.ptx:10: 's_var' is a .shared variable; this access names .param"},
    {"ld.param.u32 %r1, [l_var];", "'l_var' is a .local variable; this access names .param"},
    {"st.global.u32 [s_var], %r1;", "'s_var' is a .shared variable; this access names .global"},
    {"ld.param.u32 %r1, [t_p+8];", "access past the end of .param 't_p' (8 bytes)"},
    {"st.param.u64 [t_p], %rd1;", "a kernel's parameters are read-only"},
    {"ld.local.u32 %r1, [l_var+16];",
     "local address 0x10 is outside the thread's 16 bytes of .local"},
    {"ld.shared.u32 %r1, [s_var+2];", "address 0x2 is not 4-byte aligned"},
    {"ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r1}, [s_var+4];",
     "lane 0 row address 0x4 is not 16-byte aligned"},
    {"mma.sync.aligned.m16n8k16.row.col.s32.s8.s8.s32 {%r0, %r1, %r2, %r3}, {%r0, %r1}, {%r0, "
     "%r1}, {%r0, %r1, %r2, %r3};",
     "operand 3 needs 1 register, not 2"},
};

void PrintTo(const Row& r, std::ostream* os) {
  *os << r.body;
}

class Faults : public testing::TestWithParam<Row> {};

TEST_P(Faults, StopTheWarpWithAOneLineMessage) {
  const Row& r = GetParam();
  const std::string text = std::string(kPrologue) + "  " + r.body + "\n  ret;\n}\n";
  auto def = test::kernel_of(text);
  ASSERT_TRUE(def.ok()) << def.error().message;
  const auto& program = *static_cast<const Program*>(def->context.get());
  test::FlatMemory mem(64);
  kernel::KernelArgs args;
  args.u64(test::FlatMemory::kBase);
  const std::string fault = test::run_warp(program, mem, args);
  EXPECT_NE(fault.find(r.want), std::string::npos) << fault;
  EXPECT_TRUE(fault.starts_with("row.ptx:10: ")) << fault;
  EXPECT_EQ(fault.find('\n'), std::string::npos) << fault;
}

INSTANTIATE_TEST_SUITE_P(Table, Faults, testing::ValuesIn(kRows));

}  // namespace
}  // namespace xpusim::ptx
