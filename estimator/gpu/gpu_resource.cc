#include "estimator/gpu/gpu_resource.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/strip.h"

namespace gpua {
namespace {

// One or more digits followed by `suffix`, consumed from the front of `s`.
bool ConsumeNumberThen(absl::string_view& s, absl::string_view suffix) {
  size_t digits = 0;
  while (digits < s.size() && absl::ascii_isdigit(static_cast<unsigned char>(s[digits]))) {
    ++digits;
  }
  if (digits == 0) return false;
  absl::string_view rest = s.substr(digits);
  if (!absl::ConsumePrefix(&rest, suffix)) return false;
  s = rest;
  return true;
}

// A MIG profile as a resource name writes it: [<n>c.]<n>g.<n>gb[.me][.shared] ("+me" is
// written ".me"; other attributes such as ".gfx" follow the same pattern).
bool IsMigProfile(absl::string_view s) {
  absl::string_view compute = s;
  if (ConsumeNumberThen(compute, "c.")) s = compute;
  if (!ConsumeNumberThen(s, "g.") || !ConsumeNumberThen(s, "gb")) return false;
  absl::ConsumeSuffix(&s, ".shared");
  while (absl::ConsumePrefix(&s, ".")) {
    size_t n = 0;
    while (n < s.size() && absl::ascii_isalpha(static_cast<unsigned char>(s[n]))) ++n;
    if (n == 0) return false;
    s.remove_prefix(n);
  }
  return s.empty();
}

// spx|dpx|qpx|cpx, "_", then a memory partition nps<n>.
bool IsAmdPartition(absl::string_view s) {
  for (absl::string_view compute : {"spx_", "dpx_", "qpx_", "cpx_"}) {
    if (absl::ConsumePrefix(&s, compute)) {
      return absl::ConsumePrefix(&s, "nps") && ConsumeNumberThen(s, "") && s.empty();
    }
  }
  return false;
}

}  // namespace

ResourceList GpuPart(const ResourceList& list) {
  ResourceList gpus;
  for (const auto& [name, q] : list) {
    if (IsGpuResource(name)) gpus.Set(name, q);
  }
  return gpus;
}

bool AsksForGpus(const ResourceList& requests) {
  for (const auto& [name, q] : requests) {
    if (IsGpuResource(name) && q.Sign() > 0) return true;
  }
  return false;
}

absl::string_view GpuVendorName(GpuVendor vendor) {
  switch (vendor) {
    case GpuVendor::kNvidia:
      return "nvidia";
    case GpuVendor::kAmd:
      return "amd";
    case GpuVendor::kIntel:
      return "intel";
    case GpuVendor::kHabana:
      return "habana";
  }
  return "unknown";
}

std::optional<GpuResource> ClassifyGpuResource(absl::string_view name) {
  absl::string_view rest = name;
  if (absl::ConsumePrefix(&rest, "nvidia.com/")) {
    if (rest == "gpu") return GpuResource{GpuVendor::kNvidia, GpuResourceKind::kWholeGpu};
    if (rest == "gpu.shared") return GpuResource{GpuVendor::kNvidia, GpuResourceKind::kSharedGpu};
    if (absl::ConsumePrefix(&rest, "mig-") && IsMigProfile(rest)) {
      return GpuResource{GpuVendor::kNvidia, GpuResourceKind::kMigSlice};
    }
    return std::nullopt;
  }
  if (absl::ConsumePrefix(&rest, "amd.com/")) {
    if (rest == "gpu") return GpuResource{GpuVendor::kAmd, GpuResourceKind::kWholeGpu};
    if (IsAmdPartition(rest)) return GpuResource{GpuVendor::kAmd, GpuResourceKind::kAmdPartition};
    return std::nullopt;
  }
  if (absl::ConsumePrefix(&rest, "gpu.intel.com/")) {
    if (rest == "i915" || rest == "xe") {
      return GpuResource{GpuVendor::kIntel, GpuResourceKind::kWholeGpu};
    }
    return std::nullopt;
  }
  if (absl::ConsumePrefix(&rest, "habana.ai/") && absl::StartsWith(rest, "gaudi")) {
    return GpuResource{GpuVendor::kHabana, GpuResourceKind::kWholeGpu};
  }
  return std::nullopt;
}

}  // namespace gpua
