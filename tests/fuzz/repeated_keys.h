// What the fuzz targets that read one input with both JSON readers share: the inputs on which
// the two may rightly differ.
#ifndef GPUA_TESTS_FUZZ_REPEATED_KEYS_H_
#define GPUA_TESTS_FUZZ_REPEATED_KEYS_H_

#include <simdjson.h>

#include <set>
#include <string_view>

namespace gpua::fuzz {

// The two readers differ on repeated keys, which no API server sends: simdjson's lookup finds
// the first, nlohmann's tree keeps the last.
inline bool HasRepeatedKeys(simdjson::dom::element e) {
  if (e.type() == simdjson::dom::element_type::ARRAY) {
    const simdjson::dom::array items = e.get_array().value_unsafe();
    for (simdjson::dom::element item : items) {
      if (HasRepeatedKeys(item)) return true;
    }
  } else if (e.type() == simdjson::dom::element_type::OBJECT) {
    std::set<std::string_view> keys;
    const simdjson::dom::object members = e.get_object().value_unsafe();
    for (simdjson::dom::key_value_pair kv : members) {
      if (!keys.insert(kv.key).second || HasRepeatedKeys(kv.value)) return true;
    }
  }
  return false;
}

}  // namespace gpua::fuzz

#endif  // GPUA_TESTS_FUZZ_REPEATED_KEYS_H_
