// The HTML report as a person sees it: `simulate --report` opened in headless Chromium (the
// Debian package), screenshotted and read back, with every setting's label on the page.
#include <png.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "autoscaler/cli/app.h"
#include "tests/support/run_command.h"

namespace gpua {
namespace {

namespace fs = std::filesystem;

constexpr char kGroups[] = R"(
nodeGroups:
- id: h100
  maxSize: 4
  pricePerHour: 98.32
  template:
    metadata: {labels: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3, nvidia.com/gpu.count: "8"}}
    spec: {taints: [{key: nvidia.com/gpu, value: present, effect: NoSchedule}]}
    status: {allocatable: {cpu: "190", memory: 1900Gi, pods: "110", nvidia.com/gpu: "8"}}
  simulation:
    provisioningDelay: {p50: 2m, p95: 4m}
    gpuReadyDelay: {p50: 1m, p95: 2m}
)";

std::string Trace() {
  std::string text;
  for (int i = 0; i < 12; ++i) {
    absl::StrAppend(&text, R"({"at": )", i * 1800, R"(, "name": "job-)", i,
                    R"(", "runFor": "20m", "pod": {"spec": {"tolerations": [{"operator": )",
                    R"("Exists"}], "containers": [{"name": "m", "resources": {"requests": )",
                    R"({"nvidia.com/gpu": "8"}}}]}}})", "\n");
  }
  return text;
}

std::string Chromium() {
  for (const char* path : {"/usr/bin/chromium", "/usr/bin/chromium-browser"}) {
    if (fs::exists(path)) return path;
  }
  return "";
}

std::string ReadAll(const fs::path& p) {
  std::ifstream in(p);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

struct Image {
  int width = 0, height = 0;
  std::vector<uint8_t> rgba;
};

Image ReadPng(const fs::path& path) {
  png_image png{};
  png.version = PNG_IMAGE_VERSION;
  Image out;
  if (!png_image_begin_read_from_file(&png, path.c_str())) return out;
  png.format = PNG_FORMAT_RGBA;
  out.rgba.resize(PNG_IMAGE_SIZE(png));
  if (!png_image_finish_read(&png, nullptr, out.rgba.data(), 0, nullptr)) return {};
  out.width = static_cast<int>(png.width);
  out.height = static_cast<int>(png.height);
  return out;
}

TEST_CASE("the report renders in Chromium: not blank, and every setting is on the page",
          "[report]") {
  const std::string chromium = Chromium();
  INFO(
      "headless Chromium is needed: install the Debian package chromium "
      "(scripts/install-deps.sh does)");
  REQUIRE_FALSE(chromium.empty());

  const fs::path dir = fs::temp_directory_path() / ("gpua-report-test-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "trace.jsonl") << Trace();
  std::ofstream(dir / "groups.yaml") << kGroups;
  const fs::path report = dir / "report.html";
  const std::vector<std::string> settings = {"0s", "5m", "30m", "1h"};
  std::ostringstream out, err;
  const int code =
      testing::RunCommand(RunApp,
                          {"simulate", "--trace", (dir / "trace.jsonl").string(), "--node-groups",
                           (dir / "groups.yaml").string(), "--sweep",
                           "scale-down-unneeded-time=0s,5m,30m,1h", "--report", report.string()},
                          out, err);
  INFO(err.str());
  REQUIRE(code == 0);

  // One Chromium for the picture, one for the page as it laid it out; each bounded in time.
  const fs::path shot = dir / "report.png";
  const std::string flags =
      absl::StrCat("--headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir=",
                   (dir / "profile").string(), " --window-size=1000,1400 ");
  const std::string url = absl::StrCat("file://", report.string());
  const std::string screenshot =
      absl::StrCat("timeout 90 ", chromium, " ", flags, "--screenshot=", shot.string(), " ", url,
                   " >", (dir / "log").string(), " 2>&1");
  REQUIRE(std::system(screenshot.c_str()) == 0);
  const std::string dump =
      absl::StrCat("timeout 90 ", chromium, " ", flags, "--dump-dom ", url, " >",
                   (dir / "dom.html").string(), " 2>>", (dir / "log").string());
  REQUIRE(std::system(dump.c_str()) == 0);

  const Image image = ReadPng(shot);
  REQUIRE(image.width == 1000);
  REQUIRE(image.height == 1400);
  int64_t inked = 0;
  std::set<uint32_t> colours;
  for (size_t i = 0; i + 3 < image.rgba.size(); i += 4) {
    const uint8_t r = image.rgba[i], g = image.rgba[i + 1], b = image.rgba[i + 2];
    if (r < 200 || g < 200 || b < 200) ++inked;
    colours.insert((uint32_t{r} << 16) | (uint32_t{g} << 8) | b);
  }
  const double share = static_cast<double>(inked) / (image.width * image.height);
  INFO("inked share " << share << ", colours " << colours.size());
  CHECK(share > 0.02);         // text, axes and points, not an empty page
  CHECK(colours.size() > 20);  // the settings' colours and anti-aliased text

  const std::string dom = ReadAll(dir / "dom.html");
  CHECK_THAT(dom, Catch::Contains("Cost against waiting"));
  for (const std::string& s : settings) {
    CHECK_THAT(dom, Catch::Contains(absl::StrCat("scale-down-unneeded-time=", s)));
  }
}

}  // namespace
}  // namespace gpua
