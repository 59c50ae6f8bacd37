// `cmake --build` of the grader's own build tree, one at a time.
//
// check, calibrate, leaderboard, batch (the reference's programs) and the Slurm submitter build
// their targets in the tree the grader belongs to. Two such builds at once (a student's
// `grader check` in two terminals, a calibration beside a check, the project's tests run in
// parallel) would run two Ninjas in one folder, which share .ninja_log and .ninja_deps and may
// write one object twice. So each build takes <build>/grader-build.lock first: a second waits,
// saying so on stderr, and then usually finds nothing left to do.
#pragma once

#include "tree/labs.hpp"

#include <atomic>
#include <filesystem>
#include <string>
#include <vector>

namespace grader {

// Builds the targets into the build tree, the whole output into `log`. True when it succeeded.
// `cancel`, when set, stops the build (as for any process, process.hpp).
bool build_in_tree(const Paths& paths, const std::vector<std::string>& targets, const std::filesystem::path& log,
                   const std::atomic<bool>* cancel = nullptr);

}  // namespace grader
