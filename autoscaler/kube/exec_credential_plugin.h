// Runs a kubeconfig's exec credential plugin (aws eks get-token, gke-gcloud-auth-plugin, ...)
// and returns what it printed, bounded: a plugin that hangs (waiting on a browser login, a
// network that never answers) is killed at the deadline, or as soon as `cancelled` is set (the
// controller's SIGTERM), with its children, so no caller waits on it forever.
#ifndef GPUA_AUTOSCALER_KUBE_EXEC_CREDENTIAL_PLUGIN_H_
#define GPUA_AUTOSCALER_KUBE_EXEC_CREDENTIAL_PLUGIN_H_

#include <atomic>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "autoscaler/kube/rest_config.h"
#include "base/clock.h"

namespace gpua::kube {

// More output than any credential: a plugin printing past it is refused, not buffered.
inline constexpr size_t kMaxExecPluginOutput = 1 << 20;

// The plugin's environment is ours plus the config's entries; its stdin is /dev/null (it
// runs unattended, as client-go's interactiveMode Never).
absl::StatusOr<std::string> RunExecCredentialPlugin(const ExecPlugin& plugin,
                                                    absl::Duration timeout, Clock& clock,
                                                    const std::atomic<bool>& cancelled);

}  // namespace gpua::kube

#endif  // GPUA_AUTOSCALER_KUBE_EXEC_CREDENTIAL_PLUGIN_H_
