#include "kubeobjects/cluster_api.h"

#include "kubeobjects/object_meta.h"

namespace gpua {
namespace {

// What every Cluster API object's metadata gives alike.
template <typename T>
absl::Status DecodeCapiMeta(const JsonReader& meta, T& out) {
  GPUA_ASSIGN_OR_RETURN(out.uid, meta.Field("uid").String());
  GPUA_ASSIGN_OR_RETURN(out.annotations, meta.Field("annotations").StringMap());
  GPUA_ASSIGN_OR_RETURN(out.controller, DecodeControllerRef(meta));
  GPUA_ASSIGN_OR_RETURN(const std::string deleted, meta.Field("deletionTimestamp").String());
  out.deleting = !deleted.empty();
  return absl::OkStatus();
}

}  // namespace

absl::string_view CapiKindName(CapiKind kind) {
  switch (kind) {
    case CapiKind::kMachineDeployment:
      return "MachineDeployment";
    case CapiKind::kMachineSet:
      return "MachineSet";
    case CapiKind::kMachinePool:
      break;
  }
  return "MachinePool";
}

absl::string_view CapiKindResource(CapiKind kind) {
  switch (kind) {
    case CapiKind::kMachineDeployment:
      return "machinedeployments";
    case CapiKind::kMachineSet:
      return "machinesets";
    case CapiKind::kMachinePool:
      break;
  }
  return "machinepools";
}

absl::StatusOr<CapiScalable> DecodeCapiScalable(const JsonReader& object, CapiKind kind) {
  return DecodeNamed<CapiScalable>(object, CapiKindName(kind), [&](CapiScalable& out) {
    out.kind = kind;
    const JsonReader meta = object.Field("metadata");
    GPUA_RETURN_IF_ERROR(DecodeCapiMeta(meta, out));
    GPUA_ASSIGN_OR_RETURN(out.labels, meta.Field("labels").StringMap());
    const JsonReader spec = object.Field("spec");
    GPUA_ASSIGN_OR_RETURN(out.cluster_name, spec.Field("clusterName").String());
    if (const JsonReader replicas = spec.Field("replicas"); !replicas.IsNull()) {
      GPUA_ASSIGN_OR_RETURN(out.replicas, ReadCount(replicas, 0));
    }
    GPUA_ASSIGN_OR_RETURN(out.template_labels,
                          spec.Field("template").Field("metadata").Field("labels").StringMap());
    GPUA_ASSIGN_OR_RETURN(out.provider_ids, spec.Field("providerIDList").Strings());
    return absl::OkStatus();
  });
}

absl::StatusOr<CapiMachine> DecodeCapiMachine(const JsonReader& object) {
  return DecodeNamed<CapiMachine>(object, "Machine", [&](CapiMachine& out) {
    const JsonReader meta = object.Field("metadata");
    GPUA_RETURN_IF_ERROR(DecodeCapiMeta(meta, out));
    GPUA_ASSIGN_OR_RETURN(out.created, ReadApiTime(meta.Field("creationTimestamp")));
    GPUA_ASSIGN_OR_RETURN(out.provider_id, object.Field("spec").Field("providerID").String());
    const JsonReader status = object.Field("status");
    GPUA_ASSIGN_OR_RETURN(out.phase, status.Field("phase").String());
    GPUA_ASSIGN_OR_RETURN(out.node_name, status.Field("nodeRef").Field("name").String());
    // v1beta2 keeps the terminal failure only under status.deprecated.v1beta1.
    for (const JsonReader& failure : {status, status.Field("deprecated").Field("v1beta1")}) {
      GPUA_ASSIGN_OR_RETURN(std::string reason, failure.Field("failureReason").String());
      GPUA_ASSIGN_OR_RETURN(std::string message, failure.Field("failureMessage").String());
      if (out.failure_reason.empty()) out.failure_reason = std::move(reason);
      if (out.failure_message.empty()) out.failure_message = std::move(message);
    }
    return absl::OkStatus();
  });
}

}  // namespace gpua
