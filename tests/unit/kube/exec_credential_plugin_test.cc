// The exec credential plugin runs bounded: a plugin that hangs is killed at its deadline, or at
// once when the client is cancelled (the controller's SIGTERM), children and all.
#include "autoscaler/kube/exec_credential_plugin.h"

#include <catch2/catch.hpp>
#include <thread>

namespace gpua::kube {
namespace {

ExecPlugin Shell(const std::string& script) {
  return ExecPlugin{"client.authentication.k8s.io/v1", "sh", {"-c", script}, {{"WHO", "exec"}}};
}

TEST_CASE("a plugin's output is returned, with the config's environment", "[kube][exec]") {
  RealClock clock;
  std::atomic<bool> cancelled{false};
  absl::StatusOr<std::string> out =
      RunExecCredentialPlugin(Shell("echo \"$WHO\""), absl::Seconds(30), clock, cancelled);
  REQUIRE(out.ok());
  CHECK(*out == "exec\n");
  const absl::StatusOr<std::string> failed =
      RunExecCredentialPlugin(Shell("exit 3"), absl::Seconds(30), clock, cancelled);
  REQUIRE_FALSE(failed.ok());
  CHECK(std::string(failed.status().message()) == "exec plugin sh failed (exit 3)");
}

TEST_CASE("a plugin that never answers is killed at its deadline, with what it started",
          "[kube][exec]") {
  RealClock clock;
  std::atomic<bool> cancelled{false};
  // The shell's child holds the output open: killing the shell alone would not end the read.
  const absl::StatusOr<std::string> out = RunExecCredentialPlugin(
      Shell("sleep 600; echo late"), absl::Milliseconds(300), clock, cancelled);
  REQUIRE_FALSE(out.ok());
  CHECK(out.status().code() == absl::StatusCode::kUnauthenticated);
  CHECK(std::string(out.status().message()) == "exec plugin sh: no answer within 300ms; killed it");
}

TEST_CASE("a plugin waiting on its stdin gets none: it runs unattended", "[kube][exec]") {
  RealClock clock;
  std::atomic<bool> cancelled{false};
  const absl::StatusOr<std::string> out = RunExecCredentialPlugin(
      Shell("read line; echo \"got [$line]\""), absl::Seconds(30), clock, cancelled);
  REQUIRE(out.ok());
  CHECK(*out == "got []\n");
}

TEST_CASE("cancelling kills a running plugin at once, and refuses to start another",
          "[kube][exec]") {
  RealClock clock;
  std::atomic<bool> cancelled{false};
  std::thread canceller([&] {
    clock.SleepFor(absl::Milliseconds(200));
    cancelled = true;
  });
  const absl::StatusOr<std::string> out =
      RunExecCredentialPlugin(Shell("sleep 600"), absl::Hours(1), clock, cancelled);
  canceller.join();
  REQUIRE_FALSE(out.ok());
  CHECK(std::string(out.status().message()) == "exec plugin sh: killed: shutting down");
  const absl::StatusOr<std::string> again =
      RunExecCredentialPlugin(Shell("echo hi"), absl::Hours(1), clock, cancelled);
  CHECK(again.status().code() == absl::StatusCode::kCancelled);
}

}  // namespace
}  // namespace gpua::kube
