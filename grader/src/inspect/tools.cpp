#include "inspect/tools.hpp"

#include "grader/process.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <vector>

namespace grader::inspect {
namespace fs = std::filesystem;

namespace {

bool executable(const fs::path& p) { return !p.empty() && ::access(p.c_str(), X_OK) == 0 && !fs::is_directory(p); }

Tool find(const std::string& name, const char* variable, const std::string& what) {
  if (const char* set = std::getenv(variable); set && *set) {
    if (executable(set)) return {set, {}};
    return {{}, fmt::format("{}={} is not an executable program: point it at {}, or unset it", variable, set, name)};
  }
  if (const std::string found = find_in_path(name); !found.empty()) return {found, {}};
  std::vector<fs::path> places;
#ifdef WORKBOOK_CUDA_BIN_DIR
  places.emplace_back(fs::path(WORKBOOK_CUDA_BIN_DIR) / name);
#endif
  places.emplace_back(fs::path("/usr/local/cuda/bin") / name);
  for (const auto& p : places)
    if (executable(p)) return {p, {}};
  return {{},
          fmt::format("{} was not found (not on PATH, not in {}): it comes with the CUDA Toolkit ({}). "
                      "Install it, or set {} to its path",
                      name, places.front().parent_path().string(), what, variable)};
}

}  // namespace

Tool find_compute_sanitizer() {
  return find("compute-sanitizer", "WORKBOOK_COMPUTE_SANITIZER", "its bin/ folder, or the cuda-sanitizer package");
}

Tool find_ncu() {
  return find("ncu", "WORKBOOK_NCU", "Nsight Compute: its bin/ folder, or the nsight-compute package");
}

}  // namespace grader::inspect
