// Reading and writing a whole file, with an error that names it.
#ifndef GPUA_BASE_FILE_H_
#define GPUA_BASE_FILE_H_

#include <string>

#include "absl/status/statusor.h"

namespace gpua {

absl::StatusOr<std::string> ReadFile(const std::string& path);
// Writes `content` beside `path` and renames it over: a reader never sees half a file, and a
// failed write leaves what was there.
absl::Status WriteFileAtomically(const std::string& path, const std::string& content);

}  // namespace gpua

#endif  // GPUA_BASE_FILE_H_
