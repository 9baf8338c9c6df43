#include "autoscaler/kube/exec_credential_plugin.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "base/status_macros.h"

namespace gpua::kube {
namespace {

// What the child execs, made before fork: between fork and exec a child of a threaded process
// may only make async-signal-safe calls, so no allocation there.
struct ExecArgs {
  explicit ExecArgs(const ExecPlugin& plugin) {
    strings.push_back(plugin.command);
    for (const std::string& a : plugin.args) strings.push_back(a);
    const size_t args = strings.size();
    for (char** e = environ; *e != nullptr; ++e) {
      const absl::string_view entry(*e);
      const absl::string_view key = entry.substr(0, entry.find('='));
      bool replaced = false;
      for (const auto& [name, value] : plugin.env) replaced = replaced || name == key;
      if (!replaced) strings.emplace_back(entry);
    }
    for (const auto& [name, value] : plugin.env) strings.push_back(absl::StrCat(name, "=", value));
    for (size_t i = 0; i < strings.size(); ++i) {
      (i < args ? argv : envp).push_back(strings[i].data());
      if (i + 1 == args) argv.push_back(nullptr);
    }
    envp.push_back(nullptr);
  }
  std::vector<std::string> strings;
  std::vector<char*> argv, envp;
};

// The child's side: its own process group (so the whole group can be killed), stdout to the
// pipe, stdin from /dev/null.
[[noreturn]] void ExecChild(const ExecArgs& exec, int out_fd) {
  setpgid(0, 0);
  dup2(out_fd, STDOUT_FILENO);
  close(out_fd);
  const int null_fd = open("/dev/null", O_RDONLY);
  if (null_fd >= 0) {
    dup2(null_fd, STDIN_FILENO);
    close(null_fd);
  }
  execvpe(exec.argv[0], exec.argv.data(), exec.envp.data());
  _exit(127);
}

// Kills the plugin and whatever it started, and reaps it.
void KillGroup(pid_t pid) {
  kill(-pid, SIGKILL);
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
}

// What bounds one run of a plugin, and its name for errors.
struct Bounds {
  std::string name;
  absl::Duration timeout;
  absl::Time deadline;
  Clock& clock;
  const std::atomic<bool>& cancelled;
};

// Reads the plugin's output until it closes it; an error once the deadline passes, the client
// is cancelled or the output grows past reason.
absl::Status ReadUntilClosed(int fd, const Bounds& b, std::string& output) {
  std::array<char, 4096> buffer;
  for (;;) {
    if (b.cancelled) return absl::CancelledError(absl::StrCat(b.name, ": killed: shutting down"));
    if (b.clock.Now() >= b.deadline) {
      return absl::DeadlineExceededError(absl::StrCat(
          b.name, ": no answer within ", absl::FormatDuration(b.timeout), "; killed it"));
    }
    pollfd p{fd, POLLIN, 0};
    // Short waits, so a cancel is seen promptly whatever the deadline.
    if (poll(&p, 1, 50) <= 0) continue;
    const ssize_t n = read(fd, buffer.data(), buffer.size());
    if (n <= 0) return absl::OkStatus();  // closed: the plugin has finished, or is about to
    output.append(buffer.data(), static_cast<size_t>(n));
    if (output.size() > kMaxExecPluginOutput) {
      return absl::ResourceExhaustedError(
          absl::StrCat(b.name, ": printed more than ", kMaxExecPluginOutput, " bytes; killed it"));
    }
  }
}

// The plugin's exit, once its output is closed; it is killed if it carries on regardless.
absl::Status Reap(pid_t pid, const Bounds& b) {
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (b.cancelled || b.clock.Now() >= b.deadline) {
      KillGroup(pid);
      return absl::UnauthenticatedError(
          absl::StrCat(b.name, ": closed its output but did not exit; killed it"));
    }
    b.clock.SleepFor(absl::Milliseconds(10));
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return absl::UnauthenticatedError(absl::StrCat(b.name, " failed (",
                                                   WIFEXITED(status)
                                                       ? absl::StrCat("exit ", WEXITSTATUS(status))
                                                       : absl::StrCat("signal ", WTERMSIG(status)),
                                                   ")"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::string> RunExecCredentialPlugin(const ExecPlugin& plugin,
                                                    absl::Duration timeout, Clock& clock,
                                                    const std::atomic<bool>& cancelled) {
  const Bounds bounds{absl::StrCat("exec plugin ", plugin.command), timeout, clock.Now() + timeout,
                      clock, cancelled};
  if (cancelled) return absl::CancelledError(absl::StrCat(bounds.name, ": not run: shutting down"));
  const ExecArgs exec(plugin);
  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) {
    return absl::InternalError(absl::StrCat(bounds.name, ": pipe failed"));
  }
  const pid_t pid = fork();
  if (pid < 0) {
    close(out[0]);
    close(out[1]);
    return absl::InternalError(absl::StrCat(bounds.name, ": fork failed"));
  }
  if (pid == 0) {
    close(out[0]);
    ExecChild(exec, out[1]);
  }
  setpgid(pid, pid);  // as the child does: whichever runs first, the group exists to kill
  close(out[1]);
  std::string output;
  const absl::Status read = ReadUntilClosed(out[0], bounds, output);
  close(out[0]);
  if (!read.ok()) {
    KillGroup(pid);
    return absl::UnauthenticatedError(read.message());
  }
  GPUA_RETURN_IF_ERROR(Reap(pid, bounds));
  return output;
}

}  // namespace gpua::kube
