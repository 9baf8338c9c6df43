// What a fault soak adds to the trace's workload, so the rules a production cluster holds a
// drain to are there to be broken: a share of its Jobs get a PodDisruptionBudget
// (minAvailable one below their pod count, so one pod may go at a time; a Job of one pod,
// minAvailable 1, so it never may), and a share say safe-to-evict: "false" on their pods
// (their nodes stay until the pods end). Which Jobs is drawn from the seed and the line, so
// a soak is deterministic.
#ifndef GPUA_AUTOSCALER_SIM_SOAK_WORKLOAD_H_
#define GPUA_AUTOSCALER_SIM_SOAK_WORKLOAD_H_

#include <cstdint>

#include "autoscaler/sim/fault_profile.h"
#include "autoscaler/sim/trace.h"

namespace gpua::sim {

Trace WithSoakWorkload(const Trace& trace, const SoakWorkload& workload, uint64_t seed);

}  // namespace gpua::sim

#endif  // GPUA_AUTOSCALER_SIM_SOAK_WORKLOAD_H_
