// A compiled CEL expression and its evaluation against the variables the host binds.
//
// What it evaluates is the part of CEL that Kubernetes' device selectors use, with CEL's
// semantics (cel-spec langdef.md): dynamic types with errors as values; `&&`, `||` and the
// macros all/exists absorb an error when the other side decides; heterogeneous numeric
// comparison; cel.bind, which Kubernetes enables. Overflow, division by zero, a missing key or
// a function without an overload for its arguments are errors, never a guessed value. The
// functions: size, int, uint, double, string, bool; the string extension (startsWith, endsWith,
// contains, matches, lowerAscii, upperAscii, trim, indexOf, lastIndexOf, substring, replace, split,
// charAt, join); and Kubernetes' quantity and semver libraries (quantity, isQuantity, compareTo,
// isGreaterThan, isLessThan, add, sub, asInteger, asApproximateFloat, isInteger, sign;
// semver, isSemver, major, minor, patch). Anything else is reported as an error naming it.
#ifndef GPUA_ESTIMATOR_CEL_CEL_PROGRAM_H_
#define GPUA_ESTIMATOR_CEL_CEL_PROGRAM_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "estimator/cel/cel_ast.h"
#include "estimator/cel/cel_value.h"

namespace gpua::cel {

// The variables an evaluation sees, by name. Few (a device selector binds one), so a list.
using Bindings = std::vector<std::pair<std::string, Value>>;

class Program {
 public:
  // Parses `text`; a syntax error names the character where it is.
  static absl::StatusOr<Program> Compile(absl::string_view text);

  absl::StatusOr<Value> Evaluate(const Bindings& vars) const;
  // Evaluate, and the result must be a bool (as a selector's is).
  absl::StatusOr<bool> EvaluateBool(const Bindings& vars) const;

  const std::string& source() const { return source_; }

 private:
  Program(std::shared_ptr<const Expr> root, std::string source)
      : root_(std::move(root)), source_(std::move(source)) {}

  std::shared_ptr<const Expr> root_;
  std::string source_;
};

// One evaluation's work is bounded: a hostile expression (comprehensions over long lists)
// stops with an error after this many steps, as Kubernetes stops one over its cost budget.
inline constexpr int64_t kMaxEvaluationSteps = 1'000'000;

}  // namespace gpua::cel

#endif  // GPUA_ESTIMATOR_CEL_CEL_PROGRAM_H_
