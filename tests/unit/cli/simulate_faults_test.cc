// `gpu-autoscaler simulate --faults`: the fault soak as a user runs it, and the short soak CI
// runs on every change: the bundled week under the default profile, every invariant kept.

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "autoscaler/cli/app.h"
#include "tests/support/run_command.h"
#include "tests/support/temp_file.h"

namespace gpua {
namespace {

// Under the sanitizers (a Debug build) a week takes minutes: the soak runs a day there, and
// the whole week in the normal build.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

using Ran = testing::CommandRun;

Ran Simulate(CommandArgs args) {
  args.insert(args.begin(), "simulate");
  return testing::RunCaptured(RunApp, args);
}

using testing::WriteTempFile;

TEST_CASE(
    "the short soak: the bundled workload under the default faults keeps every "
    "invariant",
    "[simulate][faults][soak]") {
  const Ran r =
      Simulate({"--faults", "default", "--seed", "3", "--sweep", "scale-down-unneeded-time=10m",
                "--output", "json", "--until", kSanitized ? "24h" : "0s"});
  INFO(r.err.substr(0, 2000));
  const nlohmann::json j = nlohmann::json::parse(r.out)[0];
  INFO(j["first_violations"].dump(2));
  CHECK(j["node_hours"].get<double>() >= (kSanitized ? 100 : 500));
  // Every invariant listed, each kept.
  REQUIRE(j["invariants"].size() == 7);
  for (const auto& [invariant, count] : j["invariants"].items()) {
    INFO(invariant);
    CHECK(count.get<int>() == 0);
  }
  CHECK(r.code == 0);
  // Every fault kind was injected (deleting Node objects too: those that linger after their
  // machines).
  REQUIRE(j["faults"].size() == 20);
  for (const auto& [kind, count] : j["faults"].items()) {
    INFO(kind);
    // A day injects the rarest kinds (evictions fail at 5% of a few dozen) once or twice.
    CHECK(count.get<int>() >= (kSanitized ? 1 : 10));
  }
  CHECK(j["leader_transitions"].get<int>() >= 10);
  // The profile's PodDisruptionBudgets held drains back, and the controller kept them.
  CHECK(j["evictions_refused_by_budget"].get<int>() >= 1);
  CHECK(j["restarts_mid_loop_at"].size() >= 3);  // taints, evictions, scale-ups, ...
}

TEST_CASE("a fault soak that breaks an invariant fails the run and says the first violation",
          "[simulate][faults]") {
  // Garbage from the plugin only; its answers are what the controller must not act on. A
  // soak with nothing broken exits 0; the text names every invariant.
  const std::string profile =
      WriteTempFile("garbage.yaml", "faults:\n  plugin_garbage: {probability: 0.05}\n");
  const Ran r =
      Simulate({"--faults", profile, "--until", "12h", "--sweep", "scale-down-unneeded-time=10m"});
  INFO(r.err);
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("Faults injected:") && Catch::Contains("plugin_garbage=") &&
                        Catch::Contains("Invariant violations: group_outside_min_max=0"));
}

TEST_CASE("a fault profile that cannot be read is a usage error naming the kind and field",
          "[simulate][faults]") {
  const auto error = [](const std::string& text) {
    const Ran r = Simulate({"--faults", WriteTempFile("bad.yaml", text), "--until", "1h"});
    CHECK(r.code == 2);
    return r.err;
  };
  CHECK_THAT(error("faults:\n  api_error_evict: {probability: 1.5}\n"),
             Catch::Contains("--faults: ") &&
                 Catch::Contains("faults[api_error_evict].probability") &&
                 Catch::Contains("between 0 and 1"));
  CHECK_THAT(error("faults:\n  disk_full: {probability: 0.1}\n"),
             Catch::Contains("disk_full") && Catch::Contains("no such fault kind"));
  CHECK_THAT(error("faults:\n  watch_cut: {duration: 30s}\n"),
             Catch::Contains("faults[watch_cut].every"));
  CHECK_THAT(error("faults:\n  watch_cut: {every: soon}\n"),
             Catch::Contains("faults[watch_cut].every") && Catch::Contains("\"soon\""));
  CHECK_THAT(error("faults:\n  watch_cut: {every: 1h, probability: 0.5}\n"),
             Catch::Contains("probability"));
  CHECK_THAT(
      error("workload:\n  disruption_budgets: {share: 2}\n"),
      Catch::Contains("workload.disruption_budgets.share") && Catch::Contains("between 0 and 1"));
  CHECK_THAT(error("workload:\n  pdbs: {share: 0.5}\n"), Catch::Contains("pdbs"));
  CHECK_THAT(error("workload:\n  not_safe_to_evict: {}\n"),
             Catch::Contains("workload.not_safe_to_evict.share") && Catch::Contains("missing"));
  const Ran missing = Simulate({"--faults", "/nonexistent/profile.yaml", "--until", "1h"});
  CHECK(missing.code == 2);
  CHECK_THAT(missing.err, Catch::Contains("/nonexistent/profile.yaml"));
}

}  // namespace
}  // namespace gpua
