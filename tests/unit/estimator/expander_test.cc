#include "estimator/expander.h"

#include <catch2/catch.hpp>

#include "test_util.h"

namespace gpua {
namespace {

using testing::Res;

struct Options {
  std::vector<NodeGroupSpec> groups;
  std::vector<ScaleUpOption> options;
  void Add(const std::string& id, double price, int nodes, int pods, ResourceList requested,
           ResourceList offered) {
    NodeGroupSpec g;
    g.id = id;
    g.price_per_hour = price;
    groups.push_back(g);
    ScaleUpOption o;
    o.new_nodes = nodes;
    o.pod_count = pods;
    o.pods_requests = std::move(requested);
    o.nodes_allocatable = std::move(offered);
    options.push_back(o);
  }
  std::string Choose(const std::string& spec, ExpanderConfig config = {}) {
    for (size_t i = 0; i < options.size(); ++i) options[i].group = &groups[i];
    auto chain = MakeExpanderChain(spec, config);
    REQUIRE(chain.ok());
    int i = ChooseOption(**chain, options);
    return i < 0 ? "" : groups[i].id;
  }
};

TEST_CASE("least-waste judges GPUs before cpu and memory", "[expander]") {
  Options o;
  // Wastes half its GPUs but no cpu.
  o.Add("half-gpu", 1, 1, 4, Res({{"cpu", "8"}, {"nvidia.com/gpu", "4"}}),
        Res({{"cpu", "8"}, {"nvidia.com/gpu", "8"}}));
  // Uses every GPU but wastes most cpu.
  o.Add("full-gpu", 1, 1, 4, Res({{"cpu", "1"}, {"nvidia.com/gpu", "4"}}),
        Res({{"cpu", "96"}, {"nvidia.com/gpu", "4"}}));
  CHECK(o.Choose("least-waste") == "full-gpu");
}

TEST_CASE("by default a dearer pool is never chosen when a cheaper one holds the same pods",
          "[expander][cheapest-equal]") {
  Options o;
  // Four 1-GPU pods: two V100 pools hold them on one node each, equally full; the first
  // listed is 27% dearer. least-waste alone ties and takes the first.
  const ResourceList pods = Res({{"cpu", "8"}, {"nvidia.com/gpu", "4"}});
  const ResourceList node = Res({{"cpu", "32"}, {"nvidia.com/gpu", "4"}});
  o.Add("v100-dear", 12.24, 1, 4, pods, node);
  o.Add("v100-cheap", 9.64, 1, 4, pods, node);
  CHECK(o.Choose("least-waste") == "v100-dear");
  CHECK(o.Choose(kDefaultExpanderChain) == "v100-cheap");
}

TEST_CASE("cheapest-equal keeps what it cannot compare: fewer pods, dearer per GPU, no price",
          "[expander][cheapest-equal]") {
  Options o;
  const ResourceList four = Res({{"nvidia.com/gpu", "4"}});
  // A cheaper 8-GPU node that holds the same pods is cheaper per GPU but dearer in all: kept,
  // and least-waste then takes the 4-GPU node, which costs less.
  o.Add("four-gpu", 4.0, 1, 4, four, four);
  o.Add("eight-gpu", 6.0, 1, 4, four, Res({{"nvidia.com/gpu", "8"}}));
  CHECK(o.Choose("cheapest-equal,least-nodes") == "four-gpu");  // the dearer one was dropped
  Options fewer;
  // The cheaper option holds only two of the pods: not the same pods, both stay.
  fewer.Add("all", 10.0, 1, 4, four, four);
  fewer.Add("half", 5.0, 1, 2, Res({{"nvidia.com/gpu", "2"}}), Res({{"nvidia.com/gpu", "2"}}));
  CHECK(fewer.Choose("cheapest-equal,most-pods") == "all");
  Options unpriced;
  // A provider with no pricing: nothing is compared, the chain goes on as before.
  unpriced.Add("a", 0, 2, 4, four, four);
  unpriced.Add("b", 0, 1, 4, four, four);
  CHECK(unpriced.Choose("cheapest-equal,least-nodes") == "b");
  CHECK(unpriced.Choose("cheapest-equal") == "a");  // a tie: the first
}

TEST_CASE("price prefers the cheapest option per pod placed", "[expander]") {
  Options o;
  o.Add("cheap", 1.0, 2, 4, {}, {});
  o.Add("dear", 3.0, 1, 4, {}, {});
  CHECK(o.Choose("price") == "cheap");
}

TEST_CASE("most-pods and least-nodes", "[expander]") {
  Options o;
  o.Add("few-pods", 1, 1, 2, {}, {});
  o.Add("many-pods", 1, 3, 9, {}, {});
  CHECK(o.Choose("most-pods") == "many-pods");
  CHECK(o.Choose("least-nodes") == "few-pods");
}

TEST_CASE("priority takes the highest-priority regex match and ties go down the chain",
          "[expander]") {
  Options o;
  o.Add("h100-spot", 55, 2, 4, {}, {});
  o.Add("a100-spot", 30, 1, 4, {}, {});
  o.Add("a100-on-demand", 10, 1, 4, {}, {});
  ExpanderConfig config;
  config.priorities = {{10, {".*on-demand.*"}}, {50, {".*-spot$"}}};
  CHECK(o.Choose("priority", config) == "h100-spot");  // first of the tie
  CHECK(o.Choose("priority,least-nodes", config) == "a100-spot");
  ExpanderConfig none;
  none.priorities = {{10, {"^nothing$"}}};
  CHECK(o.Choose("priority,price", none) == "a100-on-demand");  // no match keeps all
}

TEST_CASE("random is repeatable for a seed", "[expander]") {
  Options o;
  for (int i = 0; i < 10; ++i) o.Add("g" + std::to_string(i), 1, 1, 1, {}, {});
  ExpanderConfig c;
  c.random_seed = 7;
  const std::string first = o.Choose("random", c);
  CHECK(o.Choose("random", c) == first);
}

TEST_CASE("unknown expanders and bad regexes are errors that name them", "[expander]") {
  auto unknown = MakeExpanderChain("least-waste,cheapest", {});
  REQUIRE_FALSE(unknown.ok());
  CHECK_THAT(std::string(unknown.status().message()), Catch::Contains("\"cheapest\""));
  ExpanderConfig c;
  c.priorities = {{1, {"([a-z"}}};
  auto bad = MakeExpanderChain("priority", c);
  REQUIRE_FALSE(bad.ok());
  CHECK_THAT(std::string(bad.status().message()), Catch::Contains("([a-z"));
}

}  // namespace
}  // namespace gpua
