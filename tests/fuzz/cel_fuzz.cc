// Fuzzes the CEL evaluator that device selectors run in: any text compiles or is refused
// without harm, and what compiles evaluates against a device (an H100 with a version, a
// quantity and an absent domain) to the same outcome twice, within its step budget.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>

#include "estimator/cel/cel_program.h"
#include "estimator/dra/device_cel.h"

namespace {

const gpua::dra::Device& FuzzDevice() {
  static const gpua::dra::Device* const kDevice = [] {
    auto* d = new gpua::dra::Device();
    d->name = "gpu-0";
    d->attributes["gpu.nvidia.com"]["productName"] = std::string("NVIDIA H100 80GB HBM3");
    d->attributes["gpu.nvidia.com"]["index"] = int64_t{0};
    d->attributes["gpu.nvidia.com"]["migCapable"] = true;
    d->attributes["gpu.nvidia.com"]["driverVersion"] = *gpua::cel::Semver::Parse("550.54.15");
    d->capacity["gpu.nvidia.com"]["memory"] = *gpua::Quantity::Parse("80Gi");
    return d;
  }();
  return *kDevice;
}

std::string Outcome(const absl::StatusOr<gpua::cel::Value>& v) {
  return v.ok() ? v->DebugString() : std::string(v.status().message());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<gpua::cel::Program> program = gpua::cel::Program::Compile(text);
  if (!program.ok()) return 0;
  const gpua::cel::Bindings vars = gpua::dra::DeviceBindings(FuzzDevice(), "gpu.nvidia.com");
  const std::string first = Outcome(program->Evaluate(vars));
  const std::string second = Outcome(program->Evaluate(vars));
  if (first != second) {
    std::cerr << "\"" << text << "\" evaluated to " << first << ", then " << second << "\n";
    std::abort();
  }
  return 0;
}
