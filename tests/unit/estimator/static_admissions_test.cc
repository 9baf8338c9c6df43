// Which nodes' labels and taints let which pods on, remembered from one planning pass to
// the next while the nodes stay the same.
#include "estimator/static_admissions.h"

#include <catch2/catch.hpp>

#include "tests/unit/estimator/test_util.h"

namespace gpua {
namespace {

using testing::Pod;
using testing::Res;
using Verdict = StaticAdmissions::Verdict;

std::shared_ptr<const NodeProps> Props(const std::string& pool, bool tainted = false) {
  auto props = std::make_shared<NodeProps>();
  props->labels = {{"pool", pool}};
  if (tainted) props->taints = {{"nvidia.com/gpu", "present", TaintEffect::kNoSchedule}};
  return props;
}

Node WithProps(const std::string& name, std::shared_ptr<const NodeProps> props) {
  Node n;
  n.name = name;
  n.allocatable = Res({{"cpu", "4"}, {"pods", "110"}});
  n.props = std::move(props);
  return n;
}

PodSpec ForPool(const std::string& pool) {
  PodSpec p = Pod("p", Res({{"cpu", "1"}}), "app");
  p.node_selector["pool"] = pool;
  return p;
}

TEST_CASE(
    "a node that stays the same keeps its verdict into the next pass, a changed one is "
    "asked again",
    "[admissions]") {
  const auto a = Props("a");
  const PodSpec pod = ForPool("a");
  StaticAdmissions admissions;
  ClusterSnapshot first({WithProps("n1", a), WithProps("n2", Props("b"))});
  admissions.Begin(first);
  CHECK(admissions.Admitting(pod) == std::vector<uint32_t>{0});

  // n2 now carries pool a (a new props object), n3 is new; n1 is unchanged.
  ClusterSnapshot second({WithProps("n0", Props("a")), WithProps("n1", a),
                          WithProps("n2", Props("a", true)), WithProps("n3", Props("a"))});
  admissions.Begin(second);
  const std::vector<Verdict> carried = admissions.For(pod);
  CHECK(carried == std::vector<Verdict>{Verdict::kUnknown, Verdict::kAdmitted, Verdict::kUnknown,
                                        Verdict::kUnknown});
  CHECK(admissions.Admitting(pod) == std::vector<uint32_t>{0, 1, 3});  // n2 is tainted
}

TEST_CASE("a verdict is not carried to another node that shares the props", "[admissions]") {
  const auto shared = Props("a");
  PodSpec pinned = ForPool("a");
  pinned.required_node_affinity =
      NodeSelector{{NodeSelectorTerm{{}, {Requirement{"metadata.name", SelectorOp::kIn, {"y"}}}}}};
  StaticAdmissions admissions;
  ClusterSnapshot first({WithProps("x", shared), WithProps("y", shared)});
  admissions.Begin(first);
  CHECK(admissions.Admitting(pinned) == std::vector<uint32_t>{1});
  ClusterSnapshot second({WithProps("y", shared), WithProps("z", shared)});
  admissions.Begin(second);
  CHECK(admissions.Admitting(pinned) == std::vector<uint32_t>{0});
}

TEST_CASE(
    "nodes that share props keep their verdicts where they stay in order, as others come and "
    "go around them",
    "[admissions]") {
  const auto shared = Props("a");
  const auto other = Props("b");
  const PodSpec pod = ForPool("a");
  StaticAdmissions admissions;
  ClusterSnapshot first(
      {WithProps("a-1", shared), WithProps("a-2", shared), WithProps("b-1", other)});
  admissions.Begin(first);
  CHECK(admissions.Admitting(pod) == std::vector<uint32_t>{0, 1});
  // c-1 came: a-1, a-2 and b-1 keep what was found of them.
  ClusterSnapshot second({WithProps("a-1", shared), WithProps("a-2", shared),
                          WithProps("b-1", other), WithProps("c-1", Props("c"))});
  admissions.Begin(second);
  CHECK(admissions.For(pod) == std::vector<Verdict>{Verdict::kAdmitted, Verdict::kAdmitted,
                                                    Verdict::kRefused, Verdict::kUnknown});
  // a-1 went and a-0 came in its place: a-0 is asked, a-2 keeps its own verdict.
  ClusterSnapshot third({WithProps("a-0", shared), WithProps("a-2", shared),
                         WithProps("b-1", other), WithProps("c-1", Props("c"))});
  admissions.Begin(third);
  const std::vector<Verdict> after = admissions.For(pod);
  CHECK(after == std::vector<Verdict>{Verdict::kUnknown, Verdict::kAdmitted, Verdict::kRefused,
                                      Verdict::kUnknown});
  CHECK(admissions.Admitting(pod) == std::vector<uint32_t>{0, 1});
}

TEST_CASE(
    "a selection is kept through passes that do not ask, then forgotten, and a node "
    "added mid-pass is asked",
    "[admissions]") {
  const auto a = Props("a");
  const PodSpec pod = ForPool("a");
  const PodSpec other = ForPool("b");
  StaticAdmissions admissions;
  ClusterSnapshot snapshot({WithProps("n1", a)});
  admissions.Begin(snapshot);
  CHECK(admissions.Admitting(pod).size() == 1);
  for (int64_t pass = 0; pass < StaticAdmissions::kKeptPasses; ++pass) {
    admissions.Begin(snapshot);  // passes that ask only about `other`
    CHECK(admissions.Admitting(other).empty());
  }
  CHECK(admissions.For(pod) == std::vector<Verdict>{Verdict::kAdmitted});
  for (int64_t pass = 0; pass <= StaticAdmissions::kKeptPasses; ++pass) admissions.Begin(snapshot);
  CHECK(admissions.For(pod) == std::vector<Verdict>{Verdict::kUnknown});

  snapshot.AddNodeFromTemplate("new-1", a, {4000, 0, 0, 110}, {}, {});
  CHECK(admissions.Admitting(pod) == std::vector<uint32_t>{0, 1});
}

TEST_CASE(
    "a pass over the same nodes keeps every verdict and admitting node, but not those of "
    "nodes the last pass added",
    "[admissions]") {
  const auto a = Props("a");
  const PodSpec pod = ForPool("a");
  StaticAdmissions admissions;
  ClusterSnapshot snapshot({WithProps("n1", a), WithProps("n2", Props("b"))});
  admissions.Begin(snapshot);
  snapshot.AddNodeFromTemplate("new-1", a, {4000, 0, 0, 110}, {}, {});
  CHECK(admissions.Admitting(pod) == std::vector<uint32_t>{0, 2});

  // The planner's snapshot, reset to the same nodes for the next loop.
  const std::shared_ptr<const NodeProps> b = snapshot.node(1).props;
  snapshot.Reset({WithProps("n1", a), WithProps("n2", b)});
  admissions.Begin(snapshot);
  CHECK(admissions.For(pod) == std::vector<Verdict>{Verdict::kAdmitted, Verdict::kRefused});
  CHECK(admissions.Admitting(pod) == std::vector<uint32_t>{0});
  snapshot.AddNodeFromTemplate("new-1", Props("b"), {4000, 0, 0, 110}, {}, {});
  CHECK(admissions.Admitting(pod) == std::vector<uint32_t>{0});

  // A node whose props changed is asked again, in a reset snapshot as in a new one.
  snapshot.Reset({WithProps("n1", a), WithProps("n2", Props("a"))});
  admissions.Begin(snapshot);
  CHECK(admissions.Admitting(pod) == std::vector<uint32_t>{0, 1});
}

}  // namespace
}  // namespace gpua
