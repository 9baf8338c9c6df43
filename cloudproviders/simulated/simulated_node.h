// What a node of the simulated cloud advertises, for whatever plays its kubelet (the
// simulator's cluster, the integration tests' simulated kubelet): its template's allocatable,
// with its GPUs only once the driver and device plugin are up, and for a MIG pool the devices
// of the layout its nvidia.com/mig.config label names (the template's first one when it
// names none or an unknown one).
#ifndef GPUA_CLOUDPROVIDERS_SIMULATED_SIMULATED_NODE_H_
#define GPUA_CLOUDPROVIDERS_SIMULATED_SIMULATED_NODE_H_

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "estimator/dra/resource_slice.h"
#include "estimator/gpu/gpu_inventory.h"
#include "estimator/node.h"

namespace gpua {

// `inventory`: the template's GPUs (ReadGpuInventory of it), if any.
ResourceList AdvertisedAllocatable(const NodeTemplate& t,
                                   const std::optional<GpuInventory>& inventory,
                                   absl::string_view mig_layout, bool gpus_ready);

// The Node name of an instance: its provider ID, sim://<group>/<n>, as <group>-<n>.
std::string SimulatedNodeName(const std::string& provider_id);

// A new instance's Node as its kubelet registers it: the template's labels (and
// kubernetes.io/hostname) and taints, the provider ID; no status (NodeStatusFor).
nlohmann::json NewNodeFor(const NodeTemplate& t, const std::string& name,
                          const std::string& provider_id);

// The status its kubelet reports: Ready, and AdvertisedAllocatable as allocatable and
// capacity, for the MIG layout `mig_layout` (the node's nvidia.com/mig.config label).
nlohmann::json NodeStatusFor(const NodeTemplate& t, absl::string_view mig_layout, bool gpus_ready);

// The ResourceSlices its DRA drivers publish once its GPUs are up (resource.k8s.io/v1): the
// template's, named <node>-<i>, each pool named for the node (<node>-<template pool>), at
// generation 1, split as the API requires (shared counters in a slice of their own, at most
// 64 devices a slice where they take counters, else 128); none for a template without slices.
std::vector<nlohmann::json> SlicesFor(const NodeTemplate& t, const std::string& node);
// The same slices, decoded; a template pool `pool` is published as PublishedPoolName(node, pool).
std::vector<dra::ResourceSlice> PublishedSlices(const NodeTemplate& t, const std::string& node);
std::string PublishedPoolName(absl::string_view node, absl::string_view template_pool);

}  // namespace gpua

#endif  // GPUA_CLOUDPROVIDERS_SIMULATED_SIMULATED_NODE_H_
