// A coordination.k8s.io/v1 Lease: what leader election reads and writes.
#ifndef GPUA_KUBEOBJECTS_LEASE_H_
#define GPUA_KUBEOBJECTS_LEASE_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "kubeobjects/json_reader.h"

namespace gpua {

struct LeaseObject {
  std::string namespace_name;
  std::string name;
  std::string holder;  // spec.holderIdentity; empty: released
  absl::Duration lease_duration = absl::ZeroDuration();
  absl::Time acquire_time = absl::InfinitePast();
  absl::Time renew_time = absl::InfinitePast();
  int32_t transitions = 0;
  std::string resource_version;
};
absl::StatusOr<LeaseObject> DecodeLease(const JsonReader& object);

}  // namespace gpua

#endif  // GPUA_KUBEOBJECTS_LEASE_H_
