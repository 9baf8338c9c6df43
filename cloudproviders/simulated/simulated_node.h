// What a node of the simulated cloud advertises, for whatever plays its kubelet (the
// simulator's cluster, the integration tests' simulated kubelet): its template's allocatable,
// with its GPUs only once the driver and device plugin are up, and for a MIG pool the devices
// of the layout its nvidia.com/mig.config label names (the template's first one when it
// names none or an unknown one).
#ifndef GPUA_CLOUDPROVIDERS_SIMULATED_SIMULATED_NODE_H_
#define GPUA_CLOUDPROVIDERS_SIMULATED_SIMULATED_NODE_H_

#include <optional>

#include "absl/strings/string_view.h"
#include "estimator/gpu/gpu_inventory.h"
#include "estimator/node.h"

namespace gpua {

// `inventory`: the template's GPUs (ReadGpuInventory of it), if any.
ResourceList AdvertisedAllocatable(const NodeTemplate& t,
                                   const std::optional<GpuInventory>& inventory,
                                   absl::string_view mig_layout, bool gpus_ready);

}  // namespace gpua

#endif  // GPUA_CLOUDPROVIDERS_SIMULATED_SIMULATED_NODE_H_
