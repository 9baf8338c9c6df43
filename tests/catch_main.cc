// The main of every test program. CTest runs each case by its name, and CMake splits a name
// at ';' into a name that matches nothing, which Catch then reports as "no tests ran" and
// CTest as passed: a case whose name holds ';' is refused here, loudly, instead.
// Each run writes under a temporary directory of its own (TMPDIR, which
// temp_directory_path() and the programs a test starts read), removed when the run ends:
// the files tests leave behind would otherwise pile up in /tmp, run after run.
#define CATCH_CONFIG_RUNNER
#include <stdlib.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <iostream>
#include <string>
#include <system_error>

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
  std::string dir = (std::filesystem::temp_directory_path() / "gpua-tests-XXXXXX").string();
  if (mkdtemp(dir.data()) == nullptr || setenv("TMPDIR", dir.c_str(), 1) != 0) {
    std::cerr << "cannot make a temporary directory under " << dir << "\n";
    return 1;
  }
  const int rc = session.run();
  std::error_code ignored;
  std::filesystem::remove_all(dir, ignored);
  return rc;
}
