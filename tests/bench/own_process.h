// A benchmark's memory measured in a process of its own: getrusage's peak in the benchmark
// program is the largest of every benchmark run before, so a program runs itself again with
// a flag that does one benchmark's work once and prints that process's peak RSS.
#ifndef GPUA_TESTS_BENCH_OWN_PROCESS_H_
#define GPUA_TESTS_BENCH_OWN_PROCESS_H_

#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <functional>
#include <string>

namespace gpua::bench {

inline double PeakRssMiB() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;
}

// Runs this program with `flag` and reads the peak RSS it prints; -1 if it fails.
inline double PeakRssInOwnProcess(const char* flag) {
  char self[4096] = {};
  if (readlink("/proc/self/exe", self, sizeof(self) - 1) <= 0) return -1;
  FILE* child = popen((std::string("'") + self + "' " + flag).c_str(), "r");
  if (child == nullptr) return -1;
  double mib = -1;
  if (std::fscanf(child, "%lf", &mib) != 1) mib = -1;
  return pclose(child) == 0 ? mib : -1;
}

// In main(): when the program was started with `flag`, does `work` and prints the peak RSS;
// true when it did (main then returns 0).
inline bool RanForPeakRss(int argc, char** argv, const char* flag,
                          const std::function<void()>& work) {
  if (argc != 2 || std::strcmp(argv[1], flag) != 0) return false;
  work();
  std::printf("%.1f\n", PeakRssMiB());
  return true;
}

}  // namespace gpua::bench

#endif  // GPUA_TESTS_BENCH_OWN_PROCESS_H_
