#include "autoscaler/sim/whole_gpus.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "estimator/gpu/gpu_inventory.h"
#include "estimator/gpu/gpu_inventory_reader.h"
#include "estimator/gpu/gpu_resource.h"

namespace gpua::sim {
namespace {

bool IsNvidiaShare(absl::string_view name) {
  const std::optional<GpuResource> r = ClassifyGpuResource(name);
  return r.has_value() && r->vendor == GpuVendor::kNvidia &&
         (r->kind == GpuResourceKind::kSharedGpu || r->kind == GpuResourceKind::kMigSlice);
}

bool IsNvidiaGpu(absl::string_view name) {
  const std::optional<GpuResource> r = ClassifyGpuResource(name);
  return r.has_value() && r->vendor == GpuVendor::kNvidia;
}

// The labels and annotations that say a pool's GPUs are shared or cut into MIG devices.
bool SaysSharing(absl::string_view label) {
  return label == "nvidia.com/gpu.sharing-strategy" || label == "nvidia.com/gpu.replicas" ||
         label == kMigConfigLabel || label == "nvidia.com/mig.strategy" ||
         absl::StartsWith(label, "nvidia.com/mig-") ||
         label == "cloud.google.com/gke-gpu-sharing-strategy" ||
         label == "cloud.google.com/gke-max-shared-clients-per-gpu" ||
         label == "cloud.google.com/gke-gpu-partition-size";
}

bool SaysSharingAnnotation(absl::string_view key) {
  for (absl::string_view setting :
       {"gpu-sharing", "gpu-replicas", "gpu-renamed", "gpu-fail-requests-greater-than-one",
        "mig-layouts", "mig-strategy"}) {
    if (key == absl::StrCat(kAnnotationPrefix, setting)) return true;
  }
  return false;
}

void EraseIf(Labels& labels, bool (*says)(absl::string_view)) {
  std::vector<std::string> keys;
  for (const auto& [key, value] : labels) {
    if (says(key)) keys.push_back(key);
  }
  for (const std::string& key : keys) labels.erase(key);
}

absl::Status Unshare(NodeGroupConfig& g) {
  NodeTemplate& t = g.spec.node_template;
  const std::string what = absl::StrCat("node group ", g.spec.id, ": template");
  absl::StatusOr<std::optional<GpuInventory>> gpus =
      ReadGpuInventory(t.labels, t.annotations, t.allocatable, what);
  if (!gpus.ok()) return gpus.status();
  if (!gpus->has_value()) return absl::OkStatus();
  const GpuInventory& inventory = **gpus;
  if (inventory.vendor() != GpuVendor::kNvidia || inventory.sharing() == GpuSharing::kExclusive) {
    return absl::OkStatus();
  }
  const int count = inventory.physical_count();
  EraseIf(t.labels, SaysSharing);
  EraseIf(t.annotations, SaysSharingAnnotation);
  t.annotations[absl::StrCat(kAnnotationPrefix, "gpu-count")] = absl::StrCat(count);
  ResourceList allocatable;
  for (const auto& [name, value] : t.allocatable) {
    if (!IsNvidiaGpu(name)) allocatable.Set(name, value);
  }
  allocatable.Set(kResourceNvidiaGpu, Quantity::FromUnits(count));
  t.allocatable = std::move(allocatable);
  absl::StatusOr<std::optional<GpuInventory>> whole =
      ReadGpuInventory(t.labels, t.annotations, t.allocatable, what);
  if (!whole.ok()) return whole.status();
  if (!whole->has_value() || (*whole)->sharing() != GpuSharing::kExclusive ||
      (*whole)->physical_count() != count) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": its GPUs could not be made whole (", count, " GPUs)"));
  }
  return absl::OkStatus();
}

}  // namespace

std::map<std::string, SharedGpuResource> SharedGpuResources(
    const std::vector<NodeGroupConfig>& groups) {
  std::map<std::string, SharedGpuResource> shared;
  for (const NodeGroupConfig& g : groups) {
    const NodeTemplate& t = g.spec.node_template;
    absl::StatusOr<std::optional<GpuInventory>> gpus =
        ReadGpuInventory(t.labels, t.annotations, t.allocatable, g.spec.id);
    if (!gpus.ok() || !gpus->has_value()) continue;
    auto product = t.labels.find(kGpuProductLabel);
    std::vector<const NamedMigLayout*> layouts = {nullptr};
    for (const NamedMigLayout& l : (*gpus)->mig_layouts()) layouts.push_back(&l);
    for (const NamedMigLayout* layout : layouts) {
      for (const auto& [name, part] : *(*gpus)->UnitShares(layout)) {
        if (!IsNvidiaShare(name)) continue;
        SharedGpuResource& r = shared[name];
        r.part = std::max(r.part, part);
        if (product == t.labels.end()) {
          r.unlabelled = true;
        } else {
          r.products.insert(product->second);
        }
      }
    }
  }
  return shared;
}

PodSpec WholeGpuPod(const PodSpec& pod, const std::map<std::string, SharedGpuResource>& shared) {
  PodSpec out = pod;
  double gpus = 0;
  std::set<std::string> products;
  bool pin = true;
  const auto whole = [&](const ResourceList& requests, bool count) {
    ResourceList list;
    double in_list = 0;
    for (const auto& [name, value] : requests) {
      if (!IsNvidiaShare(name)) {
        list.Set(name, value);
        continue;
      }
      auto it = shared.find(name);
      in_list += static_cast<double>(value.Value()) * (it == shared.end() ? 1.0 : it->second.part);
      if (!count) continue;
      if (it == shared.end() || it->second.unlabelled) {
        pin = false;
      } else {
        products.insert(it->second.products.begin(), it->second.products.end());
      }
    }
    // 1e-9: four quarter-GPU shares are one GPU, not two.
    const int64_t n = static_cast<int64_t>(std::ceil(in_list - 1e-9));
    if (n > 0) list.Set(kResourceNvidiaGpu, list.Get(kResourceNvidiaGpu) + Quantity::FromUnits(n));
    if (count) gpus = in_list;
    return list;
  };
  out.requests = whole(pod.requests, true);
  out.largest_container_request = whole(pod.largest_container_request, false);
  if (gpus <= 0 || !pin || products.empty()) return out;
  const Requirement on_model{std::string(kGpuProductLabel), SelectorOp::kIn,
                             std::vector<std::string>(products.begin(), products.end())};
  if (!out.required_node_affinity.has_value()) {
    out.required_node_affinity = NodeSelector{{NodeSelectorTerm{{on_model}, {}}}};
  } else {
    for (NodeSelectorTerm& term : out.required_node_affinity->terms) {
      term.match_expressions.push_back(on_model);
    }
  }
  return out;
}

absl::StatusOr<std::vector<NodeGroupConfig>> WithWholeGpus(std::vector<NodeGroupConfig> groups) {
  for (NodeGroupConfig& g : groups) {
    if (absl::Status s = Unshare(g); !s.ok()) return s;
  }
  return groups;
}

Trace WithWholeGpus(const Trace& trace, const std::vector<NodeGroupConfig>& groups) {
  const std::map<std::string, SharedGpuResource> shared = SharedGpuResources(groups);
  Trace out = trace;
  absl::flat_hash_map<const PodObject*, std::shared_ptr<const PodObject>> rewritten;
  for (TraceArrival& a : out.arrivals) {
    auto [it, added] = rewritten.try_emplace(a.shape.get());
    if (added) {
      auto pod = std::make_shared<PodObject>(*a.shape);
      pod->spec = WholeGpuPod(a.shape->spec, shared);
      it->second = std::move(pod);
    }
    a.shape = it->second;
  }
  return out;
}

}  // namespace gpua::sim
