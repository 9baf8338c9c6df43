#include "kubeobjects/selectors.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"

namespace gpua {
namespace {

absl::StatusOr<Requirement> DecodeRequirement(const JsonReader& r, bool node_selector) {
  Requirement req;
  GPUA_RETURN_IF_ERROR(r.RejectUnknown({"key", "operator", "values"}));
  GPUA_ASSIGN_OR_RETURN(req.key, r.Field("key").String());
  GPUA_ASSIGN_OR_RETURN(std::string op, r.Field("operator").String());
  absl::StatusOr<SelectorOp> parsed = ParseSelectorOp(op, node_selector);
  if (!parsed.ok()) return r.Field("operator").Error(parsed.status().message());
  req.op = *parsed;
  GPUA_ASSIGN_OR_RETURN(req.values, r.Field("values").Strings());
  if (absl::Status s = req.Validate(); !s.ok()) return r.Error(s.message());
  return req;
}

}  // namespace

absl::StatusOr<std::vector<Requirement>> DecodeRequirements(const JsonReader& r,
                                                            bool node_selector) {
  std::vector<Requirement> out;
  GPUA_RETURN_IF_ERROR(r.ForEach([&](const JsonReader& item) -> absl::Status {
    GPUA_ASSIGN_OR_RETURN(Requirement req, DecodeRequirement(item, node_selector));
    out.push_back(std::move(req));
    return absl::OkStatus();
  }));
  return out;
}

absl::StatusOr<std::optional<LabelSelector>> DecodeLabelSelector(const JsonReader& r) {
  if (r.IsNull()) return std::optional<LabelSelector>();
  if (!r.IsObject()) return r.Error("expected a label selector object");
  LabelSelector sel;
  GPUA_ASSIGN_OR_RETURN(Labels match_labels, r.Field("matchLabels").StringMap());
  for (const auto& [k, v] : match_labels) sel.requirements.push_back({k, SelectorOp::kIn, {v}});
  GPUA_ASSIGN_OR_RETURN(std::vector<Requirement> exprs,
                        DecodeRequirements(r.Field("matchExpressions"), false));
  sel.requirements.insert(sel.requirements.end(), exprs.begin(), exprs.end());
  return std::optional<LabelSelector>(std::move(sel));
}

absl::StatusOr<NodeSelector> DecodeNodeSelector(const JsonReader& selector) {
  NodeSelector out;
  GPUA_RETURN_IF_ERROR(
      selector.Field("nodeSelectorTerms").ForEach([&](const JsonReader& t) -> absl::Status {
        NodeSelectorTerm term;
        GPUA_ASSIGN_OR_RETURN(term.match_expressions,
                              DecodeRequirements(t.Field("matchExpressions"), true));
        GPUA_ASSIGN_OR_RETURN(term.match_fields, DecodeRequirements(t.Field("matchFields"), true));
        for (const Requirement& f : term.match_fields) {
          if (f.key != "metadata.name") {
            return t.Field("matchFields")
                .Error(absl::StrCat("unsupported field \"", f.key, "\" (only metadata.name)"));
          }
        }
        out.terms.push_back(std::move(term));
        return absl::OkStatus();
      }));
  return out;
}

}  // namespace gpua
