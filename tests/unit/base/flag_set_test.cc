#include "base/flag_set.h"

#include <catch2/catch.hpp>

namespace gpua {
namespace {

struct Flags {
  std::string expander = "least-waste";
  bool dry_run = false;
  int64_t max_nodes = 0;
  double threshold = 0.5;
  absl::Duration unneeded = absl::Minutes(10);
  FlagSet set{"gpu-autoscaler test"};
  Flags() {
    set.AddString("expander", &expander, "expander chain");
    set.AddBool("dry-run", &dry_run, "act on nothing");
    set.AddInt("max-nodes-total", &max_nodes, "node cap");
    set.AddDouble("scale-down-utilization-threshold", &threshold, "threshold");
    set.AddDuration("scale-down-unneeded-time", &unneeded, "idle timeout");
  }
};

TEST_CASE("flags take Go's forms: -name, --name=value, --name value", "[flags]") {
  Flags f;
  auto rest = f.set.Parse({"--expander=priority,least-waste", "-max-nodes-total", "40", "--dry-run",
                           "--scale-down-unneeded-time=5m", "file.yaml",
                           "--scale-down-utilization-threshold=0.25"});
  REQUIRE(rest.ok());
  CHECK(f.expander == "priority,least-waste");
  CHECK(f.max_nodes == 40);
  CHECK(f.dry_run);
  CHECK(f.unneeded == absl::Minutes(5));
  CHECK(f.threshold == 0.25);
  CHECK(*rest == std::vector<std::string>{"file.yaml"});
}

TEST_CASE("a boolean takes its value only after '='", "[flags]") {
  Flags f;
  auto rest = f.set.Parse({"--dry-run", "false"});
  REQUIRE(rest.ok());
  CHECK(f.dry_run);
  CHECK(*rest == std::vector<std::string>{"false"});
  REQUIRE(f.set.Parse({"--dry-run=false"}).ok());
  CHECK_FALSE(f.dry_run);
}

TEST_CASE("a double dash ends the flags", "[flags]") {
  Flags f;
  auto rest = f.set.Parse({"--", "--dry-run"});
  REQUIRE(rest.ok());
  CHECK_FALSE(f.dry_run);
  CHECK(*rest == std::vector<std::string>{"--dry-run"});
}

TEST_CASE("an unknown flag or a bad value is an error naming the flag", "[flags]") {
  Flags f;
  auto unknown = f.set.Parse({"--expandr=price"});
  REQUIRE_FALSE(unknown.ok());
  CHECK_THAT(std::string(unknown.status().message()), Catch::Contains("unknown flag --expandr"));

  auto bad = f.set.Parse({"--scale-down-unneeded-time=ten minutes"});
  REQUIRE_FALSE(bad.ok());
  CHECK_THAT(std::string(bad.status().message()),
             Catch::Contains("\"ten minutes\" for flag --scale-down-unneeded-time"));

  auto missing = f.set.Parse({"--max-nodes-total"});
  REQUIRE_FALSE(missing.ok());
  CHECK_THAT(std::string(missing.status().message()), Catch::Contains("needs a value"));

  CHECK_FALSE(f.set.Parse({"--max-nodes-total=many"}).ok());
  CHECK_FALSE(f.set.Parse({"--dry-run=maybe"}).ok());
}

TEST_CASE("help is noticed and usage lists every flag with its default", "[flags]") {
  Flags f;
  REQUIRE(f.set.Parse({"--help"}).ok());
  CHECK(f.set.help());
  const std::string usage = f.set.Usage();
  CHECK_THAT(usage, Catch::Contains("--scale-down-unneeded-time duration"));
  CHECK_THAT(usage, Catch::Contains("(default 10m)"));
  CHECK_THAT(usage, Catch::Contains("(default least-waste)"));
}

}  // namespace
}  // namespace gpua
