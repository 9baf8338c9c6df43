#include <catch2/catch.hpp>

#include "estimator/labels.h"
#include "estimator/pod.h"
#include "estimator/predicates.h"
#include "estimator/taints.h"
#include "test_util.h"

namespace gpua {
namespace {

using testing::Res;

TEST_CASE("node selector operators match as the API documents them", "[selectors]") {
  const Labels labels{{"zone", "a"}, {"gpus", "8"}};
  const std::string* zone = &labels.at("zone");
  const std::string* gpus = &labels.at("gpus");
  CHECK(Requirement{"zone", SelectorOp::kIn, {"a", "b"}}.Matches(zone));
  CHECK_FALSE(Requirement{"zone", SelectorOp::kIn, {"b"}}.Matches(zone));
  CHECK(Requirement{"zone", SelectorOp::kNotIn, {"b"}}.Matches(zone));
  CHECK(Requirement{"absent", SelectorOp::kNotIn, {"b"}}.Matches(nullptr));
  CHECK(Requirement{"zone", SelectorOp::kExists, {}}.Matches(zone));
  CHECK(Requirement{"absent", SelectorOp::kDoesNotExist, {}}.Matches(nullptr));
  CHECK(Requirement{"gpus", SelectorOp::kGt, {"4"}}.Matches(gpus));
  CHECK_FALSE(Requirement{"gpus", SelectorOp::kLt, {"8"}}.Matches(gpus));
  CHECK_FALSE(Requirement{"zone", SelectorOp::kGt, {"1"}}.Matches(zone));  // not an integer
}

TEST_CASE("node selector terms are ORed, their expressions ANDed, empty terms match nothing",
          "[selectors]") {
  const Labels labels{{"zone", "a"}, {"gpu", "h100"}};
  NodeSelector sel{
      {NodeSelectorTerm{{{"zone", SelectorOp::kIn, {"b"}}}, {}},
       NodeSelectorTerm{{{"zone", SelectorOp::kIn, {"a"}}, {"gpu", SelectorOp::kIn, {"h100"}}},
                        {}}}};
  CHECK(sel.Matches(labels, "node-1"));
  CHECK_FALSE(NodeSelector{{NodeSelectorTerm{}}}.Matches(labels, "node-1"));
  CHECK_FALSE(NodeSelector{}.Matches(labels, "node-1"));
  NodeSelector by_name{{NodeSelectorTerm{{}, {{"metadata.name", SelectorOp::kIn, {"node-1"}}}}}};
  CHECK(by_name.Matches(labels, "node-1"));
  CHECK_FALSE(by_name.Matches(labels, "node-2"));
}

TEST_CASE("requirements that the API server would reject are invalid", "[selectors]") {
  CHECK_FALSE(Requirement{"k", SelectorOp::kIn, {}}.Validate().ok());
  CHECK_FALSE(Requirement{"k", SelectorOp::kExists, {"v"}}.Validate().ok());
  CHECK_FALSE(Requirement{"k", SelectorOp::kGt, {"x"}}.Validate().ok());
  CHECK(Requirement{"k", SelectorOp::kLt, {"3"}}.Validate().ok());
  CHECK_FALSE(ParseSelectorOp("Gt", /*allow_gt_lt=*/false).ok());
  CHECK_FALSE(ParseSelectorOp("Like", true).ok());
}

TEST_CASE("tolerations: Exists with an empty key tolerates every taint", "[taints]") {
  const std::vector<Taint> taints = {{"nvidia.com/gpu", "present", TaintEffect::kNoSchedule},
                                     {"spot", "true", TaintEffect::kNoExecute}};
  CHECK(FirstUntoleratedTaint(taints, {{"", Toleration::Op::kExists, "", std::nullopt}}) ==
        nullptr);
}

TEST_CASE("tolerations match key, value and effect", "[taints]") {
  const Taint gpu{"nvidia.com/gpu", "present", TaintEffect::kNoSchedule};
  CHECK(
      Toleration{"nvidia.com/gpu", Toleration::Op::kEqual, "present", std::nullopt}.Tolerates(gpu));
  CHECK_FALSE(
      Toleration{"nvidia.com/gpu", Toleration::Op::kEqual, "absent", std::nullopt}.Tolerates(gpu));
  CHECK(
      Toleration{"nvidia.com/gpu", Toleration::Op::kExists, "", TaintEffect::kNoSchedule}.Tolerates(
          gpu));
  CHECK_FALSE(
      Toleration{"nvidia.com/gpu", Toleration::Op::kExists, "", TaintEffect::kNoExecute}.Tolerates(
          gpu));
}

TEST_CASE("NoSchedule and NoExecute taints block, PreferNoSchedule does not", "[taints]") {
  const Taint prefer{"a", "", TaintEffect::kPreferNoSchedule};
  const Taint no_exec{"b", "x", TaintEffect::kNoExecute};
  CHECK(FirstUntoleratedTaint({prefer}, {}) == nullptr);
  const std::vector<Taint> taints = {prefer, no_exec};
  const Taint* blocking = FirstUntoleratedTaint(taints, {});
  REQUIRE(blocking != nullptr);
  CHECK(blocking->ToString() == "{b: x}");
}

TEST_CASE("the yes-or-no node check agrees with the worded one: cordon, selector, taint",
          "[taints]") {
  NodeProps props;
  props.labels = {{"pool", "gpu"}};
  props.taints = {{"nvidia.com/gpu", "present", TaintEffect::kNoSchedule}};
  PodSpec pod = testing::Pod("p", Res({{"cpu", "1"}}));
  pod.node_selector["pool"] = "gpu";
  const auto both = [&](absl::string_view node) {
    const std::optional<std::string> words = CheckNodeStatic(pod, props, node);
    CHECK(AdmitsStatically(pod, props, node) == !words.has_value());
    return words.value_or("admitted");
  };
  CHECK(both("n1") == "node(s) had untolerated taint {nvidia.com/gpu: present}");
  pod.tolerations.push_back(testing::TolerateGpu());
  CHECK(both("n1") == "admitted");
  props.unschedulable = true;
  CHECK(both("n1") == kReasonUnschedulable);
  pod.tolerations.push_back(
      {"node.kubernetes.io/unschedulable", Toleration::Op::kExists, "", TaintEffect::kNoSchedule});
  CHECK(both("n1") == "admitted");
  pod.node_selector["pool"] = "cpu";
  CHECK(both("n1") == kReasonNodeAffinity);
}

TEST_CASE(
    "effective requests: max of containers and init containers, sidecars add up, "
    "overhead on top",
    "[pod]") {
  std::vector<Container> containers = {{"a", Res({{"cpu", "1"}, {"memory", "1Gi"}}), false},
                                       {"b", Res({{"cpu", "500m"}}), false}};
  std::vector<Container> init = {{"setup", Res({{"cpu", "2"}, {"memory", "512Mi"}}), false},
                                 {"proxy", Res({{"cpu", "100m"}, {"memory", "64Mi"}}), true},
                                 {"late", Res({{"memory", "3Gi"}}), false}};
  ResourceList r = EffectiveRequests(containers, init, Res({{"cpu", "50m"}}));
  // cpu: max(1.5 + 0.1 sidecar, 2 for setup) + 0.05 overhead
  CHECK(r.Get("cpu").ToString() == "2050m");
  // memory: max(1Gi + 64Mi, 3Gi + 64Mi for the init container started after the sidecar)
  CHECK(r.Get("memory").ToString() == "3136Mi");
}

TEST_CASE("host ports conflict by protocol, port and overlapping address", "[pod]") {
  HostPort tcp80{"TCP", "", 80};
  CHECK(tcp80.ConflictsWith({"TCP", "10.0.0.1", 80}));
  CHECK_FALSE(tcp80.ConflictsWith({"UDP", "", 80}));
  CHECK_FALSE(HostPort({"TCP", "10.0.0.1", 80}).ConflictsWith({"TCP", "10.0.0.2", 80}));
  CHECK(HostPort({"TCP", "0.0.0.0", 80}).ConflictsWith({"TCP", "10.0.0.2", 80}));
}

TEST_CASE("pods with the same controller and spec share an equivalence key", "[pod]") {
  PodSpec a = testing::Pod("a", Res({{"cpu", "1"}}), "rs");
  PodSpec b = testing::Pod("b", Res({{"cpu", "1000m"}}), "rs");
  CHECK(EquivalenceKey(a) == EquivalenceKey(b));
  PodSpec other_owner = testing::Pod("c", Res({{"cpu", "1"}}), "rs2");
  CHECK(EquivalenceKey(a) != EquivalenceKey(other_owner));
  PodSpec tolerant = b;  // a changed copy: the key is kept per pod object, read once
  tolerant.tolerations.push_back(testing::TolerateGpu());
  CHECK(EquivalenceKey(a) != EquivalenceKey(tolerant));
}

TEST_CASE("pods a node's labels and taints admit alike share a node selection key", "[pod]") {
  PodSpec a = testing::Pod("a", Res({{"cpu", "1"}}), "rs");
  PodSpec b = testing::Pod("b", Res({{"cpu", "4"}}), "other");
  a.node_selector["pool"] = "p1";
  b.node_selector["pool"] = "p1";
  CHECK(NodeSelectionKey(a) == NodeSelectionKey(b));
  PodSpec tolerant = b;  // a copy works its own key out
  tolerant.tolerations.push_back(testing::TolerateGpu());
  CHECK(NodeSelectionKey(tolerant) != NodeSelectionKey(a));
  PodSpec elsewhere = b;
  elsewhere.node_selector["pool"] = "p2";
  CHECK(NodeSelectionKey(elsewhere) != NodeSelectionKey(a));
}

}  // namespace
}  // namespace gpua
