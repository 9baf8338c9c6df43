#include "autoscaler/controller/model/repair_policy.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "kubeobjects/documents.h"
#include "kubeobjects/json_reader.h"

namespace gpua {
namespace {

RepairPolicy Condition(std::string type, std::string status, absl::Duration toleration) {
  RepairPolicy p;
  p.signal = RepairSignal::kCondition;
  p.name = std::move(type);
  p.status = std::move(status);
  p.toleration = toleration;
  return p;
}

// Replaces the policy with the same key, or adds it; `disabled` removes it.
void Put(std::vector<RepairPolicy>& list, RepairPolicy p, bool disabled) {
  const std::string key = p.Key();
  auto it =
      std::find_if(list.begin(), list.end(), [&](const RepairPolicy& q) { return q.Key() == key; });
  if (disabled) {
    if (it != list.end()) list.erase(it);
  } else if (it != list.end()) {
    *it = std::move(p);
  } else {
    list.push_back(std::move(p));
  }
}

absl::StatusOr<std::pair<RepairPolicy, bool>> ReadPolicy(const JsonReader& r) {
  GPUA_RETURN_IF_ERROR(r.RejectUnknown(
      {"condition", "status", "taint", "gpusMissing", "toleration", "action", "disabled"}));
  RepairPolicy p;
  GPUA_ASSIGN_OR_RETURN(std::string condition, r.Field("condition").String());
  GPUA_ASSIGN_OR_RETURN(std::string taint, r.Field("taint").String());
  GPUA_ASSIGN_OR_RETURN(bool gpus_missing, r.Field("gpusMissing").Bool());
  const int kinds = !condition.empty() + !taint.empty() + gpus_missing;
  if (kinds != 1) {
    return r.Error("needs exactly one of condition, taint or gpusMissing: true");
  }
  GPUA_ASSIGN_OR_RETURN(p.status, r.Field("status").String());
  if (!condition.empty()) {
    p.signal = RepairSignal::kCondition;
    p.name = std::move(condition);
    if (p.status != "True" && p.status != "False" && p.status != "Unknown") {
      return r.Field("status").Error(
          absl::StrCat("\"", p.status, "\": a condition's status is True, False or Unknown"));
    }
  } else {
    if (r.Has("status")) return r.Field("status").Error("only a condition has a status");
    p.signal = taint.empty() ? RepairSignal::kGpusMissing : RepairSignal::kTaint;
    p.name = std::move(taint);
  }
  GPUA_ASSIGN_OR_RETURN(std::optional<absl::Duration> toleration, r.Field("toleration").Duration());
  if (toleration.has_value()) p.toleration = *toleration;
  GPUA_ASSIGN_OR_RETURN(std::string action, r.Field("action").String("replace"));
  if (action == "reboot") {
    return r.Field("action").Error(
        "reboot: no provider spoken here (externalgrpc, clusterapi, simulated) can reboot a "
        "node; use replace");
  }
  if (action != "replace")
    return r.Field("action").Error(absl::StrCat("\"", action, "\": replace"));
  GPUA_ASSIGN_OR_RETURN(bool disabled, r.Field("disabled").Bool());
  return std::make_pair(std::move(p), disabled);
}

absl::Status ReadPolicies(const JsonReader& list, std::vector<RepairPolicy>& into) {
  if (list.IsNull()) return absl::OkStatus();
  if (list.type() != JsonReader::Type::kArray) return list.Error("must be a list of policies");
  return list.ForEach([&](const JsonReader& item) -> absl::Status {
    GPUA_ASSIGN_OR_RETURN(auto read, ReadPolicy(item));
    Put(into, std::move(read.first), read.second);
    return absl::OkStatus();
  });
}

}  // namespace

std::string RepairPolicy::Reason() const {
  switch (signal) {
    case RepairSignal::kCondition:
      return absl::StrCat(name, "=", status);
    case RepairSignal::kTaint:
      return absl::StrCat("taint ", name);
    case RepairSignal::kGpusMissing:
      return "GPUsMissing";
  }
  return "";
}

std::string RepairPolicy::Key() const { return Reason(); }

std::vector<RepairPolicy> DefaultRepairPolicies() {
  const absl::Duration ten = absl::Minutes(10);
  const absl::Duration thirty = absl::Minutes(30);
  std::vector<RepairPolicy> out = {
      // The kubelet stopped reporting, or reports not ready (Karpenter's toleration).
      Condition("Ready", "False", thirty),
      Condition("Ready", "Unknown", thirty),
      // EKS's node monitoring agent, as Karpenter's AWS provider repairs them.
      Condition("AcceleratedHardwareReady", "False", ten),
      Condition("StorageReady", "False", thirty),
      Condition("NetworkingReady", "False", thirty),
      Condition("KernelReady", "False", thirty),
      Condition("ContainerRuntimeReady", "False", thirty),
      // gpu-operator's Node Problem Detector recipe, on a node past its startup.
      Condition("nvidia.com/GPUReady", "False", ten),
      Condition("XidCriticalError", "True", ten),
  };
  // NVSentinel: True is unhealthy. Thermal trouble passes more often than the rest does.
  for (const char* type :
       {"GpuMemWatch", "GpuNvlinkWatch", "GpuPcieWatch", "GpuInforomWatch", "GpuDriverWatch",
        "GpuXidWatch", "SysLogsXIDError", "SysLogsSXIDError", "SysLogsGPUFallenOff"}) {
    out.push_back(Condition(type, "True", ten));
  }
  out.push_back(Condition("GpuThermalWatch", "True", thirty));
  RepairPolicy missing;
  missing.signal = RepairSignal::kGpusMissing;
  missing.toleration = ten;
  out.push_back(missing);
  return out;
}

RepairPolicies::RepairPolicies() : cluster_(DefaultRepairPolicies()) {}

const std::vector<RepairPolicy>& RepairPolicies::For(absl::string_view group) const {
  auto it = groups_.find(group);
  return it == groups_.end() ? cluster_ : it->second;
}

absl::StatusOr<RepairPolicies> RepairPolicies::Parse(absl::string_view text,
                                                     absl::string_view source) {
  const auto fail = [&](const absl::Status& s) {
    return absl::InvalidArgumentError(absl::StrCat("repair policy ", s.message()));
  };
  absl::StatusOr<nlohmann::json> doc = YamlToJson(text, source);
  if (!doc.ok()) return fail(doc.status());
  const JsonReader root(*doc, absl::StrCat(source, ": "));
  RepairPolicies out;
  const auto read = [&]() -> absl::Status {
    if (!root.IsObject()) return root.Error("must be an object (defaults, policies, nodeGroups)");
    GPUA_RETURN_IF_ERROR(root.RejectUnknown({"defaults", "policies", "nodeGroups"}));
    GPUA_ASSIGN_OR_RETURN(bool defaults, root.Field("defaults").Bool(true));
    if (!defaults) out.cluster_.clear();
    GPUA_RETURN_IF_ERROR(ReadPolicies(root.Field("policies"), out.cluster_));
    const JsonReader groups = root.Field("nodeGroups");
    if (!groups.IsNull() && !groups.IsObject()) {
      return groups.Error("must be an object of node group ids");
    }
    return groups.ForEachMember([&](absl::string_view id, const JsonReader& g) -> absl::Status {
      GPUA_RETURN_IF_ERROR(g.RejectUnknown({"disabled", "policies"}));
      std::vector<RepairPolicy>& own = out.groups_[id] = out.cluster_;
      GPUA_ASSIGN_OR_RETURN(bool disabled, g.Field("disabled").Bool());
      if (disabled) {
        if (g.Has("policies")) return g.Error("disabled: true leaves no policies to list");
        own.clear();
        return absl::OkStatus();
      }
      return ReadPolicies(g.Field("policies"), own);
    });
  };
  if (absl::Status s = read(); !s.ok()) return fail(s);
  return out;
}

}  // namespace gpua
