#include "autoscaler/sim/sweep_runner.h"

#include <algorithm>
#include <atomic>
#include <memory>
#include <optional>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"

namespace gpua::sim {
namespace {

// What the workers share: the next setting to take, each run's share done, the results.
class Board {
 public:
  explicit Board(size_t runs) : done_(runs), results_(runs) {
    for (auto& d : done_) d.store(0);
  }
  std::optional<size_t> Take() {
    const size_t i = next_.fetch_add(1);
    return i < done_.size() ? std::optional<size_t>(i) : std::nullopt;
  }
  void SetDone(size_t run, double share) { done_[run].store(share); }
  double Done() const {
    double sum = 0;
    for (const auto& d : done_) sum += d.load();
    return sum / static_cast<double>(done_.size());
  }
  void Finish(size_t run, absl::StatusOr<SimulationResult> result) {
    absl::MutexLock lock(&mu_);
    results_[run] = std::move(result);
    ++finished_;
  }
  // Waits until every run finished or `timeout` passed; true when all finished.
  bool WaitAll(absl::Duration timeout) {
    absl::MutexLock lock(&mu_);
    const auto all = [this]() ABSL_SHARED_LOCKS_REQUIRED(mu_) { return finished_ == done_.size(); };
    return mu_.AwaitWithTimeout(absl::Condition(&all), timeout);
  }
  std::vector<std::optional<absl::StatusOr<SimulationResult>>> TakeResults() {
    absl::MutexLock lock(&mu_);
    return std::move(results_);
  }

 private:
  std::atomic<size_t> next_{0};
  std::vector<std::atomic<double>> done_;
  absl::Mutex mu_;
  size_t finished_ ABSL_GUARDED_BY(mu_) = 0;
  std::vector<std::optional<absl::StatusOr<SimulationResult>>> results_ ABSL_GUARDED_BY(mu_);
};

void Work(const Trace& trace, const std::vector<Setting>& settings, Board& board) {
  while (std::optional<size_t> i = board.Take()) {
    SimulationOptions options = settings[*i].options;
    const size_t run = *i;
    options.progress = [&board, run](double share) { board.SetDone(run, share); };
    absl::StatusOr<SimulationResult> result = Simulate(trace, options);
    board.SetDone(run, 1);
    board.Finish(run, std::move(result));
  }
}

}  // namespace

absl::StatusOr<std::vector<SettingResult>> SimulateAll(
    const Trace& trace, const std::vector<Setting>& settings, int threads,
    const std::function<void(double)>& progress) {
  if (settings.empty()) return std::vector<SettingResult>();
  Board board(settings.size());
  const int workers = std::clamp<int>(threads, 1, static_cast<int>(settings.size()));
  std::vector<std::thread> pool;
  for (int t = 0; t < workers; ++t) {
    pool.emplace_back([&]() { Work(trace, settings, board); });
  }
  while (!board.WaitAll(absl::Milliseconds(100))) {
    if (progress) progress(board.Done());
  }
  for (std::thread& t : pool) t.join();
  if (progress) progress(1);
  std::vector<SettingResult> out;
  auto results = board.TakeResults();
  for (size_t i = 0; i < settings.size(); ++i) {
    absl::StatusOr<SimulationResult>& r = *results[i];
    if (!r.ok()) {
      if (settings[i].label.empty()) return r.status();
      return absl::Status(r.status().code(),
                          absl::StrCat(settings[i].label, ": ", r.status().message()));
    }
    out.push_back({settings[i].label, *std::move(r)});
  }
  return out;
}

}  // namespace gpua::sim
