// What the Cluster API provider reads and writes in the management cluster: the scalable
// resources and Machines as informers keep them, the scale subresource, a Machine's
// annotations, and Events on the objects it cannot use. The kube layer implements it over the
// API (autoscaler/kube/cluster_api_watch.h); tests over a fake. Keeping the API behind this
// seam keeps the provider free of HTTP, as the layering asks of cloudproviders/.
#ifndef GPUA_CLOUDPROVIDERS_CLUSTERAPI_MANAGEMENT_CLUSTER_H_
#define GPUA_CLOUDPROVIDERS_CLUSTERAPI_MANAGEMENT_CLUSTER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "kubeobjects/cluster_api.h"

namespace gpua {

// One consistent copy of what the informers hold, and what they could not read.
struct CapiObjects {
  std::vector<std::shared_ptr<const CapiScalable>> scalables;
  std::vector<std::shared_ptr<const CapiMachine>> machines;
};

// The object an Event is about.
struct CapiObjectRef {
  CapiKind kind = CapiKind::kMachineDeployment;
  std::string namespace_name;
  std::string name;
  std::string uid;
};

class ManagementCluster {
 public:
  virtual ~ManagementCluster() = default;
  // Every collection listed once (an absent one counts as listed, empty).
  virtual bool Synced() const = 0;
  virtual CapiObjects Objects() const = 0;
  // The status.capacity of the infrastructure machine template `ref` names, in `ns`; null
  // while it is not known (its collection not listed yet, the template or its capacity
  // absent, or no access to it). Asking for a kind of template starts keeping it.
  virtual std::shared_ptr<const ResourceList> InfrastructureCapacity(const std::string& ns,
                                                                     const CapiInfraRef& ref) = 0;
  // spec.replicas through the object's scale subresource, as `kubectl scale` and the
  // MachineDeployment controller's own clients do.
  virtual absl::Status SetReplicas(const CapiScalable& scalable, int32_t replicas) = 0;
  // Sets one annotation of a Machine (a merge patch: the others stay).
  virtual absl::Status AnnotateMachine(const CapiMachine& machine, const std::string& key,
                                       const std::string& value) = 0;
  // A Warning Event on the object, best effort.
  virtual void Warn(const CapiObjectRef& object, const std::string& reason,
                    const std::string& message) = 0;
};

}  // namespace gpua

#endif  // GPUA_CLOUDPROVIDERS_CLUSTERAPI_MANAGEMENT_CLUSTER_H_
