// The functions a CEL expression may call (see cel_program.h for the list), dispatched by
// name, by whether it is called as a method, and by the types of its arguments.
#ifndef GPUA_ESTIMATOR_CEL_CEL_FUNCTIONS_H_
#define GPUA_ESTIMATOR_CEL_CEL_FUNCTIONS_H_

#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "estimator/cel/cel_value.h"

namespace gpua::cel {

// `args` holds the evaluated arguments, the receiver first for a method call. An unknown
// function, or one without an overload for these types, is an error that names both.
absl::StatusOr<Value> CallFunction(absl::string_view name, bool member,
                                   const std::vector<Value>& args);

// Arithmetic operators (+ - * / %) with CEL's overflow and division-by-zero errors.
absl::StatusOr<Value> Arithmetic(absl::string_view op, const Value& a, const Value& b);

}  // namespace gpua::cel

#endif  // GPUA_ESTIMATOR_CEL_CEL_FUNCTIONS_H_
