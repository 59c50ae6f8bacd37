// `grader calibrate [lab...]`: measures this machine and writes its profile (profile.hpp); and
// what check, batch and leaderboard do with profiles: lay the thresholds derived for this machine
// under the instructor's own overrides (apply_profile).
#pragma once

#include "tree/labs.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace grader::calibrate {

struct CalibrateOptions {
  std::vector<std::string> labs;  // default: every lab
  bool build = true;              // build the test programs first
  bool json = false;
  std::optional<std::filesystem::path> output;  // the profile's folder (default: <cache>/profiles/<machine>)
  bool quiet = false;                           // one line per lab (check's calibration on first use)
  // --show: print the thresholds an existing profile gives (a name under grader/profiles/ or
  // <cache>/profiles/, or a folder), measuring nothing: no GPU needed.
  std::optional<std::string> show;
};

// Exit status: 0 calibrated (a lab whose measurement failed is named, and exits 3), 4 no GPU,
// 64 usage error.
int cmd_calibrate(const Paths& paths, const CalibrateOptions& options);

// The thresholds `lab` is graded with on this machine, as an override file to lay first (under
// the instructor's files and a course.toml, which win), and one line saying where they come
// from, for the reports. Without a profile (or a GPU) the file is absent and the line says so.
struct Applied {
  std::optional<std::filesystem::path> override_file;
  std::string note;
  bool measured = false;   // this machine has a profile that measured this lab
  bool derivable = false;  // the lab's home profile is in the workbook: a measurement here would count
};
// `device`: the GPU whose model's profile applies (grader batch grades a node of two models
// each with its own).
Applied apply_profile(const Paths& paths, const std::string& lab, int device = 0);

}  // namespace grader::calibrate
