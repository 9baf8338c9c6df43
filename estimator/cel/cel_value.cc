#include "estimator/cel/cel_value.h"

#include <cmath>
#include <limits>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace gpua::cel {
namespace {

bool IsNumericIdentifier(absl::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

bool IsIdentifierChar(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '-';
}

absl::StatusOr<uint64_t> ParseCore(absl::string_view part, absl::string_view whole) {
  uint64_t n = 0;
  if (!IsNumericIdentifier(part) || (part.size() > 1 && part[0] == '0') ||
      !absl::SimpleAtoi(part, &n)) {
    return absl::InvalidArgumentError(
        absl::StrCat("\"", whole, "\" is not a semantic version (MAJOR.MINOR.PATCH)"));
  }
  return n;
}

// Numeric identifiers order numerically and before alphanumeric ones, which order as text.
int CompareIdentifier(const std::string& a, const std::string& b) {
  const bool an = IsNumericIdentifier(a);
  const bool bn = IsNumericIdentifier(b);
  if (an && bn) {
    if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
    return a.compare(b) < 0 ? -1 : (a == b ? 0 : 1);
  }
  if (an != bn) return an ? -1 : 1;
  return a.compare(b) < 0 ? -1 : (a == b ? 0 : 1);
}

template <typename T>
int Cmp(T a, T b) {
  return a < b ? -1 : (a == b ? 0 : 1);
}

// Numbers of different types compare by value, as CEL's heterogeneous comparisons do.
std::optional<int> CompareNumbers(const Value& a, const Value& b) {
  const auto* ai = a.As<int64_t>();
  const auto* au = a.As<uint64_t>();
  const auto* ad = a.As<double>();
  const auto* bi = b.As<int64_t>();
  const auto* bu = b.As<uint64_t>();
  const auto* bd = b.As<double>();
  if ((ai == nullptr && au == nullptr && ad == nullptr) ||
      (bi == nullptr && bu == nullptr && bd == nullptr)) {
    return std::nullopt;
  }
  if (ad != nullptr || bd != nullptr) {
    const double x = ad != nullptr ? *ad : (ai != nullptr ? double(*ai) : double(*au));
    const double y = bd != nullptr ? *bd : (bi != nullptr ? double(*bi) : double(*bu));
    if (std::isnan(x) || std::isnan(y)) return std::nullopt;
    return Cmp(x, y);
  }
  if (ai != nullptr && bi != nullptr) return Cmp(*ai, *bi);
  if (au != nullptr && bu != nullptr) return Cmp(*au, *bu);
  if (ai != nullptr) return *ai < 0 ? -1 : Cmp(uint64_t(*ai), *bu);
  return *bi < 0 ? 1 : Cmp(*au, uint64_t(*bi));
}

}  // namespace

absl::StatusOr<Semver> Semver::Parse(absl::string_view text) {
  Semver v;
  absl::string_view rest = text;
  if (const size_t plus = rest.find('+'); plus != absl::string_view::npos) {
    v.build = std::string(rest.substr(plus + 1));
    rest = rest.substr(0, plus);
    if (v.build.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("\"", text, "\" has empty build metadata"));
    }
    for (absl::string_view id : absl::StrSplit(v.build, '.')) {
      if (id.empty() || !std::all_of(id.begin(), id.end(), IsIdentifierChar)) {
        return absl::InvalidArgumentError(
            absl::StrCat("\"", text, "\" has invalid build metadata"));
      }
    }
  }
  if (const size_t dash = rest.find('-'); dash != absl::string_view::npos) {
    const absl::string_view pre = rest.substr(dash + 1);
    rest = rest.substr(0, dash);
    for (absl::string_view id : absl::StrSplit(pre, '.')) {
      if (id.empty() || !std::all_of(id.begin(), id.end(), IsIdentifierChar) ||
          (IsNumericIdentifier(id) && id.size() > 1 && id[0] == '0')) {
        return absl::InvalidArgumentError(
            absl::StrCat("\"", text, "\" has an invalid pre-release identifier"));
      }
      v.pre_release.emplace_back(id);
    }
  }
  const std::vector<absl::string_view> core = absl::StrSplit(rest, '.');
  if (core.size() != 3) {
    return absl::InvalidArgumentError(
        absl::StrCat("\"", text, "\" is not a semantic version (MAJOR.MINOR.PATCH)"));
  }
  absl::StatusOr<uint64_t> major = ParseCore(core[0], text);
  if (!major.ok()) return major.status();
  absl::StatusOr<uint64_t> minor = ParseCore(core[1], text);
  if (!minor.ok()) return minor.status();
  absl::StatusOr<uint64_t> patch = ParseCore(core[2], text);
  if (!patch.ok()) return patch.status();
  v.major = *major;
  v.minor = *minor;
  v.patch = *patch;
  return v;
}

int Semver::Compare(const Semver& other) const {
  if (int c = Cmp(major, other.major)) return c;
  if (int c = Cmp(minor, other.minor)) return c;
  if (int c = Cmp(patch, other.patch)) return c;
  if (pre_release.empty() || other.pre_release.empty()) {
    return Cmp(pre_release.empty(), other.pre_release.empty());
  }
  const size_t n = std::min(pre_release.size(), other.pre_release.size());
  for (size_t i = 0; i < n; ++i) {
    if (int c = CompareIdentifier(pre_release[i], other.pre_release[i])) return c;
  }
  return Cmp(pre_release.size(), other.pre_release.size());
}

std::string Semver::ToString() const {
  std::string out = absl::StrCat(major, ".", minor, ".", patch);
  if (!pre_release.empty()) absl::StrAppend(&out, "-", absl::StrJoin(pre_release, "."));
  if (!build.empty()) absl::StrAppend(&out, "+", build);
  return out;
}

std::string Value::TypeName() const {
  struct Namer {
    std::string operator()(Null) const { return "null_type"; }
    std::string operator()(bool) const { return "bool"; }
    std::string operator()(int64_t) const { return "int"; }
    std::string operator()(uint64_t) const { return "uint"; }
    std::string operator()(double) const { return "double"; }
    std::string operator()(const std::string&) const { return "string"; }
    std::string operator()(const std::shared_ptr<const List>&) const { return "list"; }
    std::string operator()(const std::shared_ptr<const Object>& o) const { return o->TypeName(); }
    std::string operator()(const Quantity&) const { return "Quantity"; }
    std::string operator()(const Semver&) const { return "Semver"; }
  };
  return std::visit(Namer{}, v_);
}

std::string Value::DebugString() const {
  struct Printer {
    std::string operator()(Null) const { return "null"; }
    std::string operator()(bool b) const { return b ? "true" : "false"; }
    std::string operator()(int64_t i) const { return absl::StrCat(i); }
    std::string operator()(uint64_t u) const { return absl::StrCat(u, "u"); }
    std::string operator()(double d) const { return absl::StrCat(d); }
    std::string operator()(const std::string& s) const { return absl::StrCat("\"", s, "\""); }
    std::string operator()(const std::shared_ptr<const List>& l) const {
      return absl::StrCat(
          "[",
          absl::StrJoin(*l, ", ",
                        [](std::string* out, const Value& v) { out->append(v.DebugString()); }),
          "]");
    }
    std::string operator()(const std::shared_ptr<const Object>& o) const { return o->TypeName(); }
    std::string operator()(const Quantity& q) const {
      return absl::StrCat("quantity(\"", q.ToString(), "\")");
    }
    std::string operator()(const Semver& v) const {
      return absl::StrCat("semver(\"", v.ToString(), "\")");
    }
  };
  return std::visit(Printer{}, v_);
}

bool Equal(const Value& a, const Value& b) {
  if (std::optional<int> c = CompareNumbers(a, b)) return *c == 0;
  if (a.storage().index() != b.storage().index()) return false;
  if (const List* la = a.AsList()) {
    const List& lb = *b.AsList();
    if (la->size() != lb.size()) return false;
    for (size_t i = 0; i < la->size(); ++i) {
      if (!Equal((*la)[i], lb[i])) return false;
    }
    return true;
  }
  if (const Object* oa = a.AsObject()) return oa == b.AsObject();
  if (const auto* sa = a.As<Semver>()) return sa->Compare(*b.As<Semver>()) == 0;
  if (const auto* da = a.As<double>()) return *da == *b.As<double>();  // NaN != NaN
  return a.storage() == b.storage();
}

std::optional<int> Order(const Value& a, const Value& b) {
  if (std::optional<int> c = CompareNumbers(a, b)) return c;
  if (const auto* sa = a.As<std::string>()) {
    const auto* sb = b.As<std::string>();
    if (sb == nullptr) return std::nullopt;
    const int c = sa->compare(*sb);
    return c < 0 ? -1 : (c == 0 ? 0 : 1);
  }
  if (const auto* ba = a.As<bool>()) {
    const auto* bb = b.As<bool>();
    if (bb == nullptr) return std::nullopt;
    return Cmp(*ba, *bb);
  }
  return std::nullopt;
}

}  // namespace gpua::cel
