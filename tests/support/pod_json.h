// Pod objects as the API server serves them, for the tests and benchmarks that put pods into
// the in-process API server.
#ifndef GPUA_TESTS_SUPPORT_POD_JSON_H_
#define GPUA_TESTS_SUPPORT_POD_JSON_H_

#include <nlohmann/json.hpp>
#include <string>

namespace gpua::testing {

// A pod of namespace ml with one container asking for `requests`, which the scheduler found
// no node for (PodScheduled=False, Unschedulable).
inline nlohmann::json UnschedulablePodJson(const std::string& name, const std::string& uid,
                                           const nlohmann::json& requests) {
  return {{"metadata", {{"name", name}, {"namespace", "ml"}, {"uid", uid}}},
          {"spec", {{"containers", {{{"name", "main"}, {"resources", {{"requests", requests}}}}}}}},
          {"status",
           {{"phase", "Pending"},
            {"conditions",
             {{{"type", "PodScheduled"}, {"status", "False"}, {"reason", "Unschedulable"}}}}}}};
}

}  // namespace gpua::testing

#endif  // GPUA_TESTS_SUPPORT_POD_JSON_H_
