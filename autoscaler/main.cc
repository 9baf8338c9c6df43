#include <iostream>
#include <string>
#include <vector>

#include "autoscaler/cli/app.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  return gpua::RunApp(args, std::cout, std::cerr);
}
