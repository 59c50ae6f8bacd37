// The grading report: the cases a test run recorded, laid over the lab's exercises and points.
// The same report is rendered for people (render_text) and for scripts (to_json).
#pragma once

#include "grader/lab_config.hpp"
#include "grader/results.hpp"
#include "grader/time_spent.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace grader {

struct KindReport {
  std::string kind;  // "correctness", "static", "performance"
  double points_possible = 0;
  double points_earned = 0;
  int passed = 0;
  std::vector<CaseResult> cases;  // as recorded, plus a "not run" entry when none were
};

struct ExerciseReport {
  std::string name, title;
  std::vector<KindReport> kinds;  // in the order of lab.toml's points
  double points_possible = 0;
  double points_earned = 0;
  bool passed() const;
};

// How the test run as a whole went, beside the cases it recorded.
enum class RunState { Completed, BuildFailed, Crashed, TimedOut, NoGpu, NotGraded };
std::string to_string(RunState state);

struct RunStatus {
  RunState state = RunState::Completed;
  std::string detail;  // the compiler's first errors, how the process died ...
};

struct LabReport {
  std::string lab, title;
  std::uint64_t seed = 0;
  std::string device;      // "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs, 1980 MHz)"
  std::string thresholds;  // where the thresholds come from: "machine profile ..." (grader calibrate)
  RunStatus run;
  std::vector<ExerciseReport> exercises;
  double points_possible = 0;
  double points_earned = 0;
  std::string filter;             // the Catch2 test spec of a filtered run; empty for a whole run
  std::optional<TimeSpent> time;  // where the time went (grader check)
  bool passed() const;            // every case of every exercise passed and the run completed
};

// Points: each kind's points are shared equally by its cases, so a kernel that is right on
// 18 of 20 shapes earns 90% of the correctness points. A kind with no recorded case (the
// program crashed before it) earns nothing and is shown as not run, with the run's status.
// Performance earns points only when every correctness case of its exercise passed: otherwise
// its cases are replaced by one "not graded" case (a wrong kernel's time means nothing).
//
// `plans` (from the test program) give the number of cases each kind meant to run: cases
// planned but never recorded are added as not run. With `only_recorded` (a filtered run, e.g.
// --filter "[naive]"), kinds with no recorded case are left out of the report and its totals.
LabReport build_report(const LabConfig& config, const std::vector<CaseResult>& results, const RunStatus& run,
                       std::uint64_t seed, const std::string& device, const std::vector<Plan>& plans = {},
                       bool only_recorded = false);

// The exercises worth timing after a run of the untimed cases: those with performance points
// whose correctness cases all passed (or that have none). build_report gives no performance
// points to the others (a wrong result's time means nothing), so timing them would only hold the
// GPU for their whole budget.
std::vector<std::string> exercises_to_time(const LabConfig& config, const std::vector<CaseResult>& untimed);
std::string timed_filter(const std::vector<std::string>& exercises);

// The untimed cases of every exercise (correctness, static), as a Catch2 test spec. "~[.]" keeps
// out the hidden tests (the leaderboard's timing, the baselines for calibrate), which Catch2 v2
// runs for a spec of exclusions alone (v3 does not): 7 s of a coalescing starter's 8 s check
// were those, on the H100 with v2.
inline constexpr const char* kUntimedCases = "~[performance]~[.]";
// Whether a spec is the untimed phase's (kUntimedCases, perhaps with exercises left out after a
// crash): its test program may wait for the GPU asleep (TestProgramEnv::untimed).
inline bool untimed_spec(const std::string& spec) { return spec.rfind(kUntimedCases, 0) == 0; }

// Every case of the report, in order ("not run" ones included): what build_report was given,
// for scoring a saved report again.
std::vector<CaseResult> all_cases(const LabReport& report);

nlohmann::json to_json(const LabReport& report);
std::string render_text(const LabReport& report, bool color);

// Exit status of `grader check`, for scripts: 0 everything passed; 1 some case failed;
// 2 the submission did not build; 3 the test program crashed or timed out; 4 no GPU.
int exit_status(const LabReport& report);

}  // namespace grader
