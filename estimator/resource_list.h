// A set of named resource quantities (Kubernetes' ResourceList), kept in the order
// kube-scheduler checks them: cpu, memory, ephemeral-storage, then the rest by name.
#ifndef GPUA_ESTIMATOR_RESOURCE_LIST_H_
#define GPUA_ESTIMATOR_RESOURCE_LIST_H_

#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "estimator/quantity.h"

namespace gpua {

inline constexpr absl::string_view kResourceCpu = "cpu";
inline constexpr absl::string_view kResourceMemory = "memory";
inline constexpr absl::string_view kResourceEphemeralStorage = "ephemeral-storage";
inline constexpr absl::string_view kResourcePods = "pods";
inline constexpr absl::string_view kResourceNvidiaGpu = "nvidia.com/gpu";

// True when `a` comes before `b` in the list order above.
bool ResourceNameLess(absl::string_view a, absl::string_view b);

// One resource that a request does not fit, as a user should read it.
struct Insufficiency {
  std::string resource;
  Quantity requested;
  Quantity free;
  // "Insufficient nvidia.com/gpu (requested 8, free 4)"
  std::string Message() const;
};

// An extended resource (nvidia.com/gpu, amd.com/gpu, a MIG slice): one a device plugin
// advertises, as Kubernetes tells them apart from cpu, memory, hugepages-* and the rest of
// the kubernetes.io domain.
bool IsExtendedResource(absl::string_view name);

class ResourceList {
 public:
  using Entry = std::pair<std::string, Quantity>;

  ResourceList() = default;
  ResourceList(std::initializer_list<Entry> entries);

  // Parses name -> quantity strings; an error names the field (`field_path[name]`) and
  // quotes the value.
  static absl::StatusOr<ResourceList> Parse(
      const std::vector<std::pair<std::string, std::string>>& entries,
      absl::string_view field_path);

  // Zero when the resource is absent.
  Quantity Get(absl::string_view name) const;
  bool Has(absl::string_view name) const;
  void Set(absl::string_view name, Quantity value);

  ResourceList& operator+=(const ResourceList& other);
  ResourceList& operator-=(const ResourceList& other);
  friend ResourceList operator+(ResourceList a, const ResourceList& b) { return a += b; }
  friend ResourceList operator-(ResourceList a, const ResourceList& b) { return a -= b; }
  // Per resource, the larger of the two (how init containers combine with the rest).
  void MaxWith(const ResourceList& other);

  // The first resource (in list order) this request needs more of than `free` has. A
  // resource missing from `free` has none free; a zero request always fits.
  std::optional<Insufficiency> FirstInsufficient(const ResourceList& free) const;
  bool FitsWithin(const ResourceList& free) const { return !FirstInsufficient(free); }

  // "cpu: 1500m, memory: 2Gi, nvidia.com/gpu: 8"
  std::string ToString() const;

  bool empty() const { return entries_.empty(); }
  size_t size() const { return entries_.size(); }
  std::vector<Entry>::const_iterator begin() const { return entries_.begin(); }
  std::vector<Entry>::const_iterator end() const { return entries_.end(); }

  friend bool operator==(const ResourceList& a, const ResourceList& b);

 private:
  std::vector<Entry>::iterator LowerBound(absl::string_view name);
  std::vector<Entry>::const_iterator Find(absl::string_view name) const;
  template <typename Op>
  void Combine(const ResourceList& other, Op op);

  std::vector<Entry> entries_;
};

}  // namespace gpua

#endif  // GPUA_ESTIMATOR_RESOURCE_LIST_H_
