// Where log lines go. Every part that reports something while it keeps running (a pod the
// informer cannot decode, a reflector backing off, a plugin that does not implement
// pricing) writes to a LogSink it is handed: the binary's writes klog-style lines to
// stderr, so tooling that reads cluster-autoscaler's log reads ours; a command's writes to
// its own error stream; a test's keeps the lines to check them.
//
// Info lines carry a verbosity, as klog's V(n): with --v=N, lines of verbosity N or less
// are written. Warnings and errors are always written.
#ifndef GPUA_BASE_LOG_H_
#define GPUA_BASE_LOG_H_

#include <atomic>
#include <ostream>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "base/clock.h"

namespace gpua {

enum class LogSeverity { kInfo, kWarning, kError };

class LogSink {
 public:
  virtual ~LogSink() = default;

  void Info(absl::string_view line, int verbosity = 0) {
    if (V(verbosity)) Write(LogSeverity::kInfo, line);
  }
  void Warning(absl::string_view line) { Write(LogSeverity::kWarning, line); }
  void Error(absl::string_view line) { Write(LogSeverity::kError, line); }

  // Whether info lines of this verbosity are written; check it before building an
  // expensive line.
  bool V(int verbosity) const { return verbosity <= verbosity_.load(std::memory_order_relaxed); }
  void set_verbosity(int verbosity) { verbosity_.store(verbosity, std::memory_order_relaxed); }

 protected:
  // Called from any thread.
  virtual void Write(LogSeverity severity, absl::string_view line) = 0;

 private:
  std::atomic<int> verbosity_{0};
};

// klog's line format on stderr: "I1201 10:00:00.123456   12345 gpu-autoscaler] line".
class StderrLogSink : public LogSink {
 public:
  explicit StderrLogSink(Clock& clock) : clock_(clock) {}

 protected:
  void Write(LogSeverity severity, absl::string_view line) override;

 private:
  Clock& clock_;
  absl::Mutex mu_;
};

// "<prefix><line>" on a stream (a command's error stream), a line at a time.
class StreamLogSink : public LogSink {
 public:
  StreamLogSink(std::ostream& out, std::string prefix) : out_(out), prefix_(std::move(prefix)) {}

 protected:
  void Write(LogSeverity severity, absl::string_view line) override;

 private:
  std::ostream& out_;
  const std::string prefix_;
  absl::Mutex mu_;
};

// Keeps every line ("W: line" for warnings, "E: " for errors, none for info): tests.
class MemoryLogSink : public LogSink {
 public:
  std::vector<std::string> lines() const;
  // True when some line contains `text`.
  bool Contains(absl::string_view text) const;

 protected:
  void Write(LogSeverity severity, absl::string_view line) override;

 private:
  mutable absl::Mutex mu_;
  std::vector<std::string> lines_ ABSL_GUARDED_BY(mu_);
};

// The process's stderr sink on the real clock: where a part handed no sink writes.
LogSink& StderrLog();

}  // namespace gpua

#endif  // GPUA_BASE_LOG_H_
