// Fuzzes Kubernetes quantities, which every pod, node, template and annotation carries: any
// text parses or is refused without harm, and a quantity parsed, printed and parsed again is
// the same quantity (the controller, the status ConfigMap and the node-group file must never
// read one value two ways). The printed form may change once, as Kubernetes' does ("62.5Ki"
// prints "64000" in its binary format, which reads back decimal and prints "64k"), and is
// stable from then on.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>

#include "estimator/quantity.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const absl::StatusOr<gpua::Quantity> q = gpua::Quantity::Parse(text);
  if (!q.ok()) return 0;
  const std::string printed = q->ToString();
  const absl::StatusOr<gpua::Quantity> again = gpua::Quantity::Parse(printed);
  const absl::StatusOr<gpua::Quantity> third =
      again.ok() ? gpua::Quantity::Parse(again->ToString()) : again;
  if (!again.ok() || *again != *q || !third.ok() || *third != *q ||
      third->ToString() != again->ToString()) {
    std::cerr << "\"" << text << "\" prints as \"" << printed << "\", which reads back as "
              << (again.ok() ? again->ToString() : std::string(again.status().message())) << "\n";
    std::abort();
  }
  (void)q->Value();
  (void)q->MilliValue();
  return 0;
}
