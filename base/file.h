// Reading and writing a whole file, with an error that names it.
#ifndef GPUA_BASE_FILE_H_
#define GPUA_BASE_FILE_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"

namespace gpua {

// Files larger than this are refused by default: every input we read whole is a config file or
// a set of objects, and a larger one is a mistake (a wrong path, a binary) that would
// otherwise take minutes and gigabytes to refuse.
inline constexpr int64_t kDefaultMaxFileBytes = int64_t{64} << 20;
// What a file of settings (a node-group file, a kubeconfig, a fault profile) may hold.
inline constexpr int64_t kMaxConfigFileBytes = int64_t{4} << 20;

// The whole file; an error names it (and the limit, when it is larger than `max_bytes`).
absl::StatusOr<std::string> ReadFile(const std::string& path,
                                     int64_t max_bytes = kDefaultMaxFileBytes);
// Writes `content` beside `path` and renames it over: a reader never sees half a file, and a
// failed write leaves what was there.
absl::Status WriteFileAtomically(const std::string& path, const std::string& content);

}  // namespace gpua

#endif  // GPUA_BASE_FILE_H_
