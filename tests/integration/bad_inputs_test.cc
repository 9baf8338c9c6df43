// The corpus of bad inputs (tests/bad_inputs/cases): each case is a command line a new user
// might type, with the files it names, and what the real binary must answer: the exit status
// of the table in docs/limits-and-refusals.md and the words of the error (on stderr, or in
// plugin-check's report). A case that crashes,
// hangs past a minute, or answers with other words fails. Large and deep inputs are made here,
// not committed.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace gpua::testing {
namespace {

namespace fs = std::filesystem;

const fs::path kCorpus = fs::path(GPUA_SOURCE_DIR) / "tests" / "bad_inputs";

std::string Slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The inputs too large or too deep to keep in the repository.
void MakeGeneratedInputs(const fs::path& dir) {
  constexpr int kDepth = 100'000;  // deep enough to overflow any recursive reader's stack
  {
    std::ofstream deep(dir / "deep.json");
    deep << std::string(kDepth, '[') << std::string(kDepth, ']') << "\n";
  }
  {
    std::ofstream trace(dir / "deep-trace.jsonl");
    trace << R"({"at":"0s","name":"deep","runFor":"1h","pod":)" << std::string(kDepth, '[')
          << std::string(kDepth, ']') << "}\n";
  }
  {
    std::ofstream huge(dir / "huge-groups.yaml");
    huge << "nodeGroups:\n";
    const std::string line = "# " + std::string(98, 'x') + "\n";
    for (int i = 0; i < 50'000; ++i) huge << line;  // 5 MB
  }
}

struct Outcome {
  int status = -1;  // the exit status, or -1 when killed or signalled
  bool hung = false;
  std::string out, err;
};

Outcome RunBinary(const std::vector<std::string>& args, const fs::path& scratch) {
  const fs::path out_file = scratch / "stdout", err_file = scratch / "stderr";
  std::vector<char*> argv;
  std::string binary = GPUA_BINARY;
  argv.push_back(binary.data());
  std::vector<std::string> copies = args;
  for (std::string& a : copies) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    const int out = open(out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = open(err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int in = open("/dev/null", O_RDONLY);
    dup2(out, STDOUT_FILENO);
    dup2(err, STDERR_FILENO);
    dup2(in, STDIN_FILENO);
    execv(argv[0], argv.data());
    _exit(127);
  }
  Outcome o;
  int wstatus = 0;
  // A bound on a hang, not a measured time: a case answers in seconds or is a hang.
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (waitpid(pid, &wstatus, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > give_up) {
      kill(pid, SIGKILL);
      waitpid(pid, &wstatus, 0);
      o.hung = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (!o.hung && WIFEXITED(wstatus)) o.status = WEXITSTATUS(wstatus);
  o.out = Slurp(out_file);
  o.err = Slurp(err_file);
  return o;
}

TEST_CASE("every bad input in the corpus gets its exit status and an error in clear words",
          "[bad-inputs]") {
  const fs::path scratch =
      fs::temp_directory_path() / ("gpua-bad-inputs-" + std::to_string(getpid()));
  fs::remove_all(scratch);
  fs::create_directories(scratch);
  MakeGeneratedInputs(scratch);
  int cases = 0;
  std::vector<fs::path> dirs;
  for (const fs::directory_entry& e : fs::directory_iterator(kCorpus / "cases")) {
    dirs.push_back(e.path());
  }
  std::sort(dirs.begin(), dirs.end());
  for (const fs::path& dir : dirs) {
    ++cases;
    const std::vector<std::string> expect =
        absl::StrSplit(Slurp(dir / "expect"), '\n', absl::SkipWhitespace());
    REQUIRE(!expect.empty());
    std::vector<std::string> args;
    for (absl::string_view line : absl::StrSplit(Slurp(dir / "args"), '\n', absl::SkipEmpty())) {
      args.push_back(absl::StrReplaceAll(line, {{"$CASE", dir.string()},
                                                {"$INPUTS", (kCorpus / "inputs").string()},
                                                {"$TMP", scratch.string()}}));
    }
    DYNAMIC_SECTION("case " << dir.filename().string()) {
      const Outcome o = RunBinary(args, scratch);
      INFO("stderr: " << o.err);
      REQUIRE_FALSE(o.hung);
      CHECK(o.status == std::stoi(expect.front()));
      // Errors go to stderr; plugin-check's problems are its report, on stdout.
      const std::string said = o.err + o.out;
      for (size_t i = 1; i < expect.size(); ++i) {
        const std::string words(absl::StripAsciiWhitespace(expect[i]));
        INFO("expected words: " << words);
        CHECK(said.find(words) != std::string::npos);
      }
    }
  }
  CHECK(cases >= 30);
  fs::remove_all(scratch);
}

TEST_CASE("the bundled examples load without a warning", "[bad-inputs][examples]") {
  const fs::path scratch =
      fs::temp_directory_path() / ("gpua-examples-" + std::to_string(getpid()));
  fs::create_directories(scratch);
  const fs::path examples = fs::path(GPUA_SOURCE_DIR) / "examples";
  const std::vector<std::vector<std::string>> runs = {
      {"estimate", "--pods", (examples / "pending-pods.yaml").string(), "--node-groups",
       (examples / "node-groups.yaml").string()},
      {"simulate", "--until", "2h", "--scale-down-unneeded-time=10m"},
      {"simulate", "--until", "2h", "--trace", (examples / "pai-week" / "trace.jsonl").string(),
       "--node-groups", (examples / "pai-week" / "node-groups.yaml").string()},
  };
  for (const std::vector<std::string>& args : runs) {
    INFO(args[0] << " " << args.back());
    const Outcome o = RunBinary(args, scratch);
    REQUIRE_FALSE(o.hung);
    CHECK(o.status == 0);
    CHECK(o.err.empty());
    CHECK_FALSE(o.out.empty());
  }
  fs::remove_all(scratch);
}

}  // namespace
}  // namespace gpua::testing
