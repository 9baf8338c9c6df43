// Fuzzes `gpu-autoscaler record`'s promise: whatever pod the API server sends (any bytes read
// as a Pod, seen bound and then gone), the trace it writes is one `simulate` reads back. A pod
// it cannot read is left out and named; it never makes the trace unreadable.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "autoscaler/sim/trace.h"
#include "autoscaler/sim/trace_recorder.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const nlohmann::json pod =
      nlohmann::json::parse(reinterpret_cast<const char*>(data),
                            reinterpret_cast<const char*>(data) + size, nullptr, false);
  if (pod.is_discarded() || !pod.is_object()) return 0;
  const absl::Time start =
      absl::FromCivil(absl::CivilSecond(2026, 11, 30, 9, 0, 0), absl::UTCTimeZone());
  gpua::sim::TraceRecorder recorder;
  recorder.Saw(pod, start + absl::Minutes(1));
  nlohmann::json bound = pod;
  if (!bound.contains("spec") || !bound["spec"].is_object()) return 0;
  bound["spec"]["nodeName"] = "node-1";
  recorder.Saw(bound, start + absl::Minutes(2));
  recorder.Gone(bound, start + absl::Hours(1));
  gpua::sim::RecordWindow window;
  window.start = start;
  window.end = start + absl::Hours(2);
  window.source = "fuzz";
  const gpua::sim::RecordedTrace recorded = recorder.Write(window);
  if (recorded.summary.pods == 0) return 0;  // nothing ran: `record` says so and writes no pods
  const auto reread = gpua::sim::ParseTrace(recorded.text, "recorded", ".");
  if (!reread.ok()) {
    std::cerr << "the recorded trace does not read back: " << reread.status().message() << "\n"
              << recorded.text;
    std::abort();
  }
  if (reread->pods() != recorded.summary.pods) {
    std::cerr << "the trace holds " << reread->pods() << " pods, the summary says "
              << recorded.summary.pods << "\n"
              << recorded.text;
    std::abort();
  }
  return 0;
}
