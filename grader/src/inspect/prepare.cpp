// The steps `grader check --sanitize` and `--profile` take before a tool runs.
#include "inspect/inspect.hpp"

#include "check/check.hpp"
#include "workbook/device_query.hpp"

#include <iostream>

namespace grader::inspect {
namespace fs = std::filesystem;

std::optional<int> ready_to_run(const Paths& paths, const LabConfig& config, const InspectOptions& o,
                                const std::vector<fs::path>& programs, const fs::path& run_dir, std::string& device) {
  if (const std::string refused = refused_includes(paths, config, o.lab, o.reference); !refused.empty()) {
    std::cerr << refused << '\n';
    return 2;
  }
  for (const auto& program : programs) {
    if (o.build) {
      if (!o.json) std::cerr << "building " << program.filename().string() << " ...\n";
      if (const auto errors = build_target(paths, program.filename().string(), run_dir / "inspect-build.log")) {
        std::cerr << "does not compile:\n" << *errors << '\n';
        return 2;
      }
    }
    if (!fs::exists(program)) {
      std::cerr << program.string() << " does not exist: build it first (cmake --build " << paths.build_root.string()
                << " --target " << program.filename().string() << ")\n";
      return 2;
    }
  }
  std::string why;
  const bool gpu = workbook::device_count(&why) > 0;
  if (!gpu && !o.run_without_gpu) {
    std::cerr << "no CUDA GPU is usable here: " << why << '\n';
    return 4;
  }
  device = gpu ? device_line() : "none (--run-without-gpu: a test with stand-in tools)";
  return std::nullopt;
}

}  // namespace grader::inspect
