#include "estimator/cel/cel_program.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "estimator/cel/cel_functions.h"
#include "estimator/cel/cel_parser.h"

namespace gpua::cel {
namespace {

using Result = absl::StatusOr<Value>;

// The depth of the tree, without recursion: a long chain (a.b.c..., x || x || ...) parses
// into a deep tree even though no rule nests.
size_t TreeDepth(const Expr& root) {
  std::vector<std::pair<const Expr*, size_t>> stack = {{&root, 1}};
  size_t deepest = 0;
  while (!stack.empty()) {
    auto [e, d] = stack.back();
    stack.pop_back();
    deepest = std::max(deepest, d);
    for (const auto& a : e->args) stack.emplace_back(a.get(), d + 1);
  }
  return deepest;
}

class Evaluator {
 public:
  explicit Evaluator(const Bindings& vars) : vars_(vars) {}

  Result Eval(const Expr& e) {
    if (++steps_ > kMaxEvaluationSteps) {
      return absl::ResourceExhaustedError("the expression took too many steps to evaluate");
    }
    switch (e.kind) {
      case Expr::Kind::kLiteral:
        return e.literal;
      case Expr::Kind::kIdent:
        return Lookup(e);
      case Expr::Kind::kSelect:
        return Select(e, /*test_only=*/false);
      case Expr::Kind::kHas:
        return Select(e, /*test_only=*/true);
      case Expr::Kind::kIndex:
        return Index(e);
      case Expr::Kind::kCall:
        return Call(e);
      case Expr::Kind::kList:
        return ListLiteral(e);
      case Expr::Kind::kNot:
        return Not(e);
      case Expr::Kind::kNegate:
        return Negate(e);
      case Expr::Kind::kBinary:
        return Binary(e);
      case Expr::Kind::kAnd:
        return Logical(e, /*is_and=*/true);
      case Expr::Kind::kOr:
        return Logical(e, /*is_and=*/false);
      case Expr::Kind::kConditional:
        return Conditional(e);
      case Expr::Kind::kComprehension:
        return Comprehension(e);
      case Expr::Kind::kBind:
        return Bind(e);
    }
    return absl::InternalError("unknown expression kind");
  }

 private:
  Result Lookup(const Expr& e) const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      if (it->first == e.name) return it->second;
    }
    for (const auto& [name, value] : vars_) {
      if (name == e.name) return value;
    }
    return absl::InvalidArgumentError(absl::StrCat("undeclared reference to '", e.name, "'"));
  }

  Result Select(const Expr& e, bool test_only) {
    Result target = Eval(*e.args[0]);
    if (!target.ok()) return target;
    const Object* o = target->AsObject();
    if (o == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("cannot select field '", e.name, "' from ", target->TypeName()));
    }
    std::optional<Value> field = o->Field(e.name);
    if (test_only) return Value::Bool(field.has_value());
    if (!field) return absl::InvalidArgumentError(absl::StrCat("no such key: ", e.name));
    return *std::move(field);
  }

  Result Index(const Expr& e) {
    Result target = Eval(*e.args[0]);
    if (!target.ok()) return target;
    Result key = Eval(*e.args[1]);
    if (!key.ok()) return key;
    if (const List* l = target->AsList()) {
      int64_t i = -1;
      if (const auto* k = key->As<int64_t>()) {
        i = *k;
      } else if (const auto* u = key->As<uint64_t>()) {
        i = *u > uint64_t{INT64_MAX} ? -1 : static_cast<int64_t>(*u);
      } else {
        return absl::InvalidArgumentError(
            absl::StrCat("no such overload: list[", key->TypeName(), "]"));
      }
      if (i < 0 || i >= static_cast<int64_t>(l->size())) {
        return absl::InvalidArgumentError(absl::StrCat("index ", i, " out of range"));
      }
      return (*l)[i];
    }
    if (const Object* o = target->AsObject()) {
      const auto* k = key->As<std::string>();
      if (k == nullptr) {
        return absl::InvalidArgumentError(
            absl::StrCat("no such overload: ", o->TypeName(), "[", key->TypeName(), "]"));
      }
      std::optional<Value> field = o->Field(*k);
      if (!field) return absl::InvalidArgumentError(absl::StrCat("no such key: ", *k));
      return *std::move(field);
    }
    return absl::InvalidArgumentError(absl::StrCat("cannot index ", target->TypeName()));
  }

  Result Call(const Expr& e) {
    std::vector<Value> args;
    args.reserve(e.args.size());
    for (const auto& a : e.args) {
      Result v = Eval(*a);
      if (!v.ok()) return v;
      args.push_back(*std::move(v));
    }
    return CallFunction(e.name, e.member_call, args);
  }

  Result ListLiteral(const Expr& e) {
    List items;
    items.reserve(e.args.size());
    for (const auto& a : e.args) {
      Result v = Eval(*a);
      if (!v.ok()) return v;
      items.push_back(*std::move(v));
    }
    return Value::MakeList(std::move(items));
  }

  Result Not(const Expr& e) {
    Result v = Eval(*e.args[0]);
    if (!v.ok()) return v;
    const auto* b = v->As<bool>();
    if (b == nullptr)
      return absl::InvalidArgumentError(absl::StrCat("no such overload: !", v->TypeName()));
    return Value::Bool(!*b);
  }

  Result Negate(const Expr& e) {
    Result v = Eval(*e.args[0]);
    if (!v.ok()) return v;
    if (const auto* i = v->As<int64_t>()) {
      if (*i == INT64_MIN) return absl::InvalidArgumentError("integer overflow in -");
      return Value::Int(-*i);
    }
    if (const auto* d = v->As<double>()) return Value::Double(-*d);
    return absl::InvalidArgumentError(absl::StrCat("no such overload: -", v->TypeName()));
  }

  Result Binary(const Expr& e) {
    Result a = Eval(*e.args[0]);
    if (!a.ok()) return a;
    Result b = Eval(*e.args[1]);
    if (!b.ok()) return b;
    const std::string& op = e.name;
    if (op == "==") return Value::Bool(Equal(*a, *b));
    if (op == "!=") return Value::Bool(!Equal(*a, *b));
    if (op == "in") return In(*a, *b);
    if (op == "<" || op == "<=" || op == ">" || op == ">=") {
      std::optional<int> c = Order(*a, *b);
      if (!c) {
        return absl::InvalidArgumentError(
            absl::StrCat("no such overload: ", a->TypeName(), " ", op, " ", b->TypeName()));
      }
      if (op == "<") return Value::Bool(*c < 0);
      if (op == "<=") return Value::Bool(*c <= 0);
      if (op == ">") return Value::Bool(*c > 0);
      return Value::Bool(*c >= 0);
    }
    return Arithmetic(op, *a, *b);
  }

  static Result In(const Value& item, const Value& container) {
    if (const List* l = container.AsList()) {
      for (const Value& v : *l) {
        if (Equal(item, v)) return Value::Bool(true);
      }
      return Value::Bool(false);
    }
    if (const Object* o = container.AsObject()) {
      const auto* k = item.As<std::string>();
      return Value::Bool(k != nullptr && o->Field(*k).has_value());
    }
    return absl::InvalidArgumentError(
        absl::StrCat("no such overload: ", item.TypeName(), " in ", container.TypeName()));
  }

  // CEL's commutative && and ||: a side that decides wins over an error on the other.
  Result Logical(const Expr& e, bool is_and) {
    const bool decisive = !is_and;  // false decides &&, true decides ||
    Result a = Eval(*e.args[0]);
    const bool* ab = a.ok() ? a->As<bool>() : nullptr;
    if (ab != nullptr && *ab == decisive) return Value::Bool(decisive);
    Result b = Eval(*e.args[1]);
    const bool* bb = b.ok() ? b->As<bool>() : nullptr;
    if (bb != nullptr && *bb == decisive) return Value::Bool(decisive);
    if (!a.ok()) return a;
    if (ab == nullptr) return NotBool(is_and, *a);
    if (!b.ok()) return b;
    if (bb == nullptr) return NotBool(is_and, *b);
    return Value::Bool(!decisive);
  }

  static Result NotBool(bool is_and, const Value& v) {
    return absl::InvalidArgumentError(
        absl::StrCat("no such overload: ", is_and ? "&&" : "||", " on ", v.TypeName()));
  }

  Result Conditional(const Expr& e) {
    Result c = Eval(*e.args[0]);
    if (!c.ok()) return c;
    const auto* b = c->As<bool>();
    if (b == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("a condition must be a bool, not ", c->TypeName()));
    }
    return Eval(*e.args[*b ? 1 : 2]);
  }

  Result Bind(const Expr& e) {
    Result value = Eval(*e.args[0]);
    if (!value.ok()) return value;
    scopes_.emplace_back(e.var, *std::move(value));
    Result out = Eval(*e.args[1]);
    scopes_.pop_back();
    return out;
  }

  Result Comprehension(const Expr& e) {
    Result range = Eval(*e.args[0]);
    if (!range.ok()) return range;
    const List* items = range->AsList();
    if (items == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat(e.name, "() over ", range->TypeName(), " is not supported"));
    }
    const bool all = e.name == "all";
    const bool exists = e.name == "exists";
    List mapped;
    int64_t true_count = 0;
    absl::Status first_error;
    for (const Value& item : *items) {
      scopes_.emplace_back(e.var, item);
      Result v = Eval(*e.args[1]);
      scopes_.pop_back();
      if (e.name == "map") {
        if (!v.ok()) return v;
        mapped.push_back(*std::move(v));
        continue;
      }
      const bool* b = v.ok() ? v->As<bool>() : nullptr;
      if (b == nullptr) {
        absl::Status st = v.ok() ? absl::InvalidArgumentError(
                                       absl::StrCat(e.name, "() needs a bool, not ", v->TypeName()))
                                 : v.status();
        if (!all && !exists) return st;
        if (first_error.ok()) first_error = st;
        continue;
      }
      if (all && !*b) return Value::Bool(false);
      if (exists && *b) return Value::Bool(true);
      if (*b) ++true_count;
      if (e.name == "filter" && *b) mapped.push_back(item);
    }
    if (!first_error.ok()) return first_error;
    if (all) return Value::Bool(true);
    if (exists) return Value::Bool(false);
    if (e.name == "exists_one") return Value::Bool(true_count == 1);
    return Value::MakeList(std::move(mapped));
  }

  const Bindings& vars_;
  std::vector<std::pair<std::string, Value>> scopes_;
  int64_t steps_ = 0;
};

}  // namespace

absl::StatusOr<Program> Program::Compile(absl::string_view text) {
  absl::StatusOr<std::unique_ptr<Expr>> root = Parse(text);
  if (!root.ok()) return root.status();
  // Evaluation recurses along the tree: keep it shallow enough for any thread's stack.
  if (TreeDepth(**root) > size_t{4} * kMaxNesting) {
    return absl::InvalidArgumentError("the expression is nested too deeply");
  }
  return Program(std::shared_ptr<const Expr>(*std::move(root)), std::string(text));
}

absl::StatusOr<Value> Program::Evaluate(const Bindings& vars) const {
  return Evaluator(vars).Eval(*root_);
}

absl::StatusOr<bool> Program::EvaluateBool(const Bindings& vars) const {
  absl::StatusOr<Value> v = Evaluate(vars);
  if (!v.ok()) return v.status();
  const auto* b = v->As<bool>();
  if (b == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("the expression must return a bool, not ", v->TypeName()));
  }
  return *b;
}

}  // namespace gpua::cel
