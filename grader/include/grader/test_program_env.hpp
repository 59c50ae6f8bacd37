// The environment a lab's test program reads (grader/kit/src/grading.cpp and test_main.cpp,
// grader/src/core/baseline_cache.cpp and lab_config.cpp), written in one place: every command
// that runs a test program (check, batch, leaderboard, calibrate, --sanitize, --profile) fills
// the fields it sets, and test_program_env() names them. A field left unset is no variable.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace grader {

struct TestProgramEnv {
  std::optional<std::uint64_t> seed;                // WORKBOOK_SEED: the run's seed
  std::optional<std::filesystem::path> config;      // WORKBOOK_CONFIG: the lab's lab.toml
  std::optional<std::filesystem::path> source_dir;  // WORKBOOK_SOURCE_DIR: the code under test's files
  std::optional<std::string> overrides;             // WORKBOOK_OVERRIDES: override files, ':'-separated
  std::optional<std::filesystem::path> results;     // WORKBOOK_RESULTS: the results file, by name
  std::optional<int> results_fd;                    // WORKBOOK_RESULTS_FD: ... or an inherited descriptor
  std::optional<int> gate_fd;                       // WORKBOOK_GATE_FD: the GPU gate to wait at (grader/gpu_gate.hpp)
  std::optional<std::filesystem::path> cache_dir;   // WORKBOOK_CACHE_DIR: the baseline cache's folder
  std::optional<double> phase_timeout_s;            // WORKBOOK_PHASE_TIMEOUT_S: bounds a call's timeout
  std::optional<std::filesystem::path> runner;      // WORKBOOK_RUNNER: the runner of a submission's code
  std::optional<std::uint64_t> runner_file_bytes;   // WORKBOOK_RUNNER_FILE_BYTES: the runner's file cap
  bool lab_alone = false;                           // WORKBOOK_LAB_ALONE=1: lab.toml without course.toml
  bool fewer_cases = false;                         // WORKBOOK_FEWER_CASES=1: racecheck's smaller set
  bool untimed = false;                             // WORKBOOK_UNTIMED=1: no timed case runs: no spinning
  std::optional<int> leaderboard_calls;             // WORKBOOK_LEADERBOARD_CALLS: timed calls per entry
  bool leaderboard_tiers = false;                   // WORKBOOK_LEADERBOARD_TIERS=1: time the tiers too
  std::optional<std::filesystem::path> leaderboard_out;  // WORKBOOK_LEADERBOARD_OUT: where entries go
  std::optional<int> leaderboard_out_fd;                 // WORKBOOK_LEADERBOARD_OUT_FD: ... or a descriptor
};

// The variables of the fields that are set.
std::map<std::string, std::string> test_program_env(const TestProgramEnv& env);

// WORKBOOK_OVERRIDES' value for these override files: their absolute paths, ':'-separated, in order.
std::string override_list(const std::vector<std::filesystem::path>& files);

}  // namespace grader
