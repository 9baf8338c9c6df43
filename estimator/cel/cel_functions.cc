#include "estimator/cel/cel_functions.h"

#include <re2/re2.h>

#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"

namespace gpua::cel {
namespace {

using Args = std::vector<Value>;

absl::Status NoOverload(absl::string_view name, const Args& args) {
  std::string types;
  for (const Value& a : args) absl::StrAppend(&types, types.empty() ? "" : ", ", a.TypeName());
  return absl::InvalidArgumentError(absl::StrCat("no such overload: ", name, "(", types, ")"));
}

absl::Status Overflow(absl::string_view op) {
  return absl::InvalidArgumentError(absl::StrCat("integer overflow in ", op));
}

// CEL strings index by code point.
std::vector<size_t> CodePointStarts(const std::string& s) {
  std::vector<size_t> starts;
  for (size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) starts.push_back(i);
  }
  starts.push_back(s.size());
  return starts;
}

absl::StatusOr<Value> IntArithmetic(absl::string_view op, int64_t a, int64_t b) {
  int64_t r = 0;
  if (op == "+") {
    if (__builtin_add_overflow(a, b, &r)) return Overflow(op);
  } else if (op == "-") {
    if (__builtin_sub_overflow(a, b, &r)) return Overflow(op);
  } else if (op == "*") {
    if (__builtin_mul_overflow(a, b, &r)) return Overflow(op);
  } else {
    if (b == 0)
      return absl::InvalidArgumentError(op == "/" ? "division by zero" : "modulus by zero");
    if (a == INT64_MIN && b == -1) return Overflow(op);
    r = op == "/" ? a / b : a % b;
  }
  return Value::Int(r);
}

absl::StatusOr<Value> UintArithmetic(absl::string_view op, uint64_t a, uint64_t b) {
  uint64_t r = 0;
  if (op == "+") {
    if (__builtin_add_overflow(a, b, &r)) return Overflow(op);
  } else if (op == "-") {
    if (__builtin_sub_overflow(a, b, &r)) return Overflow(op);
  } else if (op == "*") {
    if (__builtin_mul_overflow(a, b, &r)) return Overflow(op);
  } else {
    if (b == 0)
      return absl::InvalidArgumentError(op == "/" ? "division by zero" : "modulus by zero");
    r = op == "/" ? a / b : a % b;
  }
  return Value::Uint(r);
}

// int(), uint() and double() conversions.
absl::StatusOr<Value> ToInt(const Value& v) {
  if (const auto* i = v.As<int64_t>()) return Value::Int(*i);
  if (const auto* u = v.As<uint64_t>()) {
    if (*u > uint64_t{INT64_MAX}) return absl::InvalidArgumentError("int() range error");
    return Value::Int(static_cast<int64_t>(*u));
  }
  if (const auto* d = v.As<double>()) {
    if (!(*d > -9.2233720368547758e18 && *d < 9.2233720368547758e18)) {
      return absl::InvalidArgumentError("int() range error");
    }
    return Value::Int(static_cast<int64_t>(*d));
  }
  if (const auto* s = v.As<std::string>()) {
    int64_t out = 0;
    if (!absl::SimpleAtoi(*s, &out)) {
      return absl::InvalidArgumentError(absl::StrCat("int(\"", *s, "\"): not an integer"));
    }
    return Value::Int(out);
  }
  return NoOverload("int", {v});
}

absl::StatusOr<Value> ToUint(const Value& v) {
  if (const auto* u = v.As<uint64_t>()) return Value::Uint(*u);
  if (const auto* i = v.As<int64_t>()) {
    if (*i < 0) return absl::InvalidArgumentError("uint() range error");
    return Value::Uint(static_cast<uint64_t>(*i));
  }
  if (const auto* d = v.As<double>()) {
    if (!(*d > -1 && *d < 1.8446744073709552e19)) {
      return absl::InvalidArgumentError("uint() range error");
    }
    return Value::Uint(static_cast<uint64_t>(*d));
  }
  if (const auto* s = v.As<std::string>()) {
    uint64_t out = 0;
    if (!absl::SimpleAtoi(*s, &out)) {
      return absl::InvalidArgumentError(absl::StrCat("uint(\"", *s, "\"): not an integer"));
    }
    return Value::Uint(out);
  }
  return NoOverload("uint", {v});
}

absl::StatusOr<Value> ToDouble(const Value& v) {
  if (const auto* d = v.As<double>()) return Value::Double(*d);
  if (const auto* i = v.As<int64_t>()) return Value::Double(static_cast<double>(*i));
  if (const auto* u = v.As<uint64_t>()) return Value::Double(static_cast<double>(*u));
  if (const auto* s = v.As<std::string>()) {
    double out = 0;
    if (!absl::SimpleAtod(*s, &out)) {
      return absl::InvalidArgumentError(absl::StrCat("double(\"", *s, "\"): not a number"));
    }
    return Value::Double(out);
  }
  return NoOverload("double", {v});
}

absl::StatusOr<Value> ToStringValue(const Value& v) {
  if (const auto* s = v.As<std::string>()) return Value::String(*s);
  if (const auto* b = v.As<bool>()) return Value::String(*b ? "true" : "false");
  if (const auto* i = v.As<int64_t>()) return Value::String(absl::StrCat(*i));
  if (const auto* u = v.As<uint64_t>()) return Value::String(absl::StrCat(*u));
  if (const auto* d = v.As<double>()) return Value::String(absl::StrCat(*d));
  if (const auto* q = v.As<Quantity>()) return Value::String(q->ToString());
  if (const auto* s = v.As<Semver>()) return Value::String(s->ToString());
  return NoOverload("string", {v});
}

// RE2 is the syntax CEL's `matches` is defined with. Compiled patterns are kept: a selector
// is evaluated once per device, with the same few patterns.
absl::StatusOr<bool> Matches(const std::string& text, const std::string& pattern) {
  static absl::Mutex mu;
  static auto* cache = new absl::flat_hash_map<std::string, std::shared_ptr<const RE2>>();
  std::shared_ptr<const RE2> re;
  {
    absl::MutexLock lock(&mu);
    if (auto it = cache->find(pattern); it != cache->end()) re = it->second;
  }
  if (re == nullptr) {
    RE2::Options options;
    options.set_log_errors(false);
    auto compiled = std::make_shared<const RE2>(pattern, options);
    if (!compiled->ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("invalid regular expression \"", pattern, "\": ", compiled->error()));
    }
    absl::MutexLock lock(&mu);
    if (cache->size() > 1024) cache->clear();
    re = cache->emplace(pattern, std::move(compiled)).first->second;
  }
  return RE2::PartialMatch(text, *re);
}

// Kubernetes' semver(s, true): a leading "v", missing minor or patch numbers and leading
// zeros are accepted and normalized.
std::string NormalizeSemver(absl::string_view s) {
  if (absl::StartsWith(s, "v")) s.remove_prefix(1);
  size_t core_end = s.find_first_of("-+");
  if (core_end == absl::string_view::npos) core_end = s.size();
  std::vector<std::string> parts = absl::StrSplit(s.substr(0, core_end), '.');
  for (std::string& p : parts) {
    const size_t nz = p.find_first_not_of('0');
    if (p.size() > 1) p = nz == std::string::npos ? "0" : p.substr(nz);
  }
  while (parts.size() < 3) parts.emplace_back("0");
  return absl::StrCat(absl::StrJoin(parts, "."), s.substr(core_end));
}

absl::StatusOr<Value> StringMethod(absl::string_view name, const std::string& s, const Args& args) {
  const auto str = [&](size_t i) { return args.size() > i ? args[i].As<std::string>() : nullptr; };
  const auto integer = [&](size_t i) { return args.size() > i ? args[i].As<int64_t>() : nullptr; };
  if (name == "size" && args.size() == 1) {
    return Value::Int(static_cast<int64_t>(CodePointStarts(s).size() - 1));
  }
  if (args.size() == 2 && str(1) != nullptr) {
    const std::string& a = *str(1);
    if (name == "startsWith") return Value::Bool(absl::StartsWith(s, a));
    if (name == "endsWith") return Value::Bool(absl::EndsWith(s, a));
    if (name == "contains") return Value::Bool(absl::StrContains(s, a));
    if (name == "matches") {
      absl::StatusOr<bool> m = Matches(s, a);
      if (!m.ok()) return m.status();
      return Value::Bool(*m);
    }
  }
  if (args.size() == 1) {
    if (name == "lowerAscii") return Value::String(absl::AsciiStrToLower(s));
    if (name == "upperAscii") return Value::String(absl::AsciiStrToUpper(s));
    if (name == "trim") return Value::String(std::string(absl::StripAsciiWhitespace(s)));
  }
  const std::vector<size_t> cp = CodePointStarts(s);
  const auto n = static_cast<int64_t>(cp.size() - 1);
  const auto index_of_byte = [&](size_t byte) {
    return static_cast<int64_t>(std::lower_bound(cp.begin(), cp.end(), byte) - cp.begin());
  };
  if ((name == "indexOf" || name == "lastIndexOf") && str(1) != nullptr &&
      (args.size() == 2 || (args.size() == 3 && integer(2) != nullptr))) {
    const bool last = name == "lastIndexOf";
    int64_t from = args.size() == 3 ? *integer(2) : (last ? n : 0);
    if (from < 0 || from > n)
      return absl::InvalidArgumentError(absl::StrCat(name, ": index out of range"));
    const size_t pos = last ? s.rfind(*str(1), cp[from]) : s.find(*str(1), cp[from]);
    return Value::Int(pos == std::string::npos ? -1 : index_of_byte(pos));
  }
  if (name == "charAt" && args.size() == 2 && integer(1) != nullptr) {
    const int64_t i = *integer(1);
    if (i < 0 || i > n) return absl::InvalidArgumentError("charAt: index out of range");
    return Value::String(i == n ? "" : s.substr(cp[i], cp[i + 1] - cp[i]));
  }
  if (name == "substring" && integer(1) != nullptr &&
      (args.size() == 2 || (args.size() == 3 && integer(2) != nullptr))) {
    const int64_t b = *integer(1);
    const int64_t e = args.size() == 3 ? *integer(2) : n;
    if (b < 0 || e > n || b > e) return absl::InvalidArgumentError("substring: index out of range");
    return Value::String(s.substr(cp[b], cp[e] - cp[b]));
  }
  if (name == "replace" && str(1) != nullptr && str(2) != nullptr && args.size() == 3) {
    if (str(1)->empty()) return absl::InvalidArgumentError("replace: empty search string");
    return Value::String(absl::StrReplaceAll(s, {{*str(1), *str(2)}}));
  }
  if (name == "split" && str(1) != nullptr && args.size() == 2) {
    List parts;
    if (str(1)->empty()) {
      for (size_t i = 0; i + 1 < cp.size(); ++i)
        parts.push_back(Value::String(s.substr(cp[i], cp[i + 1] - cp[i])));
    } else {
      for (absl::string_view p : absl::StrSplit(s, *str(1)))
        parts.push_back(Value::String(std::string(p)));
    }
    return Value::MakeList(std::move(parts));
  }
  return NoOverload(name, args);
}

absl::StatusOr<Value> QuantityMethod(absl::string_view name, const Quantity& q, const Args& args) {
  if (args.size() == 1) {
    if (name == "sign") return Value::Int(q.Sign());
    if (name == "isInteger") return Value::Bool(q.nanos() % Quantity::kNanosPerUnit == 0);
    if (name == "asApproximateFloat") {
      return Value::Double(static_cast<double>(q.nanos()) / Quantity::kNanosPerUnit);
    }
    if (name == "asInteger") {
      if (q.nanos() % Quantity::kNanosPerUnit != 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("asInteger: ", q.ToString(), " is not a whole number"));
      }
      const Quantity::Nanos units = q.nanos() / Quantity::kNanosPerUnit;
      if (units > INT64_MAX || units < INT64_MIN) return Overflow("asInteger");
      return Value::Int(static_cast<int64_t>(units));
    }
  }
  if (args.size() != 2) return NoOverload(name, args);
  Quantity other;
  if (const auto* o = args[1].As<Quantity>()) {
    other = *o;
  } else if (const auto* i = args[1].As<int64_t>();
             i != nullptr && (name == "add" || name == "sub")) {
    other = Quantity::FromUnits(*i);
  } else {
    return NoOverload(name, args);
  }
  const int c = q < other ? -1 : (q == other ? 0 : 1);
  if (name == "compareTo") return Value::Int(c);
  if (name == "isGreaterThan") return Value::Bool(c > 0);
  if (name == "isLessThan") return Value::Bool(c < 0);
  if (name == "add") return Value::MakeQuantity(q + other);
  if (name == "sub") return Value::MakeQuantity(q - other);
  return NoOverload(name, args);
}

absl::StatusOr<Value> SemverMethod(absl::string_view name, const Semver& v, const Args& args) {
  if (args.size() == 1) {
    if (name == "major") return Value::Int(static_cast<int64_t>(v.major));
    if (name == "minor") return Value::Int(static_cast<int64_t>(v.minor));
    if (name == "patch") return Value::Int(static_cast<int64_t>(v.patch));
  }
  const Semver* other = args.size() == 2 ? args[1].As<Semver>() : nullptr;
  if (other == nullptr) return NoOverload(name, args);
  const int c = v.Compare(*other);
  if (name == "compareTo") return Value::Int(c < 0 ? -1 : (c == 0 ? 0 : 1));
  if (name == "isGreaterThan") return Value::Bool(c > 0);
  if (name == "isLessThan") return Value::Bool(c < 0);
  return NoOverload(name, args);
}

absl::StatusOr<Value> ListMethod(absl::string_view name, const List& l, const Args& args) {
  if (name == "size" && args.size() == 1) return Value::Int(static_cast<int64_t>(l.size()));
  if (name == "join" && (args.size() == 1 || (args.size() == 2 && args[1].As<std::string>()))) {
    const std::string sep = args.size() == 2 ? *args[1].As<std::string>() : "";
    std::string out;
    for (size_t i = 0; i < l.size(); ++i) {
      const auto* s = l[i].As<std::string>();
      if (s == nullptr) return absl::InvalidArgumentError("join: the list holds a non-string");
      absl::StrAppend(&out, i == 0 ? "" : sep, *s);
    }
    return Value::String(std::move(out));
  }
  return NoOverload(name, args);
}

absl::StatusOr<Value> Method(absl::string_view name, const Args& args) {
  const Value& self = args[0];
  if (const auto* s = self.As<std::string>()) return StringMethod(name, *s, args);
  if (const auto* q = self.As<Quantity>()) return QuantityMethod(name, *q, args);
  if (const auto* v = self.As<Semver>()) return SemverMethod(name, *v, args);
  if (const List* l = self.AsList()) return ListMethod(name, *l, args);
  return NoOverload(name, args);
}

absl::StatusOr<Value> Global(absl::string_view name, const Args& args) {
  if (args.size() == 1) {
    const Value& a = args[0];
    if (name == "int") return ToInt(a);
    if (name == "uint") return ToUint(a);
    if (name == "double") return ToDouble(a);
    if (name == "string") return ToStringValue(a);
    if (name == "size") return Method("size", args);
    if (name == "bool") {
      const auto* s = a.As<std::string>();
      if (a.As<bool>() != nullptr) return a;
      if (s != nullptr && (*s == "true" || *s == "false")) return Value::Bool(*s == "true");
    }
  }
  const std::string* text = !args.empty() ? args[0].As<std::string>() : nullptr;
  if (text != nullptr && args.size() == 1 && (name == "quantity" || name == "isQuantity")) {
    absl::StatusOr<Quantity> q = Quantity::Parse(*text);
    if (name == "isQuantity") return Value::Bool(q.ok());
    if (!q.ok())
      return absl::InvalidArgumentError(absl::StrCat("quantity: ", q.status().message()));
    return Value::MakeQuantity(*q);
  }
  if (text != nullptr && (name == "semver" || name == "isSemver") &&
      (args.size() == 1 || (args.size() == 2 && args[1].As<bool>() != nullptr))) {
    const bool normalize = args.size() == 2 && *args[1].As<bool>();
    absl::StatusOr<Semver> v = Semver::Parse(normalize ? NormalizeSemver(*text) : *text);
    if (name == "isSemver") return Value::Bool(v.ok());
    if (!v.ok()) return absl::InvalidArgumentError(absl::StrCat("semver: ", v.status().message()));
    return Value::MakeSemver(*std::move(v));
  }
  if (name == "matches" && args.size() == 2) return Method(name, args);
  return NoOverload(name, args);
}

}  // namespace

absl::StatusOr<Value> Arithmetic(absl::string_view op, const Value& a, const Value& b) {
  if (const auto* x = a.As<int64_t>()) {
    if (const auto* y = b.As<int64_t>()) return IntArithmetic(op, *x, *y);
  }
  if (const auto* x = a.As<uint64_t>()) {
    if (const auto* y = b.As<uint64_t>()) return UintArithmetic(op, *x, *y);
  }
  if (const auto* x = a.As<double>(); x != nullptr && op != "%") {
    if (const auto* y = b.As<double>()) {
      if (op == "+") return Value::Double(*x + *y);
      if (op == "-") return Value::Double(*x - *y);
      if (op == "*") return Value::Double(*x * *y);
      return Value::Double(*x / *y);
    }
  }
  if (op == "+") {
    const auto* x = a.As<std::string>();
    const auto* y = b.As<std::string>();
    if (x != nullptr && y != nullptr) return Value::String(*x + *y);
    const List* lx = a.AsList();
    const List* ly = b.AsList();
    if (lx != nullptr && ly != nullptr) {
      List out = *lx;
      out.insert(out.end(), ly->begin(), ly->end());
      return Value::MakeList(std::move(out));
    }
  }
  return NoOverload(absl::StrCat("_", op, "_"), {a, b});
}

absl::StatusOr<Value> CallFunction(absl::string_view name, bool member, const Args& args) {
  if (member) return Method(name, args);
  return Global(name, args);
}

}  // namespace gpua::cel
