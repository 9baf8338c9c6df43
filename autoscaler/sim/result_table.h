// `simulate`'s text output: a run's figures in all and per group, and for a sweep, the
// settings side by side.
#ifndef GPUA_AUTOSCALER_SIM_RESULT_TABLE_H_
#define GPUA_AUTOSCALER_SIM_RESULT_TABLE_H_

#include <ostream>
#include <string>
#include <vector>

#include "autoscaler/sim/sweep_runner.h"

namespace gpua::sim {

// A wait as a person reads it: "45s", "3m05s", "2h10m".
std::string FormatWait(double seconds);

void PrintResult(const SimulationResult& result, std::ostream& out);

// The comparison first (one line per setting), then each setting's own figures.
void PrintResults(const std::vector<SettingResult>& results, std::ostream& out);

}  // namespace gpua::sim

#endif  // GPUA_AUTOSCALER_SIM_RESULT_TABLE_H_
