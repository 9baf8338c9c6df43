// A parsed CEL expression: the tree the parser builds and the evaluator walks.
#ifndef GPUA_ESTIMATOR_CEL_CEL_AST_H_
#define GPUA_ESTIMATOR_CEL_CEL_AST_H_

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "estimator/cel/cel_value.h"

namespace gpua::cel {

struct Expr {
  enum class Kind {
    kLiteral,        // literal
    kIdent,          // name
    kSelect,         // args[0].name
    kHas,            // has(args[0].name)
    kIndex,          // args[0][args[1]]
    kCall,           // name(args...), or args[0].name(args[1]...) when member_call
    kList,           // [args...]
    kNot,            // !args[0]
    kNegate,         // -args[0]
    kBinary,         // args[0] name args[1]: == != < <= > >= in + - * / %
    kAnd,            // args[0] && args[1]
    kOr,             // args[0] || args[1]
    kConditional,    // args[0] ? args[1] : args[2]
    kComprehension,  // args[0].name(var, args[1]): all, exists, exists_one, map, filter
    kBind,           // cel.bind(var, args[0], args[1])
  };
  Kind kind = Kind::kLiteral;
  Value literal;
  std::string name;
  std::string var;  // a comprehension's iteration variable
  std::vector<std::unique_ptr<Expr>> args;
  bool member_call = false;
  size_t position = 0;  // byte offset in the source, for messages
};

}  // namespace gpua::cel

#endif  // GPUA_ESTIMATOR_CEL_CEL_AST_H_
