// Fuzzes the kubeconfig reader (--kubeconfig, and the management cluster's --cloud-config):
// any text is read or refused with an error naming the file, the same as YAML and as JSON.
// Files it names are looked up under a folder that does not exist, so nothing is read.
#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "autoscaler/kube/rest_config.h"
#include "tests/fuzz/same_as_json.h"

namespace {

const char kPath[] = "/nonexistent-gpua-fuzz/kubeconfig";

std::string Read(const std::string& text) {
  const absl::StatusOr<gpua::kube::RestConfig> c = gpua::kube::ParseKubeconfig(text, kPath, "");
  return gpua::fuzz::Described(c, kPath, [](const gpua::kube::RestConfig& r) {
    return absl::StrCat(r.server, " ns=", r.namespace_name, " ca=", r.ca_pem.size(),
                        " skip=", r.insecure_skip_tls_verify, " sni=", r.tls_server_name,
                        " token=", r.token, " file=", r.token_file,
                        " cert=", r.client_cert_pem.size(), " key=", r.client_key_pem.size(),
                        " exec=", r.exec.has_value() ? r.exec->command : "-");
  });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  gpua::fuzz::SameAsJson(std::string(reinterpret_cast<const char*>(data), size), Read);
  return 0;
}
