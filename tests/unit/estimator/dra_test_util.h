// DRA objects the estimator's tests and benchmarks share: selectors compiled as the decoder
// compiles them, and NVIDIA's device classes as its driver's chart installs them.
#ifndef GPUA_TESTS_UNIT_ESTIMATOR_DRA_TEST_UTIL_H_
#define GPUA_TESTS_UNIT_ESTIMATOR_DRA_TEST_UTIL_H_

#include <memory>
#include <string>
#include <utility>

#include "estimator/cel/cel_program.h"
#include "estimator/dra/allocator.h"

namespace gpua::testing {

// An expression that does not compile keeps its error, as a decoded class's would.
inline dra::DeviceSelector CompiledSelector(const std::string& expression) {
  dra::DeviceSelector s;
  s.expression = expression;
  absl::StatusOr<cel::Program> p = cel::Program::Compile(expression);
  if (p.ok()) {
    s.program = std::make_shared<const cel::Program>(*std::move(p));
  } else {
    s.error = p.status();
  }
  return s;
}

// gpu.nvidia.com (whole GPUs) and mig.nvidia.com (MIG partitions).
inline std::shared_ptr<const dra::DeviceClasses> NvidiaClasses() {
  auto classes = std::make_shared<dra::DeviceClasses>();
  for (const char* type : {"gpu", "mig"}) {
    const std::string name = std::string(type) + ".nvidia.com";
    (*classes)[name] = dra::DeviceClass{
        name,
        {CompiledSelector(std::string("device.driver == 'gpu.nvidia.com' && "
                                      "device.attributes['gpu.nvidia.com'].type == '") +
                          type + "'")},
        "",
        ""};
  }
  return classes;
}

}  // namespace gpua::testing

#endif  // GPUA_TESTS_UNIT_ESTIMATOR_DRA_TEST_UTIL_H_
