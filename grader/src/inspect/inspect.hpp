// `grader check <lab> --sanitize` and `grader check <lab> --profile`: why a kernel is wrong or
// slow, in NVIDIA's tools' measurements and in plain words.
//
// Both run inspect-<lab> (cmake/WorkbookLab.cmake): the lab's tests with the student's code
// linked into the same process, built with -lineinfo like every program here. It grades nothing
// (the verdict comes from `grader check`, whose runner keeps the student's code away from the
// results); it exists so that compute-sanitizer sees each buffer at its exact size and every
// kernel in one process, and so that Nsight Compute profiles the student's kernels alone.
#pragma once

#include "tree/labs.hpp"
#include "inspect/ncu_output.hpp"

#include "grader/lab_config.hpp"
#include "grader/process.hpp"

#include <cstdint>
#include <functional>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace grader::inspect {

struct InspectOptions {
  std::string lab;
  std::string filter;              // a Catch2 test spec; empty: see each mode
  std::string exercise;            // one exercise (instead of a filter)
  std::vector<std::string> tools;  // --sanitize: memcheck, racecheck, synccheck, initcheck
  std::optional<std::uint64_t> seed;
  std::vector<std::filesystem::path> overrides;
  bool reference = false;  // solutions/ instead of labs/
  bool build = true;
  bool json = false;
  double timeout_s = 0;  // per tool run; 0: the lab's timeout_s
  // --run-without-gpu (hidden, for the project's CPU tests with stand-in tools): skip the check
  // for a GPU, so that the whole flow runs around a tool that runs nothing.
  bool run_without_gpu = false;
  // --expected-ranges (with --profile --reference): also print lab.toml's [profile.expected]
  // tables from this GPU's profile of the reference (inspect/expected_ranges.hpp).
  bool expected_ranges = false;
};

// Exit status of both: 0 nothing found, 1 problems found (or slower than the reference), 2 does
// not compile, 3 a tool run did not finish, 4 no GPU, 5 the tool is missing or not permitted,
// 64 a usage error.
constexpr int kToolUnavailable = 5;

// The tools run when --tool names none: what a lab's kernels most often get wrong.
std::vector<std::string> default_sanitizer_tools();

int run_sanitize(const Paths& paths, const InspectOptions& options);
int run_profile(const Paths& paths, const InspectOptions& options);

// The inspect program of a lab (the student's, or the reference's with `reference`).
std::filesystem::path inspect_program(const Paths& paths, const std::string& lab, bool reference);

// What both modes do before a tool runs: refuse what `grader batch` would refuse in the
// editable files, build `programs` (unless --no-build), check they exist, check for a GPU
// (unless --run-without-gpu). Returns the exit status when one of those stops it, with the
// reason printed; else sets `device` to the GPU's line.
std::optional<int> ready_to_run(const Paths& paths, const LabConfig& config, const InspectOptions& options,
                                const std::vector<std::filesystem::path>& programs,
                                const std::filesystem::path& run_dir, std::string& device);

// An override of lab.toml's [timing] with one timed call per case: under the profiler each launch
// is replayed for its counters, so more calls cost minutes and tell nothing more.
constexpr const char* kOneCallPerCase =
    "# one timed call per case, for the profiler (grader/src/inspect/)\n[timing]\nwarmup = 0\nmin_runs = 1\n"
    "max_runs = 1\nbudget_s = 0.1\n";

// ---- Pieces of --profile that `grader batch --feedback-profile` shares ----------------------

// The metrics lab.toml's [profile.metrics] names for an exercise, the kernel's time first; empty
// when it names none. Throws ConfigError for a name the grader does not know.
std::vector<std::string> profile_metric_ids(const LabConfig& config, const std::string& exercise);

// The __global__ kernels the lab's files in `dir` define.
std::vector<std::string> kernels_of(const std::filesystem::path& dir, const std::vector<std::string>& files);

// One side of a profile: the first launch of each kernel, or why there is none.
struct Profiled {
  std::vector<KernelLaunch> launches;
  std::string failure;  // one line; empty when it worked
  double seconds = 0;
};

// Runs a command (ncu ...) with its output to `log`: directly, or in a sandbox.
using RunTool = std::function<ProcessResult(const std::vector<std::string>& argv, const std::filesystem::path& log)>;

// ncu on `program`'s cases `filter`, only the kernels named `kernels`, measuring what
// `metric_ids` need. A metric this ncu does not know is dropped from `metric_ids` (with every lab
// metric that needs it) and the run made again.
Profiled profile_kernels(const std::filesystem::path& ncu, const RunTool& run, const std::filesystem::path& program,
                         const std::vector<std::string>& kernels, const std::string& filter,
                         std::vector<std::string>& metric_ids, const std::filesystem::path& log);

// A metric's value as its format says ("4.0", "67%"), or "-" when not measured.
std::string metric_text(const LabMetric& m, const std::optional<double>& v);

// The comparison as Markdown, for a student's feedback file: per kernel of `mine`, a table of the
// metrics beside the reference's, each with its reading.
std::string profile_markdown(const std::string& exercise, const std::vector<std::string>& ids, const Profiled& mine,
                             const Profiled* reference);

}  // namespace grader::inspect
