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
    const JsonReader ref = spec.Field("template").Field("spec").Field("infrastructureRef");
    if (!ref.IsNull()) {
      CapiInfraRef infra;
      GPUA_ASSIGN_OR_RETURN(infra.kind, ref.Field("kind").String());
      GPUA_ASSIGN_OR_RETURN(infra.name, ref.Field("name").String());
      GPUA_ASSIGN_OR_RETURN(const std::string api_version, ref.Field("apiVersion").String());
      GPUA_ASSIGN_OR_RETURN(infra.group, ref.Field("apiGroup").String());
      if (!api_version.empty()) {  // "infrastructure.cluster.x-k8s.io/v1beta2"
        const size_t slash = api_version.find('/');
        if (slash == std::string::npos) return ref.Field("apiVersion").Error("has no group");
        infra.group = api_version.substr(0, slash);
        infra.version = api_version.substr(slash + 1);
      }
      if (infra.kind.empty() || infra.name.empty() || infra.group.empty()) {
        return ref.Error("needs kind, name and apiVersion (or apiGroup)");
      }
      out.infrastructure = std::move(infra);
    }
    return absl::OkStatus();
  });
}

absl::StatusOr<CapiInfraTemplate> DecodeCapiInfraTemplate(const JsonReader& object,
                                                          absl::string_view kind) {
  return DecodeNamed<CapiInfraTemplate>(object, kind, [&](CapiInfraTemplate& out) {
    GPUA_ASSIGN_OR_RETURN(out.capacity, object.Field("status").Field("capacity").Resources());
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
