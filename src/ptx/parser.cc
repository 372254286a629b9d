#include "ptx/parser.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include "ptx/decode.h"
#include "sim/one_line.h"

namespace xpusim::ptx {
namespace {

struct Token {
  enum class Kind : std::uint8_t { kWord, kPunct, kString, kEnd };
  Kind kind = Kind::kEnd;
  std::string_view text;
  std::uint32_t line = 0, col = 0;
};

bool word_start(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '$' || c == '%' ||
         c == '.';
}
bool word_char(char c) {
  return word_start(c) || c == ':';  // `.shared::cluster`, `.L2::128B`
}

Result<std::vector<Token>> lex(std::string_view s, const std::string& source) {
  std::vector<Token> out;
  std::uint32_t line = 1, col = 1;
  std::size_t i = 0;
  auto advance = [&](std::size_t n) {
    for (std::size_t k = 0; k < n; ++k, ++i) {
      if (s[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
  };
  while (i < s.size()) {
    const char c = s[i];
    if (c == '\n' || c == ' ' || c == '\t' || c == '\r') {
      advance(1);
    } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') {
      while (i < s.size() && s[i] != '\n')
        advance(1);
    } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      const std::uint32_t l0 = line, c0 = col;
      const std::size_t end = s.find("*/", i + 2);
      if (end == std::string_view::npos)
        return Error{fmt::format("{}:{}:{}: unterminated comment", source, l0, c0)};
      advance(end + 2 - i);
    } else if (c == '"') {
      const std::uint32_t l0 = line, c0 = col;
      const std::size_t end = s.find('"', i + 1);
      if (end == std::string_view::npos ||
          s.substr(i, end - i).find('\n') != std::string_view::npos)
        return Error{fmt::format("{}:{}:{}: unterminated string", source, l0, c0)};
      out.push_back({Token::Kind::kString, s.substr(i + 1, end - i - 1), l0, c0});
      advance(end + 1 - i);
    } else if (word_start(c)) {
      // `:` belongs to a word only as `::`; a label's colon ends it.
      std::size_t j = i + 1;
      while (j < s.size() && word_char(s[j])) {
        if (s[j] == ':' && !(j + 1 < s.size() && s[j + 1] == ':') && !(j > 0 && s[j - 1] == ':'))
          break;
        ++j;
      }
      out.push_back({Token::Kind::kWord, s.substr(i, j - i), line, col});
      advance(j - i);
    } else if (std::strchr(",;:[]{}()<>+-@!|=", c) != nullptr) {
      out.push_back({Token::Kind::kPunct, s.substr(i, 1), line, col});
      advance(1);
    } else {
      return Error{fmt::format("{}:{}:{}: unexpected character '{}'", source, line, col,
                               std::isprint(static_cast<unsigned char>(c)) != 0
                                   ? std::string(1, c)
                                   : fmt::format("\\x{:02x}", static_cast<unsigned char>(c)))};
    }
  }
  out.push_back({Token::Kind::kEnd, {}, line, col});
  return out;
}

// Integer literal (decimal, 0x hex, 0 octal, 0b binary; optional U suffix) or a float in
// PTX's exact hex forms 0fXXXXXXXX (f32) and 0dXXXXXXXXXXXXXXXX (f64), or a decimal float.
struct Number {
  bool ok = false;
  bool is_float = false;  // a decimal float literal: `bits` holds the f64 bits
  std::int64_t bits = 0;
};
Number parse_number(std::string_view w) {
  Number n;
  if (w.empty() || std::isdigit(static_cast<unsigned char>(w[0])) == 0) return n;
  auto hex = [&](std::string_view digits, std::uint64_t& v) {
    if (digits.empty() || digits.size() > 16) return false;
    const auto r = std::from_chars(digits.data(), digits.data() + digits.size(), v, 16);
    return r.ec == std::errc{} && r.ptr == digits.data() + digits.size();
  };
  if (w.size() > 2 && w[0] == '0' && (w[1] == 'f' || w[1] == 'F' || w[1] == 'd' || w[1] == 'D')) {
    std::uint64_t v = 0;
    const bool f32 = w[1] == 'f' || w[1] == 'F';
    if (w.size() != (f32 ? 10u : 18u) || !hex(w.substr(2), v)) return n;
    n.ok = true;
    n.bits = static_cast<std::int64_t>(v);
    return n;
  }
  std::string_view d = w;
  if (!d.empty() && (d.back() == 'U' || d.back() == 'u')) d.remove_suffix(1);
  std::uint64_t v = 0;
  int base = 10;
  if (d.size() > 2 && d[0] == '0' && (d[1] == 'x' || d[1] == 'X')) {
    base = 16;
    d.remove_prefix(2);
  } else if (d.size() > 2 && d[0] == '0' && (d[1] == 'b' || d[1] == 'B')) {
    base = 2;
    d.remove_prefix(2);
  } else if (d.size() > 1 && d[0] == '0' && d.find_first_of(".eE") == std::string_view::npos) {
    base = 8;
    d.remove_prefix(1);
  }
  const auto r = std::from_chars(d.data(), d.data() + d.size(), v, base);
  if (r.ec == std::errc{} && r.ptr == d.data() + d.size()) {
    n.ok = true;
    n.bits = static_cast<std::int64_t>(v);
    return n;
  }
  if (base == 10 && d.find_first_of(".eE") != std::string_view::npos) {
    double f = 0;
    const auto rf = std::from_chars(w.data(), w.data() + w.size(), f);
    if (rf.ec == std::errc{} && rf.ptr == w.data() + w.size()) {
      n.ok = n.is_float = true;
      std::memcpy(&n.bits, &f, 8);
    }
  }
  return n;
}

std::optional<Special> parse_special(std::string_view w) {
  static const std::map<std::string_view, Special> kSpecials = {
      {"%tid.x", Special::kTidX},
      {"%tid.y", Special::kTidY},
      {"%tid.z", Special::kTidZ},
      {"%ntid.x", Special::kNtidX},
      {"%ntid.y", Special::kNtidY},
      {"%ntid.z", Special::kNtidZ},
      {"%ctaid.x", Special::kCtaidX},
      {"%ctaid.y", Special::kCtaidY},
      {"%ctaid.z", Special::kCtaidZ},
      {"%nctaid.x", Special::kNctaidX},
      {"%nctaid.y", Special::kNctaidY},
      {"%nctaid.z", Special::kNctaidZ},
      {"%laneid", Special::kLaneid},
      {"%warpid", Special::kWarpid},
      {"%nwarpid", Special::kNwarpid},
      {"%smid", Special::kSmid},
      {"%nsmid", Special::kNsmid},
      {"%gridid", Special::kGridid},
      {"%clock", Special::kClock},
      {"%clock64", Special::kClock64},
      {"%globaltimer", Special::kGlobaltimer},
      {"%lanemask_eq", Special::kLanemaskEq},
      {"%lanemask_lt", Special::kLanemaskLt},
      {"%lanemask_le", Special::kLanemaskLe},
      {"%lanemask_gt", Special::kLanemaskGt},
      {"%lanemask_ge", Special::kLanemaskGe},
      {"%cluster_ctarank", Special::kClusterCtarank},
      {"%cluster_nctarank", Special::kClusterNctarank},
      {"%cluster_ctaid.x", Special::kClusterCtaidX},
      {"%cluster_ctaid.y", Special::kClusterCtaidY},
      {"%cluster_ctaid.z", Special::kClusterCtaidZ},
      {"%cluster_nctaid.x", Special::kClusterNctaidX},
      {"%cluster_nctaid.y", Special::kClusterNctaidY},
      {"%cluster_nctaid.z", Special::kClusterNctaidZ},
      {"%clusterid.x", Special::kClusteridX},
      {"%clusterid.y", Special::kClusteridY},
      {"%clusterid.z", Special::kClusteridZ},
      {"%nclusterid.x", Special::kNclusteridX},
      {"%nclusterid.y", Special::kNclusteridY},
      {"%nclusterid.z", Special::kNclusteridZ},
      {"%is_explicit_cluster", Special::kIsExplicitCluster},
      {"%dynamic_smem_size", Special::kDynamicSmemSize},
      {"%total_smem_size", Special::kTotalSmemSize},
  };
  const auto it = kSpecials.find(w);
  if (it == kSpecials.end()) return std::nullopt;
  return it->second;
}

// Two's-complement negation that wraps (-INT64_MIN is INT64_MIN, as PTX's 64-bit immediates).
std::int64_t negate(std::int64_t v) {
  return static_cast<std::int64_t>(0 - static_cast<std::uint64_t>(v));
}

std::uint64_t align_up(std::uint64_t v, std::uint64_t a) {
  return a <= 1 ? v : (v + a - 1) / a * a;
}

class Parser {
 public:
  Parser(std::vector<Token> toks, const std::string& source)
      : t_(std::move(toks)), source_(source) {
    m_.source = source;
  }

  Result<Module> run() {
    while (peek().kind != Token::Kind::kEnd) {
      if (auto st = top_level(); !st) return st.errors();
    }
    for (const Token& tok : forward_) {  // a forward declaration's body must follow
      const Function& f = m_.functions[static_cast<std::size_t>(find_function(tok.text))];
      if (f.code.empty())
        return error_at(tok, fmt::format("function '{}' declared without a body", f.name));
    }
    // Each entry's static shared memory: the module's, then its own (laid out after it).
    for (Function& f : m_.functions)
      f.shared_bytes = std::max(f.shared_bytes, static_cast<std::uint32_t>(module_shared_));
    return std::move(m_);
  }

 private:
  const Token& peek(std::size_t k = 0) const { return t_[std::min(i_ + k, t_.size() - 1)]; }
  const Token& next() {
    const Token& tok = t_[i_];
    if (i_ + 1 < t_.size()) ++i_;
    return tok;
  }
  bool at(std::string_view text) const {
    return peek().kind != Token::Kind::kEnd && peek().kind != Token::Kind::kString &&
           peek().text == text;
  }
  bool accept(std::string_view text) {
    if (!at(text)) return false;
    next();
    return true;
  }
  Error error_at(const Token& tok, std::string_view what) const {
    if (tok.kind == Token::Kind::kEnd)
      return Error{
          fmt::format("{}:{}:{}: {} (at the end of the file)", source_, tok.line, tok.col, what)};
    // A token may hold control characters (a directive's rest of line): the error is one line.
    return Error{fmt::format("{}:{}:{}: {} (at '{}')", source_, tok.line, tok.col, what,
                             sim::one_line(tok.text))};
  }
  Status expect(std::string_view text) {
    if (accept(text)) return Ok{};
    return error_at(peek(), fmt::format("expected '{}'", text));
  }
  Result<std::string_view> word(std::string_view what) {
    if (peek().kind != Token::Kind::kWord)
      return error_at(peek(), fmt::format("expected {}", what));
    return next().text;
  }
  Result<std::uint64_t> integer(std::string_view what) {
    const Token& tok = peek();
    const Number n = tok.kind == Token::Kind::kWord ? parse_number(tok.text) : Number{};
    if (!n.ok || n.is_float)
      return error_at(tok, fmt::format("expected {} (a whole number)", what));
    next();
    return static_cast<std::uint64_t>(n.bits);
  }

  // Skips a debug directive's operands: the rest of its line.
  void skip_line(std::uint32_t line) {
    while (peek().kind != Token::Kind::kEnd && peek().line == line)
      next();
  }
  Status skip_balanced() {  // `{ ... }` of a .section
    if (auto st = expect("{"); !st) return st;
    int depth = 1;
    while (depth > 0) {
      if (peek().kind == Token::Kind::kEnd) return error_at(peek(), "unterminated '{'");
      if (at("{")) ++depth;
      if (at("}")) --depth;
      next();
    }
    return Ok{};
  }

  Status top_level() {
    const Token& tok = peek();
    if (tok.kind != Token::Kind::kWord) return error_at(tok, "expected a directive");
    const std::string_view w = tok.text;
    if (w == ".version") {
      next();
      auto v = word("a PTX version");
      if (!v) return v.errors();
      m_.version = std::string(*v);
      return Ok{};
    }
    if (w == ".target") {
      next();
      auto v = word("a target");
      if (!v) return v.errors();
      m_.target = std::string(*v);
      while (accept(",")) {
        if (auto x = word("a target option"); !x) return x.errors();
      }
      return Ok{};
    }
    if (w == ".address_size") {
      next();
      auto v = integer("an address size");
      if (!v) return v.errors();
      if (*v != 64) return error_at(tok, fmt::format(".address_size {}: only 64 is modelled", *v));
      m_.address_size = 64;
      return Ok{};
    }
    if (w == ".file" || w == ".loc") {
      next();
      skip_line(tok.line);
      return Ok{};
    }
    if (w == ".section") {
      next();
      if (auto x = word("a section name"); !x) return x.errors();
      return skip_balanced();
    }
    if (w == ".pragma") {
      next();
      if (peek().kind != Token::Kind::kString) return error_at(peek(), "expected a string");
      next();
      return expect(";");
    }
    bool is_extern = false;
    while (at(".visible") || at(".extern") || at(".weak") || at(".common")) {
      if (at(".extern")) is_extern = true;
      next();
    }
    if (at(".entry") || at(".func")) return function(is_extern);
    if (at(".global") || at(".const") || at(".shared")) {
      return variable_decl(nullptr, is_extern);
    }
    return error_at(peek(), "unsupported or misplaced directive");
  }

  // `.param .u64 [.ptr [.global] [.align N]] name` or `.param .align N .b8 name[K]`.
  Result<Param> param_decl() {
    if (auto st = expect(".param"); !st) return st.errors();
    Param p;
    while (true) {
      if (accept(".ptr")) {
        p.is_pointer = true;
      } else if (accept(".align")) {
        auto a = integer("an alignment");
        if (!a) return a.errors();
        p.align = static_cast<std::uint32_t>(*a);
      } else if (at(".global") || at(".shared") || at(".const") || at(".local")) {
        next();
      } else if (peek().kind == Token::Kind::kWord && peek().text.starts_with(".")) {
        const Type ty = parse_type(peek().text.substr(1));
        if (ty == Type::kNone || ty == Type::kPred)
          return error_at(peek(), "expected a param type");
        p.type = ty;
        next();
      } else {
        break;
      }
    }
    if (p.type == Type::kNone) return error_at(peek(), "a .param needs a type");
    auto name = word("a parameter name");
    if (!name) return name.errors();
    p.name = std::string(*name);
    p.bytes = type_bytes(p.type);
    if (accept("[")) {
      auto n = integer("an array size");
      if (!n) return n.errors();
      if (*n == 0 || *n > (1u << 16))
        return error_at(peek(), "a param array of 1 to 65536 elements");
      p.bytes *= static_cast<std::uint32_t>(*n);
      if (auto st = expect("]"); !st) return st.errors();
    }
    p.align = std::max(p.align, type_bytes(p.type));
    return p;
  }

  Status param_list(std::vector<Param>& out, std::uint32_t& bytes) {
    if (auto st = expect("("); !st) return st;
    if (!at(")")) {
      do {
        auto p = param_decl();
        if (!p) return p.errors();
        p->offset = static_cast<std::uint32_t>(align_up(bytes, p->align));
        bytes = p->offset + p->bytes;
        out.push_back(std::move(*p));
      } while (accept(","));
    }
    return expect(")");
  }

  Status function(bool is_extern) {
    Function f;
    f.is_entry = next().text == ".entry";
    f.line = peek().line;
    if (!f.is_entry && at("(")) {
      if (auto st = param_list(f.returns, f.return_bytes); !st) return st;
    }
    auto name = word("a function name");
    if (!name) return name.errors();
    f.name = std::string(*name);
    const Token& name_tok = t_[i_ - 1];
    if (at("(")) {
      if (auto st = param_list(f.params, f.param_bytes); !st) return st;
    }
    // Performance directives.
    while (peek().kind == Token::Kind::kWord) {
      const std::string_view d = peek().text;
      std::uint32_t* dims = d == ".maxntid"             ? f.maxntid
                            : d == ".reqntid"           ? f.reqntid
                            : d == ".reqnctapercluster" ? f.reqnctapercluster
                                                        : nullptr;
      if (dims != nullptr) {
        next();
        for (int k = 0; k < 3; ++k) {
          auto v = integer("a dimension");
          if (!v) return v.errors();
          dims[k] = static_cast<std::uint32_t>(*v);
          if (!accept(",")) break;
        }
        for (int k = 0; k < 3; ++k)
          if (dims[k] == 0) dims[k] = 1;
      } else if (d == ".maxnreg" || d == ".minnctapersm" || d == ".maxnctapersm" ||
                 d == ".maxclusterrank") {
        next();
        auto v = integer("a count");
        if (!v) return v.errors();
        if (d == ".maxnreg") f.maxnreg = static_cast<std::uint32_t>(*v);
      } else if (d == ".explicitcluster") {
        next();
        f.explicit_cluster = true;
      } else if (d == ".noreturn" || d == ".abi_preserve" || d == ".abi_preserve_control") {
        next();
        if (d != ".noreturn") {
          if (auto v = integer("a count"); !v) return v.errors();
        }
      } else {
        break;
      }
    }
    if (accept(";")) {  // a prototype: an extern declaration, or a forward one (nvcc's, when
                        // a function is named before its body, e.g. in an initializer)
      if (!is_extern && find_function(f.name) < 0) forward_.push_back(name_tok);
      if (find_function(f.name) < 0) {
        declared_.push_back(f.name);
        m_.functions.push_back(std::move(f));
      }
      return Ok{};
    }
    // A body: its own register/variable scopes; the params are its outermost names.
    const int existing = find_function(f.name);
    if (existing >= 0) {
      Function& old = m_.functions[static_cast<std::size_t>(existing)];
      if (!old.code.empty() ||
          std::find(declared_.begin(), declared_.end(), f.name) == declared_.end())
        return error_at(name_tok, fmt::format("function '{}' defined twice", f.name));
    }
    fn_ = &f;
    scopes_.assign(1, {});
    scope_ids_.assign(1, 0);
    next_scope_ = 0;
    labels_.clear();
    fixups_.clear();
    local_bytes_ = 0;
    local_param_bytes_ = 0;
    shared_bytes_ = static_cast<std::uint32_t>(module_shared_);
    for (std::size_t k = 0; k < f.params.size(); ++k)
      scopes_[0][f.params[k].name] = Name{Name::Kind::kParam, static_cast<std::uint32_t>(k)};
    for (std::size_t k = 0; k < f.returns.size(); ++k)
      scopes_[0][f.returns[k].name] = Name{Name::Kind::kReturn, static_cast<std::uint32_t>(k)};
    if (auto st = expect("{"); !st) return st;
    if (auto st = block(); !st) return st;
    // A label is visible in its `{ }` block and the blocks inside it (inline-asm bodies reuse
    // names like LAB_WAIT in sibling blocks): the innermost definition wins.
    for (const Fixup& fx : fixups_) {
      bool found = false;
      for (auto s = fx.scopes.rbegin(); s != fx.scopes.rend() && !found; ++s) {
        const auto it = labels_.find({*s, fx.label});
        if (it == labels_.end()) continue;
        f.operands[fx.operand].imm = it->second;
        found = true;
      }
      if (!found) return error_at(fx.tok, fmt::format("undefined label '{}'", fx.label));
    }
    f.local_bytes = static_cast<std::uint32_t>(local_bytes_);
    f.local_param_bytes = static_cast<std::uint32_t>(local_param_bytes_);
    f.shared_bytes = shared_bytes_;
    fn_ = nullptr;
    if (existing >= 0) {
      m_.functions[static_cast<std::size_t>(existing)] = std::move(f);
    } else {
      m_.functions.push_back(std::move(f));
    }
    return Ok{};
  }

  int find_function(std::string_view name) const {
    for (std::size_t k = 0; k < m_.functions.size(); ++k)
      if (m_.functions[k].name == name) return static_cast<int>(k);
    return -1;
  }

  static constexpr std::size_t kMaxBlockDepth = 256;

  // PTX ISA "Operand Type Information", for the arithmetic, logic and move instructions whose
  // operands all have the instruction's type: a register must have its size, a .pred register
  // only a .pred instruction, and a float instruction no .u/.s register (nor the reverse); .b
  // registers go anywhere of their size. (ld/st/cvt may use wider registers; the others have
  // operand-specific types and are not checked here.)
  Status check_register_types(const Instruction& in, const std::vector<Operand>& ops,
                              std::string_view name) const {
    switch (in.op) {
      case Opcode::kAdd:
      case Opcode::kSub:
      case Opcode::kMin:
      case Opcode::kMax:
      case Opcode::kAnd:
      case Opcode::kOr:
      case Opcode::kXor:
      case Opcode::kNot:
      case Opcode::kNeg:
      case Opcode::kAbs:
      case Opcode::kDiv:
      case Opcode::kRem:
      case Opcode::kFma:
      case Opcode::kAddc:
      case Opcode::kSubc:
      case Opcode::kMov:
        break;
      case Opcode::kMul:
      case Opcode::kMad:
      case Opcode::kMadc:
        if (in.mode == Mode::kWide) return Ok{};
        break;
      default:
        return Ok{};
    }
    const Type t = in.type;
    const auto kind = [](Type x) {
      switch (x) {
        case Type::kU16:
        case Type::kU32:
        case Type::kU64:
        case Type::kS16:
        case Type::kS32:
        case Type::kS64:
          return 'i';
        case Type::kF32:
        case Type::kF64:
          return 'f';
        case Type::kB16:
        case Type::kB32:
        case Type::kB64:
          return 'b';
        case Type::kPred:
          return 'p';
        default:
          return '?';
      }
    };
    if (kind(t) == '?') return Ok{};  // halves, packed and 8-bit forms
    for (std::size_t k = 0; k < ops.size(); ++k) {
      if (ops[k].kind != Operand::Kind::kReg) continue;
      const Type r = fn_->register_types[ops[k].reg];
      const char rk = kind(r);
      const bool same_class = (rk == 'p') == (kind(t) == 'p');
      const bool fits = rk == 'p' || (type_bytes(r) == type_bytes(t) &&
                                      (rk == 'b' || kind(t) == 'b' || rk == kind(t)));
      const bool ok = rk == '?' || (same_class && fits);
      if (!ok)
        return Error{
            fmt::format("'{}': operand {} '{}' is a .{} register, which a .{} instruction "
                        "cannot take (PTX operand type rules)",
                        name, k, fn_->register_names[ops[k].reg], type_name(r), type_name(t))};
    }
    return Ok{};
  }

  // Statements up to the matching '}'.
  Status block() {
    while (!accept("}")) {
      const Token& tok = peek();
      if (tok.kind == Token::Kind::kEnd) return error_at(tok, "expected '}' to close the body");
      if (accept("{")) {
        // The parser recurses per block: bound it (nvcc nests a few levels, inline asm one).
        if (scopes_.size() >= kMaxBlockDepth)
          return error_at(tok, fmt::format("blocks nested deeper than {}", kMaxBlockDepth));
        scopes_.emplace_back();
        scope_ids_.push_back(++next_scope_);
        if (auto st = block(); !st) return st;
        scopes_.pop_back();
        scope_ids_.pop_back();
        continue;
      }
      if (tok.kind == Token::Kind::kWord && peek(1).kind == Token::Kind::kPunct &&
          peek(1).text == ":" && !tok.text.starts_with(".") && !tok.text.starts_with("%")) {
        const std::string label(tok.text);
        const std::pair<std::uint32_t, std::string> key{scope_ids_.back(), label};
        if (labels_.contains(key))
          return error_at(tok, fmt::format("label '{}' defined twice", label));
        labels_[key] = static_cast<std::uint32_t>(fn_->code.size());
        next();
        next();
        continue;
      }
      if (tok.kind == Token::Kind::kWord && tok.text.starts_with(".")) {
        if (auto st = body_directive(); !st) return st;
        continue;
      }
      if (auto st = instruction(); !st) return st;
    }
    return Ok{};
  }

  Status body_directive() {
    const Token& tok = peek();
    const std::string_view w = tok.text;
    if (w == ".reg") return reg_decl();
    if (w == ".loc" || w == ".file") {
      next();
      skip_line(tok.line);
      return Ok{};
    }
    if (w == ".pragma") {
      next();
      if (peek().kind != Token::Kind::kString) return error_at(peek(), "expected a string");
      next();
      return expect(";");
    }
    if (w == ".shared" || w == ".local" || w == ".param" || w == ".const" || w == ".global")
      return variable_decl(fn_, false);
    if (w == ".callprototype") {
      // `LABEL: .callprototype (...) _ (...);` names an indirect call's signature; the call
      // checks its argument count against the callee it reaches instead.
      next();
      while (!at(";")) {
        if (peek().kind == Token::Kind::kEnd) return error_at(peek(), "expected ';'");
        next();
      }
      return expect(";");
    }
    return error_at(tok, "unsupported directive in a function body");
  }

  // `.reg .b32 %r<6>;`, `.reg .pred %p;`, `.reg .f32 %f1, %f2;` (also .v2/.v4 register
  // vectors are not used by nvcc and are rejected).
  Status reg_decl() {
    next();
    const Token& ty_tok = peek();
    auto tw = word("a register type");
    if (!tw) return tw.errors();
    if (!tw->starts_with(".")) return error_at(ty_tok, "expected a register type");
    const Type ty = parse_type(tw->substr(1));
    if (ty == Type::kNone) return error_at(ty_tok, "unsupported register type");
    do {
      const Token& name_tok = peek();
      auto name = word("a register name");
      if (!name) return name.errors();
      if (accept("<")) {
        auto n = integer("a register count");
        if (!n) return n.errors();
        if (*n > 1'000'000) return error_at(name_tok, "more than 1000000 registers");
        if (auto st = expect(">"); !st) return st;
        for (std::uint64_t k = 0; k < *n; ++k) {
          if (auto st = add_register(fmt::format("{}{}", *name, k), ty, name_tok); !st) return st;
        }
      } else {
        if (auto st = add_register(std::string(*name), ty, name_tok); !st) return st;
      }
    } while (accept(","));
    return expect(";");
  }

  Status add_register(std::string name, Type ty, const Token& tok) {
    auto& scope = scopes_.back();
    if (scope.contains(name))
      return error_at(tok, fmt::format("register '{}' declared twice", name));
    if (fn_->registers >= (1u << 22)) return error_at(tok, "too many registers");
    scope[name] = Name{Name::Kind::kReg, fn_->registers++};
    fn_->register_names.push_back(std::move(name));
    fn_->register_types.push_back(ty);
    return Ok{};
  }

  // `[.extern] .shared|.local|.param|.global|.const [.align N] .type name[[N]] [= {..}];`
  Status variable_decl(Function* fn, bool is_extern) {
    const Token& space_tok = next();
    Variable v;
    const std::string_view sp = space_tok.text;
    v.space = sp == ".shared"  ? Space::kShared
              : sp == ".local" ? Space::kLocal
              : sp == ".param" ? Space::kParam
              : sp == ".const" ? Space::kConst
                               : Space::kGlobal;
    Type ty = Type::kNone;
    while (true) {
      if (accept(".align")) {
        auto a = integer("an alignment");
        if (!a) return a.errors();
        if (*a == 0 || (*a & (*a - 1)) != 0 || *a > 4096)
          return error_at(space_tok, fmt::format(".align {}: a power of two up to 4096", *a));
        v.align = static_cast<std::uint32_t>(*a);
      } else if (accept(".extern") || accept(".visible") || accept(".weak")) {
      } else if (peek().kind == Token::Kind::kWord && peek().text.starts_with(".") &&
                 parse_type(peek().text.substr(1)) != Type::kNone) {
        ty = parse_type(next().text.substr(1));
      } else {
        break;
      }
    }
    if (ty == Type::kNone || ty == Type::kPred) return error_at(peek(), "a variable needs a type");
    const Token& name_tok = peek();
    auto name = word("a variable name");
    if (!name) return name.errors();
    v.name = std::string(*name);
    v.align = std::max(v.align, type_bytes(ty));
    std::uint64_t count = 1;
    bool unsized = false;
    while (accept("[")) {
      if (accept("]")) {
        unsized = true;
        continue;
      }
      auto n = integer("an array size");
      if (!n) return n.errors();
      if (*n == 0 || *n > (std::uint64_t{1} << 32))
        return error_at(name_tok, "an array of 1 to 2^32 elements");
      count *= *n;
      if (auto st = expect("]"); !st) return st;
    }
    v.bytes = count * type_bytes(ty);
    if (unsized) {
      if (v.space != Space::kShared || !is_extern)
        return error_at(name_tok,
                        "an unsized array must be `.extern .shared` (dynamic shared memory)");
      v.extern_shared = true;
      v.bytes = 0;
    }
    if (accept("=")) {
      if (v.space != Space::kGlobal && v.space != Space::kConst)
        return error_at(name_tok, "only .global and .const variables take an initializer");
      if (auto st = initializer(v, ty); !st) return st;
    }
    if (auto st = expect(";"); !st) return st;
    switch (v.space) {
      case Space::kGlobal:
      case Space::kConst:
        // One region per module (the chip places it at launch): each variable at its offset.
        v.offset = align_up(m_.globals_bytes, v.align);
        m_.globals_bytes = v.offset + v.bytes;
        if (m_.globals_bytes > (std::uint64_t{1} << 32))
          return error_at(name_tok, "more than 4 GiB of .global and .const variables");
        break;
      case Space::kShared:
        if (v.extern_shared) {
          v.offset = 0;  // resolved at launch: after the static shared memory
        } else if (fn == nullptr) {
          v.offset = align_up(module_shared_, v.align);
          module_shared_ = v.offset + v.bytes;
        } else {
          v.offset = align_up(shared_bytes_, v.align);
          shared_bytes_ = static_cast<std::uint32_t>(v.offset + v.bytes);
        }
        if (module_shared_ > (1u << 30) || shared_bytes_ > (1u << 30))
          return error_at(name_tok, "more than 1 GiB of static shared memory");
        break;
      case Space::kLocal:
        v.offset = align_up(local_bytes_, v.align);
        local_bytes_ = v.offset + v.bytes;
        if (local_bytes_ > (1u << 20))
          return error_at(name_tok, "more than 1 MiB of .local per thread");
        break;
      case Space::kParam:
        if (fn == nullptr) return error_at(name_tok, ".param variables live in a function");
        v.offset = align_up(local_param_bytes_, v.align);
        local_param_bytes_ = v.offset + v.bytes;
        if (local_param_bytes_ > (1u << 20)) return error_at(name_tok, "more than 1 MiB of .param");
        break;
      default:
        break;
    }
    const auto id = static_cast<std::uint32_t>(m_.variables.size());
    m_.variables.push_back(std::move(v));
    const std::string& nm = m_.variables.back().name;
    if (fn == nullptr) {
      if (module_names_.contains(nm))
        return error_at(name_tok, fmt::format("'{}' declared twice", nm));
      module_names_[nm] = id;
    } else {
      auto& scope = scopes_.back();
      if (scope.contains(nm)) return error_at(name_tok, fmt::format("'{}' declared twice", nm));
      scope[nm] = Name{Name::Kind::kVariable, id};
    }
    return Ok{};
  }

  // An element that holds an address: `generic(NAME)` or `NAME`, `+ N` bytes: of a function
  // (its value, kFunctionAddressBase + 16 x index) or of a module .global/.const variable
  // (known once the chip places the region: recorded in Variable::address_of).
  Status address_initializer(Variable& v, Type ty) {
    const Token& tok = peek();
    const bool generic = tok.text == "generic";
    next();
    const Token* name_tok = &tok;
    if (generic) {
      if (auto st = expect("("); !st) return st;
      name_tok = &peek();
      next();
      if (auto st = expect(")"); !st) return st;
    }
    std::int64_t addend = 0;
    if (accept("+")) {
      auto n = integer("an address offset");
      if (!n) return n.errors();
      addend = static_cast<std::int64_t>(*n);
    }
    if (type_bytes(ty) != 8)
      return error_at(*name_tok,
                      fmt::format("'{}': an address fills a 64-bit element ('{}' is .{})",
                                  name_tok->text, v.name, type_name(ty)));
    if (v.init.size() + 8 > v.bytes)
      return error_at(*name_tok, fmt::format("'{}': the initializer has more than its {} elements",
                                             v.name, v.bytes / 8));
    std::uint64_t value = 0;
    const std::string name(name_tok->text);
    if (const int f = find_function(name); f >= 0) {
      value = kFunctionAddressBase + 16 * static_cast<std::uint64_t>(f) +
              static_cast<std::uint64_t>(addend);
    } else if (const auto it = module_names_.find(name);
               it != module_names_.end() && (m_.variables[it->second].space == Space::kGlobal ||
                                             m_.variables[it->second].space == Space::kConst)) {
      v.address_of.push_back({.at = v.init.size(), .target = it->second, .addend = addend});
    } else {
      return error_at(*name_tok, fmt::format("'{}': not a function or a module .global/.const "
                                             "variable declared before '{}'",
                                             name, v.name));
    }
    for (std::uint32_t k = 0; k < 8; ++k)
      v.init.push_back(static_cast<std::uint8_t>(value >> (8 * k)));
    return Ok{};
  }

  // `= 5`, `= {1, 2, 0f3F800000}`: the variable's first bytes (the rest are zeros). Integers
  // fill an integer element; a decimal float or `0f`/`0d` bits fill a float element.
  Status initializer(Variable& v, Type ty) {
    const bool braces = accept("{");
    do {
      bool neg = accept("-");
      const Token& tok = peek();
      if (tok.kind == Token::Kind::kWord &&
          (tok.text == "generic" || tok.text.starts_with("$") || tok.text.starts_with("_") ||
           std::isalpha(static_cast<unsigned char>(tok.text[0])) != 0)) {
        if (neg) return error_at(tok, "an address cannot be negated");
        if (auto st = address_initializer(v, ty); !st) return st;
        continue;
      }
      const Number n = tok.kind == Token::Kind::kWord ? parse_number(tok.text) : Number{};
      if (!n.ok)
        return error_at(tok, fmt::format("'{}': expected a number in the initializer of '{}'",
                                         tok.text, v.name));
      const std::uint32_t b = type_bytes(ty);
      if (v.init.size() + b > v.bytes)
        return error_at(tok, fmt::format("'{}': the initializer has more than its {} element{}",
                                         v.name, v.bytes / b, v.bytes / b == 1 ? "" : "s"));
      next();
      std::int64_t bits = n.bits;
      if (n.is_float && !is_float(ty))
        return error_at(tok, fmt::format("'{}': a float literal in the initializer of .{} '{}'",
                                         tok.text, type_name(ty), v.name));
      if ((ty == Type::kF32 || ty == Type::kF64) && !n.is_float && !tok.text.starts_with("0f") &&
          !tok.text.starts_with("0F") && !tok.text.starts_with("0d") &&
          !tok.text.starts_with("0D")) {
        // An integer literal for a float element: its value.
        double d = static_cast<double>(bits);
        std::memcpy(&bits, &d, 8);
      }
      if (n.is_float && ty != Type::kF32 && ty != Type::kF64)
        return error_at(tok, fmt::format("'{}': a decimal float initializes only .f32 and .f64 "
                                         "elements ('{}' is .{})",
                                         tok.text, v.name, type_name(ty)));
      if (ty == Type::kF32) {
        // f64 bits of a decimal literal (or of an integer's value) → f32; 0f.. is f32 already.
        const bool f32_bits = tok.text.starts_with("0f") || tok.text.starts_with("0F");
        if (!f32_bits) {
          double d = 0;
          std::memcpy(&d, &bits, 8);
          const float f = static_cast<float>(d);
          std::uint32_t u = 0;
          std::memcpy(&u, &f, 4);
          bits = u;
        }
      } else if (ty == Type::kF64 && (tok.text.starts_with("0f") || tok.text.starts_with("0F"))) {
        float f = 0;
        const auto u = static_cast<std::uint32_t>(bits);
        std::memcpy(&f, &u, 4);
        const double d = f;
        std::memcpy(&bits, &d, 8);
      }
      if (neg)  // a float's sign bit; an integer's two's complement
        bits = ty == Type::kF32   ? bits ^ 0x8000'0000ll
               : ty == Type::kF64 ? static_cast<std::int64_t>(static_cast<std::uint64_t>(bits) ^
                                                              (std::uint64_t{1} << 63))
                                  : negate(bits);
      for (std::uint32_t k = 0; k < b; ++k)
        v.init.push_back(static_cast<std::uint8_t>(static_cast<std::uint64_t>(bits) >> (8 * k)));
    } while (braces && accept(","));
    if (braces) return expect("}");
    return Ok{};
  }

  struct Name {
    enum class Kind : std::uint8_t { kReg, kVariable, kParam, kReturn } kind;
    std::uint32_t index;
  };
  const Name* lookup(std::string_view name) const {
    for (auto s = scopes_.rbegin(); s != scopes_.rend(); ++s) {
      const auto it = s->find(std::string(name));
      if (it != s->end()) return &it->second;
    }
    return nullptr;
  }

  // One instruction statement: `[@[!]%p] name operand, ... ;`.
  Status instruction() {
    Instruction in;
    const Token& first = peek();
    in.line = first.line;
    if (accept("@")) {
      const bool neg = accept("!");
      const Token& p = peek();
      auto name = word("a predicate register");
      if (!name) return name.errors();
      const Name* n = lookup(*name);
      if (n == nullptr || n->kind != Name::Kind::kReg)
        return error_at(p, fmt::format("undeclared predicate register '{}'", *name));
      if (fn_->register_types[n->index] != Type::kPred)
        return error_at(p, fmt::format("'{}' is not a predicate register", *name));
      in.guard = n->index;
      in.guard_negate = neg;
    }
    const Token& op_tok = peek();
    auto opname = word("an instruction");
    if (!opname) return opname.errors();
    std::vector<std::string_view> parts;
    {
      std::string_view s = *opname;
      std::size_t pos = 0;
      while (true) {
        const std::size_t dot = s.find('.', pos);
        parts.push_back(s.substr(pos, dot == std::string_view::npos ? s.npos : dot - pos));
        if (dot == std::string_view::npos) break;
        pos = dot + 1;
      }
    }
    std::vector<Operand> ops;
    std::vector<Token> op_toks;
    std::map<std::size_t, std::string> labels_of_ops;
    if (!at(";")) {
      do {
        op_toks.push_back(peek());
        auto o = operand(parts[0] == "call" || parts[0] == "bra" || parts[0] == "brx");
        if (!o) return o.errors();
        if (o->kind == Operand::Kind::kLabel) labels_of_ops[ops.size()] = last_label_;
        ops.push_back(*o);
      } while (accept(","));
    }
    if (auto st = expect(";"); !st) return st;
    if (ops.size() > 255) return error_at(op_tok, "too many operands");
    if (auto st = decode_name(parts, ops.size(), in); !st)
      return error_at(op_tok, st.error().message);
    if (auto st = check_register_types(in, ops, op_tok.text); !st)
      return error_at(op_tok, st.error().message);
    in.first = static_cast<std::uint32_t>(fn_->operands.size());
    in.count = static_cast<std::uint8_t>(ops.size());
    for (std::size_t k = 0; k < ops.size(); ++k) {
      if (ops[k].kind == Operand::Kind::kLabel)
        fixups_.push_back(
            {in.first + static_cast<std::uint32_t>(k), labels_of_ops[k], op_toks[k], scope_ids_});
      fn_->operands.push_back(ops[k]);
    }
    fn_->code.push_back(in);
    return Ok{};
  }

  // An operand. Vectors `{a, b}` and call lists `(a, b)` put their members in the pool.
  Result<Operand> operand(bool control) {
    Operand o;
    const Token& tok = peek();
    if (accept("{") || (control && at("("))) {
      const bool paren = tok.text == "(";
      if (paren) next();
      std::vector<Operand> members;
      if (!(paren ? at(")") : at("}"))) {
        do {
          if (at("{")) return error_at(peek(), "a vector operand cannot hold a vector");
          auto m = operand(false);
          if (!m) return m.errors();
          members.push_back(*m);
        } while (accept(","));
      }
      if (auto st = expect(paren ? ")" : "}"); !st) return st.errors();
      if (members.size() > 255) return error_at(tok, "too many members");
      o.kind = Operand::Kind::kVector;
      o.first = static_cast<std::uint32_t>(fn_->operands.size());
      o.count = static_cast<std::uint8_t>(members.size());
      for (const Operand& m : members)
        fn_->operands.push_back(m);
      return o;
    }
    if (accept("[")) {
      o.kind = Operand::Kind::kAddr;
      const Token& b = peek();
      if (b.kind == Token::Kind::kWord && parse_number(b.text).ok) {
        auto v = integer("an address");
        if (!v) return v.errors();
        o.imm = static_cast<std::int64_t>(*v);
      } else {
        auto name = word("an address");
        if (!name) return name.errors();
        if (auto st = resolve_base(*name, b, o); !st) return st.errors();
        if (at("+") || at("-")) {
          bool neg = next().text == "-";
          if (!neg && accept("-")) neg = true;  // nvcc writes [%r1+-128]
          auto v = integer("an offset");
          if (!v) return v.errors();
          o.imm = neg ? negate(static_cast<std::int64_t>(*v)) : static_cast<std::int64_t>(*v);
        }
      }
      if (accept(",")) {  // a tensor operand [tensorMap, {c0, c1, ...}]: the coordinates
        if (!at("{")) return error_at(peek(), "expected '{' and the tensor coordinates");
        auto coords = operand(false);
        if (!coords) return coords.errors();
        o.first = coords->first;
        o.count = coords->count;
      }
      if (auto st = expect("]"); !st) return st.errors();
      return o;
    }
    if (accept("!")) {
      auto r = operand(false);
      if (!r) return r.errors();
      if (r->kind != Operand::Kind::kReg)
        return error_at(tok, "'!' applies to a predicate register");
      r->negate = true;
      return r;
    }
    const bool neg = accept("-");
    const Token& w = peek();
    if (w.kind != Token::Kind::kWord) return error_at(w, "expected an operand");
    next();
    const Number n = parse_number(w.text);
    if (n.ok) {
      o.kind = Operand::Kind::kImm;
      o.imm = n.bits;
      if (neg) {
        if (n.is_float || w.text.starts_with("0f") || w.text.starts_with("0F") ||
            w.text.starts_with("0d") || w.text.starts_with("0D"))
          return error_at(w, "write a negative float as its 0f/0d bit pattern");
        o.imm = negate(n.bits);
      }
      if (n.is_float)
        return error_at(w, "write a float immediate as 0fXXXXXXXX or 0dXXXXXXXXXXXXXXXX");
      return o;
    }
    if (neg) return error_at(w, "'-' applies to a number");
    if (w.text == "_") {
      o.kind = Operand::Kind::kSink;
      return o;
    }
    if (w.text.starts_with("%")) {
      if (const Name* nm = lookup(w.text); nm != nullptr && nm->kind == Name::Kind::kReg) {
        o.kind = Operand::Kind::kReg;
        o.reg = nm->index;
        if (at("|")) {  // `%r|%p`: shfl's and setp's second destination, a two-member vector
          next();
          auto second = operand(false);
          if (!second) return second.errors();
          Operand v;
          v.kind = Operand::Kind::kVector;
          v.first = static_cast<std::uint32_t>(fn_->operands.size());
          v.count = 2;
          fn_->operands.push_back(o);
          fn_->operands.push_back(*second);
          return v;
        }
        return o;
      }
      if (auto sp = parse_special(w.text)) {
        o.kind = Operand::Kind::kSpecial;
        o.special = *sp;
        return o;
      }
      return error_at(w, fmt::format("undeclared register '{}'", w.text));
    }
    if (const Name* nm = lookup(w.text)) {
      if (nm->kind == Name::Kind::kReg) {
        o.kind = Operand::Kind::kReg;
        o.reg = nm->index;
        return o;
      }
      if (auto st = resolve_base(w.text, w, o); !st) return st.errors();
      o.kind = Operand::Kind::kSymbol;
      return o;
    }
    if (module_names_.contains(std::string(w.text))) {
      o.kind = Operand::Kind::kSymbol;
      o.symbol = static_cast<std::int32_t>(module_names_.at(std::string(w.text)));
      return o;
    }
    if (!control) {  // a function as a value: its address (a function pointer)
      if (const int f = find_function(w.text); f >= 0) {
        o.kind = Operand::Kind::kFunc;
        o.imm = f;
        return o;
      }
    }
    if (control) {
      if (const int f = find_function(w.text); f >= 0) {
        o.kind = Operand::Kind::kFunc;
        o.imm = f;
        return o;
      }
      o.kind = Operand::Kind::kLabel;
      last_label_ = std::string(w.text);
      return o;
    }
    return error_at(w, fmt::format("undeclared name '{}'", w.text));
  }

  // A name inside [..] or as a value: a register, a variable (its address), a param.
  Status resolve_base(std::string_view name, const Token& tok, Operand& o) {
    const Name* nm = lookup(name);
    if (nm == nullptr) {
      if (module_names_.contains(std::string(name))) {
        o.symbol = static_cast<std::int32_t>(module_names_.at(std::string(name)));
        return Ok{};
      }
      return error_at(tok, fmt::format("undeclared name '{}'", name));
    }
    switch (nm->kind) {
      case Name::Kind::kReg:
        o.reg = nm->index;
        return Ok{};
      case Name::Kind::kVariable:
        o.symbol = static_cast<std::int32_t>(nm->index);
        return Ok{};
      case Name::Kind::kParam:
      case Name::Kind::kReturn: {
        // Params become pseudo-variables: their offset in the function's param or return block.
        const Param& p =
            nm->kind == Name::Kind::kParam ? fn_->params[nm->index] : fn_->returns[nm->index];
        Variable v;
        v.name = p.name;
        v.space = Space::kParam;
        v.bytes = p.bytes;
        v.align = p.align;
        v.offset = p.offset;
        v.param_role = nm->kind == Name::Kind::kReturn ? Variable::ParamRole::kReturn
                                                       : Variable::ParamRole::kInput;
        o.symbol = static_cast<std::int32_t>(m_.variables.size());
        m_.variables.push_back(std::move(v));
        return Ok{};
      }
    }
    return Ok{};
  }

  struct Fixup {
    std::uint32_t operand;
    std::string label;
    Token tok;
    std::vector<std::uint32_t> scopes;  // the blocks open where the label is named
  };

  std::vector<Token> t_;
  std::size_t i_ = 0;
  std::string source_;
  Module m_;
  Function* fn_ = nullptr;
  std::vector<std::map<std::string, Name>> scopes_;
  std::map<std::string, std::uint32_t> module_names_;
  std::map<std::pair<std::uint32_t, std::string>, std::uint32_t> labels_;  // (block, name)
  std::vector<std::uint32_t> scope_ids_;
  std::uint32_t next_scope_ = 0;
  std::vector<Fixup> fixups_;
  std::string last_label_;
  std::vector<std::string> declared_;
  std::vector<Token> forward_;  // non-extern prototypes: each needs its body later
  std::uint64_t module_shared_ = 0;
  std::uint64_t local_bytes_ = 0;
  std::uint64_t local_param_bytes_ = 0;
  std::uint32_t shared_bytes_ = 0;
};

}  // namespace

Result<Module> parse_module(std::string_view text, const std::string& source) {
  auto toks = lex(text, source);
  if (!toks) return toks.errors();
  Parser p(std::move(*toks), source);
  auto m = p.run();
  if (!m) {  // names quoted from strings may hold control characters: each error is one line
    std::vector<Error> errors = m.errors();
    for (Error& e : errors)
      e.message = sim::one_line(e.message);
    return errors;
  }
  m->text = std::string(text);
  return m;
}

Result<Module> load_module(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return Error{fmt::format("{}: cannot read the PTX file: {}", path, std::strerror(errno))};
  std::ostringstream s;
  s << in.rdbuf();
  return parse_module(s.str(), path);
}

}  // namespace xpusim::ptx
