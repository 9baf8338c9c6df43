#include "tests/layering/layer_rules.h"

#include <algorithm>
#include <fstream>
#include <optional>
#include <regex>
#include <sstream>

namespace gpua::layering {
namespace {

struct Layer {
  const char* name;
  const char* folder;  // "" for proto, whose headers are generated
  std::vector<std::string> may_include;
};

// In the order of the chain, top first. A layer may include itself and what it lists.
const std::vector<Layer>& Layers() {
  static const std::vector<Layer> kLayers = {
      {"cli",
       "autoscaler/cli/",
       {"kube", "sim", "controller", "cloudproviders", "proto", "kubeobjects", "estimator",
        "base"}},
      {"kube",
       "autoscaler/kube/",
       {"controller", "cloudproviders", "proto", "kubeobjects", "estimator", "base"}},
      {"sim",
       "autoscaler/sim/",
       {"controller", "cloudproviders", "proto", "kubeobjects", "estimator", "base"}},
      {"controller",
       "autoscaler/controller/",
       {"cloudproviders", "proto", "kubeobjects", "estimator", "base"}},
      {"cloudproviders", "cloudproviders/", {"proto", "kubeobjects", "estimator", "base"}},
      {"kubeobjects", "kubeobjects/", {"estimator", "base"}},
      {"estimator", "estimator/", {"base"}},
      {"base", "base/", {}},
  };
  return kLayers;
}

const Layer* LayerOfPath(const std::string& path) {
  for (const Layer& l : Layers()) {
    if (path.rfind(l.folder, 0) == 0) return &l;
  }
  return nullptr;
}

// The layer an include names: a layer's folder, or a generated protobuf header.
std::optional<std::string> LayerOfInclude(const std::string& include) {
  if (const Layer* l = LayerOfPath(include)) return std::string(l->name);
  if (include.size() > 5 && include.compare(include.size() - 5, 5, ".pb.h") == 0) return "proto";
  return std::nullopt;
}

std::string Allowed(const Layer& layer) {
  std::string out = layer.name;
  for (const std::string& l : layer.may_include) out += ", " + l;
  return out;
}

// The controller's floors: a file in autoscaler/controller/ROOM/ may include its own room and
// the rooms listed here, never another, and never the top level. The top level holds only
// the loop (Controller::RunOnce and its schedule), which may include every room.
struct Room {
  const char* name;
  std::vector<std::string> may_include;
};

const std::vector<Room>& ControllerRooms() {
  static const std::vector<Room> kRooms = {
      {"model", {}},
      {"mig", {"model"}},
      {"planning", {"model", "mig"}},
      {"spot", {"model", "planning"}},
      {"status", {"model", "planning"}},
      {"increase", {"model", "mig", "planning"}},
      {"repair", {"model", "mig", "planning", "increase"}},
      {"scaleup", {"model", "mig", "planning", "status", "increase"}},
      {"scaledown", {"model", "mig", "planning", "spot", "status", "increase"}},
      {"report",
       {"model", "planning", "repair", "increase", "scaleup", "scaledown", "spot", "status"}},
      {"metrics",
       {"model", "planning", "repair", "increase", "report", "scaleup", "scaledown", "spot",
        "status"}},
  };
  return kRooms;
}

constexpr char kControllerFolder[] = "autoscaler/controller/";

// "scaleup" for "autoscaler/controller/scaleup/x.h"; "" for a top-level file of the
// controller; nullopt outside the controller.
std::optional<std::string> RoomOf(const std::string& path) {
  const std::string folder = kControllerFolder;
  if (path.rfind(folder, 0) != 0) return std::nullopt;
  const std::string rest = path.substr(folder.size());
  const size_t slash = rest.find('/');
  return slash == std::string::npos ? "" : rest.substr(0, slash);
}

const Room* FindRoom(const std::string& name) {
  for (const Room& r : ControllerRooms()) {
    if (name == r.name) return &r;
  }
  return nullptr;
}

// Empty when a file of room `from` may include one of room `to`; else the rule it breaks.
std::string RoomRule(const std::string& from, const std::string& to) {
  if (from.empty() || from == to) return "";
  const Room* room = FindRoom(from);
  if (room == nullptr) return "";  // reported once per file, not per include
  if (to.empty()) {
    return "controller/" + from + "/ may not include the controller's top level: the loop " +
           "stands on the rooms, never the other way";
  }
  if (FindRoom(to) == nullptr) return "controller/" + to + "/ is not one of the controller's rooms";
  if (std::find(room->may_include.begin(), room->may_include.end(), to) !=
      room->may_include.end()) {
    return "";
  }
  std::string allowed = "controller/" + from + "/";
  for (const std::string& r : room->may_include) allowed += ", " + r + "/";
  return "controller/" + from + "/ may include only " + allowed + ", not " + to + "/";
}

bool Forbidden(const Layer& layer, const std::string& target) {
  return target != layer.name && std::find(layer.may_include.begin(), layer.may_include.end(),
                                           target) == layer.may_include.end();
}

void CheckInclude(const Layer& layer, const std::string& file, int line, const std::string& include,
                  bool quoted, std::vector<Violation>& out) {
  const std::string shown = quoted ? "\"" + include + "\"" : "<" + include + ">";
  if (!quoted) {
    // System headers: only the estimator's purity is checked.
    static const char* kIo[] = {"fstream", "iostream", "cstdio", "thread", "filesystem"};
    if (std::string(layer.name) == "estimator" &&
        std::find(std::begin(kIo), std::end(kIo), include) != std::end(kIo)) {
      out.push_back({file, line, shown, "the estimator does no I/O"});
    }
    return;
  }
  if (include == "absl/time/clock.h" && std::string(layer.name) != "base") {
    out.push_back({file, line, shown, "only base/ reads the system clock; take a Clock&"});
    return;
  }
  if (include.rfind("absl/", 0) == 0) return;
  const std::optional<std::string> target = LayerOfInclude(include);
  if (!target.has_value()) {
    out.push_back({file, line, shown,
                   "names no layer: include project headers by their path from the source "
                   "root (base/, estimator/, kubeobjects/, cloudproviders/, autoscaler/...)"});
  } else if (Forbidden(layer, *target)) {
    out.push_back(
        {file, line, shown,
         std::string(layer.name) + " may include only " + Allowed(layer) + ", not " + *target});
  } else if (const auto from = RoomOf(file), to = RoomOf(include); from && to) {
    const std::string rule = RoomRule(*from, *to);
    if (!rule.empty()) out.push_back({file, line, shown, rule});
  }
}

}  // namespace

std::string Violation::ToString() const {
  return file + ":" + std::to_string(line) + ": " + what + ": " + rule;
}

std::vector<Violation> CheckFile(const std::string& relative, const std::string& text) {
  std::vector<Violation> out;
  const Layer* layer = LayerOfPath(relative);
  if (layer == nullptr) {
    if (relative.rfind("autoscaler/", 0) == 0) {
      out.push_back(
          {relative, 0, relative, "autoscaler/ holds only controller/, kube/, sim/ and cli/"});
    }
    return out;
  }
  if (const auto room = RoomOf(relative); room && !room->empty() && FindRoom(*room) == nullptr) {
    out.push_back({relative, 0, relative,
                   "autoscaler/controller/" + *room +
                       "/ is not one of the controller's rooms (model, mig, planning, spot, "
                       "status, repair, increase, scaleup, scaledown, report, metrics): add it to "
                       "the rooms "
                       "of layer_rules.cc and docs/ARCHITECTURE.md"});
  }
  static const std::regex kInclude(R"(^\s*#\s*include\s*([<"])([^">]+)[">])");
  static const std::regex kNow(R"(\babsl::Now\s*\()");
  std::istringstream lines(text);
  std::string line;
  for (int n = 1; std::getline(lines, line); ++n) {
    std::smatch m;
    if (std::regex_search(line, m, kInclude)) {
      CheckInclude(*layer, relative, n, m[2].str(), m[1].str() == "\"", out);
    } else if (std::string(layer->name) != "base" &&
               std::regex_search(line.substr(0, line.find("//")), kNow)) {
      out.push_back(
          {relative, n, "absl::Now()", "only base/ reads the system clock; take a Clock&"});
    }
  }
  return out;
}

std::vector<Violation> CheckTree(const std::filesystem::path& root) {
  std::vector<Violation> out;
  std::vector<std::filesystem::path> files;
  for (const char* top : {"base", "estimator", "kubeobjects", "cloudproviders", "autoscaler"}) {
    if (!std::filesystem::exists(root / top)) continue;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root / top)) {
      const std::string ext = entry.path().extension().string();
      if (entry.is_regular_file() && (ext == ".h" || ext == ".cc")) files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  for (const std::filesystem::path& f : files) {
    std::ifstream in(f);
    std::stringstream text;
    text << in.rdbuf();
    const std::string relative = std::filesystem::relative(f, root).generic_string();
    for (Violation& v : CheckFile(relative, text.str())) out.push_back(std::move(v));
  }
  return out;
}

}  // namespace gpua::layering
