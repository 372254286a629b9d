// The parser: what it decodes from nvcc's output, and its one-line errors (file:line:col, the
// token, the rule) for bad modules.
#include "ptx/parser.h"

#include <gtest/gtest.h>

#include "ptx/ptx_kernel.h"

namespace xpusim::ptx {
namespace {

constexpr const char* kHeader = ".version 9.0\n.target sm_90a\n.address_size 64\n";

std::string error_of(const std::string& body) {
  auto m = parse_module(std::string(kHeader) + body, "k.ptx");
  return m.ok() ? "" : m.error().message;
}

TEST(PtxParser, DecodesDeclarationsParamsAndDirectives) {
  auto m = parse_module(std::string(kHeader) + R"(
.visible .entry k(
	.param .u64 k_param_0,
	.param .f32 k_param_1,
	.param .align 8 .b8 k_param_2[24]
)
.maxntid 256, 1, 1
.reqnctapercluster 2, 1, 1
{
	.reg .pred 	%p<3>;
	.reg .b32 	%r<6>;
	.shared .align 16 .b8 tile[1024];
	.local .align 4 .b8 depot[64];
	mov.u32 	%r1, %tid.x;
	@!%p1 bra 	$L__BB0_2;
	add.s32 	%r2, %r1, -1;
$L__BB0_2:
	ret;
}
)",
                        "k.ptx");
  ASSERT_TRUE(m.ok()) << m.error().message;
  ASSERT_EQ(m->functions.size(), 1u);
  const Function& f = m->functions[0];
  EXPECT_TRUE(f.is_entry);
  ASSERT_EQ(f.params.size(), 3u);
  EXPECT_EQ(f.params[1].offset, 8u);
  EXPECT_EQ(f.params[2].offset, 16u);  // .align 8 after 12 bytes
  EXPECT_EQ(f.params[2].bytes, 24u);
  EXPECT_EQ(f.registers, 3u + 6u);
  EXPECT_EQ(f.shared_bytes, 1024u);
  EXPECT_EQ(f.local_bytes, 64u);
  EXPECT_EQ(f.maxntid[0], 256u);
  EXPECT_EQ(f.reqnctapercluster[0], 2u);
  ASSERT_EQ(f.code.size(), 4u);
  EXPECT_EQ(f.code[1].op, Opcode::kBra);
  EXPECT_TRUE(f.code[1].guard_negate);
  EXPECT_EQ(f.operands[f.code[1].first].imm, 3);  // the label's instruction
  EXPECT_EQ(f.operands[f.code[2].first + 2].imm, -1);
  EXPECT_EQ(f.code[2].line, 19u);
}

TEST(PtxParser, AnOffsetMayBePlusMinus) {  // nvcc 13 writes [%r1+-128]
  auto m = parse_module(std::string(kHeader) +
                            ".visible .entry k()\n{\n\t.reg .b32 %r<3>;\n"
                            "\tld.shared.u32 %r1, [%r2+-128];\n\tret;\n}\n",
                        "k.ptx");
  ASSERT_TRUE(m.ok()) << m.error().message;
  const Function& f = m->functions[0];
  EXPECT_EQ(f.operands[f.code[0].first + 1].imm, -128);
}

TEST(PtxParser, ModuleVariablesGetOffsetsAndInitializerBytes) {
  auto m = parse_module(std::string(kHeader) + R"(
.global .u32 counter;
.const .align 4 .b8 tab[6] = {1, 2, 255};
.visible .global .align 8 .f64 c[2] = {0d3FF0000000000000, -2.5};
.extern .const .align 4 .f32 k[3] = {0f3F800000, 1.5, -1};
.weak .global .s16 w = -2;
.global .align 4 .u8 flags[3] = {0x7f, 0b1, 010};
.visible .entry e()
{
	.reg .b64 %rd<3>;
	mov.u64 %rd1, tab;
	ret;
}
)",
                        "k.ptx");
  ASSERT_TRUE(m.ok()) << m.error().message;
  auto var = [&](const std::string& name) -> const Variable& {
    for (const Variable& v : m->variables)
      if (v.name == name) return v;
    ADD_FAILURE() << name;
    return m->variables.front();
  };
  EXPECT_EQ(var("counter").space, Space::kGlobal);
  EXPECT_EQ(var("counter").offset, 0u);
  EXPECT_TRUE(var("counter").init.empty());
  EXPECT_EQ(var("tab").space, Space::kConst);
  EXPECT_EQ(var("tab").offset, 4u);
  EXPECT_EQ(var("tab").bytes, 6u);
  EXPECT_EQ(var("tab").init, (std::vector<std::uint8_t>{1, 2, 255}));  // partial: zeros after
  EXPECT_EQ(var("c").offset, 16u);                                     // .align 8 after 10
  EXPECT_EQ(var("c").init, (std::vector<std::uint8_t>{0, 0, 0, 0, 0, 0, 0xf0, 0x3f,  //
                                                      0, 0, 0, 0, 0, 0, 0x04, 0xc0}));
  EXPECT_EQ(var("k").offset, 32u);
  EXPECT_EQ(var("k").init, (std::vector<std::uint8_t>{0, 0, 0x80, 0x3f, 0, 0, 0xc0, 0x3f,  //
                                                      0, 0, 0x80, 0xbf}));
  EXPECT_EQ(var("w").offset, 44u);
  EXPECT_EQ(var("w").init, (std::vector<std::uint8_t>{0xfe, 0xff}));
  EXPECT_EQ(var("flags").offset, 48u);
  EXPECT_EQ(var("flags").init, (std::vector<std::uint8_t>{0x7f, 1, 8}));
  EXPECT_EQ(m->globals_bytes, 51u);
  // Every kernel of the module shares one region with the initializers at their offsets.
  const auto g = device_globals(*m);
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->bytes, 51u);
  ASSERT_EQ(g->parts.size(), 6u);
  EXPECT_EQ(g->parts[1].name, "tab (.const)");
  EXPECT_EQ(g->parts[1].offset, 4u);
  EXPECT_EQ(g->parts[1].bytes, 6u);
  ASSERT_GE(g->init.size(), 51u);
  EXPECT_EQ(g->init[4], 1);
  EXPECT_EQ(g->init[6], 255);
  EXPECT_EQ(g->init[23], 0x3f);
  EXPECT_EQ(g->init[50], 8);
}

TEST(PtxParser, ModuleVariableInitializerErrorsAreOneLine) {
  EXPECT_EQ(error_of(".global .align 4 .b8 t[2] = {1, 2, 3};\n"),
            "k.ptx:4:36: 't': the initializer has more than its 2 elements (at '3')");
  EXPECT_EQ(error_of(".const .u32 one = {1, 2};\n"),
            "k.ptx:4:23: 'one': the initializer has more than its 1 element (at '2')");
  EXPECT_EQ(error_of(".const .f32 k[2] = {1.0, 0fXYZ};\n"),
            "k.ptx:4:26: '0fXYZ': expected a number in the initializer of 'k' (at '0fXYZ')");
  EXPECT_EQ(error_of(".global .u32 n = 1.5;\n"),
            "k.ptx:4:18: '1.5': a float literal in the initializer of .u32 'n' (at '1.5')");
  EXPECT_EQ(error_of(".global .u32 a;\n.global .u32 p[1] = {generic(a)};\n"),
            "k.ptx:5:30: 'a': an address fills a 64-bit element ('p' is .u32) (at 'a')");
  EXPECT_EQ(error_of(".func f\n(\n)\n;\n"),
            "k.ptx:4:7: function 'f' declared without a body (at 'f')");
  EXPECT_EQ(error_of(".global .u32 a;\n.global .u64 p = nope;\n"),
            "k.ptx:5:18: 'nope': not a function or a module .global/.const variable declared "
            "before 'p' (at 'nope')");
  EXPECT_EQ(error_of(".global .u32 a;\n.const .u32 a;\n"),
            "k.ptx:5:13: 'a' declared twice (at 'a')");
}

TEST(PtxParser, ErrorsNameFileLineColumnAndToken) {
  EXPECT_EQ(error_of(".visible .entry k()\n{\n\tmov.u32 %r1, 1;\n}\n"),
            "k.ptx:6:10: undeclared register '%r1' (at '%r1')");
  EXPECT_EQ(error_of(".visible .entry k()\n{\n\t.reg .b32 %r<2>;\n\tfrobnicate.u32 %r1;\n}\n"),
            "k.ptx:7:2: unsupported instruction 'frobnicate.u32' (at 'frobnicate.u32')");
  EXPECT_EQ(error_of(".visible .entry k()\n{\n\t.reg .b32 %r<2>;\n\tadd.u32 %r1, %r1;\n}\n"),
            "k.ptx:7:2: 'add.u32': takes 3 operands, not 2 (at 'add.u32')");
  EXPECT_EQ(error_of(".visible .entry k()\n{\n\tbra $L__missing;\n}\n"),
            "k.ptx:6:6: undefined label '$L__missing' (at '$L__missing')");
  EXPECT_EQ(error_of(".visible .entry k()\n{\n\t.reg .b32 %r<2>;\n\tadd.u32 %r1, %r1, 1\n}\n"),
            "k.ptx:8:1: expected ';' (at '}')");
  EXPECT_EQ(
      error_of(".visible .entry k()\n{\n\t.reg .b32 %r<2>;\n\tld.global.zz.u32 %r1, [%r1];\n}\n"),
      "k.ptx:7:2: 'ld.global.zz.u32': unsupported modifier '.zz' (at 'ld.global.zz.u32')");
  EXPECT_EQ(error_of(".visible .entry k()\n{\n\tret;\n"),
            "k.ptx:7:1: expected '}' to close the body (at the end of the file)");
  EXPECT_EQ(error_of(".visible .entry k()\n{\n\t.reg .b32 %r<2>;\n\tmul.s32 %r1, %r1, %r1;\n}\n"),
            "k.ptx:7:2: 'mul.s32': an integer mul needs .lo, .hi or .wide (at 'mul.s32')");
  EXPECT_EQ(error_of("\x01"), "k.ptx:4:1: unexpected character '\\x01'");
  EXPECT_EQ(
      error_of(".visible .entry k()\n{\n\t.reg .b32 %r<2>;\n\tmul.lo.cc.u32 %r1, %r1, %r1;\n}\n"),
      "k.ptx:7:2: 'mul.lo.cc.u32': '.cc' is only for add, sub, mad and their carry forms (at "
      "'mul.lo.cc.u32')");
  EXPECT_EQ(
      error_of(".visible .entry k()\n{\n\t.reg .f32 %f<2>;\n\tadd.cc.f32 %f1, %f1, %f1;\n}\n"),
      "k.ptx:7:2: 'add.cc.f32': carry arithmetic takes .u32, .s32, .u64 or .s64 (at "
      "'add.cc.f32')");
  // Operand types (PTX ISA "Operand Type Information").
  const std::string regs =
      ".visible .entry k()\n{\n\t.reg .b32 %r<3>;\n\t.reg .b64 %rd<3>;\n"
      "\t.reg .f32 %f<3>;\n\t.reg .pred %p<3>;\n\t.reg .u16 %h<3>;\n";
  EXPECT_EQ(error_of(regs + "\tadd.u32 %rd1, %r1, %r2;\n}\n"),
            "k.ptx:11:2: 'add.u32': operand 0 '%rd1' is a .b64 register, which a .u32 instruction "
            "cannot take (PTX operand type rules) (at 'add.u32')");
  EXPECT_NE(error_of(regs + "\tadd.f32 %f1, %h1, %f2;\n}\n").find("operand 1 '%h1' is a .u16"),
            std::string::npos);
  EXPECT_NE(error_of(regs + "\tadd.s32 %r1, %f1, %r2;\n}\n").find("operand 1 '%f1' is a .f32"),
            std::string::npos);
  EXPECT_NE(error_of(regs + "\tand.b32 %r1, %p1, %r2;\n}\n").find("operand 1 '%p1' is a .pred"),
            std::string::npos);
  EXPECT_NE(error_of(regs + "\tor.pred %p1, %r1, %p2;\n}\n").find("operand 1 '%r1' is a .b32"),
            std::string::npos);
  // .b registers go with any type of their size; ld may widen; mul.wide doubles.
  EXPECT_EQ(error_of(regs + "\tadd.f32 %f1, %r1, %f2;\n\tld.global.u32 %rd1, [%rd2];\n"
                            "\tmul.wide.u32 %rd1, %r1, %r2;\n\tmov.b32 %f1, %r1;\n}\n"),
            "");
  // A string token's control characters are escaped: the error stays one line.
  EXPECT_EQ(error_of(".target \"sm_90\r\"\n"), "k.ptx:4:9: expected a target (at 'sm_90\\r')");
  // Nesting the parser would recurse on without bound (ptx_parser_fuzz: stack overflows).
  EXPECT_EQ(error_of(".visible .entry k()\n{\n" + std::string(300, '{')),
            "k.ptx:6:256: blocks nested deeper than 256 (at '{')");
  EXPECT_EQ(error_of(".visible .entry k()\n{\n\t.reg .b32 %r<2>;\n\tmov.b64 %r1, {{%r1}};\n}\n"),
            "k.ptx:7:16: a vector operand cannot hold a vector (at '{')");
}

// Matrix and half-precision forms the front end does not model are errors naming them.
TEST(PtxParser, UnmodelledMatrixFormsAreOneLineErrors) {
  const auto in_body = [](const std::string& instr) {
    return error_of(".visible .entry k()\n{\n\t.reg .b32 %r<9>;\n\t.reg .f32 %f<9>;\n\t" + instr +
                    "\n}\n");
  };
  EXPECT_EQ(in_body("mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4, %f5, "
                    "%f6, %f7, %f8}, {%r1, %r2}, {%r3, %r4}, {%f1, %f2, %f3, %f4, %f5, %f6, %f7, "
                    "%f8};"),
            "k.ptx:8:2: 'mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32': unsupported modifier "
            "'.m8n8k4' (at 'mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32')");
  EXPECT_EQ(
      in_body("mma.sync.aligned.m16n8k16.row.col.f32.f16.bf16.f32 {%r1, %r2}, {%r1, %r2, %r3, "
              "%r4}, {%r5, %r6}, {%r7, %r8};"),
      "k.ptx:8:2: 'mma.sync.aligned.m16n8k16.row.col.f32.f16.bf16.f32': this shape and type "
      "combination is not supported by this front end yet (at "
      "'mma.sync.aligned.m16n8k16.row.col.f32.f16.bf16.f32')");
  EXPECT_EQ(in_body("mma.sync.aligned.m16n8k16.col.row.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r1, "
                    "%r2, %r3, %r4}, {%r5, %r6}, {%f1, %f2, %f3, %f4};"),
            "k.ptx:8:2: 'mma.sync.aligned.m16n8k16.col.row.f32.f16.f16.f32': unsupported modifier "
            "'.col' (at 'mma.sync.aligned.m16n8k16.col.row.f32.f16.f16.f32')");
  EXPECT_EQ(in_body("add.rz.f16x2 %r1, %r2, %r3;"),
            "k.ptx:8:2: 'add.rz.f16x2': f16/bf16 arithmetic rounds only to nearest (.rn) (at "
            "'add.rz.f16x2')");
  EXPECT_EQ(in_body("add.ftz.bf16x2 %r1, %r2, %r3;"),
            "k.ptx:8:2: 'add.ftz.bf16x2': .ftz and .sat are not defined on bf16 arithmetic (at "
            "'add.ftz.bf16x2')");
  EXPECT_EQ(in_body("ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8 {%r1, %r2}, [%r3];"),
            "k.ptx:8:2: 'ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8': unsupported modifier "
            "'.m16n16' (at 'ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8')");
  EXPECT_EQ(in_body("wmma.load.a.sync.aligned.row.m32n8k16.f16 {%r1, %r2, %r3, %r4, %r5, %r6, "
                    "%r7, %r8}, [%r1], %r2;"),
            "k.ptx:8:2: 'wmma.load.a.sync.aligned.row.m32n8k16.f16': unsupported modifier "
            "'.m32n8k16' (at 'wmma.load.a.sync.aligned.row.m32n8k16.f16')");
  EXPECT_EQ(in_body("wmma.mma.sync.aligned.row.col.m16n16k16.f16.bf16.bf16.f32 {%r1, %r2, %r3, "
                    "%r4}, {%r1, %r2, %r3, %r4}, {%r1, %r2, %r3, %r4}, {%f1, %f2, %f3, %f4, %f5, "
                    "%f6, %f7, %f8};"),
            "k.ptx:8:2: 'wmma.mma.sync.aligned.row.col.m16n16k16.f16.bf16.bf16.f32': only f16/f32 "
            "accumulators on f16, or f32 on bf16, are supported (at "
            "'wmma.mma.sync.aligned.row.col.m16n16k16.f16.bf16.bf16.f32')");
}

TEST(PtxParser, AMissingEntryNamesTheClosestAndTheList) {
  auto m = parse_module(std::string(kHeader) + ".visible .entry saxpy()\n{\n\tret;\n}\n", "k.ptx");
  ASSERT_TRUE(m.ok());
  auto k = make_kernel(std::make_shared<const Module>(std::move(m).value()), "saxpi");
  ASSERT_FALSE(k.ok());
  EXPECT_EQ(k.error().message,
            "k.ptx: no .entry 'saxpi' (did you mean 'saxpy'?); the module's entries: saxpy");
}

TEST(PtxParser, AnUnreadableFileIsOneLine) {
  auto m = load_module("/nonexistent/k.ptx");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().message,
            "/nonexistent/k.ptx: cannot read the PTX file: No such file or directory");
}

}  // namespace
}  // namespace xpusim::ptx
