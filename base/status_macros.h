// The two macros Abseil leaves out: return early on an error status.
#ifndef GPUA_BASE_STATUS_MACROS_H_
#define GPUA_BASE_STATUS_MACROS_H_

#define GPUA_CONCAT_INNER(a, b) a##b
#define GPUA_CONCAT(a, b) GPUA_CONCAT_INNER(a, b)

#define GPUA_RETURN_IF_ERROR(expr)               \
  do {                                           \
    ::absl::Status gpua_status_ = (expr);        \
    if (!gpua_status_.ok()) return gpua_status_; \
  } while (0)

#define GPUA_ASSIGN_OR_RETURN(lhs, expr) \
  GPUA_ASSIGN_OR_RETURN_IMPL(GPUA_CONCAT(gpua_statusor_, __LINE__), lhs, expr)
#define GPUA_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                               \
  if (!tmp.ok()) return tmp.status();              \
  lhs = *std::move(tmp)

#endif  // GPUA_BASE_STATUS_MACROS_H_
