// The expander chain a loop plans with: the priority expander's ConfigMap read each loop, a
// bad one said once, a chain that cannot be built falling back to least-waste.
#include "autoscaler/controller/scaleup/expander_choice.h"

#include <catch2/catch.hpp>

#include "tests/support/fake_cluster_source.h"

namespace gpua::testing {
namespace {

NodeGroupSpec Spec(const std::string& id) {
  NodeGroupSpec g;
  g.id = id;
  return g;
}

// Which of two equal options (group a100, then h100) the chain picks.
std::string Picks(Expander& e) {
  static const NodeGroupSpec a100 = Spec("a100"), h100 = Spec("h100");
  std::vector<ScaleUpOption> options(2);
  options[0].group = &a100;
  options[1].group = &h100;
  for (ScaleUpOption& o : options) {  // equal in all but the group's name
    o.new_nodes = 1;
    o.pod_count = 1;
    o.pods_requests.Set("cpu", Quantity::FromUnits(1));
    o.nodes_allocatable.Set("cpu", Quantity::FromUnits(2));
  }
  const int best = ChooseOption(e, options);
  return best < 0 ? "" : options[best].group->id;
}

void SetPriorities(FakeClusterSource& source, const std::string& yaml) {
  auto cm = std::make_shared<ConfigMapObject>();
  cm->namespace_name = "kube-system";
  cm->name = "cluster-autoscaler-priority-expander";
  cm->data = {{"priorities", yaml}};
  source.view.config_maps = {cm};
}

// The choice for --expander=`spec`, reading its ConfigMap from `source` in kube-system.
struct ChoiceFixture {
  explicit ChoiceFixture(const std::string& spec) { options.expander = spec; }
  // The chain this loop plans with, for the priorities text `yaml`.
  std::unique_ptr<Expander> For(const std::string& yaml) {
    SetPriorities(source, yaml);
    return choice.For(*source.View());
  }
  ScaleUpOptions options;
  MemoryLogSink log;
  ExpanderChoice choice{options, "kube-system", log};
  FakeClusterSource source;
};

TEST_CASE("the priority expander follows its ConfigMap as it is edited",
          "[controller][scale-up][expander]") {
  ChoiceFixture f("priority,least-waste");
  CHECK(Picks(*f.For("10:\n  - h100\n1:\n  - a100\n")) == "h100");
  CHECK(Picks(*f.For("10:\n  - a100\n1:\n  - h100\n")) == "a100");
}

TEST_CASE("a priorities text that does not parse is said once and planned without",
          "[controller][scale-up][expander]") {
  ChoiceFixture f("priority,least-waste");
  CHECK_FALSE(Picks(*f.For("ten: [not, a, number\n")).empty());
  CHECK_FALSE(Picks(*f.For("ten: [not, a, number\n")).empty());
  int said = 0;
  for (const std::string& line : f.log.lines()) {
    said += line.find("cluster-autoscaler-priority-expander key priorities") != std::string::npos;
  }
  CHECK(said == 1);
}

TEST_CASE("a priority regex that does not compile falls back to the default chain for the loop",
          "[controller][scale-up][expander]") {
  ChoiceFixture f("priority");
  std::unique_ptr<Expander> e = f.For("10:\n  - \"h100[\"\n");
  CHECK(e->name() == kDefaultExpanderChain);
  CHECK(f.log.Contains("using cheapest-equal,least-waste this loop"));
}

}  // namespace
}  // namespace gpua::testing
