// Files a test writes for the code under test to read. CTest runs a binary's cases as
// processes side by side, so every name carries the process id.
#ifndef GPUA_TESTS_SUPPORT_TEMP_FILE_H_
#define GPUA_TESTS_SUPPORT_TEMP_FILE_H_

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace gpua::testing {

inline std::string TempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("gpua-test-" + std::to_string(getpid()) + "-" + name))
      .string();
}

// Writes `text` to TempPath(name) and returns that path.
inline std::string WriteTempFile(const std::string& name, const std::string& text) {
  const std::string path = TempPath(name);
  std::ofstream(path) << text;
  return path;
}

}  // namespace gpua::testing

#endif  // GPUA_TESTS_SUPPORT_TEMP_FILE_H_
