// Machine profiles (`grader calibrate`): what one machine measured, the GPU's ceilings and, per
// lab, the reference solution's value of each threshold's metric and the sequential baselines'
// times, keyed by the machine: GPU model, SM count, CUDA version and CPU model.
//
// A profile is a folder holding profile.toml. This machine's own profiles are written under the
// cache folder (<cache>/profiles/<name>/); the workbook ships others in grader/profiles/<name>/,
// among them each lab's *home*: the machine its lab.toml thresholds were set on ([calibration]
// home). Thresholds are never stored: they are derived from the measurements whenever a profile
// is applied (thresholds.hpp), so a lab.toml that changes later is followed.
#pragma once

#include "calibrate/thresholds.hpp"
#include "grader/lab_config.hpp"

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace grader::calibrate {

struct Machine {
  std::string gpu;                 // "NVIDIA H100 80GB HBM3"
  int sms = 0;                     // 132
  std::string compute_capability;  // "9.0"
  std::string cuda;                // the CUDA runtime the grader was built with: "13.0"
  std::string driver;              // the driver's CUDA version, for the record: "13.0"
  std::string cpu;                 // /proc/cpuinfo's model name
  // The same machine for grading: every field but the driver's version.
  bool same_as(const Machine& other) const;
  std::string name() const;      // a folder name: "nvidia-h100-80gb-hbm3-132sm-cuda13.0-<cpu>"
  std::string describe() const;  // one line for reports
};

// GPU `device` (a CUDA ordinal) and this CPU; throws workbook::CudaError without a GPU.
Machine this_machine(int device = 0);

struct Profile {
  std::string name;  // its folder's name
  std::filesystem::path dir;
  Machine machine;
  std::string calibrated;                   // ISO date and time
  Measurement peaks;                        // fp32_tflops, copy_gbs, h2d_gbs (reference and baselines empty)
  std::map<std::string, Measurement> labs;  // per lab: reference and baseline_ms
  // The lab's measurement with the machine's peaks filled in.
  Measurement of_lab(const std::string& lab) const;
};

std::optional<Profile> load_profile(const std::filesystem::path& dir);  // nullopt: no profile.toml
void save_profile(const Profile& profile);                              // to profile.dir/profile.toml
std::string profile_toml(const Profile& profile);

std::filesystem::path local_profiles_dir();                                            // <cache>/profiles
std::filesystem::path shipped_profiles_dir(const std::filesystem::path& source_root);  // grader/profiles

// This machine's profile: its own (calibrated here) first, else a shipped one of the same
// machine. nullopt when neither exists.
std::optional<Profile> find_profile(const Machine& machine, const std::filesystem::path& source_root);

}  // namespace grader::calibrate
