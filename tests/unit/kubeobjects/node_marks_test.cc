#include "kubeobjects/node_marks.h"

#include <catch2/catch.hpp>

#include "kubeobjects/nodes.h"

namespace gpua {
namespace {

NodeObject MarkedNode() {
  NodeObject n;
  n.node.name = "a100-7";
  n.node.labels = {{"nvidia.com/mig.config", "all-1g.10gb"}};
  n.node.taints = {{"nvidia.com/gpu", "present", TaintEffect::kNoSchedule},
                   {kDeletionCandidateTaint, "1700000000", TaintEffect::kPreferNoSchedule},
                   {kToBeDeletedTaint, "1700000600", TaintEffect::kNoSchedule}};
  n.annotations = {{kScaleDownDisabledAnnotation, "true"}, {kRemovalReasonAnnotation, "empty"}};
  return n;
}

TEST_CASE("a node's removal marks are read from its taints, annotations and MIG label",
          "[nodes][marks]") {
  const NodeObject n = MarkedNode();
  const NodeMarks& m = n.Marks();
  CHECK(m.to_be_deleted);
  CHECK(m.to_be_deleted_since == absl::FromUnixSeconds(1700000600));
  CHECK(m.deletion_candidate);
  CHECK(m.candidate_since == absl::FromUnixSeconds(1700000000));
  CHECK(m.scale_down_disabled);
  CHECK(m.removal_reason == "empty");
  CHECK(m.mig_layout == "all-1g.10gb");
  CHECK(m.interruption_source.empty());
  CHECK(&n.Marks() == &m);  // read once per object
}

TEST_CASE("a spot interruption taint is named by what puts it", "[nodes][marks]") {
  NodeObject n;
  n.node.name = "spot-3";
  n.node.taints = {{"cloud.google.com/impending-node-termination", "", TaintEffect::kNoSchedule}};
  CHECK(n.Marks().interruption_source == "GKE's impending-node-termination taint");
}

TEST_CASE("a node without marks has none, and a taint without a time is there but has no time",
          "[nodes][marks]") {
  NodeObject n;
  n.node.name = "l4-1";
  n.annotations = {{kScaleDownDisabledAnnotation, "false"}};
  const NodeMarks& none = n.Marks();
  CHECK_FALSE(none.to_be_deleted);
  CHECK_FALSE(none.deletion_candidate);
  CHECK_FALSE(none.candidate_since.has_value());
  CHECK_FALSE(none.scale_down_disabled);
  CHECK(none.removal_reason.empty());
  CHECK(none.mig_layout.empty());

  NodeObject changed = n;  // a changed copy reads its own marks
  changed.node.taints = {{kDeletionCandidateTaint, "soon", TaintEffect::kPreferNoSchedule}};
  CHECK(changed.Marks().deletion_candidate);
  CHECK_FALSE(changed.Marks().candidate_since.has_value());
  CHECK(HasTaint(changed.node, kDeletionCandidateTaint));
  CHECK_FALSE(TaintTime(changed.node, kDeletionCandidateTaint).has_value());
}

}  // namespace
}  // namespace gpua
