// `grader check <lab>`: rebuild the student's code for one lab, run its tests, report.
#pragma once

#include "labs.hpp"

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
  bool verbose = false;    // show the test program's own output
  std::string thresholds_note;  // where the thresholds come from (calibrate/calibrate.hpp)
};

// Prints the report (text or JSON) and returns the exit status (see report.hpp).
int run_check(const Paths& paths, const CheckOptions& options);

}  // namespace grader
