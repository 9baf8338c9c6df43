#include "base/file.h"

#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace gpua {

namespace {

std::string Size(int64_t bytes) {
  if (bytes >= (int64_t{1} << 20) && bytes % (int64_t{1} << 20) == 0) {
    return absl::StrCat(bytes >> 20, " MiB");
  }
  return absl::StrCat(bytes, " bytes");
}

}  // namespace

absl::StatusOr<std::string> ReadFile(const std::string& path, int64_t max_bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(absl::StrCat(path, ": cannot open: ", std::strerror(errno)));
  }
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": is a directory, not a file"));
  }
  const auto too_large = [&] {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": larger than ", Size(max_bytes), ", the most this file may hold"));
  };
  if (std::filesystem::is_regular_file(path, ec) &&
      static_cast<int64_t>(std::filesystem::file_size(path, ec)) > max_bytes && !ec) {
    return too_large();
  }
  // Read in pieces so a pipe or a device that never ends is refused at the limit too.
  std::string content;
  std::array<char, 1 << 16> buffer;
  while (in.read(buffer.data(), buffer.size()) || in.gcount() > 0) {
    content.append(buffer.data(), static_cast<size_t>(in.gcount()));
    if (static_cast<int64_t>(content.size()) > max_bytes) return too_large();
  }
  if (in.bad()) return absl::DataLossError(absl::StrCat(path, ": read failed"));
  return content;
}

absl::Status WriteFileAtomically(const std::string& path, const std::string& content) {
  const std::string temporary = absl::StrCat(path, ".tmp-", ::getpid());
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << content;
    out.close();
    if (!out) {
      const std::string why = std::strerror(errno);
      std::remove(temporary.c_str());
      return absl::InternalError(absl::StrCat(path, ": cannot write: ", why));
    }
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    std::remove(temporary.c_str());
    return absl::InternalError(absl::StrCat(path, ": cannot write: ", why));
  }
  return absl::OkStatus();
}

}  // namespace gpua
