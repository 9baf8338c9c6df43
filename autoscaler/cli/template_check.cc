#include "autoscaler/cli/template_check.h"

#include "absl/container/btree_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "estimator/cluster_snapshot.h"
#include "estimator/dra/resource_slice.h"
#include "estimator/dra/template_slices.h"
#include "estimator/gpu/cuda_compat.h"
#include "estimator/gpu/gpu_resource.h"
#include "estimator/group_packer.h"

namespace gpua {
namespace {

std::string DescribeGpus(const GpuInventory& gpu) {
  std::vector<std::string> layouts;
  for (const NamedMigLayout& l : gpu.mig_layouts()) layouts.push_back(l.name);
  return absl::StrCat(gpu.physical_count(), " ", gpu.model().empty() ? "GPU(s)" : gpu.model(), ", ",
                      GpuSharingName(gpu.sharing()),
                      gpu.shares().replicas > 1 ? absl::StrCat(" x", gpu.shares().replicas) : "",
                      layouts.empty() ? "" : absl::StrCat(", MIG ", absl::StrJoin(layouts, "|")),
                      gpu.driver_version().empty() ? "" : ", driver " + gpu.driver_version());
}

// The template's ResourceSlices as the planner assembles them for each new node.
void CheckSlices(const std::string& where, const NodeTemplate& t, TemplateFindings& out) {
  std::vector<const dra::ResourceSlice*> local;
  absl::btree_set<std::string> drivers;
  for (const auto& s : t.resource_slices) {
    if (!s->node_local()) {
      out.warnings.push_back(absl::StrCat(
          where, "ResourceSlice ", s->name,
          " is not one node's own (nodeSelector, allNodes or perDeviceNodeSelection): its "
          "devices are not planned with"));
      continue;
    }
    local.push_back(s.get());
    drivers.insert(s->driver);
  }
  const dra::NodeDevices devices = dra::AssemblePools(local);
  for (const std::string& pool : devices.incomplete) {
    out.problems.push_back(
        absl::StrCat(where, "ResourceSlices: pool ", pool,
                     " has fewer slices than its resourceSliceCount: it offers no devices"));
  }
  if (devices.DeviceCount() == 0) {
    out.warnings.push_back(absl::StrCat(where, "its ResourceSlices publish no device"));
    return;
  }
  const std::string dra =
      absl::StrCat(dra::WholeGpuDevices(t.resource_slices), " GPU(s) as DRA devices (",
                   devices.DeviceCount(), " device(s) of ", absl::StrJoin(drivers, ", "), ")");
  out.gpus = out.gpus.empty() ? dra : absl::StrCat(out.gpus, "; ", dra);
  if (AsksForGpus(t.allocatable)) {
    out.warnings.push_back(
        absl::StrCat(where,
                     "allocatable advertises GPUs through a device plugin and its ResourceSlices "
                     "publish DRA devices too: the same GPUs may be counted twice"));
  }
}

}  // namespace

TemplateFindings CheckTemplate(const std::string& group_id, const NodeTemplate& tmpl,
                               const std::string& gpu_label) {
  TemplateFindings out;
  const std::string where = absl::StrCat("node group ", group_id, ": template: ");
  NodeGroupSpec spec;
  spec.id = group_id;
  spec.node_template = tmpl;
  ClusterSnapshot snapshot({});
  const PreparedTemplate prepared = PrepareTemplate(spec, snapshot);
  if (!prepared.unusable.ok()) {
    out.problems.emplace_back(prepared.unusable.message());
    return out;
  }
  // The planner counts every pod against "pods" and places a pod only where each resource
  // it asks for is offered: a template with neither holds nothing.
  bool holds_pods = false, offers_resources = false;
  for (const TemplateVariant& v : prepared.variants) {
    for (size_t slot = 0; slot < v.allocatable.size(); ++slot) {
      if (v.allocatable[slot] <= 0) continue;
      (slot == ResourceCatalog::kPods ? holds_pods : offers_resources) = true;
    }
  }
  if (!holds_pods) {
    out.problems.push_back(
        absl::StrCat(where, "allocatable pods is 0 or missing: the planner fits no pod on it"));
  } else if (!offers_resources) {
    out.problems.push_back(absl::StrCat(
        where, "allocatable offers nothing but pods: only pods that request nothing fit"));
  }
  if (prepared.gpu != nullptr) {
    out.gpus = DescribeGpus(*prepared.gpu);
    // As the planner checks a pod that states its CUDA version (the oldest it knows here).
    const std::string& driver = prepared.gpu->driver_version();
    if (!driver.empty()) {
      if (absl::Status s = CheckDriver(driver, "11.8", false).status(); !s.ok()) {
        out.problems.push_back(absl::StrCat(where, "driver version: ", s.message(),
                                            ": no pod that states its CUDA version fits"));
      }
    }
    if (!tmpl.labels.contains(gpu_label)) {
      out.warnings.push_back(absl::StrCat(
          where, "it has GPUs (", out.gpus, ") but no ", gpu_label,
          " label (the provider's GPULabel): its GPUs have no type, so a --gpu-total limit "
          "for their type does not count them"));
    }
  }
  if (!tmpl.resource_slices.empty()) CheckSlices(where, tmpl, out);
  return out;
}

}  // namespace gpua
