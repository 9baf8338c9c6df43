#include "base/flag_set.h"

#include <catch2/catch.hpp>

#include "absl/strings/str_cat.h"

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
  Flags g;
  g.dry_run = true;
  REQUIRE(g.set.Parse({"--dry-run=false"}).ok());
  CHECK_FALSE(g.dry_run);
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

TEST_CASE("a flag given twice is refused with both values, and a list takes each", "[flags]") {
  Flags f;
  std::vector<std::string> taints;
  f.set.AddStringList("startup-taint", &taints, "taint keys");
  absl::StatusOr<std::vector<std::string>> twice =
      f.set.Parse({"--expander=price", "-expander", "least-waste"});
  REQUIRE_FALSE(twice.ok());
  CHECK(std::string(twice.status().message()) ==
        "gpu-autoscaler test: flag --expander is given twice (\"price\" and \"least-waste\"): "
        "give it once");
  Flags g;
  g.set.AddStringList("startup-taint", &taints, "taint keys");
  REQUIRE(g.set.Parse({"--startup-taint=a", "--startup-taint=b"}).ok());
  CHECK(taints == std::vector<std::string>{"a", "b"});
}

TEST_CASE("a duration flag takes 0 or more, never a negative or endless time", "[flags]") {
  for (const char* bad : {"-5m", "inf", "-inf", "5"}) {
    Flags f;
    absl::StatusOr<std::vector<std::string>> parsed =
        f.set.Parse({absl::StrCat("--scale-down-unneeded-time=", bad)});
    INFO(bad);
    REQUIRE_FALSE(parsed.ok());
    CHECK_THAT(std::string(parsed.status().message()),
               Catch::Contains("expected a duration of 0 or more"));
    CHECK(f.unneeded == absl::Minutes(10));
  }
  Flags f;
  REQUIRE(f.set.Parse({"--scale-down-unneeded-time=0s"}).ok());
  CHECK(f.unneeded == absl::ZeroDuration());
}

}  // namespace
}  // namespace gpua
