// A pool's DRA devices derived from its GPU template when no driver has published any yet (a
// pool at zero): the ResourceSlice the DRA driver would publish for one node. For NVIDIA's
// driver (gpu.nvidia.com) that is what it publishes: a device per GPU (gpu-N) with
// productName, brand, architecture, cudaComputeCapability, driverVersion and memory, and for
// a MIG-capable model every partition it can make, each consuming its memory slices and
// compute slices from its GPU's counter set, so partitions that overlap cannot both be given.
// For another driver, cluster-autoscaler's shape: one device per GPU with type=gpu.
#ifndef GPUA_ESTIMATOR_DRA_TEMPLATE_SLICES_H_
#define GPUA_ESTIMATOR_DRA_TEMPLATE_SLICES_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "estimator/dra/resource_slice.h"
#include "estimator/gpu/gpu_inventory.h"
#include "estimator/node.h"

namespace gpua::dra {

// Set on a node template (our annotation; cluster-autoscaler's clusterapi provider reads
// capacity.cluster-autoscaler.kubernetes.io/dra-driver on a MachineDeployment, which the
// clusterapi provider turns into it): the pool's GPUs are devices of this DRA driver.
inline constexpr absl::string_view kDraDriverAnnotation = "gpu-autoscaler.io/dra-driver";
inline constexpr absl::string_view kNvidiaDriver = "gpu.nvidia.com";

ResourceSlice GpuTemplateSlice(const GpuHardware& hardware, absl::string_view driver,
                               const std::string& node_name);

// When the template's annotation names a driver and the template has no slices of its own:
// reads its GPUs (labels, annotations, allocatable), adds the driver's slice and takes the
// GPU resources out of allocatable (the node advertises none: its GPUs are claimed). An
// error names `where` and what is missing (how many GPUs).
absl::Status DeriveTemplateSlices(NodeTemplate& t, absl::string_view where);

// Whether a node's (or template's) GPUs are DRA devices: it publishes devices and advertises
// no GPU resource. The GPU labels feature discovery still puts on such a node do not make it
// a device-plugin GPU node.
bool GpusAreDevices(bool publishes_devices, const ResourceList& allocatable);

// The GPU DRA drivers are named gpu.<vendor> (gpu.nvidia.com, gpu.amd.com, gpu.intel.com).
bool IsGpuDriver(absl::string_view driver);

// How many physical GPUs the slices publish: the devices of GPU drivers (gpu.<vendor>) with
// type "gpu", or, for a driver that gives no type, those that take no shared counters (MIG
// partitions and other partitions do). What an idle DRA node's GPUs are counted in.
int WholeGpuDevices(const std::vector<std::shared_ptr<const ResourceSlice>>& slices);

}  // namespace gpua::dra

#endif  // GPUA_ESTIMATOR_DRA_TEMPLATE_SLICES_H_
