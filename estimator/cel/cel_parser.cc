#include "estimator/cel/cel_parser.h"

#include <cerrno>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace gpua::cel {
namespace {

enum class Tok { kEnd, kInt, kUint, kDouble, kString, kIdent, kPunct };

struct Token {
  Tok kind = Tok::kEnd;
  std::string text;        // identifier, punctuation, or the decoded string
  uint64_t magnitude = 0;  // kInt (before any minus) and kUint
  double number = 0;
  size_t position = 0;
};

absl::Status ErrorAt(size_t position, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("at character ", position + 1, ": ", what));
}

bool IsIdentStart(char c) { return absl::ascii_isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool IsIdentChar(char c) {
  return IsIdentStart(c) || absl::ascii_isdigit(static_cast<unsigned char>(c));
}
bool IsDigit(char c) { return absl::ascii_isdigit(static_cast<unsigned char>(c)); }

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

class Lexer {
 public:
  explicit Lexer(absl::string_view text) : s_(text) {}

  absl::StatusOr<std::vector<Token>> All() {
    std::vector<Token> out;
    while (true) {
      SkipSpaceAndComments();
      if (i_ >= s_.size()) break;
      absl::StatusOr<Token> t = Next();
      if (!t.ok()) return t.status();
      out.push_back(*std::move(t));
    }
    out.push_back(Token{Tok::kEnd, "", 0, 0, s_.size()});
    return out;
  }

 private:
  void SkipSpaceAndComments() {
    while (i_ < s_.size()) {
      if (absl::ascii_isspace(static_cast<unsigned char>(s_[i_]))) {
        ++i_;
      } else if (s_.substr(i_, 2) == "//") {
        while (i_ < s_.size() && s_[i_] != '\n') ++i_;
      } else {
        break;
      }
    }
  }

  absl::StatusOr<Token> Next() {
    const size_t start = i_;
    const char c = s_[i_];
    if (IsDigit(c) || (c == '.' && i_ + 1 < s_.size() && IsDigit(s_[i_ + 1]))) return Number();
    // String prefixes: r/R (raw), b/B (bytes, read as a string), in either order.
    size_t p = i_;
    bool raw = false;
    while (p < s_.size() && p - i_ < 2 &&
           (s_[p] == 'r' || s_[p] == 'R' || s_[p] == 'b' || s_[p] == 'B')) {
      raw = raw || s_[p] == 'r' || s_[p] == 'R';
      ++p;
    }
    if (p < s_.size() && (s_[p] == '"' || s_[p] == '\'')) {
      i_ = p;
      return String(start, raw);
    }
    if (IsIdentStart(c)) {
      while (i_ < s_.size() && IsIdentChar(s_[i_])) ++i_;
      return Token{Tok::kIdent, std::string(s_.substr(start, i_ - start)), 0, 0, start};
    }
    static constexpr absl::string_view kTwo[] = {"<=", ">=", "==", "!=", "&&", "||"};
    for (absl::string_view two : kTwo) {
      if (s_.substr(i_, 2) == two) {
        i_ += 2;
        return Token{Tok::kPunct, std::string(two), 0, 0, start};
      }
    }
    static constexpr absl::string_view kOne = "()[]{}.,?:!-+*/%<>";
    if (kOne.find(c) != absl::string_view::npos) {
      ++i_;
      return Token{Tok::kPunct, std::string(1, c), 0, 0, start};
    }
    return ErrorAt(start, absl::StrCat("unexpected character '", std::string(1, c), "'"));
  }

  absl::StatusOr<Token> Number() {
    const size_t start = i_;
    if (s_.substr(i_, 2) == "0x" || s_.substr(i_, 2) == "0X") {
      i_ += 2;
      const size_t digits = i_;
      while (i_ < s_.size() && HexValue(s_[i_]) >= 0) ++i_;
      if (i_ == digits) return ErrorAt(start, "a hexadecimal literal needs digits");
      uint64_t v = 0;
      if (!absl::SimpleHexAtoi(s_.substr(digits, i_ - digits), &v)) {
        return ErrorAt(start, "integer literal out of range");
      }
      return IntegerSuffix(start, v);
    }
    while (i_ < s_.size() && IsDigit(s_[i_])) ++i_;
    bool is_double = false;
    if (i_ + 1 < s_.size() && s_[i_] == '.' && IsDigit(s_[i_ + 1])) {
      is_double = true;
      ++i_;
      while (i_ < s_.size() && IsDigit(s_[i_])) ++i_;
    }
    if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
      size_t e = i_ + 1;
      if (e < s_.size() && (s_[e] == '+' || s_[e] == '-')) ++e;
      if (e < s_.size() && IsDigit(s_[e])) {
        is_double = true;
        i_ = e;
        while (i_ < s_.size() && IsDigit(s_[i_])) ++i_;
      }
    }
    const std::string text(s_.substr(start, i_ - start));
    if (is_double) {
      errno = 0;
      const double d = std::strtod(text.c_str(), nullptr);
      if (errno == ERANGE && std::abs(d) > 1) return ErrorAt(start, "double literal out of range");
      return Token{Tok::kDouble, text, 0, d, start};
    }
    uint64_t v = 0;
    if (!absl::SimpleAtoi(text, &v)) return ErrorAt(start, "integer literal out of range");
    return IntegerSuffix(start, v);
  }

  Token IntegerSuffix(size_t start, uint64_t v) {
    if (i_ < s_.size() && (s_[i_] == 'u' || s_[i_] == 'U')) {
      ++i_;
      return Token{Tok::kUint, "", v, 0, start};
    }
    return Token{Tok::kInt, "", v, 0, start};
  }

  absl::StatusOr<Token> String(size_t start, bool raw) {
    const char quote = s_[i_];
    const bool triple = s_.substr(i_, 3) == std::string(3, quote);
    i_ += triple ? 3 : 1;
    std::string out;
    while (true) {
      if (i_ >= s_.size()) return ErrorAt(start, "unterminated string literal");
      if (triple ? s_.substr(i_, 3) == std::string(3, quote) : s_[i_] == quote) {
        i_ += triple ? 3 : 1;
        return Token{Tok::kString, std::move(out), 0, 0, start};
      }
      if (!triple && (s_[i_] == '\n' || s_[i_] == '\r')) {
        return ErrorAt(start, "a newline in a single-quoted string literal");
      }
      if (s_[i_] == '\\' && !raw) {
        absl::Status st = Escape(&out);
        if (!st.ok()) return st;
        continue;
      }
      out.push_back(s_[i_++]);
    }
  }

  absl::Status Escape(std::string* out) {
    const size_t at = i_;
    if (i_ + 1 >= s_.size()) return ErrorAt(at, "a string ends in a backslash");
    const char e = s_[i_ + 1];
    i_ += 2;
    switch (e) {
      case 'a':
        out->push_back('\a');
        return absl::OkStatus();
      case 'b':
        out->push_back('\b');
        return absl::OkStatus();
      case 'f':
        out->push_back('\f');
        return absl::OkStatus();
      case 'n':
        out->push_back('\n');
        return absl::OkStatus();
      case 'r':
        out->push_back('\r');
        return absl::OkStatus();
      case 't':
        out->push_back('\t');
        return absl::OkStatus();
      case 'v':
        out->push_back('\v');
        return absl::OkStatus();
      case '\\':
      case '?':
      case '"':
      case '\'':
      case '`':
        out->push_back(e);
        return absl::OkStatus();
      case 'x':
      case 'X':
        return Hex(at, 2, out);
      case 'u':
        return Hex(at, 4, out);
      case 'U':
        return Hex(at, 8, out);
      default:
        break;
    }
    if (e >= '0' && e <= '3' && i_ + 1 < s_.size() && s_[i_] >= '0' && s_[i_] <= '7' &&
        s_[i_ + 1] >= '0' && s_[i_ + 1] <= '7') {
      out->push_back(static_cast<char>((e - '0') * 64 + (s_[i_] - '0') * 8 + (s_[i_ + 1] - '0')));
      i_ += 2;
      return absl::OkStatus();
    }
    return ErrorAt(at, absl::StrCat("invalid escape \\", std::string(1, e)));
  }

  absl::Status Hex(size_t at, int digits, std::string* out) {
    uint32_t cp = 0;
    for (int k = 0; k < digits; ++k) {
      const int h = i_ < s_.size() ? HexValue(s_[i_]) : -1;
      if (h < 0) return ErrorAt(at, "a hexadecimal escape needs more digits");
      cp = cp * 16 + static_cast<uint32_t>(h);
      ++i_;
    }
    if (digits == 2) {
      out->push_back(static_cast<char>(cp));
      return absl::OkStatus();
    }
    if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
      return ErrorAt(at, "a unicode escape outside the valid code points");
    }
    AppendUtf8(cp, out);
    return absl::OkStatus();
  }

  absl::string_view s_;
  size_t i_ = 0;
};

const absl::flat_hash_set<std::string>& ReservedWords() {
  static const auto* const kWords = new absl::flat_hash_set<std::string>{
      "as",  "break", "const",   "continue",  "else",   "for", "function", "if",   "import",
      "let", "loop",  "package", "namespace", "return", "var", "void",     "while"};
  return *kWords;
}

std::unique_ptr<Expr> Node(Expr::Kind kind, size_t position) {
  auto e = std::make_unique<Expr>();
  e->kind = kind;
  e->position = position;
  return e;
}

class Parser {
 public:
  explicit Parser(std::vector<Token> tokens) : t_(std::move(tokens)) {}

  absl::StatusOr<std::unique_ptr<Expr>> Whole() {
    absl::StatusOr<std::unique_ptr<Expr>> e = Expression();
    if (!e.ok()) return e;
    if (Peek().kind != Tok::kEnd) return Unexpected();
    return e;
  }

 private:
  using Result = absl::StatusOr<std::unique_ptr<Expr>>;

  const Token& Peek() const { return t_[i_]; }
  bool IsPunct(absl::string_view p) const { return Peek().kind == Tok::kPunct && Peek().text == p; }
  bool Accept(absl::string_view p) {
    if (!IsPunct(p)) return false;
    ++i_;
    return true;
  }
  absl::Status Expect(absl::string_view p) {
    if (Accept(p)) return absl::OkStatus();
    return ErrorAt(Peek().position, absl::StrCat("expected '", p, "'"));
  }
  absl::Status Unexpected() const {
    if (Peek().kind == Tok::kEnd) return ErrorAt(Peek().position, "unexpected end of expression");
    return ErrorAt(Peek().position, "unexpected token");
  }

  // Counts nesting on entry to each recursive rule; restores it on exit.
  struct Depth {
    explicit Depth(int* d) : d_(d) { ++*d_; }
    ~Depth() { --*d_; }
    Depth(const Depth&) = delete;
    Depth& operator=(const Depth&) = delete;
    int* d_;
  };

  Result Expression() {
    Depth depth(&depth_);
    if (depth_ > kMaxNesting) return ErrorAt(Peek().position, "expression nested too deeply");
    const size_t at = Peek().position;
    Result cond = Or();
    if (!cond.ok() || !Accept("?")) return cond;
    Result then = Or();
    if (!then.ok()) return then;
    if (absl::Status st = Expect(":"); !st.ok()) return st;
    Result otherwise = Expression();
    if (!otherwise.ok()) return otherwise;
    auto e = Node(Expr::Kind::kConditional, at);
    e->args.push_back(*std::move(cond));
    e->args.push_back(*std::move(then));
    e->args.push_back(*std::move(otherwise));
    return e;
  }

  Result Or() { return Logical("||", Expr::Kind::kOr, &Parser::And); }
  Result And() { return Logical("&&", Expr::Kind::kAnd, &Parser::Relation); }

  Result Logical(absl::string_view op, Expr::Kind kind, Result (Parser::*operand)()) {
    Result left = (this->*operand)();
    if (!left.ok()) return left;
    while (IsPunct(op)) {
      const size_t at = Peek().position;
      ++i_;
      Result right = (this->*operand)();
      if (!right.ok()) return right;
      auto e = Node(kind, at);
      e->args.push_back(*std::move(left));
      e->args.push_back(*std::move(right));
      left = std::move(e);
    }
    return left;
  }

  Result Relation() {
    static constexpr absl::string_view kOps[] = {"<", "<=", ">", ">=", "==", "!="};
    return Binary(kOps, /*with_in=*/true, &Parser::Addition);
  }
  Result Addition() {
    static constexpr absl::string_view kOps[] = {"+", "-"};
    return Binary(kOps, false, &Parser::Multiplication);
  }
  Result Multiplication() {
    static constexpr absl::string_view kOps[] = {"*", "/", "%"};
    return Binary(kOps, false, &Parser::Unary);
  }

  template <size_t N>
  Result Binary(const absl::string_view (&ops)[N], bool with_in, Result (Parser::*operand)()) {
    Result left = (this->*operand)();
    if (!left.ok()) return left;
    while (true) {
      std::string op;
      for (absl::string_view o : ops) {
        if (IsPunct(o)) op = std::string(o);
      }
      if (op.empty() && with_in && Peek().kind == Tok::kIdent && Peek().text == "in") op = "in";
      if (op.empty()) return left;
      const size_t at = Peek().position;
      ++i_;
      Result right = (this->*operand)();
      if (!right.ok()) return right;
      auto e = Node(Expr::Kind::kBinary, at);
      e->name = op;
      e->args.push_back(*std::move(left));
      e->args.push_back(*std::move(right));
      left = std::move(e);
    }
  }

  Result Unary() {
    Depth depth(&depth_);
    if (depth_ > kMaxNesting) return ErrorAt(Peek().position, "expression nested too deeply");
    const size_t at = Peek().position;
    if (Accept("!")) {
      Result operand = Unary();
      if (!operand.ok()) return operand;
      auto e = Node(Expr::Kind::kNot, at);
      e->args.push_back(*std::move(operand));
      return e;
    }
    if (Accept("-")) {
      // A minus directly before an integer literal is part of it, so the smallest int64
      // can be written.
      if (Peek().kind == Tok::kInt) {
        const uint64_t m = Peek().magnitude;
        if (m > uint64_t{1} << 63) return ErrorAt(Peek().position, "integer literal out of range");
        ++i_;
        auto lit = Node(Expr::Kind::kLiteral, at);
        lit->literal = Value::Int(m == uint64_t{1} << 63 ? INT64_MIN : -static_cast<int64_t>(m));
        return Postfix(std::move(lit));
      }
      Result operand = Unary();
      if (!operand.ok()) return operand;
      auto e = Node(Expr::Kind::kNegate, at);
      e->args.push_back(*std::move(operand));
      return e;
    }
    Result primary = Primary();
    if (!primary.ok()) return primary;
    return Postfix(*std::move(primary));
  }

  Result Postfix(std::unique_ptr<Expr> target) {
    while (true) {
      const size_t at = Peek().position;
      if (Accept(".")) {
        if (Peek().kind != Tok::kIdent) return ErrorAt(Peek().position, "expected a field name");
        std::string name = Peek().text;
        ++i_;
        if (IsPunct("(")) {
          absl::StatusOr<std::unique_ptr<Expr>> call = MemberCall(std::move(target), name, at);
          if (!call.ok()) return call;
          target = *std::move(call);
          continue;
        }
        auto e = Node(Expr::Kind::kSelect, at);
        e->name = std::move(name);
        e->args.push_back(std::move(target));
        target = std::move(e);
      } else if (Accept("[")) {
        Result index = Expression();
        if (!index.ok()) return index;
        if (absl::Status st = Expect("]"); !st.ok()) return st;
        auto e = Node(Expr::Kind::kIndex, at);
        e->args.push_back(std::move(target));
        e->args.push_back(*std::move(index));
        target = std::move(e);
      } else {
        return target;
      }
    }
  }

  Result MemberCall(std::unique_ptr<Expr> target, const std::string& name, size_t at) {
    absl::StatusOr<std::vector<std::unique_ptr<Expr>>> args = Arguments();
    if (!args.ok()) return args.status();
    static const absl::flat_hash_set<std::string> kMacros = {"all", "exists", "exists_one", "map",
                                                             "filter"};
    if (kMacros.contains(name)) {
      if (args->size() != 2 || (*args)[0]->kind != Expr::Kind::kIdent) {
        return ErrorAt(at, absl::StrCat(name, "() takes a variable name and an expression"));
      }
      auto e = Node(Expr::Kind::kComprehension, at);
      e->name = name;
      e->var = (*args)[0]->name;
      e->args.push_back(std::move(target));
      e->args.push_back(std::move((*args)[1]));
      return e;
    }
    // cel.bind(var, init, body): Kubernetes enables it for selectors.
    if (name == "bind" && target->kind == Expr::Kind::kIdent && target->name == "cel") {
      if (args->size() != 3 || (*args)[0]->kind != Expr::Kind::kIdent) {
        return ErrorAt(at, "cel.bind() takes a variable name, a value and an expression");
      }
      auto e = Node(Expr::Kind::kBind, at);
      e->var = (*args)[0]->name;
      e->args.push_back(std::move((*args)[1]));
      e->args.push_back(std::move((*args)[2]));
      return e;
    }
    auto e = Node(Expr::Kind::kCall, at);
    e->name = name;
    e->member_call = true;
    e->args.push_back(std::move(target));
    for (auto& a : *args) e->args.push_back(std::move(a));
    return e;
  }

  absl::StatusOr<std::vector<std::unique_ptr<Expr>>> Arguments() {
    if (absl::Status st = Expect("("); !st.ok()) return st;
    std::vector<std::unique_ptr<Expr>> out;
    if (Accept(")")) return out;
    while (true) {
      Result a = Expression();
      if (!a.ok()) return a.status();
      out.push_back(*std::move(a));
      if (Accept(")")) return out;
      if (absl::Status st = Expect(","); !st.ok()) return st;
    }
  }

  Result Primary() {
    const Token tok = Peek();
    switch (tok.kind) {
      case Tok::kInt: {
        if (tok.magnitude > uint64_t{INT64_MAX}) {
          return ErrorAt(tok.position, "integer literal out of range");
        }
        ++i_;
        auto e = Node(Expr::Kind::kLiteral, tok.position);
        e->literal = Value::Int(static_cast<int64_t>(tok.magnitude));
        return e;
      }
      case Tok::kUint:
      case Tok::kDouble:
      case Tok::kString: {
        ++i_;
        auto e = Node(Expr::Kind::kLiteral, tok.position);
        e->literal = tok.kind == Tok::kUint     ? Value::Uint(tok.magnitude)
                     : tok.kind == Tok::kDouble ? Value::Double(tok.number)
                                                : Value::String(tok.text);
        return e;
      }
      case Tok::kIdent:
        return Identifier();
      case Tok::kPunct:
        break;
      case Tok::kEnd:
        return Unexpected();
    }
    if (Accept("(")) {
      Result inner = Expression();
      if (!inner.ok()) return inner;
      if (absl::Status st = Expect(")"); !st.ok()) return st;
      return inner;
    }
    if (Accept("[")) return ListLiteral(tok.position);
    if (IsPunct("{")) return ErrorAt(tok.position, "map literals are not supported");
    if (Accept(".")) {
      if (Peek().kind != Tok::kIdent) return ErrorAt(Peek().position, "expected an identifier");
      return Identifier();
    }
    return Unexpected();
  }

  Result Identifier() {
    const Token tok = Peek();
    ++i_;
    if (ReservedWords().contains(tok.text)) {
      return ErrorAt(tok.position, absl::StrCat("reserved word '", tok.text, "'"));
    }
    if (tok.text == "true" || tok.text == "false" || tok.text == "null") {
      auto e = Node(Expr::Kind::kLiteral, tok.position);
      e->literal = tok.text == "null" ? Value() : Value::Bool(tok.text == "true");
      return e;
    }
    if (tok.text == "in") return ErrorAt(tok.position, "unexpected 'in'");
    if (!IsPunct("(")) {
      auto e = Node(Expr::Kind::kIdent, tok.position);
      e->name = tok.text;
      return e;
    }
    absl::StatusOr<std::vector<std::unique_ptr<Expr>>> args = Arguments();
    if (!args.ok()) return args.status();
    if (tok.text == "has") {
      if (args->size() != 1 || (*args)[0]->kind != Expr::Kind::kSelect) {
        return ErrorAt(tok.position, "has() takes one field selection, as in has(a.b)");
      }
      std::unique_ptr<Expr> select = std::move((*args)[0]);
      select->kind = Expr::Kind::kHas;
      return select;
    }
    auto e = Node(Expr::Kind::kCall, tok.position);
    e->name = tok.text;
    e->args = *std::move(args);
    return e;
  }

  Result ListLiteral(size_t at) {
    auto e = Node(Expr::Kind::kList, at);
    if (Accept("]")) return e;
    while (true) {
      Result item = Expression();
      if (!item.ok()) return item;
      e->args.push_back(*std::move(item));
      if (Accept("]")) return e;
      if (absl::Status st = Expect(","); !st.ok()) return st;
      if (Accept("]")) return e;  // a trailing comma
    }
  }

  std::vector<Token> t_;
  size_t i_ = 0;
  int depth_ = 0;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Expr>> Parse(absl::string_view text) {
  if (text.size() > kMaxExpressionBytes) {
    return absl::InvalidArgumentError(absl::StrCat("the expression is ", text.size(),
                                                   " bytes long, more than the limit of ",
                                                   kMaxExpressionBytes));
  }
  absl::StatusOr<std::vector<Token>> tokens = Lexer(text).All();
  if (!tokens.ok()) return tokens.status();
  return Parser(*std::move(tokens)).Whole();
}

}  // namespace gpua::cel
