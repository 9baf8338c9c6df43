// An informer's cache for one kind: typed objects kept in step by a Reflector, with
// indexes (pods by node name, unschedulable pods apart), add/update/delete handlers so the
// controller can wake early, and a consistent copy for one controller loop. An object that
// cannot be decoded is reported (kind, namespace/name, field) and left out; the informer
// goes on with the rest.
#ifndef GPUA_AUTOSCALER_KUBE_INFORMER_H_
#define GPUA_AUTOSCALER_KUBE_INFORMER_H_

#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "autoscaler/kube/reflector.h"

namespace gpua::kube {

template <typename T>
class Informer : public ReflectorStore {
 public:
  using Ptr = std::shared_ptr<const T>;
  using Decode = std::function<absl::StatusOr<T>(const nlohmann::json&)>;
  using IndexFn = std::function<std::vector<std::string>(const T&)>;
  struct Handlers {
    std::function<void(const Ptr&)> on_add;
    std::function<void(const Ptr& before, const Ptr& after)> on_update;
    std::function<void(const Ptr&)> on_delete;
  };

  Informer(Decode decode, Handlers handlers = {},
           std::function<void(absl::string_view)> log = nullptr)
      : decode_(std::move(decode)), handlers_(std::move(handlers)), log_(std::move(log)) {}

  // Before the first list.
  void AddIndex(const std::string& name, IndexFn fn) { index_fns_[name] = std::move(fn); }

  std::vector<Ptr> List() const {
    absl::MutexLock lock(&mu_);
    std::vector<Ptr> out;
    out.reserve(objects_.size());
    for (const auto& [key, object] : objects_) out.push_back(object);
    return out;
  }
  std::vector<Ptr> ByIndex(const std::string& index, const std::string& value) const {
    absl::MutexLock lock(&mu_);
    std::vector<Ptr> out;
    auto idx = indexes_.find(index);
    if (idx == indexes_.end()) return out;
    auto keys = idx->second.find(value);
    if (keys == idx->second.end()) return out;
    for (const std::string& key : keys->second) out.push_back(objects_.at(key));
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

  void Replace(std::vector<nlohmann::json> objects) override {
    std::map<std::string, Ptr> fresh;
    for (const nlohmann::json& o : objects) {
      if (Ptr p = DecodeOne(o)) fresh[KeyOf(o)] = std::move(p);
    }
    std::vector<std::function<void()>> calls;
    {
      absl::MutexLock lock(&mu_);
      for (const auto& [key, before] : objects_) {
        if (!fresh.contains(key) && handlers_.on_delete) {
          calls.push_back([this, b = before] { handlers_.on_delete(b); });
        }
      }
      for (const auto& [key, after] : fresh) {
        auto it = objects_.find(key);
        if (it == objects_.end()) {
          if (handlers_.on_add) calls.push_back([this, a = after] { handlers_.on_add(a); });
        } else if (handlers_.on_update) {
          calls.push_back([this, b = it->second, a = after] { handlers_.on_update(b, a); });
        }
      }
      objects_ = std::move(fresh);
      Reindex();
      synced_ = true;
    }
    for (const auto& call : calls) call();  // outside the lock: handlers may read the cache
  }
  void Add(const nlohmann::json& o) override { Put(o); }
  void Update(const nlohmann::json& o) override { Put(o); }
  void Remove(const nlohmann::json& o) override {
    Ptr before;
    {
      absl::MutexLock lock(&mu_);
      auto it = objects_.find(KeyOf(o));
      if (it == objects_.end()) return;
      before = it->second;
      Unindex(it->first, *before);
      objects_.erase(it);
    }
    if (handlers_.on_delete) handlers_.on_delete(before);
  }

  static std::string KeyOf(const nlohmann::json& o) {
    if (!o.is_object() || !o.contains("metadata") || !o["metadata"].is_object()) return "";
    const nlohmann::json& m = o["metadata"];
    const std::string ns = m.contains("namespace") && m["namespace"].is_string()
                               ? m["namespace"].get<std::string>()
                               : "";
    const std::string name =
        m.contains("name") && m["name"].is_string() ? m["name"].get<std::string>() : "";
    return ns.empty() ? name : absl::StrCat(ns, "/", name);
  }

 private:
  Ptr DecodeOne(const nlohmann::json& o) {
    absl::StatusOr<T> decoded = decode_(o);
    if (!decoded.ok()) {
      const std::string line = std::string(decoded.status().message());
      if (log_) {
        log_(line);
      } else {
        std::cerr << line << std::endl;
      }
      return nullptr;
    }
    return std::make_shared<const T>(*std::move(decoded));
  }

  void Put(const nlohmann::json& o) {
    Ptr after = DecodeOne(o);
    if (after == nullptr) return;
    Ptr before;
    {
      absl::MutexLock lock(&mu_);
      const std::string key = KeyOf(o);
      auto it = objects_.find(key);
      if (it != objects_.end()) {
        before = it->second;
        Unindex(key, *before);
      }
      objects_[key] = after;
      Index(key, *after);
    }
    if (before == nullptr && handlers_.on_add) handlers_.on_add(after);
    if (before != nullptr && handlers_.on_update) handlers_.on_update(before, after);
  }

  void Index(const std::string& key, const T& object) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    for (const auto& [name, fn] : index_fns_) {
      for (const std::string& value : fn(object)) indexes_[name][value].insert(key);
    }
  }
  void Unindex(const std::string& key, const T& object) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    for (const auto& [name, fn] : index_fns_) {
      for (const std::string& value : fn(object)) {
        auto& keys = indexes_[name][value];
        keys.erase(key);
        if (keys.empty()) indexes_[name].erase(value);
      }
    }
  }
  void Reindex() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    indexes_.clear();
    for (const auto& [key, object] : objects_) Index(key, *object);
  }

  const Decode decode_;
  const Handlers handlers_;
  const std::function<void(absl::string_view)> log_;
  std::map<std::string, IndexFn> index_fns_;
  mutable absl::Mutex mu_;
  std::map<std::string, Ptr> objects_ ABSL_GUARDED_BY(mu_);
  // index -> value -> keys
  std::map<std::string, std::map<std::string, std::set<std::string>>> indexes_ ABSL_GUARDED_BY(mu_);
  bool synced_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace gpua::kube

#endif  // GPUA_AUTOSCALER_KUBE_INFORMER_H_
