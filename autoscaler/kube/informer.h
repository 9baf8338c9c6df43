// An informer's cache for one kind: typed objects (each with a `resource_version`) kept in
// step by a Reflector, with indexes (pods by node name, unschedulable pods apart),
// add/update/delete handlers so the controller can wake early, and a consistent copy for one
// controller loop. An object that cannot be decoded is reported (kind, namespace/name,
// field) and left out; the informer goes on with the rest, and keeps what a salvage function
// can still read of it (a pod's node), so the controller knows what it cannot see.
#ifndef GPUA_AUTOSCALER_KUBE_INFORMER_H_
#define GPUA_AUTOSCALER_KUBE_INFORMER_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/btree_set.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "autoscaler/kube/reflector.h"
#include "base/log.h"

namespace gpua::kube {

template <typename T>
class Informer : public ReflectorStore {
 public:
  using Ptr = std::shared_ptr<const T>;
  using Decode = std::function<absl::StatusOr<T>(const JsonReader&)>;
  using IndexFn = std::function<std::vector<std::string>(const T&)>;
  using Salvage = std::function<std::string(const JsonReader&)>;
  struct Handlers {
    std::function<void(const Ptr&)> on_add;
    std::function<void(const Ptr& before, const Ptr& after)> on_update;
    std::function<void(const Ptr&)> on_delete;
  };

  // Objects that cannot be decoded are reported to `log`.
  explicit Informer(Decode decode, Handlers handlers = {}, LogSink& log = StderrLog())
      : decode_(std::move(decode)), handlers_(std::move(handlers)), log_(log) {}

  // Before the first list.
  void AddIndex(const std::string& name, IndexFn fn) { index_fns_[name] = std::move(fn); }
  void SalvageUnreadable(Salvage fn) { salvage_ = std::move(fn); }

  // What the salvage function read of the objects that cannot be decoded now (empty
  // answers left out).
  std::vector<std::string> Unreadable() const {
    absl::MutexLock lock(&mu_);
    std::vector<std::string> out;
    for (const auto& [key, value] : unreadable_) {
      if (!value.empty()) out.push_back(value);
    }
    return out;
  }

  // In key order (namespace/name).
  std::vector<Ptr> List() const {
    absl::MutexLock lock(&mu_);
    std::vector<Ptr> out;
    out.reserve(objects_.size());
    for (const auto& [key, object] : objects_) out.push_back(object);
    return out;
  }
  // In key order.
  std::vector<Ptr> ByIndex(const std::string& index, const std::string& value) const {
    absl::MutexLock lock(&mu_);
    std::vector<Ptr> out;
    auto idx = indexes_.find(index);
    if (idx == indexes_.end()) return out;
    auto entries = idx->second.find(value);
    if (entries == idx->second.end()) return out;
    out.reserve(entries->second.size());
    for (const Entry* e : entries->second) out.push_back(e->second);
    return out;
  }
  Ptr Get(const std::string& key) const {
    absl::MutexLock lock(&mu_);
    auto it = objects_.find(key);
    return it == objects_.end() ? nullptr : it->second;
  }
  size_t size() const {
    absl::MutexLock lock(&mu_);
    return objects_.size();
  }
  // True once the first list has been applied.
  bool synced() const {
    absl::MutexLock lock(&mu_);
    return synced_;
  }

  void BeginList() override {
    listing_.clear();
    unreadable_listing_.clear();
  }
  void Listed(const JsonReader& o) override {
    if (Ptr p = DecodeOne(o, /*listing=*/true)) listing_[KeyOf(o)] = std::move(p);
  }
  void EndList() override {
    std::map<std::string, Ptr> fresh = std::move(listing_);
    listing_.clear();
    std::vector<std::function<void()>> calls;
    {
      absl::MutexLock lock(&mu_);
      unreadable_ = std::exchange(unreadable_listing_, {});
      for (const auto& [key, before] : objects_) {
        if (!fresh.contains(key) && handlers_.on_delete) {
          calls.push_back([this, b = before] { handlers_.on_delete(b); });
        }
      }
      for (const auto& [key, after] : fresh) {
        auto it = objects_.find(key);
        if (it == objects_.end()) {
          if (handlers_.on_add) calls.push_back([this, a = after] { handlers_.on_add(a); });
        } else if (handlers_.on_update && it->second->resource_version != after->resource_version) {
          // A relist (after a 410) repeats what is unchanged: only changes are updates.
          calls.push_back([this, b = it->second, a = after] { handlers_.on_update(b, a); });
        }
      }
      objects_ = std::move(fresh);
      Reindex();
      synced_ = true;
    }
    for (const auto& call : calls) call();  // outside the lock: handlers may read the cache
  }
  void Add(const JsonReader& o) override { Put(o); }
  void Update(const JsonReader& o) override { Put(o); }
  void Remove(const JsonReader& o) override {
    reported_.erase(KeyOf(o));
    {
      absl::MutexLock lock(&mu_);
      unreadable_.erase(KeyOf(o));
    }
    Ptr before;
    {
      absl::MutexLock lock(&mu_);
      auto it = objects_.find(KeyOf(o));
      if (it == objects_.end()) return;
      before = it->second;
      Unindex(*it);
      objects_.erase(it);
    }
    if (handlers_.on_delete) handlers_.on_delete(before);
  }

  // Applies a whole list at once (tests and tools that hold the objects already).
  void Replace(const std::vector<nlohmann::json>& objects) {
    BeginList();
    for (const nlohmann::json& o : objects) Listed(JsonReader(o));
    EndList();
  }

  static std::string KeyOf(const JsonReader& o) {
    const JsonReader meta = o.Field("metadata");
    const absl::string_view ns = meta.Field("namespace").StringView().value_or("");
    const absl::string_view name = meta.Field("name").StringView().value_or("");
    return ns.empty() ? std::string(name) : absl::StrCat(ns, "/", name);
  }

 private:
  using Entry = std::pair<const std::string, Ptr>;
  // Index buckets point at the cache's entries (std::map keeps them in place) and keep
  // them in key order: 8 bytes an object, where a set of keys cost a copy of each key.
  struct ByKey {
    bool operator()(const Entry* a, const Entry* b) const { return a->first < b->first; }
  };
  using Bucket = absl::btree_set<const Entry*, ByKey>;

  // An object that cannot be read is reported once, not at every update or relist, until
  // it reads, or fails differently, or goes.
  // `listing`: the object comes from a list under way, not a watch event.
  Ptr DecodeOne(const JsonReader& o, bool listing) {
    absl::StatusOr<T> decoded = decode_(o);
    const std::string key = KeyOf(o);
    if (!decoded.ok()) {
      std::string& said = reported_[key];
      if (said != decoded.status().message()) {
        said = std::string(decoded.status().message());
        log_.Warning(said);
      }
      std::string salvaged = salvage_ ? salvage_(o) : std::string();
      if (listing) {
        unreadable_listing_[key] = std::move(salvaged);
      } else {
        absl::MutexLock lock(&mu_);
        unreadable_[key] = std::move(salvaged);
      }
      return nullptr;
    }
    reported_.erase(key);
    if (!listing) {
      absl::MutexLock lock(&mu_);
      unreadable_.erase(key);
    }
    return std::make_shared<const T>(*std::move(decoded));
  }

  void Put(const JsonReader& o) {
    Ptr after = DecodeOne(o, /*listing=*/false);
    if (after == nullptr) return;
    Ptr before;
    {
      absl::MutexLock lock(&mu_);
      auto [it, inserted] = objects_.try_emplace(KeyOf(o));
      if (!inserted) {
        Unindex(*it);
        before = std::move(it->second);
      }
      it->second = after;
      Index(*it);
    }
    if (before == nullptr && handlers_.on_add) handlers_.on_add(after);
    if (before != nullptr && handlers_.on_update) handlers_.on_update(before, after);
  }

  void Index(const Entry& entry) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    for (const auto& [name, fn] : index_fns_) {
      for (const std::string& value : fn(*entry.second)) indexes_[name][value].insert(&entry);
    }
  }
  void Unindex(const Entry& entry) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    for (const auto& [name, fn] : index_fns_) {
      auto& buckets = indexes_[name];
      for (const std::string& value : fn(*entry.second)) {
        auto bucket = buckets.find(value);
        if (bucket == buckets.end()) continue;
        bucket->second.erase(&entry);
        if (bucket->second.empty()) buckets.erase(bucket);
      }
    }
  }
  void Reindex() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    indexes_.clear();
    for (const Entry& entry : objects_) Index(entry);
  }

  const Decode decode_;
  const Handlers handlers_;
  LogSink& log_;
  std::map<std::string, IndexFn> index_fns_;
  // What the list under way has decoded, and what was said of objects that cannot be read
  // (the reflector's thread only).
  std::map<std::string, Ptr> listing_;
  std::map<std::string, std::string> unreadable_listing_;
  std::map<std::string, std::string> reported_;
  Salvage salvage_;
  mutable absl::Mutex mu_;
  std::map<std::string, Ptr> objects_ ABSL_GUARDED_BY(mu_);
  // index -> value -> entries
  std::map<std::string, std::map<std::string, Bucket>> indexes_ ABSL_GUARDED_BY(mu_);
  bool synced_ ABSL_GUARDED_BY(mu_) = false;
  std::map<std::string, std::string> unreadable_ ABSL_GUARDED_BY(mu_);  // key -> salvaged
};

}  // namespace gpua::kube

#endif  // GPUA_AUTOSCALER_KUBE_INFORMER_H_
