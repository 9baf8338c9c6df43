// The include checker, shown to catch what it is for on planted files and trees (the real
// tree is checked by the `layering:` CTest test).
#include "tests/layering/layer_rules.h"

#include <catch2/catch.hpp>
#include <fstream>
#include <random>

namespace gpua::layering {
namespace {

std::vector<std::string> Lines(const std::vector<Violation>& violations) {
  std::vector<std::string> out;
  for (const Violation& v : violations) out.push_back(v.ToString());
  return out;
}

TEST_CASE("an include from a layer below, or from its own layer, is fine", "[layering]") {
  CHECK(CheckFile("autoscaler/controller/scale_up.cc",
                  "#include \"autoscaler/controller/model/cluster_view.h\"\n"
                  "#include \"cloudproviders/cloud_provider.h\"\n"
                  "#include \"estimator/estimate.h\"\n#include \"base/clock.h\"\n"
                  "#include \"absl/strings/str_cat.h\"\n#include <vector>\n")
            .empty());
  CHECK(CheckFile("cloudproviders/externalgrpc/wire.h",
                  "#include \"externalgrpc/externalgrpc.pb.h\"\n")
            .empty());
  CHECK(CheckFile("autoscaler/cli/app.cc", "#include \"autoscaler/kube/api_client.h\"\n").empty());
}

TEST_CASE("an include from a layer above names the file, the include and the rule", "[layering]") {
  const auto v = Lines(CheckFile("estimator/estimate.cc",
                                 "// plans\n#include \"estimator/estimate.h\"\n"
                                 "#include \"cloudproviders/cloud_provider.h\"\n"));
  REQUIRE(v.size() == 1);
  CHECK(v[0] ==
        "estimator/estimate.cc:3: \"cloudproviders/cloud_provider.h\": estimator may include "
        "only estimator, base, not cloudproviders");
}

TEST_CASE("the controller never includes kube or sim, and sim never kube", "[layering]") {
  const auto controller = Lines(CheckFile("autoscaler/controller/controller.cc",
                                          "#include \"autoscaler/kube/cluster_watch.h\"\n"
                                          "#include \"autoscaler/sim/sim_cluster.h\"\n"));
  REQUIRE(controller.size() == 2);
  CHECK_THAT(controller[0],
             Catch::Contains("controller may include only") && Catch::EndsWith("not kube"));
  CHECK_THAT(controller[1], Catch::EndsWith("not sim"));
  const auto sim =
      Lines(CheckFile("autoscaler/sim/replay.cc", "#include \"autoscaler/kube/api_client.h\"\n"));
  REQUIRE(sim.size() == 1);
  CHECK_THAT(sim[0], Catch::EndsWith("not kube"));
}

TEST_CASE("decoders may not use the protocol, and nothing below cli may include cli",
          "[layering]") {
  CHECK(CheckFile("kubeobjects/nodes.cc", "#include \"k8s.io/api/core/v1/generated.pb.h\"\n")
            .size() == 1);
  CHECK(
      CheckFile("autoscaler/kube/informer.h", "#include \"autoscaler/cli/flag_set.h\"\n").size() ==
      1);
}

TEST_CASE("reading the system clock outside base is caught, in code but not in comments",
          "[layering]") {
  const auto v = Lines(CheckFile("autoscaler/kube/reflector.cc",
                                 "#include \"absl/time/clock.h\"\n"
                                 "// absl::Now() would be wrong here\n"
                                 "const absl::Time t = absl::Now();\n"));
  REQUIRE(v.size() == 2);
  CHECK_THAT(v[0], Catch::StartsWith("autoscaler/kube/reflector.cc:1: \"absl/time/clock.h\""));
  CHECK_THAT(v[1], Catch::StartsWith("autoscaler/kube/reflector.cc:3: absl::Now()"));
  CHECK(
      CheckFile("base/clock.cc", "#include \"absl/time/clock.h\"\nreturn absl::Now();\n").empty());
}

TEST_CASE("the estimator does no I/O, includes that name no layer are refused", "[layering]") {
  CHECK(CheckFile("estimator/pod.cc", "#include <iostream>\n").size() == 1);
  CHECK(CheckFile("kubeobjects/pods.cc", "#include <iostream>\n").empty());
  const auto v = Lines(CheckFile("cloudproviders/node_proto.cc", "#include \"node_proto.h\"\n"));
  REQUIRE(v.size() == 1);
  CHECK_THAT(v[0], Catch::Contains("names no layer"));
  CHECK(CheckFile("autoscaler/main.cc", "").size() == 1);  // not in a layer's folder
}

TEST_CASE("a planted wrong include in a tree on disk fails the check", "[layering]") {
  const std::filesystem::path root = std::filesystem::temp_directory_path() /
                                     ("gpua-layering-" + std::to_string(std::random_device{}()));
  std::filesystem::create_directories(root / "estimator");
  std::filesystem::create_directories(root / "autoscaler/controller");
  std::ofstream(root / "estimator/ok.h") << "#include \"base/status_macros.h\"\n";
  std::ofstream(root / "autoscaler/controller/bad.cc")
      << "#include \"autoscaler/controller/bad.h\"\n#include \"autoscaler/kube/api_client.h\"\n";
  const auto v = Lines(CheckTree(root));
  std::filesystem::remove_all(root);
  REQUIRE(v.size() == 1);
  CHECK_THAT(v[0], Catch::StartsWith("autoscaler/controller/bad.cc:2: "
                                     "\"autoscaler/kube/api_client.h\": controller may include"));
}

TEST_CASE("scale-down including scale-up fails: the planners share only the planning room",
          "[layering]") {
  const auto v = Lines(CheckFile("autoscaler/controller/scaledown/scale_down_planner.cc",
                                 "#include \"autoscaler/controller/model/cluster_state.h\"\n"
                                 "#include \"autoscaler/controller/planning/planning_cluster.h\"\n"
                                 "#include \"autoscaler/controller/scaleup/resource_limits.h\"\n"));
  REQUIRE(v.size() == 1);
  CHECK(v[0] ==
        "autoscaler/controller/scaledown/scale_down_planner.cc:3: "
        "\"autoscaler/controller/scaleup/resource_limits.h\": controller/scaledown/ may include "
        "only controller/scaledown/, model/, mig/, planning/, spot/, status/, increase/, not "
        "scaleup/");
}

TEST_CASE("no room includes the loop's own files, and the model includes no other room",
          "[layering]") {
  const auto v = Lines(CheckFile("autoscaler/controller/scaleup/scale_up_step.h",
                                 "#include \"autoscaler/controller/controller.h\"\n"));
  REQUIRE(v.size() == 1);
  CHECK(v[0] ==
        "autoscaler/controller/scaleup/scale_up_step.h:1: \"autoscaler/controller/controller.h\": "
        "controller/scaleup/ may not include the controller's top level: the loop stands on the "
        "rooms, never the other way");
  // The two arrows that once ran back up: preemptions into spot/, a taint rule into planning/.
  CHECK(Lines(CheckFile("autoscaler/controller/model/cluster_state.cc",
                        "#include \"autoscaler/controller/spot/homeless_pods.h\"\n"))
            .size() == 1);
  CHECK(Lines(CheckFile("autoscaler/controller/model/template_from_node.cc",
                        "#include \"autoscaler/controller/planning/planning_cluster.h\"\n"))
            .size() == 1);
  CHECK(Lines(CheckFile("autoscaler/controller/model/cluster_state.h",
                        "#include \"autoscaler/controller/mig/mig_layout_book.h\"\n"))
            .size() == 1);
  CHECK(CheckFile("autoscaler/controller/mig/mig_layouts.h",
                  "#include \"autoscaler/controller/model/cluster_state.h\"\n")
            .empty());
}

TEST_CASE("the planning room includes no other room, the loop includes every room", "[layering]") {
  CHECK(Lines(CheckFile("autoscaler/controller/planning/planning_cluster.h",
                        "#include \"autoscaler/controller/scaledown/removal_budget.h\"\n"))
            .size() == 1);
  CHECK(CheckFile("autoscaler/controller/controller.cc",
                  "#include \"autoscaler/controller/scaledown/removal_budget.h\"\n"
                  "#include \"autoscaler/controller/scaleup/scale_up_planner.h\"\n")
            .empty());
  CHECK(CheckFile("autoscaler/controller/metrics/autoscaler_metrics.cc",
                  "#include \"autoscaler/controller/increase/scale_up_actuator.h\"\n")
            .empty());
}

TEST_CASE("a controller subfolder that is no room is named, and so is an include of one",
          "[layering]") {
  const auto v = Lines(CheckFile("autoscaler/controller/misc/helpers.cc",
                                 "#include \"autoscaler/controller/model/cluster_state.h\"\n"));
  REQUIRE(v.size() == 1);
  CHECK_THAT(v[0],
             Catch::Contains("autoscaler/controller/misc/ is not one of the controller's rooms"));
  const auto w = Lines(CheckFile("autoscaler/controller/scaleup/x.cc",
                                 "#include \"autoscaler/controller/misc/helpers.h\"\n"));
  REQUIRE(w.size() == 1);
  CHECK_THAT(w[0], Catch::Contains("controller/misc/ is not one of the controller's rooms"));
}

TEST_CASE("a planted cross-room include in a tree on disk fails the check", "[layering]") {
  const std::filesystem::path root = std::filesystem::temp_directory_path() /
                                     ("gpua-rooms-" + std::to_string(std::random_device{}()));
  std::filesystem::create_directories(root / "autoscaler/controller/scaledown");
  std::filesystem::create_directories(root / "autoscaler/controller/model");
  std::ofstream(root / "autoscaler/controller/scaledown/planner.cc")
      << "#include \"autoscaler/controller/planning/limits.h\"\n"
         "#include \"autoscaler/controller/scaleup/planner.h\"\n";
  // The model reaching up to the loop: the arrow the floors exist to stop.
  std::ofstream(root / "autoscaler/controller/model/cluster_state.cc")
      << "#include \"autoscaler/controller/model/cluster_state.h\"\n"
         "#include \"autoscaler/controller/report/loop_report.h\"\n"
         "#include \"autoscaler/controller/controller_options.h\"\n";
  const auto v = Lines(CheckTree(root));
  std::filesystem::remove_all(root);
  REQUIRE(v.size() == 3);
  CHECK_THAT(v[0], Catch::StartsWith("autoscaler/controller/model/cluster_state.cc:2: "));
  CHECK_THAT(v[1], Catch::StartsWith("autoscaler/controller/model/cluster_state.cc:3: "));
  CHECK_THAT(v[2], Catch::StartsWith("autoscaler/controller/scaledown/planner.cc:2: "));
}

}  // namespace
}  // namespace gpua::layering
