// --sweep: the setting's name and values, a group's option, and what a group overrides.
#include "autoscaler/sim/sweep.h"

#include <catch2/catch.hpp>

namespace gpua::sim {
namespace {

std::vector<NodeGroupConfig> TwoGroups() {
  auto groups = ParseNodeGroupFile(R"(
nodeGroups:
- {id: a, maxSize: 2, template: {status: {allocatable: {cpu: "4", memory: 8Gi, pods: "10"}}}}
- id: b
  maxSize: 2
  template: {status: {allocatable: {cpu: "4", memory: 8Gi, pods: "10"}}}
  options: {scaleDownUnneededTime: 1m}
)",
                                   "groups.yaml");
  REQUIRE(groups.ok());
  return *groups;
}

TEST_CASE("a sweep names a controller flag or a group's option, and its values", "[sweep]") {
  auto flag = ParseSweep("scale-down-unneeded-time=0s,5m,1h");
  REQUIRE(flag.ok());
  CHECK(flag->name == "scale-down-unneeded-time");
  CHECK(flag->values == std::vector<std::string>{"0s", "5m", "1h"});
  CHECK_FALSE(flag->group_option());
  auto group = ParseSweep("group/a/scaleDownUnneededTime=2m,10m");
  REQUIRE(group.ok());
  CHECK(group->group == "a");
  CHECK(group->option == "scaleDownUnneededTime");
  CHECK(ParseSweep("--expander=price,least-waste")->name == "expander");
}

TEST_CASE("a malformed sweep is refused saying what is wrong", "[sweep]") {
  CHECK_THAT(std::string(ParseSweep("scale-down-unneeded-time").status().message()),
             Catch::Contains("no name=values"));
  CHECK_THAT(std::string(ParseSweep("x=1,,2").status().message()),
             Catch::Contains("an empty value"));
  CHECK_THAT(std::string(ParseSweep("group/a=1m").status().message()),
             Catch::Contains("group/<id>/<option>"));
}

TEST_CASE("a group option sweep sets that group's option only, and errors name group and option",
          "[sweep]") {
  const Sweep sweep = *ParseSweep("group/a/scaleDownUnneededTime=5m");
  auto groups = WithGroupOption(TwoGroups(), sweep, "5m");
  REQUIRE(groups.ok());
  CHECK((*groups)[0].options.scale_down_unneeded_time == absl::Minutes(5));
  CHECK((*groups)[1].options.scale_down_unneeded_time == absl::Minutes(1));
  CHECK_THAT(std::string(WithGroupOption(TwoGroups(), sweep, "soon").status().message()),
             Catch::Contains("group/a") && Catch::Contains("scaleDownUnneededTime") &&
                 Catch::Contains("\"soon\""));
  CHECK_THAT(std::string(
                 WithGroupOption(TwoGroups(), *ParseSweep("group/c/scaleDownUnneededTime=1m"), "1m")
                     .status()
                     .message()),
             Catch::Contains("no node group \"c\""));
  CHECK_THAT(
      std::string(
          WithGroupOption(TwoGroups(), *ParseSweep("group/a/idle=1m"), "1m").status().message()),
      Catch::Contains("unknown key \"idle\""));
}

TEST_CASE("a swept flag that a group sets for itself is reported for that group", "[sweep]") {
  std::string option;
  CHECK(GroupsOverridingFlag(TwoGroups(), *ParseSweep("scale-down-unneeded-time=1m"), &option) ==
        std::vector<std::string>{"b"});
  CHECK(option == "scaleDownUnneededTime");
  CHECK(GroupsOverridingFlag(TwoGroups(), *ParseSweep("expander=price"), &option).empty());
}

}  // namespace
}  // namespace gpua::sim

namespace gpua::sim {
namespace {

TEST_CASE("a sweep of a group's warm nodes or schedule sets that group's warm capacity",
          "[sweep][warm]") {
  auto two = WithGroupOption(TwoGroups(), *ParseSweep("group/b/warmNodes=0,2"), "2");
  REQUIRE(two.ok());
  CHECK((*two)[0].warm.nodes == 0);
  CHECK((*two)[1].warm.nodes == 2);
  auto day = WithGroupOption(TwoGroups(), *ParseSweep("group/a/warmSchedule=07:00-19:00=1"),
                             "07:00-19:00=1");
  REQUIRE(day.ok());
  CHECK((*day)[0].warm.schedule->ToString() == "07:00-19:00=1");
  CHECK_THAT(
      std::string(
          WithGroupOption(TwoGroups(), *ParseSweep("group/a/warmNodes=3"), "3").status().message()),
      Catch::Contains("more than maxSize 2"));
  CHECK_THAT(
      std::string(
          WithGroupOption(TwoGroups(), *ParseSweep("group/a/warmNodes=x"), "x").status().message()),
      Catch::Contains("group/a") && Catch::Contains("warmNodes \"x\""));
}

}  // namespace
}  // namespace gpua::sim
