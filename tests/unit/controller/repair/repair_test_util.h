// What the repair tests share: a group of H100 nodes on the fakes, and nodes given the signals
// node agents set.
#ifndef GPUA_TESTS_UNIT_CONTROLLER_REPAIR_REPAIR_TEST_UTIL_H_
#define GPUA_TESTS_UNIT_CONTROLLER_REPAIR_REPAIR_TEST_UTIL_H_

#include <memory>
#include <string>

#include "tests/support/fake_cluster.h"
#include "tests/unit/controller/controller_test_util.h"

namespace gpua::testing {

// The node `name` of `source`, changed by `edit`.
template <typename Edit>
void EditNode(FakeClusterSource& source, const std::string& name, Edit edit) {
  for (const NodePtr& n : source.view.nodes) {
    if (n->node.name != name) continue;
    auto copy = std::make_shared<NodeObject>(*n);
    edit(*copy);
    source.ReplaceNode(copy);
    return;
  }
  FAIL("no node " << name);
}

inline void SetCondition(FakeClusterSource& source, const std::string& name,
                         const std::string& type, const std::string& status,
                         std::optional<absl::Time> since, const std::string& reason = "") {
  EditNode(source, name, [&](NodeObject& n) {
    n.conditions.push_back({type, status, reason, "", since});
    if (type == "Ready") n.ready = status == "True";
  });
}

// `count` H100 nodes of group "h100" (min 0, max 10), registered an hour before kNow.
inline FakeNodeGroup& H100Pool(LoopFakes& f, int count, int min = 0, int max = 10) {
  FakeNodeGroup& g = f.cloud.AddGroup("h100", min, max, H100Template());
  for (int i = 0; i < count; ++i) {
    RegisterNode(f.source, g, "h100-" + std::to_string(i), kNow - absl::Hours(1));
  }
  return g;
}

}  // namespace gpua::testing

#endif  // GPUA_TESTS_UNIT_CONTROLLER_REPAIR_REPAIR_TEST_UTIL_H_
