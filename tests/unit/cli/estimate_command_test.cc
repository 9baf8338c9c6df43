
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sstream>

#include "autoscaler/cli/app.h"
#include "tests/support/run_command.h"
#include "tests/support/temp_file.h"

namespace gpua {
namespace {

using testing::WriteTempFile;

const char* kGroups = R"(
nodeGroups:
- id: l4
  maxSize: 4
  pricePerHour: 0.8
  template:
    spec: {taints: [{key: nvidia.com/gpu, value: present, effect: NoSchedule}]}
    status: {allocatable: {cpu: "8", memory: 32Gi, pods: "58", nvidia.com/gpu: "1"}}
)";

const char* kPods = R"({"kind":"List","items":[
  {"kind":"Pod","metadata":{"name":"infer-0","namespace":"ml"},
   "spec":{"tolerations":[{"operator":"Exists"}],
           "containers":[{"name":"c","resources":{"limits":{"nvidia.com/gpu":"1"}}}]}},
  {"kind":"Pod","metadata":{"name":"infer-1","namespace":"ml"},
   "spec":{"tolerations":[{"operator":"Exists"}],
           "containers":[{"name":"c","resources":{"limits":{"nvidia.com/gpu":"1"}}}]}},
  {"kind":"Pod","metadata":{"name":"running","namespace":"ml"},"spec":{"nodeName":"n1","containers":[{"name":"c"}]}},
  {"kind":"Pod","metadata":{"name":"broken","namespace":"ml"},
   "spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"lots"}}}]}}
]})";

TEST_CASE("estimate prints the documented JSON plan and reports a broken pod", "[cli]") {
  const std::string groups = WriteTempFile("groups.yaml", kGroups);
  const std::string pods = WriteTempFile("pods.json", kPods);
  std::ostringstream out, err;
  int status = testing::RunCommand(
      RunApp, {"estimate", "--pods", pods, "--node-groups", groups, "--output=json"}, out, err);
  REQUIRE(status == 0);
  nlohmann::json plan = nlohmann::json::parse(out.str());
  REQUIRE(plan["groups"].size() == 1);
  CHECK(plan["groups"][0]["id"] == "l4");
  CHECK(plan["groups"][0]["new_nodes"] == 2);
  CHECK(plan["groups"][0]["pods"] == nlohmann::json({"ml/infer-0", "ml/infer-1"}));
  REQUIRE(plan["unschedulable"].size() == 1);
  CHECK(plan["unschedulable"][0]["pod"] == "ml/broken");
  CHECK(plan["elapsed_ms"].is_number());
  CHECK_THAT(err.str(), Catch::Contains("spec.containers[0].resources.requests[cpu]"));
}

TEST_CASE("estimate refuses missing files and bad flags with a clear error", "[cli]") {
  std::ostringstream out, err;
  CHECK(testing::RunCommand(RunApp,
                            {"estimate", "--pods", "/nonexistent/p.yaml", "--node-groups",
                             WriteTempFile("g2.yaml", kGroups)},
                            out, err) == 2);
  CHECK_THAT(err.str(), Catch::Contains("/nonexistent/p.yaml: cannot open"));
  std::ostringstream out2, err2;
  CHECK(testing::RunCommand(RunApp,
                            {"estimate", "--pods", "p", "--node-groups", "g", "--output", "xml"},
                            out2, err2) == 2);
  CHECK_THAT(err2.str(), Catch::Contains("--output"));
  std::ostringstream out3, err3;
  CHECK(testing::RunCommand(RunApp, {"estimate", "--pods=p"}, out3, err3) == 2);
  CHECK_THAT(err3.str(), Catch::Contains("--node-groups are required"));
}

TEST_CASE("estimate plans DRA claims from the pods file against a group's template slices",
          "[cli][dra]") {
  const std::string dir = std::string(GPUA_SOURCE_DIR) + "/examples/dra/";
  std::ostringstream out, err;
  REQUIRE(testing::RunCommand(RunApp,
                              {"estimate", "--pods", dir + "pending-pods.yaml", "--node-groups",
                               dir + "node-groups.yaml", "--output=json"},
                              out, err) == 0);
  const nlohmann::json plan = nlohmann::json::parse(out.str());
  REQUIRE(plan["groups"].size() == 1);
  CHECK(plan["groups"][0]["id"] == "h100-dra");
  CHECK(plan["groups"][0]["new_nodes"] == 1);
  CHECK(plan["groups"][0]["pods"].size() == 8);
  CHECK(err.str().empty());
}

TEST_CASE(
    "estimate serves an nvidia.com/gpu request with DRA devices where no device plugin "
    "advertises it (KEP-5004)",
    "[cli][dra]") {
  const std::string dir = std::string(GPUA_SOURCE_DIR) + "/examples/dra/";
  std::string pods = R"(
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.nvidia.com}
spec:
  extendedResourceName: nvidia.com/gpu
  selectors: [{cel: {expression: "device.attributes['gpu.nvidia.com'].type == 'gpu'"}}]
)";
  for (int i = 0; i < 3; ++i) {
    pods += "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p" + std::to_string(i) +
            ", namespace: ml}\nspec:\n  tolerations: [{operator: Exists}]\n  containers: [{name: "
            "c, resources: {limits: {nvidia.com/gpu: \"4\"}}}]\n";
  }
  std::ostringstream out, err;
  REQUIRE(testing::RunCommand(RunApp,
                              {"estimate", "--pods", WriteTempFile("ext.yaml", pods),
                               "--node-groups", dir + "node-groups.yaml", "--output=json"},
                              out, err) == 0);
  const nlohmann::json plan = nlohmann::json::parse(out.str());
  REQUIRE(plan["groups"].size() == 1);
  CHECK(plan["groups"][0]["id"] == "h100-dra");
  CHECK(plan["groups"][0]["new_nodes"] == 2);  // two 4-GPU pods per 8-GPU node
  CHECK(plan["unschedulable"].empty());
}

TEST_CASE("estimate names a claim template it cannot read in the pods' reasons", "[cli][dra]") {
  const std::string dir = std::string(GPUA_SOURCE_DIR) + "/examples/dra/";
  const std::string pods = WriteTempFile("dra-pods.yaml", R"(
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: one-gpu, namespace: ml}
spec: {spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.nvidia.com, count: 0}}]}}}
---
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: ml}
spec:
  tolerations: [{operator: Exists}]
  resourceClaims: [{name: gpu, resourceClaimTemplateName: one-gpu}]
  containers: [{name: c}]
---
apiVersion: v1
kind: Pod
metadata: {name: q, namespace: ml}
spec:
  tolerations: [{operator: Exists}]
  resourceClaims: [{name: gpu, resourceClaimTemplateName: nowhere}]
  containers: [{name: c}]
)");
  std::ostringstream out, err;
  REQUIRE(testing::RunCommand(RunApp,
                              {"estimate", "--pods", pods, "--node-groups",
                               dir + "node-groups.yaml", "--output=json"},
                              out, err) == 0);
  CHECK_THAT(err.str(), Catch::Contains("ResourceClaimTemplate ml/one-gpu: "
                                        "spec.spec.devices.requests[0].exactly.count: must be at "
                                        "least 1"));
  const nlohmann::json plan = nlohmann::json::parse(out.str());
  REQUIRE(plan["unschedulable"].size() == 2);
  CHECK_THAT(plan["unschedulable"][0]["reasons"]["h100-dra"].get<std::string>(),
             Catch::Contains("claim gpu: ResourceClaimTemplate ml/one-gpu: "));
  CHECK_THAT(plan["unschedulable"][1]["reasons"]["h100-dra"].get<std::string>(),
             Catch::Contains("claim gpu: ResourceClaimTemplate ml/nowhere not found"));
}

}  // namespace
}  // namespace gpua
