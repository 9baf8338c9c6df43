// The values a CEL expression computes with (https://github.com/google/cel-spec): the
// language's own types, the two Kubernetes adds for device selectors (quantities and
// semantic versions), and objects the host provides (a device, its attributes), whose
// fields are looked up only when the expression asks for them.
#ifndef GPUA_ESTIMATOR_CEL_CEL_VALUE_H_
#define GPUA_ESTIMATOR_CEL_CEL_VALUE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "estimator/quantity.h"

namespace gpua::cel {

// A semantic version (semver.org 2.0.0), as Kubernetes' `semver` library and DRA's version
// attributes hold one. Build metadata is kept for printing but does not order.
struct Semver {
  uint64_t major = 0;
  uint64_t minor = 0;
  uint64_t patch = 0;
  std::vector<std::string> pre_release;  // dot-separated identifiers
  std::string build;

  // Strict semver 2.0.0: MAJOR.MINOR.PATCH, no leading zeros, optional -pre and +build.
  static absl::StatusOr<Semver> Parse(absl::string_view text);
  // <0, 0, >0 as semver.org orders them (a pre-release sorts before its release).
  int Compare(const Semver& other) const;
  std::string ToString() const;
  friend bool operator==(const Semver& a, const Semver& b) { return a.Compare(b) == 0; }
};

class Value;

// An object the host lends the expression: it answers field selection (`a.b`), indexing by
// a string (`a["b"]`) and presence (`has(a.b)`, `"b" in a`).
class Object {
 public:
  virtual ~Object() = default;
  // nullopt: no such field (the caller reports "no such key").
  virtual std::optional<Value> Field(absl::string_view name) const = 0;
  virtual std::string TypeName() const = 0;
};

struct Null {
  friend bool operator==(Null, Null) { return true; }
};

using List = std::vector<Value>;

class Value {
 public:
  using Storage =
      std::variant<Null, bool, int64_t, uint64_t, double, std::string, std::shared_ptr<const List>,
                   std::shared_ptr<const Object>, Quantity, Semver>;

  Value() = default;
  static Value Bool(bool b) { return Value(Storage(b)); }
  static Value Int(int64_t i) { return Value(Storage(i)); }
  static Value Uint(uint64_t u) { return Value(Storage(u)); }
  static Value Double(double d) { return Value(Storage(d)); }
  static Value String(std::string s) { return Value(Storage(std::move(s))); }
  static Value MakeList(List items) {
    return Value(Storage(std::make_shared<const List>(std::move(items))));
  }
  static Value MakeObject(std::shared_ptr<const Object> o) { return Value(Storage(std::move(o))); }
  static Value MakeQuantity(Quantity q) { return Value(Storage(q)); }
  static Value MakeSemver(Semver v) { return Value(Storage(std::move(v))); }

  const Storage& storage() const { return v_; }
  template <typename T>
  const T* As() const {
    return std::get_if<T>(&v_);
  }
  const List* AsList() const {
    const auto* l = std::get_if<std::shared_ptr<const List>>(&v_);
    return l != nullptr ? l->get() : nullptr;
  }
  const Object* AsObject() const {
    const auto* o = std::get_if<std::shared_ptr<const Object>>(&v_);
    return o != nullptr ? o->get() : nullptr;
  }

  // CEL's type name, for messages: "int", "string", "list", "Quantity", ...
  std::string TypeName() const;
  // A short rendering for messages.
  std::string DebugString() const;

 private:
  explicit Value(Storage v) : v_(std::move(v)) {}
  Storage v_;
};

// CEL equality: numbers compare across int, uint and double by value; lists element by
// element; values of different types are unequal. Objects compare by identity.
bool Equal(const Value& a, const Value& b);

// CEL ordering for <, <=, >, >=: numbers (across types), strings, bools; nullopt when the
// two cannot be ordered (the caller reports "no such overload").
std::optional<int> Order(const Value& a, const Value& b);

}  // namespace gpua::cel

#endif  // GPUA_ESTIMATOR_CEL_CEL_VALUE_H_
