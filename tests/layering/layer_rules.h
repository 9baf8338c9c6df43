// The layer order of docs/ARCHITECTURE.md as data, and a check of a source tree against
// it: every `#include "..."` of a layer's files must name a header of that layer or of one
// below it; the controller never includes kube/ or sim/, and sim/ never kube/. Two more
// rules keep the design honest where an include alone would not show it: only base/ reads
// the system clock (everything else is handed a Clock), and the estimator does no I/O.
#ifndef GPUA_TESTS_LAYERING_LAYER_RULES_H_
#define GPUA_TESTS_LAYERING_LAYER_RULES_H_

#include <filesystem>
#include <string>
#include <vector>

namespace gpua::layering {

struct Violation {
  std::string file;  // relative to the tree's root
  int line = 0;
  std::string what;  // the include or the call at fault
  std::string rule;  // the rule it breaks, in words

  std::string ToString() const;
};

// Checks every .h and .cc under the layers' folders of `root`.
std::vector<Violation> CheckTree(const std::filesystem::path& root);

// Checks one file's text as if it were at `relative` (e.g. "estimator/pod.cc").
std::vector<Violation> CheckFile(const std::string& relative, const std::string& text);

}  // namespace gpua::layering

#endif  // GPUA_TESTS_LAYERING_LAYER_RULES_H_
