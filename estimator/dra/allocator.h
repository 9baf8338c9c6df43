// The scheduler's DRA allocation, simulated on one node: which of the node's devices would
// satisfy a pod's claims, given what is already taken. It follows kube-scheduler's
// structured allocator: requests in order, a firstAvailable request's sub-requests in order,
// devices in pool and slice order, backtracking when a later request or a matchAttribute
// constraint cannot be met; device taints keep a device out unless the request tolerates
// them; a partitionable device takes its counters from its pool's shared counter sets, so
// two MIG partitions that overlap on one GPU cannot both be given. It is a plan: nothing is
// written anywhere.
#ifndef GPUA_ESTIMATOR_DRA_ALLOCATOR_H_
#define GPUA_ESTIMATOR_DRA_ALLOCATOR_H_

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "estimator/dra/claim.h"
#include "estimator/dra/device.h"

namespace gpua::dra {

using DeviceClasses = absl::flat_hash_map<std::string, DeviceClass>;

// A device by its place in a NodeDevices.
struct DeviceRef {
  size_t pool = 0;
  size_t device = 0;
  friend bool operator==(const DeviceRef&, const DeviceRef&) = default;
};

struct DevicePick {
  DeviceRef ref;
  std::string request;  // "request" or "request/subrequest"
  bool admin_access = false;
};

// What one node has given out: how often each device is allocated and how much of each
// shared counter is consumed. Changed by Take and Release, so a simulation can undo.
class DeviceUse {
 public:
  explicit DeviceUse(std::shared_ptr<const NodeDevices> devices);

  const NodeDevices& devices() const { return *devices_; }
  const std::shared_ptr<const NodeDevices>& shared_devices() const { return devices_; }
  int Allocations(DeviceRef d) const { return taken_[d.pool][d.device]; }
  // Whether the device's counters fit in what its pool has left.
  bool CountersFit(DeviceRef d) const;
  // Whether an ordinary request may be given it now: not allocated (or shareable), and its
  // counters fit.
  bool Free(DeviceRef d) const;
  // Devices allocated (admin access aside), and of counters, the part consumed: a node's
  // DRA utilisation.
  size_t AllocatedDevices() const;
  double CounterUtilization() const;
  // How used the node's devices are, 0 to 1, as scale-down judges a node: per driver, the
  // part of its shared counters consumed where its pools have counters (MIG), else the part
  // of its devices allocated; the node is as used as its most used driver (an idle NIC
  // beside busy GPUs does not make the node idle).
  double Utilization() const;

  void Take(const std::vector<DevicePick>& picks);
  void Release(const std::vector<DevicePick>& picks);
  // Takes the devices a claim's status.allocation names, where they are in this node's
  // pools; others (another node's, or a pool not published any more) are skipped.
  void TakeAllocated(const std::vector<AllocatedDevice>& devices);

 private:
  const Quantity* Left(size_t pool, const std::string& set, const std::string& counter) const;
  void Consume(DeviceRef d, int sign);

  std::shared_ptr<const NodeDevices> devices_;
  std::vector<std::vector<int>> taken_;
  // Per pool: counter set -> counter -> what is left.
  std::vector<absl::flat_hash_map<std::string, absl::flat_hash_map<std::string, Quantity>>> left_;
};

// Whether devices match selectors, remembered: a pool's nodes share their devices, and a
// pending pod's claims are tried on many nodes. Keyed by the device's and the selector's
// addresses, so the objects must outlive the cache (one estimate).
class MatchCache {
 public:
  absl::StatusOr<bool> Matches(const Device& device, const std::string& driver,
                               const DeviceSelector& selector);
  // The devices or selectors it was filled with may be gone.
  void Clear() { memo_.clear(); }

 private:
  absl::flat_hash_map<std::pair<const Device*, const DeviceSelector*>, absl::StatusOr<bool>> memo_;
};

struct AllocationRequest {
  std::vector<const ClaimSpec*> claims;  // the pod's claims that still need devices
  const DeviceClasses* classes = nullptr;
};

// The devices each claim would get, in the order of `request.claims`; or why the node cannot
// give them, in words for an event ("claim 0, request gpu: 3 of 8 devices of class ... are
// free, 4 needed").
absl::StatusOr<std::vector<std::vector<DevicePick>>> Allocate(const AllocationRequest& request,
                                                              const DeviceUse& use,
                                                              MatchCache* cache);

// The search gives up after this many device tries, as the scheduler's allocator is bounded
// in time: a node that cannot be decided is a node that does not fit.
inline constexpr int64_t kMaxAllocationSteps = 100'000;

}  // namespace gpua::dra

#endif  // GPUA_ESTIMATOR_DRA_ALLOCATOR_H_
