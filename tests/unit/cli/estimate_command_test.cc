
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

}  // namespace
}  // namespace gpua
