#include "estimator/dra/allocator.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "estimator/dra/device_cel.h"

namespace gpua::dra {

DeviceUse::DeviceUse(std::shared_ptr<const NodeDevices> devices) : devices_(std::move(devices)) {
  taken_.resize(devices_->pools.size());
  left_.resize(devices_->pools.size());
  for (size_t p = 0; p < devices_->pools.size(); ++p) {
    const DevicePool& pool = devices_->pools[p];
    taken_[p].assign(pool.devices.size(), 0);
    for (const CounterSet& set : pool.counter_sets) left_[p][set.name] = set.counters;
  }
}

const Quantity* DeviceUse::Left(size_t pool, const std::string& set,
                                const std::string& counter) const {
  auto s = left_[pool].find(set);
  if (s == left_[pool].end()) return nullptr;
  auto c = s->second.find(counter);
  return c == s->second.end() ? nullptr : &c->second;
}

bool DeviceUse::Free(DeviceRef d) const {
  const Device& device = devices_->pools[d.pool].devices[d.device];
  return (taken_[d.pool][d.device] == 0 || device.allow_multiple_allocations) && CountersFit(d);
}

bool DeviceUse::CountersFit(DeviceRef d) const {
  const Device& device = devices_->pools[d.pool].devices[d.device];
  for (const CounterConsumption& use : device.consumes_counters) {
    for (const auto& [counter, amount] : use.counters) {
      // A counter the pool does not declare cannot be consumed: the device is unusable.
      const Quantity* left = Left(d.pool, use.counter_set, counter);
      if (left == nullptr || *left < amount) return false;
    }
  }
  return true;
}

void DeviceUse::Consume(DeviceRef d, int sign) {
  const Device& device = devices_->pools[d.pool].devices[d.device];
  for (const CounterConsumption& use : device.consumes_counters) {
    auto s = left_[d.pool].find(use.counter_set);
    if (s == left_[d.pool].end()) continue;
    for (const auto& [counter, amount] : use.counters) {
      auto c = s->second.find(counter);
      if (c == s->second.end()) continue;
      if (sign > 0) {
        c->second -= amount;
      } else {
        c->second += amount;
      }
    }
  }
}

void DeviceUse::Take(const std::vector<DevicePick>& picks) {
  for (const DevicePick& p : picks) {
    if (p.admin_access) continue;  // admin access leaves the device to ordinary claims
    ++taken_[p.ref.pool][p.ref.device];
    Consume(p.ref, +1);
  }
}

void DeviceUse::Release(const std::vector<DevicePick>& picks) {
  for (const DevicePick& p : picks) {
    if (p.admin_access) continue;
    --taken_[p.ref.pool][p.ref.device];
    Consume(p.ref, -1);
  }
}

void DeviceUse::TakeAllocated(const std::vector<AllocatedDevice>& devices) {
  std::vector<DevicePick> picks;
  for (const AllocatedDevice& a : devices) {
    if (a.admin_access) continue;
    for (size_t p = 0; p < devices_->pools.size(); ++p) {
      const DevicePool& pool = devices_->pools[p];
      if (pool.driver != a.driver || pool.name != a.pool) continue;
      for (size_t d = 0; d < pool.devices.size(); ++d) {
        if (pool.devices[d].name == a.device) picks.push_back(DevicePick{{p, d}, a.request, false});
      }
    }
  }
  Take(picks);
}

size_t DeviceUse::AllocatedDevices() const {
  size_t n = 0;
  for (const auto& pool : taken_) {
    for (int t : pool) n += t > 0 ? 1 : 0;
  }
  return n;
}

double DeviceUse::CounterUtilization() const {
  double total = 0;
  double used = 0;
  for (size_t p = 0; p < devices_->pools.size(); ++p) {
    for (const CounterSet& set : devices_->pools[p].counter_sets) {
      for (const auto& [counter, amount] : set.counters) {
        if (amount.Sign() <= 0) continue;
        const Quantity* left = Left(p, set.name, counter);
        total += 1;
        used += 1 - static_cast<double>(left->nanos()) / static_cast<double>(amount.nanos());
      }
    }
  }
  return total == 0 ? 0 : used / total;
}

double DeviceUse::Utilization() const {
  struct Share {
    double used = 0;
    double total = 0;
  };
  absl::flat_hash_map<std::string, Share> counters;
  absl::flat_hash_map<std::string, Share> devices;
  for (size_t p = 0; p < devices_->pools.size(); ++p) {
    const DevicePool& pool = devices_->pools[p];
    for (const CounterSet& set : pool.counter_sets) {
      for (const auto& [counter, amount] : set.counters) {
        if (amount.Sign() <= 0) continue;
        Share& s = counters[pool.driver];
        s.total += 1;
        s.used += 1 - static_cast<double>(Left(p, set.name, counter)->nanos()) /
                          static_cast<double>(amount.nanos());
      }
    }
    Share& d = devices[pool.driver];
    for (int t : taken_[p]) {
      d.total += 1;
      d.used += t > 0 ? 1 : 0;
    }
  }
  double most = 0;
  for (const auto& [driver, d] : devices) {
    auto c = counters.find(driver);
    const Share& s = c != counters.end() ? c->second : d;
    if (s.total > 0) most = std::max(most, s.used / s.total);
  }
  return most;
}

absl::StatusOr<bool> MatchCache::Matches(const Device& device, const std::string& driver,
                                         const DeviceSelector& selector) {
  const auto key = std::make_pair(&device, &selector);
  if (auto it = memo_.find(key); it != memo_.end()) return it->second;
  absl::StatusOr<bool> result =
      selector.program == nullptr ? absl::StatusOr<bool>(selector.error)
                                  : selector.program->EvaluateBool(DeviceBindings(device, driver));
  memo_.emplace(key, result);
  return result;
}

namespace {

bool Tolerated(const Device& device, const ExactRequest& request) {
  for (const DeviceTaint& taint : device.taints) {
    if (taint.effect != "NoSchedule" && taint.effect != "NoExecute") continue;
    bool ok = false;
    for (const DeviceToleration& t : request.tolerations) {
      ok = ok || t.Tolerates(taint.key, taint.value, taint.effect);
    }
    if (!ok) return false;
  }
  return true;
}

std::string Quoted(const std::string& expression) { return absl::StrCat("`", expression, "`"); }

// One way to satisfy a request: `exactly`, or one of its firstAvailable sub-requests, with
// the node's devices that match it (in use or not).
struct Alternative {
  const ExactRequest* exact = nullptr;
  std::string name;  // "request" or "request/subrequest"
  std::vector<DeviceRef> candidates;
  std::string why_none;  // when there are no candidates, or the request cannot be evaluated
};

struct Slot {
  size_t claim = 0;
  const DeviceRequest* request = nullptr;
  std::vector<Alternative> alternatives;
};

// A matchAttribute constraint while the search runs: the value its devices share so far.
struct ConstraintState {
  const DeviceConstraint* constraint = nullptr;
  size_t claim = 0;
  std::optional<AttributeValue> value;
  int devices = 0;
};

bool ConstraintCovers(const DeviceConstraint& c, const Alternative& alt,
                      const DeviceRequest& request) {
  if (c.requests.empty()) return true;
  for (const std::string& r : c.requests) {
    if (r == request.name || r == alt.name) return true;
  }
  return false;
}

class Search {
 public:
  Search(const AllocationRequest& request, const DeviceUse& use, MatchCache* cache)
      : request_(request), use_(use), work_(use), cache_(cache) {}

  absl::StatusOr<std::vector<std::vector<DevicePick>>> Run() {
    if (absl::Status st = BuildSlots(); !st.ok()) return st;
    for (size_t c = 0; c < request_.claims.size(); ++c) {
      for (const DeviceConstraint& k : request_.claims[c]->constraints) {
        constraints_.push_back(ConstraintState{&k, c, std::nullopt, 0});
      }
    }
    if (!Next(0)) {
      if (steps_ > kMaxAllocationSteps) {
        return absl::ResourceExhaustedError(
            "the device search was too large to finish (more than 100,000 tries)");
      }
      return absl::FailedPreconditionError(failure_.empty() ? "cannot allocate all claims"
                                                            : failure_);
    }
    std::vector<std::vector<DevicePick>> out(request_.claims.size());
    for (const auto& [claim, pick] : picks_) out[claim].push_back(pick);
    return out;
  }

 private:
  absl::Status BuildSlots() {
    for (size_t c = 0; c < request_.claims.size(); ++c) {
      for (const DeviceRequest& r : request_.claims[c]->requests) {
        Slot slot{c, &r, {}};
        for (const ExactRequest& e : r.alternatives) {
          Alternative alt;
          alt.exact = &e;
          alt.name = r.first_available ? absl::StrCat(r.name, "/", e.name) : r.name;
          Candidates(&alt);
          slot.alternatives.push_back(std::move(alt));
        }
        slots_.push_back(std::move(slot));
      }
    }
    return absl::OkStatus();
  }

  // The devices matching the class's and the request's selectors, taints tolerated. A
  // selector that fails to evaluate on a device makes the alternative unusable, as a CEL
  // runtime error fails the scheduler's allocation.
  void Candidates(Alternative* alt) {
    const ExactRequest& e = *alt->exact;
    auto cls = request_.classes->find(e.device_class_name);
    if (cls == request_.classes->end()) {
      alt->why_none = absl::StrCat("device class ", e.device_class_name, " does not exist");
      return;
    }
    const NodeDevices& nd = use_.devices();
    size_t class_matches = 0;
    size_t in_use = 0;
    const DeviceSelector* rejecting = nullptr;
    // Devices in use are passed over before their selectors are evaluated, as the scheduler
    // does (a busy node is decided without CEL); All and admin access must see every device.
    const bool only_free = e.mode == AllocationMode::kExactCount && !e.admin_access;
    for (size_t p = 0; p < nd.pools.size(); ++p) {
      const DevicePool& pool = nd.pools[p];
      for (size_t d = 0; d < pool.devices.size(); ++d) {
        const Device& device = pool.devices[d];
        if (only_free && !use_.Free(DeviceRef{p, d})) {
          ++in_use;
          continue;
        }
        absl::StatusOr<const DeviceSelector*> miss =
            FirstMiss(cls->second.selectors, device, pool.driver);
        if (!miss.ok()) return Unusable(alt, miss.status());
        if (*miss != nullptr) {
          if (class_matches == 0) rejecting = *miss;
          continue;
        }
        ++class_matches;
        miss = FirstMiss(e.selectors, device, pool.driver);
        if (!miss.ok()) return Unusable(alt, miss.status());
        if (*miss != nullptr) {
          rejecting = *miss;
          continue;
        }
        if (!Tolerated(device, e)) continue;
        alt->candidates.push_back(DeviceRef{p, d});
      }
    }
    if (!alt->candidates.empty()) return;
    alt->why_none =
        absl::StrCat("no ", in_use > 0 ? "free " : "", "device of class ", e.device_class_name);
    if (in_use > 0 && rejecting == nullptr && class_matches == 0) {
      absl::StrAppend(&alt->why_none, ": ", in_use, " of the node's ", nd.DeviceCount(),
                      " devices are in use");
    } else if (rejecting != nullptr) {
      absl::StrAppend(&alt->why_none, " matches ", Quoted(rejecting->expression));
      if (in_use > 0) {
        absl::StrAppend(&alt->why_none, " (", in_use, " of the node's ", nd.DeviceCount(),
                        " devices are in use)");
      }
    } else if (class_matches > 0) {
      absl::StrAppend(&alt->why_none, " is free of taints the request does not tolerate");
    } else {
      absl::StrAppend(&alt->why_none, " is on the node");
    }
  }

  void Unusable(Alternative* alt, const absl::Status& st) {
    alt->candidates.clear();
    alt->why_none = std::string(st.message());
  }

  absl::StatusOr<const DeviceSelector*> FirstMiss(const std::vector<DeviceSelector>& selectors,
                                                  const Device& device, const std::string& driver) {
    for (const DeviceSelector& s : selectors) {
      absl::StatusOr<bool> m = cache_->Matches(device, driver, s);
      if (!m.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("selector ", Quoted(s.expression), ": ", m.status().message()));
      }
      if (!*m) return &s;
    }
    return nullptr;
  }

  void Fail(size_t slot, std::string why) {
    if (slot >= failure_depth_) {
      failure_depth_ = slot;
      failure_ = std::move(why);
    }
  }

  bool Next(size_t slot_index) {
    if (slot_index == slots_.size()) return true;
    const Slot& slot = slots_[slot_index];
    for (const Alternative& alt : slot.alternatives) {
      if (alt.candidates.empty()) {
        Fail(slot_index, absl::StrCat("request ", alt.name, ": ", alt.why_none));
        continue;
      }
      const bool found = alt.exact->mode == AllocationMode::kAll
                             ? TakeAll(slot_index, alt)
                             : Choose(slot_index, alt, 0, alt.exact->count);
      if (found) return true;
      if (steps_ > kMaxAllocationSteps) return false;
    }
    return false;
  }

  bool Usable(const Alternative& alt, DeviceRef d) const {
    if (alt.exact->admin_access) return true;
    const Device& device = use_.devices().pools[d.pool].devices[d.device];
    if (work_.Allocations(d) > 0 && !device.allow_multiple_allocations) return false;
    return work_.CountersFit(d);
  }

  bool Free(DeviceRef d) const {
    for (const auto& [claim, pick] : picks_) {
      if (pick.ref == d && !pick.admin_access) return false;
    }
    return true;
  }

  // Picks `count` more devices for the alternative, from candidate `from` on.
  bool Choose(size_t slot_index, const Alternative& alt, size_t from, int64_t count) {
    if (count == 0) return Next(slot_index + 1);
    const size_t free_needed = static_cast<size_t>(count);
    for (size_t i = from; i + free_needed <= alt.candidates.size(); ++i) {
      if (++steps_ > kMaxAllocationSteps) return false;
      const DeviceRef d = alt.candidates[i];
      if (!Usable(alt, d) || (!alt.exact->admin_access && !Free(d))) continue;
      if (!Push(slot_index, alt, d)) continue;
      if (Choose(slot_index, alt, i + 1, count - 1)) return true;
      Pop(slot_index);
    }
    Fail(slot_index, Shortage(slot_index, alt));
    return false;
  }

  bool TakeAll(size_t slot_index, const Alternative& alt) {
    size_t pushed = 0;
    bool ok = true;
    for (const DeviceRef d : alt.candidates) {
      ++steps_;
      if (!Usable(alt, d) || (!alt.exact->admin_access && !Free(d)) || !Push(slot_index, alt, d)) {
        ok = false;
        break;
      }
      ++pushed;
    }
    if (ok && Next(slot_index + 1)) return true;
    for (; pushed > 0; --pushed) Pop(slot_index);
    if (!ok) {
      Fail(slot_index,
           absl::StrCat("request ", alt.name, ": all ", alt.candidates.size(), " devices of class ",
                        alt.exact->device_class_name, " are needed and some are in use"));
    }
    return false;
  }

  std::string Shortage(size_t slot_index, const Alternative& alt) const {
    size_t usable = 0;
    for (const DeviceRef d : alt.candidates) usable += Usable(alt, d) && Free(d) ? 1 : 0;
    const int64_t wanted = alt.exact->count;
    if (static_cast<int64_t>(usable) >= wanted) {
      const Slot& slot = slots_[slot_index];
      std::vector<std::string> attributes;
      for (const ConstraintState& c : constraints_) {
        if (c.claim == slot.claim && ConstraintCovers(*c.constraint, alt, *slot.request)) {
          attributes.push_back(c.constraint->match_attribute);
        }
      }
      return absl::StrCat("request ", alt.name, ": no ", wanted, " devices of class ",
                          alt.exact->device_class_name, " share one value of ",
                          attributes.empty() ? std::string("the constraints' attributes")
                                             : absl::StrJoin(attributes, " and "),
                          " (", usable, " free)");
    }
    return absl::StrCat("request ", alt.name, ": ", wanted, " devices of class ",
                        alt.exact->device_class_name, " needed, ", usable, " free");
  }

  // Adds the device if every constraint on its request still holds.
  bool Push(size_t slot_index, const Alternative& alt, DeviceRef d) {
    const Slot& slot = slots_[slot_index];
    const DevicePool& pool = use_.devices().pools[d.pool];
    const Device& device = pool.devices[d.device];
    std::vector<ConstraintState*> touched;
    for (ConstraintState& c : constraints_) {
      if (c.claim != slot.claim || !ConstraintCovers(*c.constraint, alt, *slot.request)) continue;
      const AttributeValue* v = device.Attribute(c.constraint->match_attribute, pool.driver);
      if (v == nullptr || (c.value.has_value() && !(*c.value == *v))) {
        for (ConstraintState* t : touched) Unconstrain(t);
        return false;
      }
      if (!c.value) c.value = *v;
      ++c.devices;
      touched.push_back(&c);
    }
    DevicePick pick{d, alt.name, alt.exact->admin_access};
    work_.Take({pick});
    picks_.emplace_back(slot.claim, std::move(pick));
    pushed_constraints_.push_back(std::move(touched));
    return true;
  }

  void Pop(size_t slot_index) {
    (void)slot_index;
    work_.Release({picks_.back().second});
    picks_.pop_back();
    for (ConstraintState* c : pushed_constraints_.back()) Unconstrain(c);
    pushed_constraints_.pop_back();
  }

  static void Unconstrain(ConstraintState* c) {
    if (--c->devices == 0) c->value.reset();
  }

  const AllocationRequest& request_;
  const DeviceUse& use_;
  DeviceUse work_;
  MatchCache* cache_;
  std::vector<Slot> slots_;
  std::vector<ConstraintState> constraints_;
  std::vector<std::pair<size_t, DevicePick>> picks_;
  std::vector<std::vector<ConstraintState*>> pushed_constraints_;
  int64_t steps_ = 0;
  size_t failure_depth_ = 0;
  std::string failure_;
};

}  // namespace

bool DeviceToleration::Tolerates(absl::string_view taint_key, absl::string_view taint_value,
                                 absl::string_view taint_effect) const {
  if (!effect.empty() && effect != taint_effect) return false;
  if (op == "Exists") return key.empty() || key == taint_key;
  return key == taint_key && value == taint_value;
}

absl::StatusOr<std::vector<std::vector<DevicePick>>> Allocate(const AllocationRequest& request,
                                                              const DeviceUse& use,
                                                              MatchCache* cache) {
  MatchCache local;
  return Search(request, use, cache != nullptr ? cache : &local).Run();
}

}  // namespace gpua::dra
