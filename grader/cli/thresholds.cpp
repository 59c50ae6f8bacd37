// The thresholds a lab is graded with on this machine (calibrate/): its profile's, laid first
// under the instructor's override files (which win). `grader check` calibrates a lab its machine
// has not measured, once, saying so in one line; batch and leaderboard only apply what exists.
#include "calibrate/calibrate.hpp"
#include "command.hpp"

#include <fmt/format.h>

#include <chrono>
#include <iostream>

namespace grader::cli {

std::string apply_thresholds(const Paths& paths, const std::string& lab, std::vector<std::filesystem::path>& overrides,
                             bool calibrate_if_missing) try {
  auto applied = calibrate::apply_profile(paths, lab);
  if (!applied.measured && applied.derivable && calibrate_if_missing && !applied.note.empty()) {
    std::cerr << "no profile of " << lab << " on this machine yet: calibrating once (grader calibrate " << lab
              << ") ..." << std::flush;
    const auto t0 = std::chrono::steady_clock::now();
    calibrate::CalibrateOptions once;
    once.labs = {lab};
    once.quiet = true;
    const int status = calibrate::cmd_calibrate(paths, once);
    std::cerr << fmt::format(" {} in {:.0f} s\n", status == 0 ? "done" : "failed",
                             std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    applied = calibrate::apply_profile(paths, lab);
  }
  if (applied.override_file) overrides.insert(overrides.begin(), *applied.override_file);
  return applied.note;
} catch (const UnknownLab&) {
  throw;  // the command's own error
} catch (const std::exception& e) {
  // A machine profile that cannot be made or read never stops the grading: the shipped values.
  std::cerr << "warning: the thresholds stay as shipped: " << e.what() << '\n';
  return std::string("as shipped in lab.toml: ") + e.what();
}

}  // namespace grader::cli
