#include "autoscaler/cli/app.h"

#include <catch2/catch.hpp>
#include <sstream>

#include "tests/support/run_command.h"

namespace gpua {
namespace {

struct Run {
  int status;
  std::string out;
  std::string err;
};

Run RunWith(std::vector<std::string> args) {
  std::ostringstream out, err;
  int status = testing::RunCommand(RunApp, args, out, err);
  return {status, out.str(), err.str()};
}

TEST_CASE("the version flag prints the version and succeeds", "[cli]") {
  Run r = RunWith({"--version"});
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Catch::StartsWith("gpu-autoscaler "));
}

TEST_CASE("help lists every subcommand", "[cli]") {
  Run r = RunWith({"--help"});
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Catch::Contains("Usage:"));
  for (const Subcommand& s : Subcommands()) CHECK_THAT(r.out, Catch::Contains(s.name));
}

TEST_CASE("an unknown subcommand is a usage error that names it", "[cli]") {
  Run r = RunWith({"estimat"});
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("unknown subcommand \"estimat\""));
}

TEST_CASE("an unknown flag is a usage error that names it", "[cli]") {
  Run r = RunWith({"--no-such-flag"});
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("--no-such-flag"));
}

}  // namespace
}  // namespace gpua
