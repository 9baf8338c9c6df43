// Config files tests hand to the binary's commands: a kubeconfig for the fake API server and
// an externalgrpc cloud-config for a plugin on loopback, written to the temp directory.
#ifndef GPUA_TESTS_SUPPORT_CONFIG_FILES_H_
#define GPUA_TESTS_SUPPORT_CONFIG_FILES_H_

#include <filesystem>
#include <fstream>
#include <string>

namespace gpua::testing {

// A kubeconfig whose one context points at `server` with a token.
inline std::string KubeconfigFor(const std::string& server, const std::string& file) {
  const auto path = std::filesystem::temp_directory_path() / file;
  std::ofstream(path) << "apiVersion: v1\nkind: Config\ncurrent-context: test\n"
                      << "clusters: [{name: fake, cluster: {server: \"" << server << "\"}}]\n"
                      << "users: [{name: me, user: {token: t}}]\n"
                      << "contexts: [{name: test, context: {cluster: fake, user: me}}]\n";
  return path.string();
}

// An externalgrpc cloud-config for a plaintext plugin on 127.0.0.1:`port`.
inline std::string CloudConfigFor(int port, const std::string& file) {
  const auto path = std::filesystem::temp_directory_path() / file;
  std::ofstream(path) << "address: 127.0.0.1:" << port << "\ngrpc_timeout: 3s\n";
  return path.string();
}

}  // namespace gpua::testing

#endif  // GPUA_TESTS_SUPPORT_CONFIG_FILES_H_
