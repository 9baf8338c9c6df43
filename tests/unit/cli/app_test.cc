#include "autoscaler/cli/app.h"

#include <catch2/catch.hpp>

#include "tests/support/run_command.h"

namespace gpua {
namespace {

using Run = testing::CommandRun;

Run RunWith(const CommandArgs& args) { return testing::RunCaptured(RunApp, args); }

TEST_CASE("the version flag prints the version and succeeds", "[cli]") {
  Run r = RunWith({"--version"});
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::StartsWith("gpu-autoscaler "));
}

TEST_CASE("help lists every subcommand", "[cli]") {
  Run r = RunWith({"--help"});
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("Usage:"));
  for (const Subcommand& s : Subcommands()) CHECK_THAT(r.out, Catch::Contains(s.name));
}

TEST_CASE("an unknown subcommand is a usage error that names it", "[cli]") {
  Run r = RunWith({"estimat"});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("unknown subcommand \"estimat\""));
}

TEST_CASE("an unknown flag is a usage error that names it", "[cli]") {
  Run r = RunWith({"--no-such-flag"});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("--no-such-flag"));
}

}  // namespace
}  // namespace gpua
