#include "kubeobjects/resource_claims.h"

#include <memory>
#include <string>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "base/status_macros.h"
#include "kubeobjects/device_classes.h"
#include "kubeobjects/object_meta.h"
#include "kubeobjects/selectors.h"

namespace gpua {
namespace {

absl::StatusOr<std::vector<dra::DeviceToleration>> DecodeDeviceTolerations(const JsonReader& list) {
  std::vector<dra::DeviceToleration> out;
  GPUA_RETURN_IF_ERROR(list.ForEach([&](const JsonReader& t) -> absl::Status {
    dra::DeviceToleration tol;
    GPUA_ASSIGN_OR_RETURN(tol.key, t.Field("key").String());
    GPUA_ASSIGN_OR_RETURN(tol.op, t.Field("operator").String("Equal"));
    GPUA_ASSIGN_OR_RETURN(tol.value, t.Field("value").String());
    GPUA_ASSIGN_OR_RETURN(tol.effect, t.Field("effect").String());
    if (tol.op != "Equal" && tol.op != "Exists") {
      return t.Field("operator").Error("must be Equal or Exists");
    }
    if (tol.op == "Equal" && tol.key.empty()) {
      return t.Field("key").Error("required with operator Equal");
    }
    out.push_back(std::move(tol));
    return absl::OkStatus();
  }));
  return out;
}

// The fields of ExactDeviceRequest (and of a sub-request, and of a v1beta1 request).
absl::Status DecodeExact(const JsonReader& r, dra::ExactRequest& out) {
  GPUA_ASSIGN_OR_RETURN(out.device_class_name, r.Field("deviceClassName").String());
  if (out.device_class_name.empty()) return r.Field("deviceClassName").Error("missing");
  GPUA_ASSIGN_OR_RETURN(out.selectors, DecodeDeviceSelectors(r.Field("selectors")));
  GPUA_ASSIGN_OR_RETURN(std::string mode, r.Field("allocationMode").String("ExactCount"));
  if (mode == "All") {
    out.mode = dra::AllocationMode::kAll;
  } else if (mode != "ExactCount") {
    return r.Field("allocationMode").Error("must be ExactCount or All");
  }
  GPUA_ASSIGN_OR_RETURN(out.count, r.Field("count").Int(1));
  if (out.mode == dra::AllocationMode::kExactCount && out.count < 1) {
    return r.Field("count").Error("must be at least 1");
  }
  GPUA_ASSIGN_OR_RETURN(out.admin_access, r.Field("adminAccess").Bool());
  GPUA_ASSIGN_OR_RETURN(out.tolerations, DecodeDeviceTolerations(r.Field("tolerations")));
  // Consumable capacity (1.34 alpha): a device shared by claims up to its capacity. Planning
  // it as a whole device would be wrong both ways, so the claim is refused, saying why.
  if (r.Has("capacity")) return r.Field("capacity").Error("consumable capacity is not planned");
  return absl::OkStatus();
}

absl::StatusOr<dra::DeviceRequest> DecodeRequest(const JsonReader& r) {
  dra::DeviceRequest out;
  GPUA_ASSIGN_OR_RETURN(out.name, r.Field("name").String());
  if (out.name.empty()) return r.Field("name").Error("missing");
  const JsonReader first = r.Field("firstAvailable");
  const bool v1beta1 = r.Has("deviceClassName");
  const bool has_exactly = r.Has("exactly");
  const bool has_first = first.Size() > 0;
  if (v1beta1 ? (has_exactly || has_first) : has_exactly == has_first) {
    return r.Error("exactly one of exactly and firstAvailable must be set");
  }
  if (has_first) {
    out.first_available = true;
    absl::flat_hash_set<std::string> names;
    GPUA_RETURN_IF_ERROR(first.ForEach([&](const JsonReader& s) -> absl::Status {
      dra::ExactRequest sub;
      GPUA_ASSIGN_OR_RETURN(sub.name, s.Field("name").String());
      if (sub.name.empty()) return s.Field("name").Error("missing");
      if (!names.insert(sub.name).second)
        return s.Field("name").Error("duplicate sub-request name");
      GPUA_RETURN_IF_ERROR(DecodeExact(s, sub));
      out.alternatives.push_back(std::move(sub));
      return absl::OkStatus();
    }));
    return out;
  }
  dra::ExactRequest exact;
  GPUA_RETURN_IF_ERROR(DecodeExact(v1beta1 ? r : r.Field("exactly"), exact));
  out.alternatives.push_back(std::move(exact));
  return out;
}

absl::StatusOr<std::shared_ptr<const dra::ClaimSpec>> DecodeClaimSpec(const JsonReader& spec) {
  if (!spec.IsObject()) return spec.Error("missing or not an object");
  auto out = std::make_shared<dra::ClaimSpec>();
  const JsonReader devices = spec.Field("devices");
  absl::flat_hash_set<std::string> names;
  GPUA_RETURN_IF_ERROR(devices.Field("requests").ForEach([&](const JsonReader& r) -> absl::Status {
    GPUA_ASSIGN_OR_RETURN(dra::DeviceRequest request, DecodeRequest(r));
    if (!names.insert(request.name).second) return r.Field("name").Error("duplicate request name");
    out->requests.push_back(std::move(request));
    return absl::OkStatus();
  }));
  GPUA_RETURN_IF_ERROR(
      devices.Field("constraints").ForEach([&](const JsonReader& c) -> absl::Status {
        dra::DeviceConstraint constraint;
        if (c.Has("distinctAttribute")) {
          return c.Field("distinctAttribute").Error("is not planned (only matchAttribute is)");
        }
        GPUA_ASSIGN_OR_RETURN(constraint.requests, c.Field("requests").Strings());
        GPUA_ASSIGN_OR_RETURN(constraint.match_attribute, c.Field("matchAttribute").String());
        if (constraint.match_attribute.empty()) return c.Field("matchAttribute").Error("missing");
        if (constraint.match_attribute.find('/') == std::string::npos) {
          return c.Field("matchAttribute").Error("must be fully qualified (domain/name)");
        }
        for (const std::string& r : constraint.requests) {
          if (!names.contains(r.substr(0, r.find('/')))) {
            return c.Field("requests").Error("names a request the claim does not have: " + r);
          }
        }
        out->constraints.push_back(std::move(constraint));
        return absl::OkStatus();
      }));
  out->fingerprint = devices.ToJson().dump();
  return std::shared_ptr<const dra::ClaimSpec>(std::move(out));
}

absl::StatusOr<std::shared_ptr<const dra::ClaimAllocation>> DecodeAllocation(const JsonReader& a) {
  if (a.IsNull()) return std::shared_ptr<const dra::ClaimAllocation>();
  auto out = std::make_shared<dra::ClaimAllocation>();
  GPUA_RETURN_IF_ERROR(
      a.Field("devices").Field("results").ForEach([&](const JsonReader& r) -> absl::Status {
        dra::AllocatedDevice d;
        GPUA_ASSIGN_OR_RETURN(d.request, r.Field("request").String());
        GPUA_ASSIGN_OR_RETURN(d.driver, r.Field("driver").String());
        GPUA_ASSIGN_OR_RETURN(d.pool, r.Field("pool").String());
        GPUA_ASSIGN_OR_RETURN(d.device, r.Field("device").String());
        GPUA_ASSIGN_OR_RETURN(d.admin_access, r.Field("adminAccess").Bool());
        if (d.driver.empty() || d.pool.empty() || d.device.empty()) {
          return r.Error("driver, pool and device must be set");
        }
        out->devices.push_back(std::move(d));
        return absl::OkStatus();
      }));
  if (a.Has("nodeSelector")) {
    GPUA_ASSIGN_OR_RETURN(out->node_selector, DecodeNodeSelector(a.Field("nodeSelector")));
  }
  return std::shared_ptr<const dra::ClaimAllocation>(std::move(out));
}

}  // namespace

absl::StatusOr<dra::ResourceClaim> DecodeResourceClaim(const JsonReader& object) {
  return DecodeNamed<dra::ResourceClaim>(
      object, "ResourceClaim",
      [&](dra::ResourceClaim& out) -> absl::Status {
        GPUA_ASSIGN_OR_RETURN(out.uid, object.Field("metadata").Field("uid").String());
        GPUA_ASSIGN_OR_RETURN(out.spec, DecodeClaimSpec(object.Field("spec")));
        const JsonReader status = object.Field("status");
        GPUA_ASSIGN_OR_RETURN(out.allocation, DecodeAllocation(status.Field("allocation")));
        return status.Field("reservedFor").ForEach([&](const JsonReader& r) -> absl::Status {
          GPUA_ASSIGN_OR_RETURN(std::string uid, r.Field("uid").String());
          out.reserved_for.push_back(std::move(uid));
          return absl::OkStatus();
        });
      },
      "default");
}

absl::StatusOr<dra::ResourceClaimTemplate> DecodeResourceClaimTemplate(const JsonReader& object) {
  return DecodeNamed<dra::ResourceClaimTemplate>(
      object, "ResourceClaimTemplate",
      [&](dra::ResourceClaimTemplate& out) -> absl::Status {
        GPUA_ASSIGN_OR_RETURN(out.spec, DecodeClaimSpec(object.Field("spec").Field("spec")));
        return absl::OkStatus();
      },
      "default");
}

absl::StatusOr<std::vector<dra::PodClaimRef>> DecodePodClaimRefs(const JsonReader& pod) {
  std::vector<dra::PodClaimRef> out;
  GPUA_RETURN_IF_ERROR(
      pod.Field("spec").Field("resourceClaims").ForEach([&](const JsonReader& c) -> absl::Status {
        dra::PodClaimRef ref;
        GPUA_ASSIGN_OR_RETURN(ref.name, c.Field("name").String());
        if (ref.name.empty()) return c.Field("name").Error("missing");
        GPUA_ASSIGN_OR_RETURN(ref.claim_name, c.Field("resourceClaimName").String());
        GPUA_ASSIGN_OR_RETURN(ref.template_name, c.Field("resourceClaimTemplateName").String());
        if (ref.claim_name.empty() == ref.template_name.empty()) {
          return c.Error(
              "exactly one of resourceClaimName and resourceClaimTemplateName must be set");
        }
        out.push_back(std::move(ref));
        return absl::OkStatus();
      }));
  GPUA_RETURN_IF_ERROR(pod.Field("status")
                           .Field("resourceClaimStatuses")
                           .ForEach([&](const JsonReader& s) -> absl::Status {
                             GPUA_ASSIGN_OR_RETURN(std::string name, s.Field("name").String());
                             GPUA_ASSIGN_OR_RETURN(std::string made,
                                                   s.Field("resourceClaimName").String());
                             for (dra::PodClaimRef& ref : out) {
                               if (ref.name == name && !ref.template_name.empty())
                                 ref.made_claim = made;
                             }
                             return absl::OkStatus();
                           }));
  return out;
}

}  // namespace gpua
