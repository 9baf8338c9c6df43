#include "base/log.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <iostream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace gpua {
namespace {

TEST_CASE("info lines above the verbosity are dropped, warnings and errors never", "[log]") {
  MemoryLogSink log;
  log.Info("always");
  log.Info("detail", 2);
  log.Warning("careful");
  log.Error("broken");
  CHECK(log.lines() == std::vector<std::string>{"always", "W: careful", "E: broken"});
  log.set_verbosity(2);
  CHECK(log.V(2));
  CHECK_FALSE(log.V(3));
  log.Info("detail", 2);
  CHECK(log.Contains("detail"));
}

TEST_CASE("a stream sink writes one prefixed line per call", "[log]") {
  std::ostringstream out;
  StreamLogSink log(out, "gpu-autoscaler inspect: ");
  log.Warning("pod ml/a: spec.containers: missing");
  log.Info("listing again");
  CHECK(out.str() ==
        "gpu-autoscaler inspect: pod ml/a: spec.containers: missing\n"
        "gpu-autoscaler inspect: listing again\n");
}

TEST_CASE("the stderr sink stamps lines with the clock it is given, as klog does", "[log]") {
  ManualClock clock(absl::FromCivil(absl::CivilSecond(2026, 12, 1, 10, 0, 0), absl::UTCTimeZone()));
  StderrLogSink log(clock);
  std::ostringstream captured;
  std::streambuf* const stderr_buffer = std::cerr.rdbuf(captured.rdbuf());
  log.Info("first line");
  clock.Advance(absl::Seconds(1) + absl::Microseconds(250));
  log.Error("second line");
  std::cerr.rdbuf(stderr_buffer);
  const std::string pid = absl::StrFormat("%7d", getpid());
  CHECK(captured.str() == absl::StrCat("I1201 10:00:00.000000 ", pid,
                                       " gpu-autoscaler] first line\n", "E1201 10:00:01.000250 ",
                                       pid, " gpu-autoscaler] second line\n"));
}

TEST_CASE("a sleep that may be stopped returns early once stopped", "[clock]") {
  ManualClock clock;
  std::atomic<bool> stop{false};
  const absl::Time start = clock.Now();
  CHECK(clock.SleepUnlessStopped(absl::Seconds(3), stop));
  CHECK(clock.Now() - start == absl::Seconds(3));
  stop = true;
  CHECK_FALSE(clock.SleepUnlessStopped(absl::Hours(1), stop));
  CHECK(clock.Now() - start == absl::Seconds(3));
}

}  // namespace
}  // namespace gpua
