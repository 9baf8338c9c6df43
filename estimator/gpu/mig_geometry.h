// NVIDIA Multi-Instance GPU geometry: which profiles each GPU model offers, where on the GPU
// each may be placed, which combinations (layouts) are valid, and the named layouts a MIG
// manager applies (the values of the `nvidia.com/mig.config` node label). All of it is data
// in mig_geometry.cc, so a new GPU is one entry there.
#ifndef GPUA_ESTIMATOR_GPU_MIG_GEOMETRY_H_
#define GPUA_ESTIMATOR_GPU_MIG_GEOMETRY_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace gpua {

struct MigProfile {
  std::string name;         // "3g.40gb", "1g.10gb+me"
  int compute_slices = 0;   // the "3" of 3g
  int memory_slices = 0;    // memory slices it occupies
  std::vector<int> starts;  // memory slices where it may begin
  int max_per_gpu = 0;
  bool media_extensions = false;  // "+me": at most one per GPU
};

struct MigModel {
  std::string name;                  // "A100-80GB"
  std::vector<std::string> matches;  // substrings of nvidia.com/gpu.product that mean it
  int compute_slices = 0;
  int memory_slices = 0;
  std::vector<MigProfile> profiles;
  const MigProfile* Find(absl::string_view profile) const;
};

// One GPU's MIG devices, by profile name (repeats allowed).
using MigLayout = std::vector<std::string>;

struct NamedMigLayout {
  std::string name;  // "all-1g.10gb", "all-balanced"
  MigLayout per_gpu;
};

const std::vector<MigModel>& MigModels();

// The model a product name (the GPU Feature Discovery label, e.g. NVIDIA-H100-80GB-HBM3)
// or a model name ("H100-80GB") denotes; NotFound when it has no MIG.
absl::StatusOr<const MigModel*> FindMigModel(absl::string_view product);

// OK when the devices can be placed on one GPU without overlapping, within each profile's
// count, with at most one "+me" device; otherwise why not.
absl::Status ValidateLayout(const MigModel& model, const MigLayout& layout);

// The named layouts for the model: "all-<profile>" for each profile (as many as fit), and
// "all-balanced" where NVIDIA defines it.
std::vector<NamedMigLayout> NamedLayouts(const MigModel& model);
absl::StatusOr<MigLayout> FindNamedLayout(const MigModel& model, absl::string_view name);

// The extended resource a MIG profile is advertised as under the `mixed` strategy:
// nvidia.com/mig-3g.40gb, with "+me" written ".me".
std::string MigResourceName(absl::string_view profile);

}  // namespace gpua

#endif  // GPUA_ESTIMATOR_GPU_MIG_GEOMETRY_H_
