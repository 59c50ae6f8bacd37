// One exercise's crash costs no other exercise. A test program that ends abnormally (a fault
// that loses the CUDA context, a signal, a timeout) stops in the middle of one exercise; the
// exercises it had not reached yet run again in a fresh process, and the one in flight gets a
// case that says where and how the program ended. The labs whose code runs in a runner
// (grader/remote/) isolate every call already; this is what isolates the others (kmeans,
// particle-storm), and a second line of defence for all.
#pragma once

#include "grader/report.hpp"

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace grader {

// `filter` (a Catch2 test spec, "" for everything) without the tests of these exercises: each
// comma-separated term gets a "~[exercise]" for each. An empty filter stays without the hidden
// tests ("~[.]"), as Catch2 runs an empty spec.
std::string filter_excluding(const std::string& filter, const std::vector<std::string>& exercises);

// The exercise of the last complete line (a case or a plan) of a results file; "" if none.
std::string last_recorded_exercise(const std::filesystem::path& results);

struct IsolatedRun {
  RunStatus status;                   // Completed when the last attempt completed; else how it ended
  int restarts = 0;                   // fresh processes started after an abnormal end
  std::vector<std::string> ended_in;  // the exercise in flight at each abnormal end
};

// Runs `run_once(filter)` until it completes or makes no more progress; after an abnormal end,
// appends a crashed case for the exercise in flight to `results` and runs again without every
// exercise recorded so far. `run_once` returns how the test program ended.
IsolatedRun run_isolated(const std::string& filter, const std::filesystem::path& results,
                         const std::function<RunStatus(const std::string& filter)>& run_once);

}  // namespace grader
