// ResourceSlices in their protobuf form, as the externalgrpc protocol carries a template
// node's (`resourceSliceBytes`, kubernetes/autoscaler PR #10303).
#ifndef GPUA_CLOUDPROVIDERS_SLICE_PROTO_H_
#define GPUA_CLOUDPROVIDERS_SLICE_PROTO_H_

#include <nlohmann/json.hpp>
#include <string>

#include "absl/status/statusor.h"
#include "estimator/dra/resource_slice.h"
#include "k8s.io/api/resource/v1/generated.pb.h"

namespace gpua {

namespace resourcev1 = ::k8s::io::api::resource::v1;

resourcev1::ResourceSlice ResourceSliceToProto(const dra::ResourceSlice& slice);

// The slice as the API serves it (resource.k8s.io/v1), for those that publish or record one.
nlohmann::json ResourceSliceToJson(const dra::ResourceSlice& slice);

// Decodes one slice and checks it as a slice read from the API is checked (the same errors,
// naming the field), after `what` ("node group h100: resourceSliceBytes[0]").
absl::StatusOr<dra::ResourceSlice> ResourceSliceFromBytes(const std::string& bytes,
                                                          absl::string_view what);

}  // namespace gpua

#endif  // GPUA_CLOUDPROVIDERS_SLICE_PROTO_H_
