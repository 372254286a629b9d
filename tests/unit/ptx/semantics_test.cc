// Per-instruction semantics against a table of expected results worked out by hand from the
// PTX ISA (9.0): cvt rounding and saturation, the NaN rules of min/max, shf, prmt modes, bfe's
// sign fill, integer division corners, bfind, setp's unordered compares, directed rounding.
#include <gtest/gtest.h>

#include <bit>
#include <cstring>

#include "functional_harness.h"
#include "ptx/float_ops.h"
#include "ptx/parser.h"
#include "ptx/ptx_kernel.h"

namespace xpusim::ptx {
namespace {

// Inputs a, b, c arrive as .b64 params and are spread into typed registers; the instruction
// writes one of %d64 %d32 %fd %dd %hd %pd, all stored to out[0..32).
constexpr const char* kPrologue = R"(.version 9.0
.target sm_90a
.address_size 64
.visible .entry t(.param .u64 p_out, .param .u64 p_a, .param .u64 p_b, .param .u64 p_c)
{
  .reg .b64 %out, %a64, %b64, %c64, %d64;
  .reg .b32 %a32, %b32, %c32, %d32, %t32;
  .reg .f32 %fa, %fb, %fc, %fd;
  .reg .f64 %da, %db, %dc, %dd;
  .reg .b16 %ha, %hb, %hc, %hd;
  .reg .pred %pa, %pb, %pd;
  ld.param.u64 %out, [p_out];
  ld.param.u64 %a64, [p_a];
  ld.param.u64 %b64, [p_b];
  ld.param.u64 %c64, [p_c];
  cvt.u32.u64 %a32, %a64;
  cvt.u32.u64 %b32, %b64;
  cvt.u32.u64 %c32, %c64;
  mov.b32 %fa, %a32;
  mov.b32 %fb, %b32;
  mov.b32 %fc, %c32;
  mov.b64 %da, %a64;
  mov.b64 %db, %b64;
  mov.b64 %dc, %c64;
  cvt.u16.u32 %ha, %a32;
  cvt.u16.u32 %hb, %b32;
  cvt.u16.u32 %hc, %c32;
  setp.ne.u32 %pa, %a32, 0;
  setp.ne.u32 %pb, %b32, 0;
  mov.u64 %d64, 0;
  mov.u32 %d32, 0;
  mov.f32 %fd, 0f00000000;
  mov.f64 %dd, 0d0000000000000000;
  mov.u16 %hd, 0;
  setp.ne.u32 %pd, 0, 0;
)";
constexpr const char* kEpilogue = R"(
  st.global.u64 [%out], %d64;
  st.global.u32 [%out+8], %d32;
  st.global.f32 [%out+12], %fd;
  st.global.f64 [%out+16], %dd;
  st.global.u16 [%out+24], %hd;
  selp.u32 %t32, 1, 0, %pd;
  st.global.u32 [%out+28], %t32;
  ret;
}
)";

enum class Out { kD64, kD32, kF32, kF64, kH16, kPred };

struct Row {
  const char* instr;
  std::uint64_t a, b, c;
  Out out;
  std::uint64_t want;
};

std::uint64_t f(float v) {
  return std::bit_cast<std::uint32_t>(v);
}
std::uint64_t d(double v) {
  return std::bit_cast<std::uint64_t>(v);
}
std::uint64_t s32(std::int32_t v) {
  return static_cast<std::uint32_t>(v);
}
std::uint64_t s64(std::int64_t v) {
  return static_cast<std::uint64_t>(v);
}
constexpr std::uint64_t kNanF = 0x7FC0'0000;

const Row kRows[] = {
    // cvt float → integer: the four rounding modes, NaN → 0, saturation at the range ends.
    {"cvt.rni.s32.f32 %d32, %fa;", f(2.5f), 0, 0, Out::kD32, 2},
    {"cvt.rni.s32.f32 %d32, %fa;", f(3.5f), 0, 0, Out::kD32, 4},
    {"cvt.rni.s32.f32 %d32, %fa;", f(-2.5f), 0, 0, Out::kD32, s32(-2)},
    {"cvt.rzi.s32.f32 %d32, %fa;", f(-2.7f), 0, 0, Out::kD32, s32(-2)},
    {"cvt.rmi.s32.f32 %d32, %fa;", f(-2.1f), 0, 0, Out::kD32, s32(-3)},
    {"cvt.rpi.s32.f32 %d32, %fa;", f(2.1f), 0, 0, Out::kD32, 3},
    {"cvt.rzi.s32.f32 %d32, %fa;", kNanF, 0, 0, Out::kD32, 0},
    {"cvt.rzi.s32.f32 %d32, %fa;", f(3e9f), 0, 0, Out::kD32, 0x7FFF'FFFF},
    {"cvt.rzi.s32.f32 %d32, %fa;", f(-3e9f), 0, 0, Out::kD32, 0x8000'0000},
    {"cvt.rzi.u32.f32 %d32, %fa;", f(-1.5f), 0, 0, Out::kD32, 0},
    {"cvt.rzi.s64.f64 %d64, %da;", d(-1e30), 0, 0, Out::kD64, 0x8000'0000'0000'0000ull},
    // cvt to f16/bf16: ties to even, overflow, subnormals, directed modes.
    {"cvt.rn.f16.f32 %hd, %fa;", f(1.0f), 0, 0, Out::kH16, 0x3C00},
    {"cvt.rn.f16.f32 %hd, %fa;", f(65520.0f), 0, 0, Out::kH16, 0x7C00},
    {"cvt.rz.f16.f32 %hd, %fa;", f(65520.0f), 0, 0, Out::kH16, 0x7BFF},
    {"cvt.rn.f16.f32 %hd, %fa;", f(0x1p-25f), 0, 0, Out::kH16, 0x0000},
    {"cvt.rn.f16.f32 %hd, %fa;", f(0x3p-25f), 0, 0, Out::kH16, 0x0002},
    {"cvt.rp.f16.f32 %hd, %fa;", f(0x1p-30f), 0, 0, Out::kH16, 0x0001},
    {"cvt.rm.f16.f32 %hd, %fa;", f(-0x1p-30f), 0, 0, Out::kH16, 0x8001},
    {"cvt.rn.bf16.f32 %hd, %fa;", 0x3F80'8000, 0, 0, Out::kH16, 0x3F80},
    {"cvt.rn.bf16.f32 %hd, %fa;", 0x3F81'8000, 0, 0, Out::kH16, 0x3F82},
    {"cvt.rz.bf16.f32 %hd, %fa;", 0x3F81'FFFF, 0, 0, Out::kH16, 0x3F81},
    {"cvt.f32.f16 %fd, %ha;", 0x7BFF, 0, 0, Out::kF32, f(65504.0f)},
    {"cvt.f32.f16 %fd, %ha;", 0x0001, 0, 0, Out::kF32, f(0x1p-24f)},
    {"cvt.f32.bf16 %fd, %ha;", 0xC040, 0, 0, Out::kF32, f(-3.0f)},
    // cvt float ↔ float and integer → float under each mode; saturation to [0, 1].
    {"cvt.rn.f32.f64 %fd, %da;", d(1.0 + 0x1p-28), 0, 0, Out::kF32, f(1.0f)},
    {"cvt.rp.f32.f64 %fd, %da;", d(1.0 + 0x1p-28), 0, 0, Out::kF32, 0x3F80'0001},
    {"cvt.rm.f32.f64 %fd, %da;", d(-1.0 - 0x1p-28), 0, 0, Out::kF32, 0xBF80'0001},
    {"cvt.rz.f32.s32 %fd, %a32;", 16777217, 0, 0, Out::kF32, 0x4B80'0000},
    {"cvt.rp.f32.s32 %fd, %a32;", 16777217, 0, 0, Out::kF32, 0x4B80'0001},
    {"cvt.rn.f32.u32 %fd, %a32;", 0xFFFF'FFFF, 0, 0, Out::kF32, f(4294967296.0f)},
    {"cvt.sat.f32.f32 %fd, %fa;", f(1.5f), 0, 0, Out::kF32, f(1.0f)},
    {"cvt.sat.f32.f32 %fd, %fa;", f(-0.5f), 0, 0, Out::kF32, f(0.0f)},
    {"cvt.sat.f32.f32 %fd, %fa;", kNanF, 0, 0, Out::kF32, f(0.0f)},
    {"cvt.rni.f32.f32 %fd, %fa;", f(2.5f), 0, 0, Out::kF32, f(2.0f)},
    {"cvt.ftz.f32.f32 %fd, %fa;", 0x8000'0001, 0, 0, Out::kF32, 0x8000'0000},
    // cvt integer ↔ integer: sign extension and .sat clamping.
    {"cvt.s32.s8 %d32, %a32;", 0x80, 0, 0, Out::kD32, 0xFFFF'FF80},
    {"cvt.sat.u8.s32 %d32, %a32;", s32(-5), 0, 0, Out::kD32, 0},
    {"cvt.sat.u8.s32 %d32, %a32;", 300, 0, 0, Out::kD32, 255},
    {"cvt.sat.s8.s32 %d32, %a32;", 200, 0, 0, Out::kD32, 127},
    {"cvt.sat.s32.u32 %d32, %a32;", 0x9000'0000, 0, 0, Out::kD32, 0x7FFF'FFFF},
    {"cvt.s64.s32 %d64, %a32;", s32(-3), 0, 0, Out::kD64, s64(-3)},
    // min/max: a NaN operand is ignored, two NaNs give NaN, -0 < +0.
    {"min.f32 %fd, %fa, %fb;", kNanF, f(1.0f), 0, Out::kF32, f(1.0f)},
    {"max.f32 %fd, %fa, %fb;", f(-2.0f), kNanF, 0, Out::kF32, f(-2.0f)},
    {"max.f32 %fd, %fa, %fb;", kNanF, kNanF, 0, Out::kF32, 0x7FFF'FFFF},
    {"min.f32 %fd, %fa, %fb;", f(0.0f), f(-0.0f), 0, Out::kF32, 0x8000'0000},
    {"min.s32 %d32, %a32, %b32;", s32(-1), 1, 0, Out::kD32, s32(-1)},
    {"min.u32 %d32, %a32, %b32;", s32(-1), 1, 0, Out::kD32, 1},
    // shf: funnel shifts, wrap and clamp.
    {"shf.l.wrap.b32 %d32, %a32, %b32, %c32;", 0x1234'5678, 0x9ABC'DEF0, 8, Out::kD32, 0xBCDE'F012},
    {"shf.r.wrap.b32 %d32, %a32, %b32, %c32;", 0x1234'5678, 0x9ABC'DEF0, 8, Out::kD32, 0xF012'3456},
    {"shf.l.clamp.b32 %d32, %a32, %b32, %c32;", 0x1234'5678, 0x9ABC'DEF0, 40, Out::kD32,
     0x1234'5678},
    {"shf.l.wrap.b32 %d32, %a32, %b32, %c32;", 0x1234'5678, 0x9ABC'DEF0, 40, Out::kD32,
     0xBCDE'F012},
    {"shf.r.clamp.b32 %d32, %a32, %b32, %c32;", 0x1234'5678, 0x9ABC'DEF0, 40, Out::kD32,
     0x9ABC'DEF0},
    // prmt: the generic selector (with sign replication) and every mode.
    {"prmt.b32 %d32, %a32, %b32, %c32;", 0x3322'1100, 0x7766'5544, 0x5140, Out::kD32, 0x5511'4400},
    {"prmt.b32 %d32, %a32, %b32, %c32;", 0x0000'0080, 0, 0x0008, Out::kD32, 0x8080'80FF},
    {"prmt.b32.f4e %d32, %a32, %b32, %c32;", 0x3322'1100, 0x7766'5544, 1, Out::kD32, 0x4433'2211},
    {"prmt.b32.b4e %d32, %a32, %b32, %c32;", 0x3322'1100, 0x7766'5544, 0, Out::kD32, 0x5566'7700},
    {"prmt.b32.rc8 %d32, %a32, %b32, %c32;", 0x3322'1100, 0x7766'5544, 2, Out::kD32, 0x2222'2222},
    {"prmt.b32.ecl %d32, %a32, %b32, %c32;", 0x3322'1100, 0x7766'5544, 1, Out::kD32, 0x3322'1111},
    {"prmt.b32.ecr %d32, %a32, %b32, %c32;", 0x3322'1100, 0x7766'5544, 1, Out::kD32, 0x1111'1100},
    {"prmt.b32.rc16 %d32, %a32, %b32, %c32;", 0x3322'1100, 0x7766'5544, 1, Out::kD32, 0x3322'3322},
    // bfe: unsigned zero fill, signed sign fill (also past the msb), len 0.
    {"bfe.u32 %d32, %a32, %b32, %c32;", 0xF0, 4, 4, Out::kD32, 0xF},
    {"bfe.s32 %d32, %a32, %b32, %c32;", 0xF0, 4, 4, Out::kD32, 0xFFFF'FFFF},
    {"bfe.s32 %d32, %a32, %b32, %c32;", 0x70, 4, 4, Out::kD32, 0x7},
    {"bfe.s32 %d32, %a32, %b32, %c32;", 0x8000'0000, 28, 8, Out::kD32, 0xFFFF'FFF8},
    {"bfe.s32 %d32, %a32, %b32, %c32;", 0x8000'0000, 40, 4, Out::kD32, 0xFFFF'FFFF},
    {"bfe.u32 %d32, %a32, %b32, %c32;", 0xFFFF'FFFF, 4, 0, Out::kD32, 0},
    {"bfi.b32 %d32, %a32, %b32, %c32, 8;", 0xAB, 0xFFFF'FFFF, 4, Out::kD32, 0xFFFF'FABF},
    // Integer division corners (x86 would trap on INT_MIN / -1).
    {"div.s32 %d32, %a32, %b32;", s32(-7), 2, 0, Out::kD32, s32(-3)},
    {"rem.s32 %d32, %a32, %b32;", s32(-7), 2, 0, Out::kD32, s32(-1)},
    {"div.s32 %d32, %a32, %b32;", 0x8000'0000, s32(-1), 0, Out::kD32, 0x8000'0000},
    {"rem.s32 %d32, %a32, %b32;", 0x8000'0000, s32(-1), 0, Out::kD32, 0},
    {"div.u32 %d32, %a32, %b32;", 5, 0, 0, Out::kD32, 0xFFFF'FFFF},
    {"div.s64 %d64, %a64, %b64;", s64(-9), 4, 0, Out::kD64, s64(-2)},
    {"rem.u64 %d64, %a64, %b64;", 10, 4, 0, Out::kD64, 2},
    // bfind, clz, popc, brev.
    {"bfind.u32 %d32, %a32;", 0, 0, 0, Out::kD32, 0xFFFF'FFFF},
    {"bfind.s32 %d32, %a32;", s32(-1), 0, 0, Out::kD32, 0xFFFF'FFFF},
    {"bfind.s32 %d32, %a32;", 0xFFFF'0000, 0, 0, Out::kD32, 15},
    {"bfind.shiftamt.u32 %d32, %a32;", 0x0001'0000, 0, 0, Out::kD32, 15},
    {"clz.b32 %d32, %a32;", 0, 0, 0, Out::kD32, 32},
    {"clz.b64 %d32, %a64;", 1, 0, 0, Out::kD32, 63},
    {"popc.b64 %d32, %a64;", 0xFFFF'0000'0000'0001ull, 0, 0, Out::kD32, 17},
    {"brev.b32 %d32, %a32;", 1, 0, 0, Out::kD32, 0x8000'0000},
    // Multiply forms and shifts.
    {"mul.hi.s32 %d32, %a32, %b32;", s32(-2), 3, 0, Out::kD32, 0xFFFF'FFFF},
    {"mul.hi.u64 %d64, %a64, %b64;", 0xFFFF'FFFF'FFFF'FFFFull, 2, 0, Out::kD64, 1},
    {"mul.wide.s32 %d64, %a32, %b32;", s32(-2), 3, 0, Out::kD64, s64(-6)},
    {"mad.lo.s32 %d32, %a32, %b32, %c32;", 7, 6, s32(-2), Out::kD32, 40},
    {"shr.s32 %d32, %a32, %b32;", s32(-8), 40, 0, Out::kD32, 0xFFFF'FFFF},
    {"shl.b32 %d32, %a32, %b32;", 1, 33, 0, Out::kD32, 0},
    {"add.sat.s32 %d32, %a32, %b32;", 0x7FFF'FFFF, 1, 0, Out::kD32, 0x7FFF'FFFF},
    {"lop3.b32 %d32, %a32, %b32, %c32, 0x96;", 0xF0, 0xCC, 0xAA, Out::kD32, 0x96},
    // setp: ordered vs unordered compares with NaN.
    {"setp.lt.f32 %pd, %fa, %fb;", kNanF, f(1.0f), 0, Out::kPred, 0},
    {"setp.ltu.f32 %pd, %fa, %fb;", kNanF, f(1.0f), 0, Out::kPred, 1},
    {"setp.nan.f32 %pd, %fa, %fb;", f(0.0f), kNanF, 0, Out::kPred, 1},
    {"setp.lo.s32 %pd, %a32, %b32;", s32(-1), 1, 0, Out::kPred, 0},
    // Carry chains (CC.CF): the carry out of add.cc / addc.cc, the borrow out of sub.cc.
    {"add.cc.u32 %t32, %a32, %b32; addc.u32 %d32, %c32, 0;", 0xFFFF'FFFF, 1, 7, Out::kD32, 8},
    {"add.cc.u32 %t32, %a32, %b32; addc.u32 %d32, %c32, 0;", 0xFFFF'FFFE, 1, 7, Out::kD32, 7},
    {"add.cc.u64 %d64, %a64, %b64; addc.cc.u64 %c64, 0, 0; addc.u64 %d64, %c64, 0;",
     0xFFFF'FFFF'FFFF'FFFFull, 2, 0, Out::kD64, 1},
    {"sub.cc.u32 %t32, %a32, %b32; subc.u32 %d32, %c32, 0;", 1, 2, 10, Out::kD32, 9},
    {"sub.cc.u32 %t32, %a32, %b32; subc.u32 %d32, %c32, 0;", 2, 1, 10, Out::kD32, 10},
    {"sub.cc.u32 %d32, %a32, %b32;", 1, 2, 0, Out::kD32, 0xFFFF'FFFF},
    {"mad.lo.cc.u32 %t32, %a32, %b32, %c32; addc.u32 %d32, 0, 0;", 0x10001, 0x10000, 0xFFFF'FFFF,
     Out::kD32, 1},
    {"mad.hi.cc.u32 %d32, %a32, %b32, %c32;", 0x8000'0000, 4, 5, Out::kD32, 7},
    {"mad.hi.cc.s32 %d32, %a32, %b32, %c32;", 0x8000'0000, 4, 5, Out::kD32, 3},
    {"add.cc.u32 %t32, %a32, %a32; madc.lo.u32 %d32, %b32, %c32, 0;", 0x8000'0000, 3, 5, Out::kD32,
     16},
    // Two halves compared: p from the low halves, q from the high ones (2.0 < 1.0, 1.0 < 2.0).
    {"setp.lt.f16x2 %pd|%pa, %a32, %b32;", 0x3C00'4000, 0x4000'3C00, 0, Out::kPred, 0},
    {"setp.lt.f16x2 %pa|%pd, %a32, %b32;", 0x3C00'4000, 0x4000'3C00, 0, Out::kPred, 1},
    {"setp.gt.bf16x2 %pd|%pa, %a32, %b32;", 0x3F80'4000, 0x4000'3F80, 0, Out::kPred, 1},
    {"set.lt.f16x2.f16x2 %d32, %a32, %b32;", 0x3C00'4000, 0x4000'3C00, 0, Out::kD32, 0x3C00'0000},
    {"set.ge.u32.f16x2 %d32, %a32, %b32;", 0x3C00'4000, 0x4000'3C00, 0, Out::kD32, 0x0000'FFFF},
    // A NaN half: unordered.
    {"setp.equ.f16x2 %pd|%pa, %a32, %b32;", 0x7E00, 0x3C00, 0, Out::kPred, 1},
    // testp: the class of the operand in its own format.
    {"testp.finite.f32 %pd, %fa;", 0x7F80'0000, 0, 0, Out::kPred, 0},
    {"testp.infinite.f32 %pd, %fa;", 0xFF80'0000, 0, 0, Out::kPred, 1},
    {"testp.notanumber.f32 %pd, %fa;", kNanF, 0, 0, Out::kPred, 1},
    {"testp.number.f64 %pd, %da;", 0x7FF8'0000'0000'0000ull, 0, 0, Out::kPred, 0},
    {"testp.subnormal.f32 %pd, %fa;", 0x0000'0001, 0, 0, Out::kPred, 1},
    {"testp.subnormal.f32 %pd, %fa;", 0, 0, 0, Out::kPred, 0},
    {"testp.normal.f32 %pd, %fa;", 0x0000'0001, 0, 0, Out::kPred, 0},
    {"testp.normal.f64 %pd, %da;", d(1.0), 0, 0, Out::kPred, 1},
    {"testp.subnormal.f64 %pd, %da;", 0x0000'0000'0000'0001ull, 0, 0, Out::kPred, 1},
    {"setp.lt.s32.and %pd, %a32, %b32, %pa;", 1, 2, 0, Out::kPred, 1},
    {"setp.gt.f16 %pd, %ha, %hb;", 0x0001, 0x8001, 0, Out::kPred, 1},
    {"setp.gt.ftz.f16 %pd, %ha, %hb;", 0x0001, 0x8001, 0, Out::kPred, 0},  // +0 > -0: false
    {"setp.ltu.bf16 %pd, %ha, %hb;", 0x7FC0, 0x3F80, 0, Out::kPred, 1},
    // Directed rounding of f32 arithmetic.
    {"add.rz.f32 %fd, %fa, %fb;", f(1.0f), f(0x1p-30f), 0, Out::kF32, f(1.0f)},
    {"add.rp.f32 %fd, %fa, %fb;", f(1.0f), f(0x1p-30f), 0, Out::kF32, 0x3F80'0001},
    {"add.rm.f32 %fd, %fa, %fb;", f(-1.0f), f(-0x1p-30f), 0, Out::kF32, 0xBF80'0001},
    {"mul.rz.f32 %fd, %fa, %fb;", f(1.0f + 0x1p-23f), f(1.0f + 0x1p-23f), 0, Out::kF32,
     0x3F80'0002},
    {"fma.rn.f32 %fd, %fa, %fb, %fc;", f(1.0f + 0x1p-23f), f(1.0f - 0x1p-23f), f(-1.0f), Out::kF32,
     f(-0x1p-46f)},
    {"div.rn.f32 %fd, %fa, %fb;", f(1.0f), f(3.0f), 0, Out::kF32, 0x3EAA'AAAB},
    {"div.rz.f32 %fd, %fa, %fb;", f(1.0f), f(3.0f), 0, Out::kF32, 0x3EAA'AAAA},
    {"sqrt.rn.f64 %dd, %da;", d(2.0), 0, 0, Out::kF64, 0x3FF6'A09E'667F'3BCDull},
    {"add.f32 %fd, %fa, %fb;", f(1.0f), kNanF, 0, Out::kF32, 0x7FFF'FFFF},
    {"copysign.f32 %fd, %fa, %fb;", f(-1.0f), f(2.0f), 0, Out::kF32, f(-2.0f)},
    {"abs.f32 %fd, %fa;", 0xFFC0'0001, 0, 0, Out::kF32, 0x7FC0'0001},
    {"neg.f64 %dd, %da;", d(0.0), 0, 0, Out::kF64, 0x8000'0000'0000'0000ull},
    // f16 / bf16 arithmetic (expected bits: Python's struct 'e' on the exact value for f16,
    // worked by hand for bf16): one rounding of the exact result, ties to even.
    {"add.rn.f16 %hd, %ha, %hb;", 0x3C00, 0x1000, 0, Out::kH16, 0x3C00},  // 1 + half ulp
    {"add.f16 %hd, %ha, %hb;", 0x3C00, 0x1200, 0, Out::kH16, 0x3C01},     // 1 + 3/4 ulp
    {"add.rn.f16 %hd, %ha, %hb;", 0xBC00, 0x8C00, 0, Out::kH16, 0xBC00},  // -1 - 1/4 ulp
    {"add.f16 %hd, %ha, %hb;", 0x0001, 0x0001, 0, Out::kH16, 0x0002},
    {"add.ftz.f16 %hd, %ha, %hb;", 0x0001, 0x0001, 0, Out::kH16, 0x0000},
    {"sub.rn.f16 %hd, %ha, %hb;", 0x4000, 0x4000, 0, Out::kH16, 0x0000},
    {"mul.rn.f16 %hd, %ha, %hb;", 0x5C00, 0x5C00, 0, Out::kH16, 0x7C00},      // 65536: infinity
    {"mul.rn.sat.f16 %hd, %ha, %hb;", 0x4000, 0x3A00, 0, Out::kH16, 0x3C00},  // 1.5 → 1
    {"mul.rn.f16 %hd, %ha, %hb;", 0x0400, 0x3800, 0, Out::kH16, 0x0200},      // subnormal result
    {"fma.rn.f16 %hd, %ha, %hb, %hc;", 0x3C01, 0x3C01, 0xBC02, Out::kH16, 0x0010},  // fused
    {"fma.rn.ftz.f16 %hd, %ha, %hb, %hc;", 0x0400, 0x3800, 0, Out::kH16, 0x0000},
    {"min.f16 %hd, %ha, %hb;", 0x7E00, 0x3C00, 0, Out::kH16, 0x3C00},
    {"min.NaN.f16 %hd, %ha, %hb;", 0x7E00, 0x3C00, 0, Out::kH16, 0x7FFF},
    {"max.f16 %hd, %ha, %hb;", 0x8000, 0x0000, 0, Out::kH16, 0x0000},
    {"neg.f16 %hd, %ha;", 0x3C00, 0, 0, Out::kH16, 0xBC00},
    {"abs.bf16 %hd, %ha;", 0xBF80, 0, 0, Out::kH16, 0x3F80},
    {"add.rn.bf16 %hd, %ha, %hb;", 0x3F80, 0x3B80, 0, Out::kH16, 0x3F80},  // 1 + half ulp
    {"add.rn.bf16 %hd, %ha, %hb;", 0x3F80, 0x3BC0, 0, Out::kH16, 0x3F81},
    {"sub.rn.bf16 %hd, %ha, %hb;", 0x3F80, 0x0D80, 0, Out::kH16, 0x3F80},            // 1 - 2^-100
    {"fma.rn.bf16 %hd, %ha, %hb, %hc;", 0x3F81, 0x3F81, 0xBF82, Out::kH16, 0x3880},  // 2^-14
    {"add.rn.f16x2 %d32, %a32, %b32;", 0x3C00'4000, 0x3C00'C000, 0, Out::kD32, 0x4000'0000},
    {"fma.rn.relu.f16x2 %d32, %a32, %b32, %c32;", 0x3C00'4000, 0xBC00'3C00, 0, Out::kD32,
     0x0000'4000},
    {"mul.rn.bf16x2 %d32, %a32, %b32;", 0x4040'3FC0, 0x4040'3FC0, 0, Out::kD32, 0x4110'4010},
    {"max.bf16x2 %d32, %a32, %b32;", 0x7FC0'C000, 0x3F80'BF80, 0, Out::kD32, 0x3F80'BF80},
    {"cvt.rn.f16x2.f32 %d32, %fa, %fb;", f(1.0f), f(-2.0f), 0, Out::kD32, 0x3C00'C000},
    {"cvt.rn.bf16x2.f32 %d32, %fa, %fb;", 0x3F80'8001, 0x3F80'8000, 0, Out::kD32, 0x3F81'3F80},
    {"min.NaN.f32 %fd, %fa, %fb;", kNanF, f(1.0f), 0, Out::kF32, 0x7FFF'FFFF},
};

void PrintTo(const Row& r, std::ostream* os) {
  *os << r.instr;
}

class Semantics : public testing::TestWithParam<Row> {};

TEST_P(Semantics, GivesTheIsaResult) {
  const Row& r = GetParam();
  const std::string text = std::string(kPrologue) + "  " + r.instr + kEpilogue;
  auto def = test::kernel_of(text);
  ASSERT_TRUE(def.ok()) << def.error().message;
  const auto& program = *static_cast<const Program*>(def->context.get());
  test::FlatMemory mem(64);
  kernel::KernelArgs args;
  args.u64(test::FlatMemory::kBase).u64(r.a).u64(r.b).u64(r.c);
  ASSERT_EQ(test::run_warp(program, mem, args), "");
  std::uint64_t got = 0;
  const std::size_t at[] = {0, 8, 12, 16, 24, 28};
  const std::size_t size[] = {8, 4, 4, 8, 2, 4};
  const auto k = static_cast<std::size_t>(r.out);
  std::memcpy(&got, mem.bytes().data() + at[k], size[k]);
  EXPECT_EQ(got, r.want) << r.instr << std::hex << " a=" << r.a << " b=" << r.b << " c=" << r.c
                         << ": got " << got << ", want " << r.want;
}

INSTANTIATE_TEST_SUITE_P(Table, Semantics, testing::ValuesIn(kRows));

// The 16-bit rounding under the directed modes (no f16/bf16 instruction has them; cvt-like
// helpers may): a residual just below a power of two rounds into the finer binade below.
TEST(HalfRounding, DirectedModesUseTheResidualsSign) {
  using fp::kBF16Format;
  using fp::kF16Format;
  EXPECT_EQ(fp::round_half16(1.0, -1, kBF16Format, Round::kRz), 0x3F7F);  // 1 - 2^-8
  EXPECT_EQ(fp::round_half16(1.0, -1, kF16Format, Round::kRz), 0x3BFF);   // 1 - 2^-11
  EXPECT_EQ(fp::round_half16(1.0, -1, kF16Format, Round::kRn), 0x3C00);
  EXPECT_EQ(fp::round_half16(1.0, 1, kF16Format, Round::kRp), 0x3C01);
  EXPECT_EQ(fp::round_half16(-1.0, -1, kF16Format, Round::kRm), 0xBC01);
  EXPECT_EQ(fp::round_half16(65520.0, 0, kF16Format, Round::kRn), 0x7C00);  // the tie: infinity
  EXPECT_EQ(fp::round_half16(65520.0, 0, kF16Format, Round::kRz), 0x7BFF);
  EXPECT_EQ(fp::round_half16(0x1p-25, 1, kF16Format, Round::kRn), 0x0001);  // above half of 2^-24
}

}  // namespace
}  // namespace xpusim::ptx
