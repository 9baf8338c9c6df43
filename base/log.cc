#include "base/log.h"

#include <unistd.h>

#include <iostream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace gpua {
namespace {

char SeverityLetter(LogSeverity severity) {
  switch (severity) {
    case LogSeverity::kInfo:
      return 'I';
    case LogSeverity::kWarning:
      return 'W';
    case LogSeverity::kError:
      return 'E';
  }
  return 'I';
}

}  // namespace

void StderrLogSink::Write(LogSeverity severity, absl::string_view line) {
  const std::string text =
      absl::StrCat(std::string(1, SeverityLetter(severity)),
                   absl::FormatTime("%m%d %H:%M:%E6S", clock_.Now(), absl::UTCTimeZone()),
                   absl::StrFormat(" %7d gpu-autoscaler] ", getpid()), line, "\n");
  absl::MutexLock lock(&mu_);
  std::cerr << text << std::flush;
}

void StreamLogSink::Write(LogSeverity, absl::string_view line) {
  absl::MutexLock lock(&mu_);
  out_ << prefix_ << line << std::endl;
}

void MemoryLogSink::Write(LogSeverity severity, absl::string_view line) {
  absl::MutexLock lock(&mu_);
  lines_.push_back(severity == LogSeverity::kInfo
                       ? std::string(line)
                       : absl::StrCat(std::string(1, SeverityLetter(severity)), ": ", line));
}

std::vector<std::string> MemoryLogSink::lines() const {
  absl::MutexLock lock(&mu_);
  return lines_;
}

bool MemoryLogSink::Contains(absl::string_view text) const {
  absl::MutexLock lock(&mu_);
  for (const std::string& l : lines_) {
    if (absl::StrContains(l, text)) return true;
  }
  return false;
}

LogSink& StderrLog() {
  static RealClock clock;
  static StderrLogSink sink(clock);
  return sink;
}

}  // namespace gpua
