// Verdicts that several labs' tests reach alike, written once: a student's file read whole, the
// "declares a __shared__ array" static check, a measured value against its threshold, and the
// check of a leaderboard entry.
#pragma once

#include "grader/results.hpp"
#include "workbook/contest.hpp"

#include <functional>
#include <ostream>
#include <string>

namespace grading {

// The text of a student's file (source_file(name)); throws "cannot read <path>" where it cannot.
std::string source_text(const std::string& name);

// A static case: `kernel` in the student's `file`, with every function, macro and file-scope
// array it reaches (tiles declared in a __device__ helper, or as extern __shared__ at file scope,
// count: grader::kernel_code), declares a __shared__ array. Incorrect where the kernel is missing
// or declares none; `advice` ends that detail ("the tile belongs in shared memory").
void shared_memory_verdict(grader::CaseResult& r, const std::string& file, const std::string& kernel,
                           const std::string& advice);

// A measured value against its threshold: Incorrect with `wrong_detail` where `wrong`; else
// Passed at `value >= minimum`; else TooSlow, with the detail `too_slow` writes (to a stream that
// prints 3 significant digits).
void threshold_verdict(grader::CaseResult& r, bool wrong, const std::string& wrong_detail, double value, double minimum,
                       const std::function<void(std::ostream&)>& too_slow);

// Records the leaderboard entry of the code under test ("self": record_leaderboard) and makes its
// validity a Catch2 check, with the broken rule as its context.
void record_own_entry(const std::string& exercise, const workbook::ContestResult& result);

}  // namespace grading
