// Reading a whole file, with an error that names it.
#ifndef GPUA_BASE_FILE_H_
#define GPUA_BASE_FILE_H_

#include <string>

#include "absl/status/statusor.h"

namespace gpua {

absl::StatusOr<std::string> ReadFile(const std::string& path);

}  // namespace gpua

#endif  // GPUA_BASE_FILE_H_
