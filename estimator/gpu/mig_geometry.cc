#include "estimator/gpu/mig_geometry.h"

#include <algorithm>
#include <map>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"

namespace gpua {
namespace {

// Product names are matched as GPU Feature Discovery (NVIDIA-A100-SXM4-40GB) and GKE
// (nvidia-tesla-a100, nvidia-h100-80gb) write them.
// Sources: NVIDIA Multi-Instance GPU User Guide, "Supported MIG Profiles" (profiles, counts
// and placements per GPU), and NVIDIA mig-parted's config names for the named layouts.
// Placements are in memory slices. On the 7-compute/8-memory-slice GPUs (A100, H100, H200,
// B200): 1g at 0..6 (size 1), 1g with double memory at 0,2,4,6 (size 2), 2g at 0,2,4
// (size 2), 3g at 0,4 (size 4), 4g at 0 (size 4), 7g at 0 (size 8). A30 (4 and 4): 1g at
// 0..3, 2g at 0,2, 4g at 0.
std::vector<MigProfile> SevenSliceProfiles(int one_g, int one_g_double, int three_g, int seven_g) {
  const auto gb = [](int n) { return absl::StrCat(n, "gb"); };
  return {
      {absl::StrCat("1g.", gb(one_g)), 1, 1, {0, 1, 2, 3, 4, 5, 6}, 7, false},
      {absl::StrCat("1g.", gb(one_g), "+me"), 1, 1, {0, 1, 2, 3, 4, 5, 6}, 1, true},
      {absl::StrCat("1g.", gb(one_g_double)), 1, 2, {0, 2, 4, 6}, 4, false},
      {absl::StrCat("2g.", gb(one_g_double)), 2, 2, {0, 2, 4}, 3, false},
      {absl::StrCat("3g.", gb(three_g)), 3, 4, {0, 4}, 2, false},
      {absl::StrCat("4g.", gb(three_g)), 4, 4, {0}, 1, false},
      {absl::StrCat("7g.", gb(seven_g)), 7, 8, {0}, 1, false},
  };
}

std::vector<MigModel> BuildModels() {
  std::vector<MigModel> models = {
      {"A100-40GB",
       {"A100-SXM4-40GB", "A100-PCIE-40GB", "A100-40GB", "tesla-a100"},
       7,
       8,
       SevenSliceProfiles(5, 10, 20, 40)},
      {"A100-80GB",
       {"A100-SXM4-80GB", "A100-80GB", "A100-PCIE-80GB"},
       7,
       8,
       SevenSliceProfiles(10, 20, 40, 80)},
      {"H100-80GB",
       {"H100-80GB", "H100-SXM5-80GB", "H100-PCIE", "H100 80GB", "h100-mega-80gb"},
       7,
       8,
       SevenSliceProfiles(10, 20, 40, 80)},
      {"H100-NVL-94GB", {"H100-NVL", "H100 NVL"}, 7, 8, SevenSliceProfiles(12, 24, 47, 94)},
      {"H200-141GB", {"H200"}, 7, 8, SevenSliceProfiles(18, 35, 71, 141)},
      {"B200-180GB", {"B200"}, 7, 8, SevenSliceProfiles(23, 45, 90, 180)},
      {"A30-24GB",
       {"A30"},
       4,
       4,
       {
           {"1g.6gb", 1, 1, {0, 1, 2, 3}, 4, false},
           {"1g.6gb+me", 1, 1, {0, 1, 2, 3}, 1, true},
           {"2g.12gb", 2, 2, {0, 2}, 2, false},
           {"4g.24gb", 4, 4, {0}, 1, false},
       }},
  };
  return models;
}

// "all-balanced", as mig-parted defines it per model: per GPU, 2 small, 1 medium, 1 large.
const std::map<std::string, MigLayout>& BalancedLayouts() {
  static const std::map<std::string, MigLayout> kLayouts{
      {"A100-40GB", {"1g.5gb", "1g.5gb", "2g.10gb", "3g.20gb"}},
      {"A100-80GB", {"1g.10gb", "1g.10gb", "2g.20gb", "3g.40gb"}},
      {"H100-80GB", {"1g.10gb", "1g.10gb", "2g.20gb", "3g.40gb"}},
      {"H100-NVL-94GB", {"1g.12gb", "1g.12gb", "2g.24gb", "3g.47gb"}},
      {"H200-141GB", {"1g.18gb", "1g.18gb", "2g.35gb", "3g.71gb"}},
      {"B200-180GB", {"1g.23gb", "1g.23gb", "2g.45gb", "3g.90gb"}},
      {"A30-24GB", {"1g.6gb", "1g.6gb", "2g.12gb"}},
  };
  return kLayouts;
}

// Tries to give every device (largest first) a start that overlaps no other.
bool Place(const MigModel& model, const std::vector<const MigProfile*>& devices, size_t next,
           std::vector<bool>& used) {
  if (next == devices.size()) return true;
  const MigProfile& p = *devices[next];
  for (int start : p.starts) {
    if (start + p.memory_slices > model.memory_slices) continue;
    bool free = true;
    for (int s = start; s < start + p.memory_slices; ++s) free = free && !used[s];
    if (!free) continue;
    for (int s = start; s < start + p.memory_slices; ++s) used[s] = true;
    if (Place(model, devices, next + 1, used)) return true;
    for (int s = start; s < start + p.memory_slices; ++s) used[s] = false;
  }
  return false;
}

}  // namespace

const MigProfile* MigModel::Find(absl::string_view profile) const {
  for (const MigProfile& p : profiles) {
    if (p.name == profile) return &p;
  }
  return nullptr;
}

const std::vector<MigModel>& MigModels() {
  static const std::vector<MigModel> kModels = BuildModels();
  return kModels;
}

absl::StatusOr<const MigModel*> FindMigModel(absl::string_view product) {
  for (const MigModel& m : MigModels()) {
    if (m.name == product) return &m;
  }
  // Longest match first, so "H100-NVL" is not read as a plain H100.
  const MigModel* best = nullptr;
  size_t best_length = 0;
  const std::string lower = absl::AsciiStrToLower(product);
  for (const MigModel& m : MigModels()) {
    for (const std::string& s : m.matches) {
      if (absl::StrContains(lower, absl::AsciiStrToLower(s)) && s.size() > best_length) {
        best = &m;
        best_length = s.size();
      }
    }
  }
  if (best == nullptr) {
    return absl::NotFoundError(absl::StrCat("GPU \"", product, "\" has no known MIG geometry"));
  }
  return best;
}

absl::Status ValidateLayout(const MigModel& model, const MigLayout& layout) {
  std::vector<const MigProfile*> devices;
  std::map<std::string, int> count;
  int media = 0;
  for (const std::string& name : layout) {
    const MigProfile* p = model.Find(name);
    if (p == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("MIG profile ", name, " does not exist on ", model.name));
    }
    if (++count[name] > p->max_per_gpu) {
      return absl::InvalidArgumentError(
          absl::StrCat("at most ", p->max_per_gpu, " ", name, " per GPU on ", model.name));
    }
    if (p->media_extensions && ++media > 1) {
      return absl::InvalidArgumentError("at most one +me device per GPU");
    }
    devices.push_back(p);
  }
  std::sort(devices.begin(), devices.end(), [](const MigProfile* a, const MigProfile* b) {
    return a->memory_slices > b->memory_slices;
  });
  std::vector<bool> used(static_cast<size_t>(model.memory_slices), false);
  if (!Place(model, devices, 0, used)) {
    return absl::InvalidArgumentError(absl::StrCat("the MIG devices [", absl::StrJoin(layout, ", "),
                                                   "] overlap on one ", model.name));
  }
  return absl::OkStatus();
}

std::vector<NamedMigLayout> NamedLayouts(const MigModel& model) {
  std::vector<NamedMigLayout> out;
  for (const MigProfile& p : model.profiles) {
    if (p.media_extensions) continue;
    out.push_back({absl::StrCat("all-", p.name), MigLayout(p.max_per_gpu, p.name)});
  }
  if (auto it = BalancedLayouts().find(model.name); it != BalancedLayouts().end()) {
    out.push_back({"all-balanced", it->second});
  }
  return out;
}

absl::StatusOr<MigLayout> FindNamedLayout(const MigModel& model, absl::string_view name) {
  for (NamedMigLayout& l : NamedLayouts(model)) {
    if (l.name == name) return std::move(l.per_gpu);
  }
  return absl::NotFoundError(absl::StrCat("no MIG layout named \"", name, "\" for ", model.name));
}

std::string MigResourceName(absl::string_view profile) {
  return absl::StrCat("nvidia.com/mig-", absl::StrReplaceAll(profile, {{"+", "."}}));
}

}  // namespace gpua
