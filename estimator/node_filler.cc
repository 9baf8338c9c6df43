#include "estimator/node_filler.h"

#include <algorithm>
#include <limits>

namespace gpua {
namespace {

ResourceVector WithoutPodsSlot(ResourceVector v) {
  if (v.size() > ResourceCatalog::kPods) v[ResourceCatalog::kPods] = 0;
  return v;
}

// Depth-first over copies of each item, most copies first, so that the first complete fill
// is first-fit-decreasing's. Keeps the best fill seen.
class FillSearch {
 public:
  FillSearch(const FillItems& items, const std::vector<int64_t>& available, int64_t budget)
      : items_(items),
        available_(available),
        budget_(budget),
        taken_(items.size(), 0),
        residual_(items.capacity()) {}

  Fill Run(size_t seed) {
    const int64_t most = CopiesThatFit(items_.request(seed), residual_, available_[seed]);
    for (int64_t copies = most; copies >= 1 && !Stop(); --copies) {
      Take(seed, copies);
      Search(seed + 1);
      Take(seed, -copies);
    }
    return best_;
  }

  int64_t steps() const { return steps_; }

 private:
  bool Stop() const { return perfect_ || (found_ && steps_ > budget_); }
  int64_t Left(size_t i) const { return available_[i] - taken_[i]; }

  void Take(size_t i, int64_t copies) {
    taken_[i] += copies;
    SubtractFrom(residual_, items_.request(i), copies);
    if (copies > 0) {
      current_.emplace_back(i, copies);
    } else {
      current_.pop_back();
    }
  }

  void Search(size_t pos) {
    ++steps_;
    if (Stop()) return;
    if (TryExactCompletion()) return;
    size_t i = pos;
    while (i < items_.size() && items_.SomeMayFit(i, residual_) &&
           (Left(i) <= 0 || !Fits(items_.request(i), residual_))) {
      ++i;
    }
    if (i < items_.size() && !items_.SomeMayFit(i, residual_)) i = items_.size();
    if (i == items_.size()) {
      Consider();
      return;
    }
    const int64_t most = CopiesThatFit(items_.request(i), residual_, Left(i));
    for (int64_t copies = most; copies >= 0 && !Stop(); --copies) {
      if (copies > 0) Take(i, copies);
      Search(i + 1);
      if (copies > 0) Take(i, -copies);
    }
  }

  // One more pod whose request is exactly what is left fills the node perfectly.
  bool TryExactCompletion() {
    if (residual_[ResourceCatalog::kPods] < 1) return false;
    const std::vector<size_t>* exact = items_.ExactlyFilling(residual_);
    if (exact == nullptr) return false;
    for (size_t j : *exact) {
      if (Left(j) < 1) continue;
      Take(j, 1);
      Consider();
      Take(j, -1);
      return perfect_;
    }
    return false;
  }

  void Consider() {
    found_ = true;
    double score = 0;
    bool perfect = true;
    const ResourceVector& capacity = items_.capacity();
    for (size_t d = 0; d < residual_.size(); ++d) {
      if (capacity[d] <= 0) continue;
      const double w = items_.weight(d);
      score +=
          w * static_cast<double>(capacity[d] - residual_[d]) / static_cast<double>(capacity[d]);
      if (w >= FillItems::kScarce && residual_[d] != 0) perfect = false;
    }
    if (best_.empty() || score > best_score_) {
      best_ = current_;
      best_score_ = score;
    }
    perfect_ = perfect;
  }

  const FillItems& items_;
  const std::vector<int64_t>& available_;
  const int64_t budget_;
  std::vector<int64_t> taken_;
  ResourceVector residual_;
  Fill current_;
  Fill best_;
  double best_score_ = 0;
  int64_t steps_ = 0;
  bool found_ = false;
  bool perfect_ = false;
};

}  // namespace

FillItems::FillItems(std::vector<ResourceVector> requests, ResourceVector capacity,
                     const std::vector<int64_t>& available)
    : requests_(std::move(requests)),
      capacity_(std::move(capacity)),
      nodes_needed_(capacity_.size(), 0),
      weight_(capacity_.size(), 0) {
  largest_.assign(capacity_.size(), 0);
  smallest_from_.assign(requests_.size() + 1,
                        ResourceVector(capacity_.size(), std::numeric_limits<int64_t>::max()));
  for (size_t i = requests_.size(); i-- > 0;) {
    by_request_[WithoutPodsSlot(requests_[i])].push_back(i);
    Consume(i, -available[i]);
    for (size_t d = 0; d < capacity_.size(); ++d) {
      largest_[d] = std::max(largest_[d], requests_[i][d]);
      smallest_from_[i][d] = std::min(smallest_from_[i + 1][d], requests_[i][d]);
    }
  }
  for (auto& [request, items] : by_request_) std::reverse(items.begin(), items.end());
}

bool FillItems::SomeMayFit(size_t first, const ResourceVector& residual) const {
  return Fits(smallest_from_[first], residual);
}

void FillItems::Consume(size_t i, int64_t copies) {
  if (!Fits(requests_[i], capacity_)) return;  // never placed here, so it needs no node
  for (size_t d = 0; d < capacity_.size(); ++d) {
    if (capacity_[d] > 0) {
      nodes_needed_[d] -= static_cast<double>(copies) * static_cast<double>(requests_[i][d]) /
                          static_cast<double>(capacity_[d]);
    }
  }
  Reweigh();
}

void FillItems::Reweigh() {
  const double most = *std::max_element(nodes_needed_.begin(), nodes_needed_.end());
  for (size_t d = 0; d < capacity_.size(); ++d) {
    weight_[d] = most > 1e-9 ? std::max(0.0, nodes_needed_[d] / most) : 0;
  }
}

const std::vector<size_t>* FillItems::ExactlyFilling(const ResourceVector& residual) const {
  // Cheap refusal first: a residual above every item in some resource is no item's request.
  for (size_t d = 0; d < residual.size(); ++d) {
    if (d != ResourceCatalog::kPods && residual[d] > largest_[d]) return nullptr;
  }
  auto it = by_request_.find(WithoutPodsSlot(residual));
  return it == by_request_.end() ? nullptr : &it->second;
}

Fill FillNode(const FillItems& items, const std::vector<int64_t>& available, size_t seed,
              int64_t budget, int64_t* steps) {
  FillSearch search(items, available, budget);
  Fill fill = search.Run(seed);
  *steps += search.steps();
  return fill;
}

}  // namespace gpua
