// The main of every test program. CTest runs each case by its name, and CMake splits a name
// at ';' into a name that matches nothing, which Catch then reports as "no tests ran" and
// CTest as passed: a case whose name holds ';' is refused here, loudly, instead.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <iostream>

int main(int argc, char* argv[]) {
  Catch::Session session;
  if (const int rc = session.applyCommandLine(argc, argv); rc != 0) return rc;
  int bad = 0;
  for (const Catch::TestCase& t : Catch::getAllTestCasesSorted(session.config())) {
    if (t.name.find(';') == std::string::npos) continue;
    std::cerr << t.lineInfo << ": test case name holds ';', which CTest cannot run: \"" << t.name
              << "\"\n";
    ++bad;
  }
  if (bad > 0) return 1;
  return session.run();
}
