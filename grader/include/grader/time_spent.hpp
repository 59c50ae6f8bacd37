// Where a check's time went: the build, the test program as a whole, and inside its cases the
// grader's own phases (inputs, reference, check) against the submission's calls
// (workbook/phases.hpp, recorded with each case as "time_ms"). One line of the report, "time" in
// --json, and each student's entry in batch.json.
#pragma once

#include "grader/results.hpp"

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

namespace grader {

struct TimeSpent {
  double build_s = 0;  // building the test program (0 when nothing was built)
  double tests_s = 0;  // the test program(s), from start to end: cases, start-up, waiting
  double wait_s = 0;   // waiting for another check of the lab to finish (one at a time: the GPU is timed)
  // kind ("correctness", "performance", ...) -> {"case": s, "inputs": s, "reference": s, "call": s, "check": s}
  std::map<std::string, std::map<std::string, double>> kinds;
};

// Adds up the cases' "time_ms" by kind, in seconds.
TimeSpent sum_case_times(const std::vector<CaseResult>& cases, double build_s, double tests_s);

// "Time: 6.3 s: waiting 1.0 s, build 2.1 s, tests 4.2 s (correctness 1.9 s: inputs 0.1, reference
// 0.4, calls 1.2, checks 0.1; performance 2.0 s: ...)"; the wait only when there was one.
std::string describe(const TimeSpent& t);
nlohmann::json to_json(const TimeSpent& t);

}  // namespace grader
