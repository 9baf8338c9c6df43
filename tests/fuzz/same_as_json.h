// What the fuzz targets of YAML decoders share: a document that reads, printed as JSON (which
// every YAML reader reads too), must decode to the same thing. A user who converts a kubeconfig or
// a node-group file to JSON gets what the YAML said.
#ifndef GPUA_TESTS_FUZZ_SAME_AS_JSON_H_
#define GPUA_TESTS_FUZZ_SAME_AS_JSON_H_

#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "absl/status/statusor.h"
#include "kubeobjects/documents.h"

namespace gpua::fuzz {

// Whether some string of the document names a file under /dev, /proc, /sys or /run: the
// decoders read the certificate and token files a document names, and a fuzzer that found
// /dev/zero or a FIFO would wait on it for ever.
inline bool NamesSpecialFiles(const nlohmann::json& doc) {
  if (doc.is_string()) {
    const std::string& s = doc.get_ref<const std::string&>();
    for (const char* dir : {"/dev", "/proc", "/sys", "/run"}) {
      if (s.find(dir) != std::string::npos) return true;
    }
    return false;
  }
  if (doc.is_object()) {
    for (const auto& [key, value] : doc.items()) {
      if (NamesSpecialFiles(value)) return true;
    }
  }
  if (doc.is_array()) {
    for (const nlohmann::json& item : doc) {
      if (NamesSpecialFiles(item)) return true;
    }
  }
  return false;
}

// `describe(text)` decodes and says what came out, or "refused" (the messages differ: YAML's
// name a line and column, JSON's an offset).
template <typename Describe>
void SameAsJson(const std::string& text, const Describe& describe) {
  const absl::StatusOr<nlohmann::json> doc = YamlToJson(text, "fuzz input");
  if (!doc.ok()) {
    (void)describe(text);  // refused by the same reader, without harm
    return;
  }
  if (NamesSpecialFiles(*doc)) return;
  const std::string as_yaml = describe(text);
  std::string json;
  try {
    json = doc->dump();
  } catch (const nlohmann::json::type_error&) {
    return;  // not UTF-8: no JSON says the same
  }
  // A text the decoder refused may be one only YAML reads leniently (raw control characters
  // in a string that starts like JSON): what is compared is what a document that reads means.
  if (as_yaml == "refused") return;
  const std::string as_json = describe(json);
  if (as_yaml == as_json) return;
  std::cerr << "The YAML and its JSON decode differently.\n  YAML: " << text
            << "\n  reads: " << as_yaml << "\n  JSON: " << json << "\n  reads: " << as_json << "\n";
  std::abort();
}

// The decoder's answer as SameAsJson compares it, after checking that a refusal names `source`.
template <typename T, typename Print>
std::string Described(const absl::StatusOr<T>& decoded, const std::string& source,
                      const Print& print) {
  if (decoded.ok()) return print(*decoded);
  const std::string message(decoded.status().message());
  if (message.find(source) == std::string::npos) {
    std::cerr << "An error that does not name its source (" << source << "): " << message << "\n";
    std::abort();
  }
  return "refused";
}

}  // namespace gpua::fuzz

#endif  // GPUA_TESTS_FUZZ_SAME_AS_JSON_H_
