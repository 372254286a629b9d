#include "ptx/decode.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>

namespace xpusim::ptx {

Type parse_type(std::string_view s) {
  static const std::map<std::string_view, Type> kTypes = {
      {"pred", Type::kPred},   {"b8", Type::kB8},     {"b16", Type::kB16},
      {"b32", Type::kB32},     {"b64", Type::kB64},   {"b128", Type::kB128},
      {"u8", Type::kU8},       {"u16", Type::kU16},   {"u32", Type::kU32},
      {"u64", Type::kU64},     {"s8", Type::kS8},     {"s16", Type::kS16},
      {"s32", Type::kS32},     {"s64", Type::kS64},   {"f16", Type::kF16},
      {"f16x2", Type::kF16x2}, {"bf16", Type::kBF16}, {"bf16x2", Type::kBF16x2},
      {"tf32", Type::kTF32},   {"f32", Type::kF32},   {"f64", Type::kF64},
  };
  const auto it = kTypes.find(s);
  return it == kTypes.end() ? Type::kNone : it->second;
}

std::string_view space_name(Space s) {
  switch (s) {
    case Space::kNone:
    case Space::kGeneric:
      return "generic";
    case Space::kGlobal:
      return ".global";
    case Space::kShared:
      return ".shared";
    case Space::kSharedCluster:
      return ".shared::cluster";
    case Space::kLocal:
      return ".local";
    case Space::kParam:
      return ".param";
    case Space::kConst:
      return ".const";
  }
  return "?";
}

std::uint32_t type_bytes(Type t) {
  switch (t) {
    case Type::kPred:
    case Type::kB8:
    case Type::kU8:
    case Type::kS8:
      return 1;
    case Type::kB16:
    case Type::kU16:
    case Type::kS16:
    case Type::kF16:
    case Type::kBF16:
      return 2;
    case Type::kB64:
    case Type::kU64:
    case Type::kS64:
    case Type::kF64:
      return 8;
    case Type::kB128:
      return 16;
    case Type::kNone:
      return 0;
    default:
      return 4;
  }
}

bool is_signed(Type t) {
  return t == Type::kS8 || t == Type::kS16 || t == Type::kS32 || t == Type::kS64;
}
bool is_float(Type t) {
  return t == Type::kF16 || t == Type::kF16x2 || t == Type::kBF16 || t == Type::kBF16x2 ||
         t == Type::kTF32 || t == Type::kF32 || t == Type::kF64;
}
const char* type_name(Type t) {
  static const char* const kNames[] = {
      "none", "pred", "b8",  "b16", "b32", "b64",   "b128", "u8",     "u16",  "u32", "u64",
      "s8",   "s16",  "s32", "s64", "f16", "f16x2", "bf16", "bf16x2", "tf32", "f32", "f64"};
  return kNames[static_cast<int>(t)];
}

namespace {

const std::map<std::string_view, Opcode>& opcodes() {
  static const std::map<std::string_view, Opcode> k = {
      {"add", Opcode::kAdd},
      {"sub", Opcode::kSub},
      {"mul", Opcode::kMul},
      {"mad", Opcode::kMad},
      {"mul24", Opcode::kMul24},
      {"mad24", Opcode::kMad24},
      {"sad", Opcode::kSad},
      {"div", Opcode::kDiv},
      {"rem", Opcode::kRem},
      {"abs", Opcode::kAbs},
      {"neg", Opcode::kNeg},
      {"min", Opcode::kMin},
      {"max", Opcode::kMax},
      {"popc", Opcode::kPopc},
      {"clz", Opcode::kClz},
      {"bfind", Opcode::kBfind},
      {"fns", Opcode::kFns},
      {"brev", Opcode::kBrev},
      {"bfe", Opcode::kBfe},
      {"bfi", Opcode::kBfi},
      {"prmt", Opcode::kPrmt},
      {"shf", Opcode::kShf},
      {"shl", Opcode::kShl},
      {"shr", Opcode::kShr},
      {"and", Opcode::kAnd},
      {"or", Opcode::kOr},
      {"xor", Opcode::kXor},
      {"not", Opcode::kNot},
      {"cnot", Opcode::kCnot},
      {"lop3", Opcode::kLop3},
      {"dp4a", Opcode::kDp4a},
      {"dp2a", Opcode::kDp2a},
      {"addc", Opcode::kAddc},
      {"subc", Opcode::kSubc},
      {"madc", Opcode::kMadc},
      {"fma", Opcode::kFma},
      {"rcp", Opcode::kRcp},
      {"sqrt", Opcode::kSqrt},
      {"rsqrt", Opcode::kRsqrt},
      {"sin", Opcode::kSin},
      {"cos", Opcode::kCos},
      {"lg2", Opcode::kLg2},
      {"ex2", Opcode::kEx2},
      {"tanh", Opcode::kTanh},
      {"copysign", Opcode::kCopysign},
      {"testp", Opcode::kTestp},
      {"setp", Opcode::kSetp},
      {"set", Opcode::kSet},
      {"selp", Opcode::kSelp},
      {"slct", Opcode::kSlct},
      {"mov", Opcode::kMov},
      {"cvt", Opcode::kCvt},
      {"cvta", Opcode::kCvta},
      {"mapa", Opcode::kMapa},
      {"ld", Opcode::kLd},
      {"ldu", Opcode::kLdu},
      {"st", Opcode::kSt},
      {"atom", Opcode::kAtom},
      {"red", Opcode::kRed},
      {"prefetch", Opcode::kPrefetch},
      {"prefetchu", Opcode::kPrefetchu},
      {"bra", Opcode::kBra},
      {"call", Opcode::kCall},
      {"ret", Opcode::kRet},
      {"exit", Opcode::kExit},
      {"trap", Opcode::kTrap},
      {"brkpt", Opcode::kBrkpt},
      {"nanosleep", Opcode::kNanosleep},
      {"bar", Opcode::kBarSync},
      {"barrier", Opcode::kBarSync},
      {"membar", Opcode::kMembar},
      {"fence", Opcode::kFence},
      {"shfl", Opcode::kShfl},
      {"vote", Opcode::kVote},
      {"match", Opcode::kMatch},
      {"redux", Opcode::kRedux},
      {"activemask", Opcode::kActivemask},
      {"elect", Opcode::kElect},
      {"isspacep", Opcode::kIsspacep},
      {"setmaxnreg", Opcode::kSetmaxnreg},
      {"getctarank", Opcode::kGetctarank},
      {"mbarrier", Opcode::kMbarrier},
      {"cp", Opcode::kCpAsyncBulk},
      {"ldmatrix", Opcode::kLdmatrix},
      {"stmatrix", Opcode::kStmatrix},
      {"mma", Opcode::kMma},
      {"wmma", Opcode::kWmma},
  };
  return k;
}

std::optional<Cmp> parse_cmp(std::string_view s) {
  static const std::map<std::string_view, Cmp> k = {
      {"eq", Cmp::kEq},   {"ne", Cmp::kNe},   {"lt", Cmp::kLt},   {"le", Cmp::kLe},
      {"gt", Cmp::kGt},   {"ge", Cmp::kGe},   {"lo", Cmp::kLo},   {"ls", Cmp::kLs},
      {"hi", Cmp::kHi},   {"hs", Cmp::kHs},   {"equ", Cmp::kEqu}, {"neu", Cmp::kNeu},
      {"ltu", Cmp::kLtu}, {"leu", Cmp::kLeu}, {"gtu", Cmp::kGtu}, {"geu", Cmp::kGeu},
      {"num", Cmp::kNum}, {"nan", Cmp::kNan},
  };
  const auto it = k.find(s);
  if (it == k.end()) return std::nullopt;
  return it->second;
}

// testp's property (PTX ISA "testp").
std::optional<Mode> testp_mode(std::string_view s) {
  static const std::map<std::string_view, Mode> kModes = {
      {"finite", Mode::kFinite}, {"infinite", Mode::kInfinite},
      {"number", Mode::kNumber}, {"notanumber", Mode::kNotANumber},
      {"normal", Mode::kNormal}, {"subnormal", Mode::kSubnormal}};
  const auto it = kModes.find(s);
  if (it == kModes.end()) return std::nullopt;
  return it->second;
}

std::optional<Round> parse_round(std::string_view s) {
  static const std::map<std::string_view, Round> k = {
      {"rn", Round::kRn},   {"rz", Round::kRz},   {"rm", Round::kRm},   {"rp", Round::kRp},
      {"rna", Round::kRna}, {"rni", Round::kRni}, {"rzi", Round::kRzi}, {"rmi", Round::kRmi},
      {"rpi", Round::kRpi}, {"rs", Round::kRs},
  };
  const auto it = k.find(s);
  if (it == k.end()) return std::nullopt;
  return it->second;
}

std::optional<Mode> parse_atom_op(std::string_view s) {
  static const std::map<std::string_view, Mode> k = {
      {"and", Mode::kAtomAnd}, {"or", Mode::kAtomOr},     {"xor", Mode::kAtomXor},
      {"cas", Mode::kAtomCas}, {"exch", Mode::kAtomExch}, {"add", Mode::kAtomAdd},
      {"inc", Mode::kAtomInc}, {"dec", Mode::kAtomDec},   {"min", Mode::kAtomMin},
      {"max", Mode::kAtomMax},
  };
  const auto it = k.find(s);
  if (it == k.end()) return std::nullopt;
  return it->second;
}

// Modifiers that only hint the memory system (caching, eviction, ordering scope) and change
// no value in a single-copy model: accepted, not modelled (docs/ptx.md, "What is modelled").
bool is_hint(std::string_view s) {
  return s == "ca" || s == "cg" || s == "cs" || s == "lu" || s == "cv" || s == "wb" || s == "wt" ||
         s == "nc" || s == "volatile" || s == "relaxed" || s == "acquire" || s == "release" ||
         s == "acq_rel" || s == "weak" || s == "sc" || s == "mmio" || s == "cta" || s == "gpu" ||
         s == "sys" || s == "cluster" || s.starts_with("L1::") || s.starts_with("L2::") ||
         s == "aligned";
}

std::optional<Space> parse_space(std::string_view s) {
  if (s == "global") return Space::kGlobal;
  if (s == "shared" || s == "shared::cta") return Space::kShared;
  if (s == "shared::cluster") return Space::kSharedCluster;
  if (s == "local") return Space::kLocal;
  if (s == "param" || s == "param::entry" || s == "param::func") return Space::kParam;
  if (s == "const") return Space::kConst;
  return std::nullopt;
}

class Decoder {
 public:
  Decoder(const std::vector<std::string_view>& parts, std::size_t n, Instruction& in)
      : parts_(parts), n_(n), in_(in) {}

  Status run() {
    const std::string_view base = parts_[0];
    const auto it = opcodes().find(base);
    if (it == opcodes().end()) return unsupported();
    in_.op = it->second;
    switch (in_.op) {
      case Opcode::kBarSync:
        return bar();
      case Opcode::kMbarrier:
        return mbarrier();
      case Opcode::kCpAsyncBulk:
        return cp();
      case Opcode::kSetp:
      case Opcode::kSet:
        return setp();
      case Opcode::kLdmatrix:
      case Opcode::kStmatrix:
        return ldstmatrix();
      case Opcode::kMma:
        return mma();
      case Opcode::kWmma:
        return wmma();
      default:
        break;
    }
    std::vector<Type> types;
    for (std::size_t k = 1; k < parts_.size(); ++k) {
      const std::string_view p = parts_[k];
      if (const Type t = parse_type(p); t != Type::kNone) {
        types.push_back(t);
      } else if (auto r = parse_round(p)) {
        in_.round = *r;
      } else if (auto sp = parse_space(p)) {
        in_.space = *sp;
      } else if (p == "v2" || p == "v4") {
        in_.vec = p == "v2" ? 2 : 4;
      } else if (p == "ftz") {
        in_.ftz = true;
      } else if (p == "sat" || p == "satfinite") {
        in_.sat = true;
      } else if (p == "approx" || p == "full") {
        in_.approx = true;
      } else if (p == "uni") {
        in_.uni = true;
      } else if (p == "cc") {
        in_.cc = true;
      } else if (p == "relu") {
        in_.relu = true;
      } else if (auto tp = testp_mode(p); tp && in_.op == Opcode::kTestp) {
        in_.mode = *tp;
      } else if (p == "NaN" && (in_.op == Opcode::kMin || in_.op == Opcode::kMax)) {
        in_.nan = true;
      } else if (p == "sync") {
        sync_ = true;
      } else if (p == "to") {
        to_ = true;
      } else if (p == "lo" || p == "hi" || p == "wide") {
        in_.mode = p == "lo" ? Mode::kLo : p == "hi" ? Mode::kHi : Mode::kWide;
      } else if (in_.op == Opcode::kShf && (p == "l" || p == "r" || p == "clamp" || p == "wrap")) {
        if (p == "l" || p == "r")
          in_.mode = p == "l" ? Mode::kL : Mode::kR;
        else
          in_.mode2 = p == "clamp" ? Mode::kClamp : Mode::kWrap;
      } else if (in_.op == Opcode::kShfl &&
                 (p == "up" || p == "down" || p == "bfly" || p == "idx")) {
        in_.mode = p == "up"     ? Mode::kUp
                   : p == "down" ? Mode::kDown
                   : p == "bfly" ? Mode::kBfly
                                 : Mode::kIdx;
      } else if (in_.op == Opcode::kMatch && (p == "all" || p == "any")) {
        in_.mode = p == "all" ? Mode::kAll : Mode::kAny;
      } else if (in_.op == Opcode::kVote &&
                 (p == "all" || p == "any" || p == "uni" || p == "ballot")) {
        in_.mode = p == "all"   ? Mode::kAll
                   : p == "any" ? Mode::kAny
                   : p == "uni" ? Mode::kUni
                                : Mode::kBallot;
      } else if ((in_.op == Opcode::kAtom || in_.op == Opcode::kRed || in_.op == Opcode::kRedux) &&
                 parse_atom_op(p)) {
        in_.mode = *parse_atom_op(p);
      } else if (in_.op == Opcode::kPrmt && (p == "f4e" || p == "b4e" || p == "rc8" || p == "ecl" ||
                                             p == "ecr" || p == "rc16")) {
        in_.mode = p == "f4e"   ? Mode::kPrmtF4e
                   : p == "b4e" ? Mode::kPrmtB4e
                   : p == "rc8" ? Mode::kPrmtRc8
                   : p == "ecl" ? Mode::kPrmtEcl
                   : p == "ecr" ? Mode::kPrmtEcr
                                : Mode::kPrmtRc16;
      } else if ((in_.op == Opcode::kPrefetch) && p == "tensormap") {
        in_.op = Opcode::kPrefetchTensormap;
      } else if (in_.op == Opcode::kBfind && p == "shiftamt") {
        in_.mode = Mode::kShiftAmt;
      } else if ((in_.op == Opcode::kFence || in_.op == Opcode::kMembar) &&
                 (p == "gl" || p == "proxy" || p == "async" || p == "mbarrier_init" ||
                  p == "alias" || p.starts_with("async::") || p == "tensormap::generic")) {
      } else if (is_hint(p)) {
      } else {
        return error(fmt::format("unsupported modifier '.{}'", p));
      }
    }
    // fence.proxy.tensormap::generic.acquire.scope [map], 128 (a rewritten tensor map becomes
    // visible to the TMA unit); the .release form, without operands, is a plain fence.
    if (in_.op == Opcode::kFence &&
        std::find(parts_.begin(), parts_.end(), "tensormap::generic") != parts_.end() &&
        std::find(parts_.begin(), parts_.end(), "acquire") != parts_.end()) {
      in_.op = Opcode::kFenceTensormap;
    }
    if (!types.empty()) in_.type = types[0];
    if (types.size() > 1) in_.stype = types[1];
    return check(types);
  }

 private:
  Status unsupported() const {
    return Error{fmt::format("unsupported instruction '{}'", joined())};
  }
  Status error(std::string_view what) const {
    return Error{fmt::format("'{}': {}", joined(), what)};
  }
  std::string joined() const {
    std::string s;
    for (std::size_t k = 0; k < parts_.size(); ++k)
      s += (k > 0 ? "." : "") + std::string(parts_[k]);
    return s;
  }
  Status arity(std::size_t lo, std::size_t hi) const {
    if (n_ >= lo && n_ <= hi) return Ok{};
    return error(lo == hi ? fmt::format("takes {} operands, not {}", lo, n_)
                          : fmt::format("takes {} to {} operands, not {}", lo, hi, n_));
  }
  Status want_types(const std::vector<Type>& t, std::size_t n) const {
    if (t.size() == n) return Ok{};
    return error(fmt::format("needs {} type suffix{}", n, n == 1 ? "" : "es"));
  }

  Status bar() {
    // bar.sync a{, b} / bar.arrive a, b / bar.red.op.pred / bar.warp.sync / barrier.sync
    // [.aligned] / barrier.cluster.arrive|wait[.aligned|.relaxed|.acquire|.release].
    const std::string_view base = parts_[0];
    std::size_t k = 1;
    if (k < parts_.size() && parts_[k] == "warp") {
      in_.op = Opcode::kBarWarpSync;
      if (parts_.size() != 3 || parts_[2] != "sync") return unsupported();
      return arity(1, 1);
    }
    if (base == "barrier" && k < parts_.size() && parts_[k] == "cluster") {
      in_.op = Opcode::kBarrierCluster;
      ++k;
      for (; k < parts_.size(); ++k) {
        if (parts_[k] == "arrive")
          in_.mode = Mode::kArrive;
        else if (parts_[k] == "wait")
          in_.mode = Mode::kWait;
        else if (!is_hint(parts_[k]))
          return error(fmt::format("unsupported modifier '.{}'", parts_[k]));
      }
      if (in_.mode == Mode::kNone) return error("needs .arrive or .wait");
      return arity(0, 0);
    }
    for (; k < parts_.size(); ++k) {
      const std::string_view p = parts_[k];
      if (p == "sync") {
        in_.op = Opcode::kBarSync;
      } else if (p == "arrive") {
        in_.op = Opcode::kBarArrive;
      } else if (p == "red") {
        in_.op = Opcode::kBarRed;
      } else if (p == "popc") {
        in_.mode = Mode::kPopc;
      } else if (p == "and" || p == "or") {
        in_.mode = p == "and" ? Mode::kAtomAnd : Mode::kAtomOr;
      } else if (p == "pred" || p == "u32") {
        in_.type = parse_type(p);
      } else if (p == "aligned") {
      } else {
        return error(fmt::format("unsupported modifier '.{}'", p));
      }
    }
    if (parts_.size() == 1) return unsupported();
    if (in_.op == Opcode::kBarRed) {
      const bool popc = in_.mode == Mode::kPopc && in_.type == Type::kU32;
      const bool logic =
          (in_.mode == Mode::kAtomAnd || in_.mode == Mode::kAtomOr) && in_.type == Type::kPred;
      if (!popc && !logic) return error("bar.red needs .popc.u32, .and.pred or .or.pred");
      return arity(3, 4);
    }
    if (in_.op == Opcode::kBarArrive) return arity(2, 2);
    return arity(1, 2);
  }

  // mbarrier.OP[.sem][.scope][.space].b64 (PTX ISA 9.7.13.15).
  Status mbarrier() {
    for (std::size_t k = 1; k < parts_.size(); ++k) {
      const std::string_view p = parts_[k];
      if (p == "expect_tx" && in_.sub == Sub::kArrive) {
        in_.expect_tx = true;
        continue;
      }
      Sub s = Sub::kNone;
      if (p == "init")
        s = Sub::kInit;
      else if (p == "arrive")
        s = Sub::kArrive;
      else if (p == "expect_tx")
        s = Sub::kExpectTx;
      else if (p == "complete_tx")
        s = Sub::kCompleteTx;
      else if (p == "try_wait")
        s = Sub::kTryWait;
      else if (p == "test_wait")
        s = Sub::kTestWait;
      else if (p == "inval")
        s = Sub::kInval;
      if (s != Sub::kNone) {
        if (in_.sub != Sub::kNone) return error(fmt::format("two operations ('.{}')", p));
        in_.sub = s;
      } else if (p == "parity") {
        in_.parity = true;
      } else if (auto sp = parse_space(p)) {
        in_.space = *sp;
      } else if (p == "b64") {
        in_.type = Type::kB64;
      } else if (p == "noComplete" || p == "pending_count") {
        return error(fmt::format("'.{}' is not supported by this front end yet", p));
      } else if (!is_hint(p)) {
        return error(fmt::format("unsupported modifier '.{}'", p));
      }
    }
    switch (in_.sub) {
      case Sub::kInit:
        return arity(2, 2);
      case Sub::kInval:
        return arity(1, 1);
      case Sub::kArrive:
        return in_.expect_tx ? arity(3, 3) : arity(1, 3);
      case Sub::kExpectTx:
      case Sub::kCompleteTx:
        return arity(2, 2);
      case Sub::kTryWait:
      case Sub::kTestWait:
        return arity(3, 4);
      default:
        return error("needs an operation (.init, .arrive, .try_wait, ...)");
    }
  }

  // cp.async (LDGSTS), cp.async.bulk[.tensor|.prefetch], cp.reduce.async.bulk.tensor and the
  // groups of both (PTX ISA 9.7.9.25, 9.7.9.26).
  Status cp() {
    bool reduce = false, async = false, bulk = false, tensor = false, prefetch = false;
    bool no_offs = false;  // .im2col_no_offs: an im2col store or reduction
    std::vector<Space> spaces;
    Sub group = Sub::kNone;
    for (std::size_t k = 1; k < parts_.size(); ++k) {
      const std::string_view p = parts_[k];
      if (p == "reduce")
        reduce = true;
      else if (p == "async")
        async = true;
      else if (p == "bulk")
        bulk = true;
      else if (p == "tensor")
        tensor = true;
      else if (p == "prefetch")
        prefetch = true;
      else if (p.size() == 2 && p[1] == 'd' && p[0] >= '1' && p[0] <= '5')
        in_.dims = static_cast<std::uint8_t>(p[0] - '0');
      else if (auto sp = parse_space(p))
        spaces.push_back(*sp);
      else if (p == "mbarrier::complete_tx::bytes") {
      } else if (p == "multicast::cluster")
        in_.multicast = true;
      else if (p == "im2col")
        in_.im2col = true;
      else if (p == "im2col_no_offs")
        no_offs = true;
      else if (p == "tile" || p == "bulk_group" || p == "L2" || p == "ca" || p == "cg" ||
               p == "noftz") {
      } else if (p == "L2::cache_hint")
        in_.cache_hint = true;
      else if (p == "commit_group")
        group = Sub::kCommitGroup;
      else if (p == "wait_group")
        group = Sub::kWaitGroup;
      else if (p == "wait_all")
        group = Sub::kWaitAll;
      else if (p == "read")
        in_.read = true;
      else if (reduce && parse_atom_op(p))
        in_.mode = *parse_atom_op(p);
      else if (parse_type(p) != Type::kNone)
        in_.type = parse_type(p);
      else if (p == "mbarrier")
        return error("cp.async.mbarrier.arrive is not supported by this front end yet");
      else if (!is_hint(p))
        return error(fmt::format("unsupported modifier '.{}'", p));
    }
    if (!async) return unsupported();
    const std::size_t hint = in_.cache_hint ? 1 : 0;
    if (!bulk) {  // cp.async (LDGSTS)
      in_.op = Opcode::kCpAsync;
      if (group != Sub::kNone) {
        in_.sub = group;
        return group == Sub::kWaitGroup ? arity(1, 1) : arity(0, 0);
      }
      in_.sub = Sub::kCopy;
      return arity(3, 4 + hint);
    }
    if (group != Sub::kNone) {
      in_.sub = group;
      if (group == Sub::kWaitAll) return unsupported();
      return group == Sub::kWaitGroup ? arity(1, 1) : arity(0, 0);
    }
    const Space dst = spaces.empty() ? Space::kNone : spaces[0];
    if (tensor) {
      if (in_.dims == 0) return error("needs a dimension (.1d ... .5d)");
      if (prefetch) {
        in_.sub = Sub::kTensorPrefetch;
        return arity(1, 1 + hint);
      }
      if (reduce) {
        if (in_.mode == Mode::kNone) return error("needs a reduction (.add, .min, ...)");
        in_.sub = Sub::kTensorReduce;
        in_.im2col = no_offs;
        return arity(2, 2 + hint);
      }
      if (dst == Space::kGlobal) {
        in_.sub = Sub::kTensorStore;
        in_.im2col = no_offs;
        return arity(2, 2 + hint);
      }
      if (no_offs)
        return error(".im2col_no_offs loads (sm_100) are not modelled; Hopper loads take offsets");
      in_.sub = Sub::kTensorLoad;
      return arity(3, 3 + (in_.im2col ? 1 : 0) + (in_.multicast ? 1 : 0) + hint);
    }
    if (reduce) {  // [dst], [src], size (.global) or [dst], [src], size, [mbar] (shared::cluster)
      if (in_.mode == Mode::kNone) return error("needs a reduction (.add, .min, ...)");
      if (in_.type == Type::kNone) return error("needs an element type (.u32, .f32, ...)");
      in_.sub = dst == Space::kGlobal ? Sub::kBulkReduce : Sub::kBulkReduceCluster;
      return dst == Space::kGlobal ? arity(3, 3 + hint) : arity(4, 4);
    }
    if (prefetch) {
      in_.sub = Sub::kBulkPrefetch;
      return arity(2, 2 + hint);
    }
    if (dst == Space::kGlobal) {
      in_.sub = Sub::kBulkStore;
      return arity(3, 3 + hint);
    }
    const Space src = spaces.size() > 1 ? spaces[1] : Space::kNone;
    in_.sub = src == Space::kShared ? Sub::kBulkSharedToCluster : Sub::kBulkLoad;
    return arity(4, 4 + (in_.multicast ? 1 : 0) + hint);
  }

  // ldmatrix/stmatrix.sync.aligned.m8n8.{x1,x2,x4}[.trans][.shared[::cta]].b16 (PTX ISA
  // 9.7.14.5.15-16); the b8 shapes of sm_100 are not modelled.
  Status ldstmatrix() {
    for (std::size_t k = 1; k < parts_.size(); ++k) {
      const std::string_view p = parts_[k];
      if (p == "sync") {
        sync_ = true;
      } else if (p == "aligned") {
      } else if (p == "m8n8") {
        in_.shape = MmaShape::kM8n8;
      } else if (p == "x1" || p == "x2" || p == "x4") {
        in_.vec = static_cast<std::uint8_t>(p[1] - '0');
        num_ = true;
      } else if (p == "trans") {
        in_.trans = true;
      } else if (p == "shared" || p == "shared::cta") {
        in_.space = Space::kShared;
      } else if (p == "b16") {
        in_.type = Type::kB16;
      } else {
        return error(fmt::format("unsupported modifier '.{}'", p));
      }
    }
    if (!sync_) return error("needs .sync.aligned");
    if (in_.shape != MmaShape::kM8n8) return error("needs the shape .m8n8");
    if (!num_) return error("needs .x1, .x2 or .x4");
    if (in_.type != Type::kB16) return error("needs .b16");
    if (in_.space == Space::kNone) in_.space = Space::kShared;
    return arity(2, 2);
  }

  // mma.sync.aligned.SHAPE.row.col[.satfinite].D.A.B.C (PTX ISA 9.7.14.5.14), the shapes and
  // types listed in docs/ptx.md; any other is an error here.
  Status mma() {
    std::vector<Type> types;
    bool row = false, col = false;
    for (std::size_t k = 1; k < parts_.size(); ++k) {
      const std::string_view p = parts_[k];
      if (p == "sync") {
        sync_ = true;
      } else if (p == "aligned") {
      } else if (p == "m16n8k8") {
        in_.shape = MmaShape::kM16n8k8;
      } else if (p == "m16n8k16") {
        in_.shape = MmaShape::kM16n8k16;
      } else if (p == "m16n8k32") {
        in_.shape = MmaShape::kM16n8k32;
      } else if (p == "row" && !row && !col) {
        row = true;
      } else if (p == "col" && row && !col) {
        col = true;
      } else if (p == "satfinite") {
        in_.sat = true;
      } else if (const Type t = parse_type(p); t != Type::kNone) {
        types.push_back(t);
      } else {
        return error(fmt::format("unsupported modifier '.{}'", p));
      }
    }
    if (!sync_) return error("needs .sync.aligned");
    if (in_.shape == MmaShape::kNone)
      return error("unsupported shape (m16n8k8, m16n8k16, m16n8k32)");
    if (!row || !col) return error("needs .row.col");
    if (auto st = want_types(types, 4); !st) return st;
    in_.type = types[0];
    in_.stype = types[1];
    in_.btype = types[2];
    in_.ctype = types[3];
    const Type a = in_.stype, b = in_.btype;
    // f16 inputs may accumulate in f16 or f32 (D and C apart); bf16 only in f32.
    const auto acc_ok = [&](Type t) { return t == Type::kF32 || (a == Type::kF16 && t == a); };
    const bool half =
        (a == Type::kF16 || a == Type::kBF16) && b == a && acc_ok(in_.type) && acc_ok(in_.ctype);
    const bool tf32 =
        a == Type::kTF32 && b == a && in_.type == Type::kF32 && in_.ctype == Type::kF32;
    const bool int8 = (a == Type::kS8 || a == Type::kU8) && (b == Type::kS8 || b == Type::kU8) &&
                      in_.type == Type::kS32 && in_.ctype == Type::kS32;
    bool ok = false;
    switch (in_.shape) {
      case MmaShape::kM16n8k8:
        ok = half || tf32;
        break;
      case MmaShape::kM16n8k16:
        ok = half || int8;
        break;
      default:
        ok = int8;
        break;
    }
    if (!ok) return error("this shape and type combination is not supported by this front end yet");
    if (in_.sat && !int8) return error(".satfinite is defined on integer mma only");
    return arity(4, 4);
  }

  // wmma.load.{a,b,c} / wmma.store.d .sync.aligned.{row,col}.m16n16k16[.space].TYPE and
  // wmma.mma.sync.aligned.{row,col}.{row,col}.m16n16k16 with f32 accumulators on f16 or bf16
  // (PTX ISA 9.7.14.4); other shapes and types are errors here.
  Status wmma() {
    std::vector<Type> types;
    std::vector<bool> cols;
    for (std::size_t k = 1; k < parts_.size(); ++k) {
      const std::string_view p = parts_[k];
      if (p == "sync") {
        sync_ = true;
      } else if (p == "aligned") {
      } else if (k == 1 && (p == "load" || p == "store" || p == "mma")) {
        in_.sub = p == "mma" ? Sub::kWmmaMma : Sub::kNone;
        if (p != "mma") {
          if (k + 1 >= parts_.size()) return error("needs .a, .b, .c or .d");
          const std::string_view w = parts_[++k];
          if (p == "load" && (w == "a" || w == "b" || w == "c"))
            in_.sub = w == "a" ? Sub::kWmmaLoadA : w == "b" ? Sub::kWmmaLoadB : Sub::kWmmaLoadC;
          else if (p == "store" && w == "d")
            in_.sub = Sub::kWmmaStoreD;
          else
            return error(fmt::format("unsupported modifier '.{}'", w));
        }
      } else if (p == "row" || p == "col") {
        cols.push_back(p == "col");
      } else if (p == "m16n16k16") {
        in_.shape = MmaShape::kM16n16k16;
      } else if (auto sp = parse_space(p); sp && (*sp == Space::kGlobal || *sp == Space::kShared)) {
        in_.space = *sp;
      } else if (const Type t = parse_type(p); t != Type::kNone) {
        types.push_back(t);
      } else {
        return error(fmt::format("unsupported modifier '.{}'", p));
      }
    }
    if (in_.sub == Sub::kNone) return unsupported();
    if (!sync_) return error("needs .sync.aligned");
    if (in_.shape != MmaShape::kM16n16k16) return error("only the shape .m16n16k16 is supported");
    if (in_.sub == Sub::kWmmaMma) {
      if (cols.size() != 2) return error("needs the layouts of A and B (.row/.col twice)");
      in_.trans = cols[0];
      in_.col_b = cols[1];
      // .DTYPE.CTYPE, each .f16 or .f32 (A and B f16), or .f32.bf16.bf16.f32.
      const auto acc = [](Type t) { return t == Type::kF16 || t == Type::kF32; };
      const bool f16 = types.size() == 2 && acc(types[0]) && acc(types[1]);
      const bool bf16 = types.size() == 4 && types[0] == Type::kF32 && types[1] == Type::kBF16 &&
                        types[2] == Type::kBF16 && types[3] == Type::kF32;
      if (!f16 && !bf16)
        return error("only f16/f32 accumulators on f16, or f32 on bf16, are supported");
      in_.type = types[0];
      in_.stype = in_.btype = bf16 ? Type::kBF16 : Type::kF16;
      in_.ctype = types.back();
      return arity(4, 4);
    }
    if (cols.size() != 1) return error("needs one layout (.row or .col)");
    in_.trans = cols[0];
    if (auto st = want_types(types, 1); !st) return st;
    in_.type = types[0];
    const bool ab = in_.sub == Sub::kWmmaLoadA || in_.sub == Sub::kWmmaLoadB;
    if (ab ? in_.type != Type::kF16 && in_.type != Type::kBF16
           : in_.type != Type::kF32 && in_.type != Type::kF16)
      return error("this fragment type is not supported by this front end yet");
    if (in_.space == Space::kNone) in_.space = Space::kGeneric;
    return arity(2, 3);
  }

  Status setp() {
    std::vector<Type> types;
    for (std::size_t k = 1; k < parts_.size(); ++k) {
      const std::string_view p = parts_[k];
      if (const Type t = parse_type(p); t != Type::kNone) {
        types.push_back(t);
      } else if (auto c = parse_cmp(p); c && !cmp_seen_) {
        in_.cmp = *c;
        cmp_seen_ = true;
      } else if (p == "and" || p == "or" || p == "xor") {
        in_.bool_op = p == "and" ? BoolOp::kAnd : p == "or" ? BoolOp::kOr : BoolOp::kXor;
      } else if (p == "ftz") {
        in_.ftz = true;
      } else {
        return error(fmt::format("unsupported modifier '.{}'", p));
      }
    }
    if (!cmp_seen_) return error("needs a comparison (.eq, .lt, ...)");
    if (in_.op == Opcode::kSetp) {
      if (auto st = want_types(types, 1); !st) return st;
      in_.type = types[0];
      return arity(in_.bool_op == BoolOp::kNone ? 3 : 4, in_.bool_op == BoolOp::kNone ? 3 : 4);
    }
    if (auto st = want_types(types, 2); !st) return st;
    in_.type = types[0];   // set's destination type
    in_.stype = types[1];  // the compared type
    return arity(in_.bool_op == BoolOp::kNone ? 3 : 4, in_.bool_op == BoolOp::kNone ? 3 : 4);
  }

  // f16/bf16 arithmetic (PTX ISA 9.7.4): .rn is its only rounding; bf16 has no .ftz or .sat.
  Status half_rules() const {
    const Type t = in_.type;
    if (t != Type::kF16 && t != Type::kF16x2 && t != Type::kBF16 && t != Type::kBF16x2) return Ok{};
    if (in_.round != Round::kNone && in_.round != Round::kRn)
      return error("f16/bf16 arithmetic rounds only to nearest (.rn)");
    if ((t == Type::kBF16 || t == Type::kBF16x2) && (in_.ftz || in_.sat))
      return error(".ftz and .sat are not defined on bf16 arithmetic");
    const bool arith = in_.op == Opcode::kAdd || in_.op == Opcode::kSub || in_.op == Opcode::kMul ||
                       in_.op == Opcode::kFma;
    if (in_.sat && !arith) return error(".sat is defined on add, sub, mul and fma only");
    if (in_.relu && in_.op != Opcode::kFma) return error(".relu is defined on fma only");
    if (in_.relu && in_.sat) return error(".relu and .sat exclude each other");
    return Ok{};
  }

  Status check(const std::vector<Type>& types) {
    const Type t = in_.type;
    switch (in_.op) {
      case Opcode::kAdd:
      case Opcode::kSub:
      case Opcode::kMul:
      case Opcode::kFma:
      case Opcode::kMin:
      case Opcode::kMax:
      case Opcode::kNeg:
      case Opcode::kAbs:
        if (auto st = half_rules(); !st) return st;
        break;
      default:
        break;
    }
    if (in_.cc || in_.op == Opcode::kAddc || in_.op == Opcode::kSubc || in_.op == Opcode::kMadc) {
      // Extended-precision arithmetic: 32- and 64-bit integers only (PTX ISA 9.7.2).
      const bool carry_op = in_.op == Opcode::kAdd || in_.op == Opcode::kSub ||
                            in_.op == Opcode::kMad || in_.op == Opcode::kAddc ||
                            in_.op == Opcode::kSubc || in_.op == Opcode::kMadc;
      if (!carry_op) return error("'.cc' is only for add, sub, mad and their carry forms");
      if (t != Type::kU32 && t != Type::kS32 && t != Type::kU64 && t != Type::kS64)
        return error("carry arithmetic takes .u32, .s32, .u64 or .s64");
      if ((in_.op == Opcode::kMad || in_.op == Opcode::kMadc) && in_.mode != Mode::kLo &&
          in_.mode != Mode::kHi)
        return error("carry mad needs .lo or .hi");
    }
    switch (in_.op) {
      case Opcode::kAdd:
      case Opcode::kSub:
      case Opcode::kMin:
      case Opcode::kMax:
      case Opcode::kAnd:
      case Opcode::kOr:
      case Opcode::kXor:
      case Opcode::kShl:
      case Opcode::kShr:
      case Opcode::kDiv:
      case Opcode::kRem:
      case Opcode::kCopysign:
      case Opcode::kAddc:
      case Opcode::kSubc:
      case Opcode::kMul24:
        if (auto st = want_types(types, 1); !st) return st;
        return arity(3, 3);
      case Opcode::kMul:
        if (auto st = want_types(types, 1); !st) return st;
        if (!is_float(t) && in_.mode == Mode::kNone)
          return error("an integer mul needs .lo, .hi or .wide");
        return arity(3, 3);
      case Opcode::kMad:
      case Opcode::kMadc:
      case Opcode::kMad24:
      case Opcode::kSad:
        if (auto st = want_types(types, 1); !st) return st;
        if ((in_.op == Opcode::kMad || in_.op == Opcode::kMadc) && !is_float(t) &&
            in_.mode == Mode::kNone)
          return error("an integer mad needs .lo, .hi or .wide");
        return arity(4, 4);
      case Opcode::kFma:
        if (auto st = want_types(types, 1); !st) return st;
        if (in_.round == Round::kNone)
          return error("fma needs a rounding modifier (.rn, .rz, .rm, .rp)");
        return arity(4, 4);
      case Opcode::kAbs:
      case Opcode::kNeg:
      case Opcode::kNot:
      case Opcode::kCnot:
      case Opcode::kPopc:
      case Opcode::kClz:
      case Opcode::kBrev:
      case Opcode::kBfind:
      case Opcode::kRcp:
      case Opcode::kSqrt:
      case Opcode::kRsqrt:
      case Opcode::kSin:
      case Opcode::kCos:
      case Opcode::kLg2:
      case Opcode::kEx2:
      case Opcode::kTanh:
      case Opcode::kMov:
        if (auto st = want_types(types, 1); !st) return st;
        return arity(2, 2);
      case Opcode::kTestp:
        if (auto st = want_types(types, 1); !st) return st;
        if (in_.type != Type::kF32 && in_.type != Type::kF64)
          return error("testp takes .f32 or .f64");
        if (in_.mode == Mode::kNone)
          return error(
              "needs a property: .finite, .infinite, .number, .notanumber, .normal or "
              ".subnormal");
        return arity(2, 2);
      case Opcode::kBfe:
        if (auto st = want_types(types, 1); !st) return st;
        return arity(4, 4);
      case Opcode::kBfi:
        if (auto st = want_types(types, 1); !st) return st;
        return arity(5, 5);
      case Opcode::kPrmt:
        if (auto st = want_types(types, 1); !st) return st;
        return arity(4, 4);
      case Opcode::kShf:
        if (auto st = want_types(types, 1); !st) return st;
        if (in_.mode == Mode::kNone || in_.mode2 == Mode::kNone)
          return error("shf needs .l|.r and .clamp|.wrap");
        return arity(4, 4);
      case Opcode::kLop3:
        if (auto st = want_types(types, 1); !st) return st;
        return arity(5, 5);
      case Opcode::kDp4a:
      case Opcode::kDp2a:
        if (auto st = want_types(types, 2); !st) return st;
        return arity(4, 4);
      case Opcode::kFns:
        return arity(4, 4);
      case Opcode::kSelp:
        if (auto st = want_types(types, 1); !st) return st;
        return arity(4, 4);
      case Opcode::kSlct:
        if (auto st = want_types(types, 2); !st) return st;
        return arity(4, 4);
      case Opcode::kCvt:
        if (auto st = want_types(types, 2); !st) return st;
        return arity(2, 3);
      case Opcode::kCvta:
        if (auto st = want_types(types, 1); !st) return st;
        if (in_.space == Space::kNone) return error("cvta needs a state space");
        return arity(2, 2);
      case Opcode::kMapa:
        if (auto st = want_types(types, 1); !st) return st;
        return arity(3, 3);
      case Opcode::kLd:
      case Opcode::kLdu:
      case Opcode::kSt:
        if (auto st = want_types(types, 1); !st) return st;
        return arity(2, 3);
      case Opcode::kAtom:
      case Opcode::kRed:
        if (auto st = want_types(types, 1); !st) return st;
        if (in_.mode == Mode::kNone) return error("needs an operation (.add, .min, .cas, ...)");
        if (in_.op == Opcode::kRed) return arity(2, 3);
        return arity(3, 5);
      case Opcode::kPrefetch:
      case Opcode::kPrefetchu:
      case Opcode::kPrefetchTensormap:
        return arity(1, 1);
      case Opcode::kFenceTensormap:
        return arity(2, 2);
      case Opcode::kBra:
        return arity(1, 1);
      case Opcode::kCall:  // {(ret),} func|%reg{, (args)}{, prototype}
        return arity(1, 4);
      case Opcode::kRet:
      case Opcode::kExit:
      case Opcode::kTrap:
      case Opcode::kBrkpt:
        return arity(0, 0);
      case Opcode::kNanosleep:
        return arity(1, 1);
      case Opcode::kMembar:
      case Opcode::kFence:
        return arity(0, 0);
      case Opcode::kShfl:
        if (!sync_) return error("only shfl.sync is supported (sm_70 and later)");
        if (in_.mode == Mode::kNone) return error("shfl needs .up, .down, .bfly or .idx");
        return arity(5, 5);
      case Opcode::kVote:
        if (!sync_) return error("only vote.sync is supported (sm_70 and later)");
        if (in_.mode == Mode::kNone) return error("vote needs .all, .any, .uni or .ballot");
        return arity(3, 3);
      case Opcode::kRedux:
        if (!sync_) return error("needs .sync");
        return arity(3, 3);
      case Opcode::kMatch:
        // match.{any,all}.sync.{b32,b64} d{|p}, a, membermask (PTX ISA "match.sync").
        if (!sync_) return error("needs .sync");
        if (in_.mode == Mode::kNone) return error("match needs .any or .all");
        if (auto st = want_types(types, 1); !st) return st;
        if (in_.type != Type::kB32 && in_.type != Type::kB64)
          return error("match takes .b32 or .b64");
        return arity(3, 3);
      case Opcode::kActivemask:
        return arity(1, 1);
      case Opcode::kElect:
        if (!sync_) return error("needs .sync");
        return arity(2, 2);
      case Opcode::kIsspacep:
        return arity(2, 2);
      case Opcode::kSetmaxnreg:
        return arity(1, 1);
      case Opcode::kGetctarank:
        return arity(2, 2);
      default:
        return unsupported();
    }
  }

  const std::vector<std::string_view>& parts_;
  std::size_t n_;
  Instruction& in_;
  bool sync_ = false;
  bool to_ = false;
  bool cmp_seen_ = false;
  bool num_ = false;

 public:
  bool to() const { return to_; }
};

}  // namespace

Status decode_name(const std::vector<std::string_view>& parts, std::size_t operands,
                   Instruction& out) {
  Decoder d(parts, operands, out);
  auto st = d.run();
  // cvta.to.SPACE converts generic → SPACE; plain cvta.SPACE the other way (mode kWide as
  // nothing else: kLo marks "to").
  if (st && out.op == Opcode::kCvta && d.to()) out.mode = Mode::kLo;
  return st;
}

}  // namespace xpusim::ptx
