// Fuzzes what the controller reads back from its status ConfigMap's annotations (the MIG
// layouts on their way, the replacement under way): anyone who may edit the ConfigMap can
// write them. Any text is refused without harm or read as a value that is written and read
// back the same, so a restart never carries on something other than what was kept.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>

#include "autoscaler/controller/mig/mig_layout_book.h"
#include "autoscaler/controller/scaledown/pending_replacement.h"

namespace {

template <typename T>
void ReadsBackAsWritten(const std::string& text, const char* kind) {
  const absl::StatusOr<T> value = T::FromJson(text, "fuzz");
  if (!value.ok()) {
    if (std::string(value.status().message()).rfind("fuzz: ", 0) != 0) {
      std::cerr << kind << ": an error that does not name its source: " << value.status() << "\n";
      std::abort();
    }
    return;
  }
  const std::string written = value->ToJson();
  const absl::StatusOr<T> again = T::FromJson(written, "fuzz");
  if (!again.ok() || !(*again == *value) || again->ToJson() != written) {
    std::cerr << kind << ": \"" << text << "\" is written as \"" << written
              << "\", which reads back "
              << (again.ok() ? again->ToJson() : std::string(again.status().message())) << "\n";
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  ReadsBackAsWritten<gpua::MigLayoutBook>(text, "MIG layouts");
  ReadsBackAsWritten<gpua::KeptReplacement>(text, "replacement");
  return 0;
}
