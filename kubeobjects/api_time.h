// Times as the Kubernetes API writes them: metav1.Time ("2026-11-30T10:00:00Z") and
// metav1.MicroTime ("2026-11-30T10:00:00.000000Z"), both RFC 3339.
#ifndef GPUA_KUBEOBJECTS_API_TIME_H_
#define GPUA_KUBEOBJECTS_API_TIME_H_

#include <string>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace gpua {

// Any RFC 3339 time; false when `text` is not one. The API server's own whole-second UTC
// form is read without absl::ParseTime, which costs microseconds a call (every pod has one).
bool ParseApiTime(absl::string_view text, absl::Time* t);

// RFC 3339 with microseconds, UTC, as a Lease's MicroTime.
std::string FormatMicroTime(absl::Time t);

}  // namespace gpua

#endif  // GPUA_KUBEOBJECTS_API_TIME_H_
