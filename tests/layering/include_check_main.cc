// include_check ROOT: prints every include (and clock read) of the tree at ROOT that breaks
// the layer order, and exits 1 if there is one.
#include <iostream>

#include "tests/layering/layer_rules.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: include_check SOURCE_ROOT\n";
    return 2;
  }
  const auto violations = gpua::layering::CheckTree(argv[1]);
  for (const auto& v : violations) std::cout << v.ToString() << "\n";
  if (!violations.empty()) {
    std::cout << violations.size() << " include(s) break the layer order of docs/ARCHITECTURE.md\n";
    return 1;
  }
  std::cout << "every include follows the layer order\n";
  return 0;
}
