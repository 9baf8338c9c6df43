// CEL's grammar (cel-spec langdef.md), text to tree: literals (int, uint, double, strings in
// every quoting, bytes as strings, bool, null), identifiers, field selection, indexing,
// function and method calls, list literals, the operators with CEL's precedence, the
// conditional, and the macros has, all, exists, exists_one, map and filter. Map and message
// literals are not part of it: device selectors have no use for them, and an expression
// that has one is refused with the place named rather than half understood.
#ifndef GPUA_ESTIMATOR_CEL_CEL_PARSER_H_
#define GPUA_ESTIMATOR_CEL_CEL_PARSER_H_

#include <memory>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "estimator/cel/cel_ast.h"

namespace gpua::cel {

// Kubernetes caps a selector expression's length; nesting is capped so a hostile expression
// cannot exhaust the stack (cel-go's parser stops at a recursion depth of 250 too).
inline constexpr size_t kMaxExpressionBytes = size_t{10} * 1024;
inline constexpr int kMaxNesting = 100;

absl::StatusOr<std::unique_ptr<Expr>> Parse(absl::string_view text);

}  // namespace gpua::cel

#endif  // GPUA_ESTIMATOR_CEL_CEL_PARSER_H_
