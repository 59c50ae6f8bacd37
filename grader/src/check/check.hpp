// `grader check <lab>`: rebuild the student's code for one lab, run its tests, report.
#pragma once

#include "tree/labs.hpp"

#include "grader/lab_config.hpp"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace grader {

struct CheckOptions {
  std::string lab;
  std::optional<std::uint64_t> seed;
  std::vector<std::filesystem::path> overrides;
  std::string filter;      // Catch2 test spec, e.g. "[naive]"; empty: everything
  bool reference = false;  // grade solutions/ instead of labs/
  bool build = true;       // run the build first
  bool json = false;
  bool color = false;
  bool verbose = false;         // show the test program's own output
  std::string thresholds_note;  // where the thresholds come from (calibrate/calibrate.hpp)
};

// Prints the report (text or JSON) and returns the exit status (see report.hpp).
int run_check(const Paths& paths, const CheckOptions& options);

// Shared with `check --sanitize` and `--profile` (inspect/):
// the GPU in one line: "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs, 1980 MHz, CUDA driver 13.0)";
std::string device_line();
// the includes `grader batch` would refuse in the editable files (empty when none);
std::string refused_includes(const Paths& paths, const LabConfig& config, const std::string& lab, bool reference);
// builds one target; on failure, the compiler's first errors with file and line, and the log's path.
std::optional<std::string> build_target(const Paths& paths, const std::string& target,
                                        const std::filesystem::path& log);

}  // namespace grader
