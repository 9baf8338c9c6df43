// Leases, ConfigMaps and workload controllers decoded typed, with errors that name the
// kind, the object and the field.
#include <catch2/catch.hpp>

#include "kubeobjects/api_time.h"
#include "kubeobjects/config_map.h"
#include "kubeobjects/lease.h"
#include "kubeobjects/workloads.h"

namespace gpua {
namespace {

nlohmann::json Parse(const char* text) { return nlohmann::json::parse(text); }

TEST_CASE("a Lease reads holder, duration, times and transitions", "[kube][typed]") {
  const nlohmann::json o = Parse(R"({"metadata":{"name":"cluster-autoscaler",
    "namespace":"kube-system","resourceVersion":"42"},"spec":{"holderIdentity":"ca-0",
    "leaseDurationSeconds":15,"acquireTime":"2026-11-30T10:00:00.000000Z",
    "renewTime":"2026-11-30T10:05:02.500000Z","leaseTransitions":3}})");
  absl::StatusOr<LeaseObject> lease = DecodeLease(JsonReader(o));
  REQUIRE(lease.ok());
  CHECK(lease->holder == "ca-0");
  CHECK(lease->lease_duration == absl::Seconds(15));
  CHECK(lease->renew_time - lease->acquire_time == absl::Seconds(302.5));
  CHECK(lease->transitions == 3);
  CHECK(lease->resource_version == "42");
  CHECK(FormatMicroTime(lease->renew_time) == "2026-11-30T10:05:02.500000Z");

  absl::StatusOr<LeaseObject> released =
      DecodeLease(JsonReader(Parse(R"({"metadata":{"name":"l","namespace":"n"},"spec":{}})")));
  REQUIRE(released.ok());
  CHECK(released->holder.empty());
  CHECK(released->renew_time == absl::InfinitePast());
}

TEST_CASE("a Lease with a field of the wrong kind is an error naming it", "[kube][typed]") {
  absl::StatusOr<LeaseObject> duration = DecodeLease(JsonReader(
      Parse(R"({"metadata":{"name":"l","namespace":"n"},"spec":{"leaseDurationSeconds":"15s"}})")));
  REQUIRE_FALSE(duration.ok());
  CHECK(std::string(duration.status().message()) ==
        "Lease n/l: spec.leaseDurationSeconds: expected an integer, found string");
  absl::StatusOr<LeaseObject> time = DecodeLease(JsonReader(
      Parse(R"({"metadata":{"name":"l","namespace":"n"},"spec":{"renewTime":"yesterday"}})")));
  REQUIRE_FALSE(time.ok());
  CHECK_THAT(std::string(time.status().message()),
             Catch::Contains("spec.renewTime: \"yesterday\" is not an RFC 3339 time"));
  CHECK_FALSE(DecodeLease(JsonReader(Parse(R"({"metadata":{}})"))).ok());
}

TEST_CASE("a ConfigMap keeps its data, a non-string value names the key", "[kube][typed]") {
  absl::StatusOr<ConfigMapObject> cm = DecodeConfigMap(JsonReader(
      Parse(R"({"metadata":{"name":"status","namespace":"kube-system"},"data":{"status":"ok"}})")));
  REQUIRE(cm.ok());
  CHECK(cm->data.at("status") == "ok");
  absl::StatusOr<ConfigMapObject> bad = DecodeConfigMap(
      JsonReader(Parse(R"({"metadata":{"name":"s","namespace":"k"},"data":{"n":1}})")));
  REQUIRE_FALSE(bad.ok());
  CHECK(std::string(bad.status().message()) ==
        "ConfigMap k/s: data[n]: expected a string, found number");
}

TEST_CASE("a workload's controller reference must match kind, name and uid", "[kube][typed]") {
  absl::StatusOr<WorkloadObject> rs =
      DecodeWorkload(JsonReader(Parse(R"({"metadata":{"name":"web-1","namespace":"ml","uid":"u1",
        "ownerReferences":[{"kind":"Deployment","name":"web","uid":"d1","controller":true}]},
        "spec":{"replicas":0}})")),
                     "ReplicaSet");
  REQUIRE(rs.ok());
  CHECK(rs->replicas == 0);
  REQUIRE(rs->owner.has_value());
  CHECK(rs->owner->kind == "Deployment");
  CHECK(Owns(*rs, OwnerReference{"ReplicaSet", "web-1", "u1", true}));
  CHECK_FALSE(Owns(*rs, OwnerReference{"ReplicaSet", "web-1", "u0", true}));
  CHECK_FALSE(Owns(*rs, OwnerReference{"StatefulSet", "web-1", "u1", true}));
  absl::StatusOr<WorkloadObject> negative = DecodeWorkload(
      JsonReader(Parse(R"({"metadata":{"name":"j","namespace":"ml"},"spec":{"parallelism":-1}})")),
      "Job");
  REQUIRE_FALSE(negative.ok());
  CHECK(std::string(negative.status().message()) ==
        "Job ml/j: spec.parallelism: -1 is out of range");
}

}  // namespace
}  // namespace gpua
