// PodSpec helpers: shape names, file loading and name resolution. The YAML reader itself is in
// pod_spec_reader.cc.
#include "fabric/pod_spec.h"

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <sstream>
#include <system_error>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sim/file_read.h"
#include "sim/suggest.h"

namespace xpusim::fabric {
namespace {

std::vector<std::string> list_pods(const std::filesystem::path& config_dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(config_dir / "pods", ec)) {
    if (entry.is_regular_file(ec) && entry.path().extension() == ".yaml") {
      names.push_back(entry.path().stem().string());
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

std::string_view shape_name(Shape s) {
  switch (s) {
    case Shape::kRing:
      return "ring";
    case Shape::kMesh:
      return "mesh";
    case Shape::kTorus:
      return "torus";
    case Shape::kTpuV4:
      return "tpuv4";
    case Shape::kExplicit:
      return "explicit";
  }
  return "unknown";
}

ShapeRegistry topologies() {
  ShapeRegistry r("shape", "shapes");
  const auto add = [&](Shape s, std::string_view description) {
    sim::check_builtin(r.add({.name = std::string(shape_name(s)),
                              .description = std::string(description),
                              .make = s,
                              .order = static_cast<int>(s)}));
  };
  add(Shape::kRing, "dims [n]: n chips in a ring; wraps");
  add(Shape::kMesh, "dims of rank 1-3: a grid without wrap-around links");
  add(Shape::kTorus, "dims of rank 1-3: a grid, every dimension wraps");
  add(Shape::kTpuV4,
      "3-D torus of cube^3 cubes: PCB in a tray, electrical in a cube, optical between (TPU v4)");
  add(Shape::kExplicit, "dims [chips] and a links list of cables; routed by shortest path");
  return r;
}

Result<PodSpec> load_pod_file(const std::filesystem::path& path) {
  auto text = read_file_bounded(path, "pod file");
  if (!text) return text.errors();
  return load_pod_string(*text, path.string());
}

Result<std::filesystem::path> resolve_pod(std::string_view name_or_path,
                                          const std::filesystem::path& config_dir) {
  const bool is_path =
      name_or_path.find('/') != std::string_view::npos || name_or_path.ends_with(".yaml");
  const std::filesystem::path path =
      is_path ? std::filesystem::path(name_or_path)
              : config_dir / "pods" / (std::string(name_or_path) + ".yaml");
  std::error_code ec;
  if (std::filesystem::is_regular_file(path, ec)) return path;
  if (is_path) return Error{fmt::format("{}: no such pod file", path.string())};
  const std::vector<std::string> names = list_pods(config_dir);
  return Error{fmt::format(
      "unknown pod '{}'{}; available pods in {}: {}", name_or_path,
      sim::did_you_mean(name_or_path, names), (config_dir / "pods").string(),
      names.empty() ? std::string("(none)") : fmt::format("{}", fmt::join(names, ", ")))};
}

}  // namespace xpusim::fabric
