// Fuzzes the trace reader (`simulate`'s workload file): any bytes read as a trace give a trace
// whose lines keep what `Simulate` relies on (a positive count and run time, arrivals in time
// order, a budget of no negative size), or an error that names the file. The soak's workload
// is then drawn on it, as `simulate --faults` does.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>

#include "absl/strings/str_split.h"
#include "autoscaler/sim/soak_workload.h"
#include "autoscaler/sim/trace.h"
#include "tests/fuzz/same_as_json.h"

namespace {

[[noreturn]] void Fail(const std::string& what) {
  std::cerr << what << "\n";
  std::abort();
}

// A pod template naming a special file would block the reader on it; such inputs are skipped.
bool AnyLineNamesSpecialFiles(const std::string& text) {
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    const nlohmann::json json = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!json.is_discarded() && gpua::fuzz::NamesSpecialFiles(json)) return true;
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  if (AnyLineNamesSpecialFiles(text)) return 0;
  const absl::StatusOr<gpua::sim::Trace> trace =
      gpua::sim::ParseTrace(text, "fuzz.jsonl", "/nonexistent-gpua-fuzz");
  if (!trace.ok()) {
    if (trace.status().message().find("fuzz.jsonl") == absl::string_view::npos) {
      Fail(std::string("An error that does not name the file: ") +
           std::string(trace.status().message()));
    }
    return 0;
  }
  if (trace->arrivals.empty()) Fail("A trace read with no pod arriving");
  absl::Duration last = absl::ZeroDuration();
  for (const gpua::sim::TraceArrival& a : trace->arrivals) {
    if (a.count < 1 || a.run_for <= absl::ZeroDuration() || a.at < last || a.shape == nullptr ||
        (a.min_available.has_value() && *a.min_available < 0)) {
      Fail("A line read into an arrival Simulate cannot run: line " + std::to_string(a.line));
    }
    last = a.at;
  }
  const gpua::sim::Trace soaked = gpua::sim::WithSoakWorkload(*trace, {1, 1}, 7);
  for (const gpua::sim::TraceArrival& a : soaked.arrivals) {
    if (!a.min_available.has_value() || a.shape->safe_to_evict != false) {
      Fail("The soak's workload left a line without its budget or its safe-to-evict mark");
    }
  }
  return 0;
}
