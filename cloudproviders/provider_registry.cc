#include "cloudproviders/provider_registry.h"

#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace gpua {

std::string ProviderContext::Env(const std::string& name) const {
  if (env) return env(name);
  const char* value = std::getenv(name.c_str());
  return value == nullptr ? "" : value;
}

const ProviderRegistry& ProviderRegistry::Builtin() {
  static const ProviderRegistry* const kBuiltin = [] {
    auto registry = std::make_unique<ProviderRegistry>();
    AddBuiltinProviders(*registry);
    return registry.release();  // lives as long as the process: no destruction order to mind
  }();
  return *kBuiltin;
}

absl::Status ProviderRegistry::Add(ProviderFactory factory) {
  if (factory.name.empty()) return absl::InvalidArgumentError("a cloud provider has no name");
  if (!factory.create) {
    return absl::InvalidArgumentError(
        absl::StrCat("cloud provider ", factory.name, " has no factory"));
  }
  if (Find(factory.name) != nullptr) {
    return absl::AlreadyExistsError(
        absl::StrCat("cloud provider ", factory.name, " is registered twice"));
  }
  factories_.push_back(std::move(factory));
  return absl::OkStatus();
}

const ProviderFactory* ProviderRegistry::Find(const std::string& name) const {
  for (const ProviderFactory& f : factories_) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

std::vector<std::string> ProviderRegistry::Names() const {
  std::vector<std::string> out;
  for (const ProviderFactory& f : factories_) out.push_back(f.name);
  return out;
}

std::string ProviderRegistry::NamesText() const {
  const std::vector<std::string> names = Names();
  if (names.size() <= 1) return absl::StrJoin(names, "");
  return absl::StrCat(absl::StrJoin(names.begin(), names.end() - 1, ", "), " or ", names.back());
}

absl::Status ProviderRegistry::CheckAutoDiscovery(const std::string& name,
                                                  const std::vector<std::string>& specs) const {
  const ProviderFactory* f = Find(name);
  if (f == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown cloud provider \"", name, "\": this build has ", NamesText()));
  }
  if (specs.empty()) return absl::OkStatus();
  if (!f->check_auto_discovery) {
    return absl::InvalidArgumentError(
        absl::StrCat("--node-group-auto-discovery is not meaningful for --cloud-provider=", name));
  }
  return f->check_auto_discovery(specs);
}

absl::StatusOr<std::unique_ptr<CloudProvider>> ProviderRegistry::Create(
    const std::string& name, const ProviderContext& context) const {
  if (absl::Status s = CheckAutoDiscovery(name, context.auto_discovery); !s.ok()) return s;
  const ProviderFactory& f = *Find(name);
  if (context.cloud_config.empty() && f.cloud_config_required) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--cloud-config is required with --cloud-provider=", name, " (", f.cloud_config_help, ")"));
  }
  return f.create(context);
}

}  // namespace gpua
