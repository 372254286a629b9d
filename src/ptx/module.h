// A PTX module decoded once (parser.h): its kernels and device functions as flat arrays of
// compact instructions whose operands name registers by index, so the interpreter
// (interpreter.h) never looks at text again. Docs: docs/ptx.md.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace xpusim::ptx {

// PTX fundamental types (PTX ISA "Fundamental Types"); kPred is a predicate register's.
enum class Type : std::uint8_t {
  kNone,
  kPred,
  kB8,
  kB16,
  kB32,
  kB64,
  kB128,
  kU8,
  kU16,
  kU32,
  kU64,
  kS8,
  kS16,
  kS32,
  kS64,
  kF16,
  kF16x2,
  kBF16,
  kBF16x2,
  kTF32,
  kF32,
  kF64,
};
std::uint32_t type_bytes(Type t);
bool is_signed(Type t);
bool is_float(Type t);
const char* type_name(Type t);

enum class Space : std::uint8_t {
  kNone,
  kGeneric,
  kGlobal,
  kShared,
  kSharedCluster,
  kLocal,
  kParam,
  kConst
};

// A function's address as a value (`mov.u64 %rd, func;`, a CUDA function pointer): this base
// plus 16 times its index in Module::functions. No memory is there.
inline constexpr std::uint64_t kFunctionAddressBase = 0xFFFF'F000'0000'0000ull;

// The state space as PTX spells it (".shared"), for messages.
std::string_view space_name(Space s);

// Special registers (PTX ISA "Special Registers"), each read per lane.
enum class Special : std::uint8_t {
  kTidX,
  kTidY,
  kTidZ,
  kNtidX,
  kNtidY,
  kNtidZ,
  kCtaidX,
  kCtaidY,
  kCtaidZ,
  kNctaidX,
  kNctaidY,
  kNctaidZ,
  kLaneid,
  kWarpid,
  kNwarpid,
  kSmid,
  kNsmid,
  kGridid,
  kClock,
  kClock64,
  kGlobaltimer,
  kLanemaskEq,
  kLanemaskLt,
  kLanemaskLe,
  kLanemaskGt,
  kLanemaskGe,
  kClusterCtarank,
  kClusterNctarank,
  kClusterCtaidX,
  kClusterCtaidY,
  kClusterCtaidZ,
  kClusterNctaidX,
  kClusterNctaidY,
  kClusterNctaidZ,
  kClusteridX,
  kClusteridY,
  kClusteridZ,
  kNclusteridX,
  kNclusteridY,
  kNclusteridZ,
  kIsExplicitCluster,
  kDynamicSmemSize,
  kTotalSmemSize,
};

struct Operand {
  enum class Kind : std::uint8_t {
    kNone,
    kReg,      // a register: `reg` (frame-relative index)
    kImm,      // an immediate: `imm` (integers as two's complement, floats as their bits)
    kSpecial,  // a special register: `special`
    kAddr,     // [reg + imm] or [symbol + imm]: `reg` (kNoReg: none), `symbol` (-1: none);
               // a tensor operand [map, {c0, ..}] has `count` coordinates from `first`
    kSymbol,   // a variable's address as a value (mov %r, buf)
    kVector,   // {a, b, ...}: `count` operands from `first` in the function's operand pool
    kSink,     // `_`
    kLabel,    // a branch target: `imm` is the instruction index
    kFunc,     // a call target: `imm` is the function index
  };
  static constexpr std::uint32_t kNoReg = 0xFFFF'FFFFu;
  Kind kind = Kind::kNone;
  Special special = Special::kTidX;
  std::uint8_t count = 0;
  bool negate = false;  // `!%p` in a predicate operand position
  std::uint32_t reg = kNoReg;
  std::int32_t symbol = -1;
  std::uint32_t first = 0;
  std::int64_t imm = 0;
};

// Opcodes (PTX ISA chapter 9). Modifiers live in Instruction's fields.
enum class Opcode : std::uint8_t {
  // integer and bit
  kAdd,
  kSub,
  kMul,
  kMad,
  kMul24,
  kMad24,
  kSad,
  kDiv,
  kRem,
  kAbs,
  kNeg,
  kMin,
  kMax,
  kPopc,
  kClz,
  kBfind,
  kFns,
  kBrev,
  kBfe,
  kBfi,
  kPrmt,
  kShf,
  kShl,
  kShr,
  kAnd,
  kOr,
  kXor,
  kNot,
  kCnot,
  kLop3,
  kDp4a,
  kDp2a,
  kAddc,
  kSubc,
  kMadc,
  // float
  kFma,
  kRcp,
  kSqrt,
  kRsqrt,
  kSin,
  kCos,
  kLg2,
  kEx2,
  kTanh,
  kCopysign,
  kTestp,
  // compare, select, move, convert
  kSetp,
  kSet,
  kSelp,
  kSlct,
  kMov,
  kCvt,
  kCvta,
  kMapa,
  // memory
  kLd,
  kLdu,
  kSt,
  kAtom,
  kRed,
  kPrefetch,
  kPrefetchu,
  // control
  kBra,
  kBrx,
  kCall,
  kRet,
  kExit,
  kTrap,
  kBrkpt,
  kNanosleep,
  kPmevent,
  // synchronisation and warp-level
  kBarSync,
  kBarArrive,
  kBarRed,
  kBarWarpSync,
  kMembar,
  kFence,
  kShfl,
  kVote,
  kMatch,
  kRedux,
  kActivemask,
  kElect,
  kBarrierCluster,
  kGetctarank,
  kIsspacep,
  kSetmaxnreg,
  // Hopper asynchronous copies and transaction barriers
  kMbarrier,     // mbarrier.{init,arrive,expect_tx,complete_tx,try_wait,test_wait,inval}
  kCpAsyncBulk,  // cp[.reduce].async.bulk[.tensor|.prefetch] and their groups
  kCpAsync,      // cp.async (LDGSTS) and its groups
  kPrefetchTensormap,
  kFenceTensormap,  // fence.proxy.tensormap::generic.acquire [map], 128: drop the cached copy
  // warp-level matrix instructions (PTX ISA 9.7.14)
  kLdmatrix,
  kStmatrix,
  kMma,
  kWmma,  // wmma.load / .store / .mma: `sub`
};

// The shape of ldmatrix/stmatrix (m8n8) and mma.sync.
enum class MmaShape : std::uint8_t { kNone, kM8n8, kM16n8k8, kM16n8k16, kM16n8k32, kM16n16k16 };

// The operation of kMbarrier / kCpAsyncBulk / kCpAsync.
enum class Sub : std::uint8_t {
  kNone,
  kInit,
  kArrive,
  kExpectTx,
  kCompleteTx,
  kTryWait,
  kTestWait,
  kInval,  // mbarrier
  kTensorLoad,
  kTensorStore,
  kTensorReduce,
  kTensorPrefetch,  // cp.async.bulk.tensor
  kBulkLoad,
  kBulkStore,
  kBulkSharedToCluster,
  kBulkPrefetch,  // cp.async.bulk
  kBulkReduce,
  kBulkReduceCluster,  // cp.reduce.async.bulk to .global / .shared::cluster
  kCommitGroup,
  kWaitGroup,
  kWaitAll,
  kCopy,  // groups; cp.async copy
  kWmmaLoadA,
  kWmmaLoadB,
  kWmmaLoadC,
  kWmmaStoreD,
  kWmmaMma,  // wmma
};

// Modifier values. One enum per axis, so an Instruction stays small.
enum class Cmp : std::uint8_t {
  kEq,
  kNe,
  kLt,
  kLe,
  kGt,
  kGe,
  kLo,
  kLs,
  kHi,
  kHs,
  kEqu,
  kNeu,
  kLtu,
  kLeu,
  kGtu,
  kGeu,
  kNum,
  kNan,
};
enum class BoolOp : std::uint8_t { kNone, kAnd, kOr, kXor };
enum class Round : std::uint8_t { kNone, kRn, kRz, kRm, kRp, kRna, kRni, kRzi, kRmi, kRpi, kRs };
// mul/mad/shf/shfl/vote/atom/bar/prmt/bfind ... variants share one byte.
enum class Mode : std::uint8_t {
  kNone,
  kLo,
  kHi,
  kWide,  // mul, mad
  kL,
  kR,  // shf direction
  kClamp,
  kWrap,  // shf mode (second field)
  kUp,
  kDown,
  kBfly,
  kIdx,  // shfl
  kAll,
  kAny,
  kUni,
  kBallot,  // vote
  kAtomAnd,
  kAtomOr,
  kAtomXor,
  kAtomCas,
  kAtomExch,
  kAtomAdd,
  kAtomInc,
  kAtomDec,
  kAtomMin,
  kAtomMax,  // atom / red / redux op
  kPopc,
  kPrmtF4e,
  kPrmtB4e,
  kPrmtRc8,
  kPrmtEcl,
  kPrmtEcr,
  kPrmtRc16,  // bar.red / prmt
  kShiftAmt,  // bfind.shiftamt
  kArrive,
  kWait,  // barrier.cluster
  kFinite,
  kInfinite,
  kNumber,
  kNotANumber,
  kNormal,
  kSubnormal,  // testp
};

struct Instruction {
  Opcode op = Opcode::kMov;
  Type type = Type::kNone;   // the (destination) type
  Type stype = Type::kNone;  // cvt's source type; setp/set: the compared type is `type`
  Space space = Space::kNone;
  Cmp cmp = Cmp::kEq;
  BoolOp bool_op = BoolOp::kNone;
  Round round = Round::kNone;
  Mode mode = Mode::kNone;
  Mode mode2 = Mode::kNone;
  std::uint8_t vec = 1;  // .v2 / .v4
  Sub sub = Sub::kNone;
  std::uint8_t dims = 0;  // cp.async.bulk.tensor: .1d ... .5d
  // mbarrier/cp.async.bulk flags: .parity, .expect_tx, .multicast::cluster, .im2col, .read,
  // .L2::cache_hint (one more operand).
  bool parity = false, expect_tx = false, multicast = false, im2col = false, read = false,
       cache_hint = false;
  bool ftz = false, sat = false, approx = false, uni = false, cc = false, relu = false;
  bool nan = false;    // min/max.NaN
  bool trans = false;  // ldmatrix/stmatrix.trans; wmma load/store and A of wmma.mma: .col
  bool col_b = false;  // wmma.mma: B is .col
  MmaShape shape = MmaShape::kNone;
  Type btype = Type::kNone, ctype = Type::kNone;  // mma: B's and C's types (A's is stype)
  bool guard_negate = false;
  std::uint32_t guard = Operand::kNoReg;  // @%p / @!%p; kNoReg: none
  std::uint32_t first = 0;                // operands [first, first + count) in the pool
  std::uint8_t count = 0;
  std::uint32_t line = 0;  // the PTX source line, for errors and the profile
};

// A variable of a state space (.shared/.local/.param/.global/.const).
struct Variable {
  std::string name;
  Space space = Space::kNone;
  std::uint32_t align = 1;
  std::uint64_t bytes = 0;
  // shared: in the CTA window; local/param: in the frame's area; global/const: in the module's
  // variable region (Module::globals_bytes), which the chip places at launch
  std::uint64_t offset = 0;
  bool extern_shared = false;  // `.extern .shared ... []`: the dynamic shared memory base
  // A .param's block: a body's own .param variable (call arguments), the function's inputs
  // (for an entry: the kernel parameters), or a .func's return values.
  enum class ParamRole : std::uint8_t { kLocal, kInput, kReturn } param_role = ParamRole::kLocal;
  std::vector<std::uint8_t> init;  // initializer bytes (.global/.const)
  // Address initializers naming module variables (`generic(x)`, `x+8`): the 8 bytes at `at` of
  // init hold the variable `target`'s address plus `addend` once the region is placed.
  struct AddressOf {
    std::uint64_t at = 0;
    std::uint32_t target = 0;  // index in Module::variables
    std::int64_t addend = 0;
  };
  std::vector<AddressOf> address_of;
};

struct Param {
  std::string name;
  Type type = Type::kNone;  // .b8 arrays are kB8 with bytes > 1
  std::uint32_t bytes = 0;
  std::uint32_t align = 1;
  std::uint32_t offset = 0;  // in the function's param block
  bool is_pointer = false;   // .ptr attribute
};

struct Function {
  std::string name;
  bool is_entry = false;
  std::uint32_t line = 0;
  std::vector<Param> params;   // kernel params, or a .func's inputs
  std::vector<Param> returns;  // a .func's return parameters
  std::uint32_t param_bytes = 0;
  std::uint32_t return_bytes = 0;
  std::vector<Instruction> code;
  std::vector<Operand> operands;            // the pool instructions and vectors index
  std::uint32_t registers = 0;              // register slots (every .reg, predicates included)
  std::vector<std::string> register_names;  // index → name, for diagnostics
  std::uint32_t local_bytes = 0;            // .local variables (per thread)
  std::uint32_t local_param_bytes = 0;      // .param variables inside the body (call arguments)
  // Performance directives.
  std::uint32_t maxntid[3] = {0, 0, 0};
  std::uint32_t reqntid[3] = {0, 0, 0};
  std::uint32_t reqnctapercluster[3] = {0, 0, 0};
  std::uint32_t maxnreg = 0;
  bool explicit_cluster = false;
  std::uint32_t shared_bytes = 0;    // static .shared: the module's and this entry's own
  std::vector<Type> register_types;  // index → declared type
};

struct Module {
  std::string source;  // the file name used in messages
  std::string text;    // the source itself (a profile shows each line)
  std::string version;
  std::string target;
  std::uint32_t address_size = 64;
  std::vector<Function> functions;
  // Every variable: module-scope ones and each function's (.shared, .local, .param).
  std::vector<Variable> variables;
  std::uint64_t globals_bytes = 0;  // the .global and .const variables' region
  const Function* find(const std::string& name) const {
    for (const Function& f : functions)
      if (f.name == name) return &f;
    return nullptr;
  }
};

}  // namespace xpusim::ptx
