// A progress bar on a terminal's stderr, shown only once a run has taken a second, so short
// runs and piped output stay clean.
#ifndef GPUA_AUTOSCALER_CLI_PROGRESS_BAR_H_
#define GPUA_AUTOSCALER_CLI_PROGRESS_BAR_H_

#include <ostream>

#include "base/clock.h"

namespace gpua {

class ProgressBar {
 public:
  // `enabled`: the stream is a terminal.
  ProgressBar(std::ostream& out, bool enabled, Clock& clock);
  ~ProgressBar();
  void Update(double share);  // 0 to 1
  void Clear();

 private:
  std::ostream& out_;
  const bool enabled_;
  Clock& clock_;
  const absl::Time start_;
  bool shown_ = false;
  int last_percent_ = -1;
};

// Whether standard error is a terminal.
bool StderrIsTerminal();

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CLI_PROGRESS_BAR_H_
