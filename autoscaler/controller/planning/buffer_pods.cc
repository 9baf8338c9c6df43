#include "autoscaler/controller/planning/buffer_pods.h"

#include <algorithm>
#include <limits>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"

namespace gpua {
namespace {

// How many chunks of `request` fit in `limits`; nullopt when no limited resource is asked for.
std::optional<int64_t> ChunksWithin(const ResourceList& limits, const ResourceList& request) {
  std::optional<int64_t> fit;
  for (const auto& [name, limit] : limits) {
    const int64_t each = request.Get(name).MilliValue();
    if (each <= 0) continue;
    const int64_t n = std::max<int64_t>(0, limit.MilliValue()) / each;
    fit = fit.has_value() ? std::min(*fit, n) : n;
  }
  return fit;
}

// The buffer's count of chunks now, or why it has none.
absl::StatusOr<int64_t> ChunksOf(const CapacityBufferObject& b, const PodSpec& shape,
                                 absl::Time now) {
  std::optional<int64_t> wanted;
  if (b.schedule.has_value()) {
    if (std::optional<int32_t> n = b.schedule->At(now)) wanted = *n;
  }
  if (!wanted && b.replicas) wanted = *b.replicas;
  std::optional<int64_t> within;
  if (b.limits) within = ChunksWithin(*b.limits, shape.requests);
  if (!wanted && !within) {
    return absl::InvalidArgumentError(absl::StrCat(
        "CapacityBuffer ", b.Key(), ": ",
        b.limits ? "spec.limits name no resource its pods ask for, and spec.replicas is unset"
                 : "spec.percentage applies only with spec.scalableRef; set spec.replicas"));
  }
  if (wanted && within) return std::min(*wanted, *within);
  return wanted ? *wanted : *within;
}

PodPtr Placeholder(const CapacityBufferObject& b, const PodSpec& shape, int64_t index) {
  auto pod = std::make_shared<PodObject>();
  pod->spec = shape;
  pod->spec.namespace_name = b.namespace_name;
  pod->spec.name = absl::StrCat(b.name, "-buffer-", index);
  pod->spec.uid = absl::StrCat("capacitybuffer/", b.namespace_name, "/", b.name, "/", index);
  pod->spec.node_name.clear();
  pod->spec.owner.reset();
  pod->phase = "Pending";
  pod->unschedulable = true;
  pod->capacity_buffer = b.Key();
  return pod;
}

}  // namespace

BufferPods CapacityBufferPods::Resolve(const ClusterView& view, absl::Time now) {
  BufferPods out;
  absl::flat_hash_map<std::pair<absl::string_view, absl::string_view>, const PodTemplateObject*>
      templates;
  for (const PodTemplatePtr& t : view.pod_templates) {
    templates[{t->namespace_name, t->name}] = t.get();
  }
  absl::flat_hash_set<std::string> seen;
  for (const CapacityBufferPtr& b : view.capacity_buffers) {
    if (b->provisioning_strategy != kActiveCapacityStrategy) continue;  // another provisioner's
    const auto problem = [&](std::string message) {
      out.problems.push_back({b, std::move(message)});
    };
    if (!b->problem.empty()) {
      problem(b->problem);
      continue;
    }
    if (!b->scalable_kind.empty()) {
      problem(absl::StrCat("CapacityBuffer ", b->Key(),
                           ": spec.scalableRef is not supported; give the shape of a chunk with "
                           "spec.podTemplateRef"));
      continue;
    }
    auto t = templates.find({b->namespace_name, b->pod_template});
    if (t == templates.end()) {
      problem(absl::StrCat("CapacityBuffer ", b->Key(), ": spec.podTemplateRef: PodTemplate ",
                           b->namespace_name, "/", b->pod_template, " not found"));
      continue;
    }
    const PodTemplateObject& shape = *t->second;
    if (!shape.pod.invalid.ok()) {
      problem(absl::StrCat("CapacityBuffer ", b->Key(), ": spec.podTemplateRef: PodTemplate ",
                           shape.namespace_name, "/", shape.name, ": ",
                           shape.pod.invalid.message()));
      continue;
    }
    absl::StatusOr<int64_t> chunks = ChunksOf(*b, shape.pod, now);
    if (!chunks.ok()) {
      problem(std::string(chunks.status().message()));
      continue;
    }
    if (*chunks > max_per_buffer_) {
      problem(absl::StrCat("CapacityBuffer ", b->Key(), ": ", *chunks,
                           " chunks asked for; holding the first ", max_per_buffer_));
      chunks = max_per_buffer_;
    }
    if (b->schedule.has_value()) {
      out.next_change = std::min(out.next_change, b->schedule->NextChange(now));
    }
    seen.insert(b->Key());
    Made& made = made_[b->Key()];
    if (made.buffer_version != b->resource_version ||
        made.template_version != shape.resource_version) {
      made = {b->resource_version, shape.resource_version, {}};
    }
    for (int64_t i = static_cast<int64_t>(made.pods.size()); i < *chunks; ++i) {
      made.pods.push_back(Placeholder(*b, shape.pod, i));
    }
    out.pods.insert(out.pods.end(), made.pods.begin(), made.pods.begin() + *chunks);
  }
  absl::erase_if(made_, [&](const auto& entry) { return !seen.contains(entry.first); });
  return out;
}

}  // namespace gpua
