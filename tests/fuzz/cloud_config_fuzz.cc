// Fuzzes the externalgrpc provider's --cloud-config: any text is read or refused with an error
// naming the file, the same as YAML and as JSON.
#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "cloudproviders/externalgrpc/cloud_config.h"
#include "tests/fuzz/same_as_json.h"

namespace {

const char kSource[] = "cloud-config fuzz.yaml";

std::string Read(const std::string& text) {
  return gpua::fuzz::Described(
      gpua::ParseExternalGrpcConfig(text, kSource), kSource, [](const gpua::ExternalGrpcConfig& c) {
        return absl::StrCat(c.address, " tls=", c.UsesTls(), " sni=", c.TlsServerName(), " ",
                            absl::FormatDuration(c.timeout));
      });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  gpua::fuzz::SameAsJson(std::string(reinterpret_cast<const char*>(data), size), Read);
  return 0;
}
