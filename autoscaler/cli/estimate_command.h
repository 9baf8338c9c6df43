// `gpu-autoscaler estimate`: what would the autoscaler add for these pods?
#ifndef GPUA_AUTOSCALER_CLI_ESTIMATE_COMMAND_H_
#define GPUA_AUTOSCALER_CLI_ESTIMATE_COMMAND_H_

#include <ostream>
#include <string>
#include <vector>

namespace gpua {

int RunEstimateCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CLI_ESTIMATE_COMMAND_H_
