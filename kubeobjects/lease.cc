#include "kubeobjects/lease.h"

#include "kubeobjects/object_meta.h"

namespace gpua {

absl::StatusOr<LeaseObject> DecodeLease(const JsonReader& object) {
  return DecodeNamed<LeaseObject>(object, "Lease", [&](LeaseObject& out) -> absl::Status {
    const JsonReader spec = object.Field("spec");
    GPUA_ASSIGN_OR_RETURN(out.holder, spec.Field("holderIdentity").String());
    GPUA_ASSIGN_OR_RETURN(int32_t seconds, ReadCount(spec.Field("leaseDurationSeconds"), 0));
    out.lease_duration = absl::Seconds(seconds);
    GPUA_ASSIGN_OR_RETURN(out.acquire_time, ReadApiTime(spec.Field("acquireTime")));
    GPUA_ASSIGN_OR_RETURN(out.renew_time, ReadApiTime(spec.Field("renewTime")));
    GPUA_ASSIGN_OR_RETURN(out.transitions, ReadCount(spec.Field("leaseTransitions"), 0));
    return absl::OkStatus();
  });
}

}  // namespace gpua
