#include "estimator/gpu/cuda_compat.h"

#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "base/status_macros.h"

namespace gpua {
namespace {

// NVIDIA CUDA Toolkit release notes, "CUDA Toolkit and Corresponding Driver Versions"
// (Linux, toolkit release -> minimum driver).
const std::vector<std::pair<std::string, std::string>>& DriverTable() {
  static const std::vector<std::pair<std::string, std::string>> kTable = {
      {"11.8", "520.61.05"}, {"12.0", "525.60.13"}, {"12.1", "530.30.02"}, {"12.2", "535.54.03"},
      {"12.3", "545.23.06"}, {"12.4", "550.54.14"}, {"12.5", "555.42.02"}, {"12.6", "560.28.03"},
      {"12.8", "570.26"},    {"12.9", "575.51.03"}, {"13.0", "580.65.06"},
  };
  return kTable;
}

// Minor version compatibility: any driver of the major release's first one runs it.
const std::vector<std::pair<std::string, std::string>>& MajorTable() {
  static const std::vector<std::pair<std::string, std::string>> kTable = {
      {"11", "450.80.02"}, {"12", "525.60.13"}, {"13", "580"}};
  return kTable;
}

absl::StatusOr<std::vector<int>> Parse(absl::string_view version) {
  std::vector<int> parts;
  for (absl::string_view p : absl::StrSplit(version, '.')) {
    int v = 0;
    if (!absl::SimpleAtoi(p, &v) || v < 0) {
      return absl::InvalidArgumentError(absl::StrCat("\"", version, "\" is not a version"));
    }
    parts.push_back(v);
  }
  return parts;
}

}  // namespace

absl::StatusOr<int> CompareVersions(absl::string_view a, absl::string_view b) {
  GPUA_ASSIGN_OR_RETURN(std::vector<int> x, Parse(a));
  GPUA_ASSIGN_OR_RETURN(std::vector<int> y, Parse(b));
  for (size_t i = 0; i < std::max(x.size(), y.size()); ++i) {
    const int u = i < x.size() ? x[i] : 0, v = i < y.size() ? y[i] : 0;
    if (u != v) return u < v ? -1 : 1;
  }
  return 0;
}

absl::StatusOr<std::string> MinimumDriver(absl::string_view cuda, bool minor_version_compat) {
  GPUA_ASSIGN_OR_RETURN(std::vector<int> v, Parse(cuda));
  if (minor_version_compat) {
    for (const auto& [major, driver] : MajorTable()) {
      if (major == absl::StrCat(v[0])) return driver;
    }
  }
  // The first release at or after the asked version (12.7 needs 12.8's driver).
  for (const auto& [release, driver] : DriverTable()) {
    GPUA_ASSIGN_OR_RETURN(int c, CompareVersions(release, cuda));
    if (c >= 0 && Parse(release)->front() == v[0]) return driver;
  }
  return absl::InvalidArgumentError(absl::StrCat("CUDA ", cuda, " is not in the driver table"));
}

absl::StatusOr<std::optional<std::string>> CheckDriver(absl::string_view driver,
                                                       absl::string_view cuda,
                                                       bool minor_version_compat) {
  GPUA_ASSIGN_OR_RETURN(std::string needed, MinimumDriver(cuda, minor_version_compat));
  GPUA_ASSIGN_OR_RETURN(int c, CompareVersions(driver, needed));
  if (c >= 0) return std::optional<std::string>();
  return std::optional<std::string>(
      absl::StrCat("driver ", driver, " too old for CUDA ", cuda, " (needs >= ", needed, ")"));
}

}  // namespace gpua
