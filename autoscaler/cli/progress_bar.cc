#include "autoscaler/cli/progress_bar.h"

#include <unistd.h>

#include <algorithm>
#include <string>

#include "absl/strings/str_format.h"

namespace gpua {

constexpr int kWidth = 40;

ProgressBar::ProgressBar(std::ostream& out, bool enabled, Clock& clock)
    : out_(out), enabled_(enabled), clock_(clock), start_(clock.Now()) {}

ProgressBar::~ProgressBar() { Clear(); }

void ProgressBar::Update(double share) {
  if (!enabled_ || clock_.Now() - start_ < absl::Seconds(1)) return;
  const int percent = static_cast<int>(std::clamp(share, 0.0, 1.0) * 100);
  if (percent == last_percent_) return;
  last_percent_ = percent;
  shown_ = true;
  const int filled = percent * kWidth / 100;
  out_ << absl::StrFormat("\r[%s%s] %3d%%", std::string(filled, '#'),
                          std::string(kWidth - filled, '.'), percent)
       << std::flush;
}

void ProgressBar::Clear() {
  if (!shown_) return;
  out_ << "\r" << std::string(kWidth + 8, ' ') << "\r" << std::flush;
  shown_ = false;
}

bool StderrIsTerminal() { return isatty(STDERR_FILENO) == 1; }

}  // namespace gpua
