#include <iostream>

#include "autoscaler/cli/app.h"

int main(int argc, char** argv) {
  gpua::RealClock clock;
  return gpua::RunApp({argv + 1, argv + argc}, {std::cout, std::cerr, clock});
}
