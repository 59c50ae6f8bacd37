// `grader check <lab> --profile`: the student's kernels at the graded size under Nsight Compute,
// the few metrics each exercise teaches (lab.toml's [profile.metrics]) beside the reference
// solution's, each with a one-line reading.
#include "inspect/inspect.hpp"
#include "inspect/expected_ranges.hpp"
#include "inspect/ncu_output.hpp"
#include "inspect/tools.hpp"

#include "check/check.hpp"
#include "grader/test_program_env.hpp"
#include "grader/file_lock.hpp"
#include "grader/files.hpp"
#include "grader/lab_config.hpp"
#include "grader/process.hpp"
#include "workbook/device_query.hpp"
#include "workbook/random.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <map>
#include <iostream>
#include <set>

namespace grader::inspect {
namespace fs = std::filesystem;

namespace {

// lab.toml: [profile.expected.<exercise>.<kernel>] <metric> = [low, high]: what the reference's
// kernel of that name measured, shown where solutions/ is not (a student's workbook). A kernel
// the table does not name (the student renamed it) takes the exercise's only kernel's, if it has
// one kernel; else it has no expected values.
std::optional<std::pair<double, double>> expected_of(const LabConfig& config, const std::string& exercise,
                                                     const std::string& kernel, const std::string& metric) {
  const auto* kernels = config.table().at_path("profile.expected." + exercise).as_table();
  if (!kernels) return std::nullopt;
  const toml::table* values = (*kernels)[kernel].as_table();
  if (!values && kernels->size() == 1) values = kernels->begin()->second.as_table();
  if (!values) return std::nullopt;
  const auto* range = (*values)[metric].as_array();
  if (!range || range->size() != 2) return std::nullopt;
  const auto lo = (*range)[0].value<double>(), hi = (*range)[1].value<double>();
  if (!lo || !hi) return std::nullopt;
  return std::pair{*lo, *hi};
}

// The exercises to profile, or the exit status of options that cannot be run (said on stderr).
std::optional<int> refused(const Paths& paths, const LabConfig& config, const InspectOptions& o,
                           std::vector<std::string>& exercises) {
  if (o.reference && !paths.has_reference(o.lab)) {
    std::cerr << no_reference_message(o.lab) << '\n';
    return 64;
  }
  if (o.expected_ranges && !o.reference) {
    std::cerr
        << "grader: --expected-ranges needs --reference: the ranges are the reference solution's values on this GPU\n";
    return 64;
  }
  for (const auto& e : config.exercises())
    if ((o.exercise.empty() || e.name == o.exercise) && !profile_metric_ids(config, e.name).empty())
      exercises.push_back(e.name);
  if (!o.exercise.empty() && exercises.empty()) {
    std::cerr << fmt::format(
        "grader: {} has no exercise '{}' with metrics to profile ([profile.metrics] in its "
        "lab.toml; grader list shows the exercises)\n",
        o.lab, o.exercise);
    return 64;
  }
  if (exercises.empty()) {
    std::cerr << "grader: " << o.lab << "'s lab.toml names no metrics to profile ([profile.metrics])\n";
    return 64;
  }
  if (!o.filter.empty()) {
    std::cerr << "grader: --profile runs each exercise's timed cases: choose one with --exercise, not --filter\n";
    return 64;
  }
  return std::nullopt;
}

// One kernel launch's rows as JSON.
nlohmann::json launch_json(const KernelLaunch& launch, const KernelLaunch* match, const std::vector<MetricRow>& rows) {
  nlohmann::json jk = {{"function", launch.function},
                       {"kernel", launch.kernel},
                       {"grid", launch.grid},
                       {"block", launch.block},
                       {"reference_kernel", match ? match->function : ""},
                       {"metrics", nlohmann::json::object()}};
  for (const auto& row : rows) {
    const LabMetric& m = lab_metrics().at(row.id);
    nlohmann::json jm = {{"label", m.label}, {"reading", m.reading}, {"look_here", row.look_here}};
    jm["yours"] = row.yours ? nlohmann::json(*row.yours) : nlohmann::json();
    jm["reference"] = row.reference ? nlohmann::json(*row.reference) : nlohmann::json();
    if (row.expected) jm["expected"] = {row.expected->first, row.expected->second};
    jk["metrics"][row.id] = jm;
  }
  return jk;
}

// One kernel launch's rows as text; `read`: the metrics whose reading an earlier row showed.
void print_launch(const KernelLaunch& launch, const KernelLaunch* match, const std::vector<MetricRow>& rows,
                  bool beside, std::set<std::string>& read) {
  std::cout << fmt::format(
      "  {} (grid {}, block {}){}\n", launch.function, launch.grid, launch.block,
      match && match->function != launch.function ? ", beside the reference's " + match->function : "");
  std::cout << fmt::format("  {:<40} {:>16}   {:>16}\n", "", "yours", beside ? "reference" : "expected");
  for (const auto& row : rows) {
    const LabMetric& m = lab_metrics().at(row.id);
    std::string theirs_text = row.reference ? metric_text(m, row.reference)
                              : row.expected
                                  ? metric_text(m, row.expected->first) + " to " + metric_text(m, row.expected->second)
                                  : "-";
    std::cout << fmt::format("    {:<38} {:>16}   {:>16}{}\n", m.label, metric_text(m, row.yours), theirs_text,
                             row.look_here ? "   <- look here" : "");
    if (row.id != "duration" && read.insert(row.id).second) std::cout << fmt::format("      {}\n", m.reading);
  }
}

// The last lines of the text report: how long, and what the comparison says.
void print_footer(double seconds, bool look, bool compared, bool beside) {
  std::cout << fmt::format("\nProfiled in {:.0f} s. {}\n", seconds,
                           look && beside ? "\"<- look here\": yours is at least 1.5x worse than the reference's there."
                           : look         ? "\"<- look here\": yours is at least 1.5x worse than the expected "
                                            "range's end there (the reference's values on the GPU lab.toml names)."
                           : compared && beside ? "No metric is far from the reference's."
                           : compared           ? "No metric is far from its expected range."
                                                : "Nothing to compare them with (no profile of the reference, and no "
                                                  "[profile.expected] range in lab.toml for your kernels' names): "
                                                  "read each value with its line.");
  std::cout << "How to read them: docs/student-guide.md, section 7, and the lab's handout.\n";
}

// --expected-ranges: the [profile.expected] tables this GPU's reference gives, to paste into lab.toml.
void print_expected_tables(const std::string& lab, const std::string& device, const std::string& tables) {
  std::cout << fmt::format(
      "\n# [profile.expected] of {}, measured on this GPU:\n#   {}\n"
      "# The reference's values / 1.2 to x 1.2, for the starter's kernels. Put them in place\n"
      "# of those tables in labs/{}/lab.toml before `grader release`; a student's --profile\n"
      "# then shows them beside each kernel.\n{}",
      lab, device, lab, tables);
}

// The test program's environment for --profile (each side adds its sources): one timed call a
// case (profile-timing.toml, after the run's override files), the results in the run's folder.
TestProgramEnv profile_env(const Paths& paths, const InspectOptions& o, std::uint64_t seed, const fs::path& run_dir,
                           double timeout) {
  const fs::path once = run_dir / "profile-timing.toml";
  std::ofstream(once) << kOneCallPerCase;
  std::string overrides = override_list(o.overrides);
  overrides += (overrides.empty() ? "" : ":") + once.string();
  TestProgramEnv env;
  env.seed = seed;
  env.results = run_dir / "profile-results.jsonl";
  env.config = paths.lab_dir(o.lab) / "lab.toml";
  env.overrides = overrides;
  env.phase_timeout_s = timeout;
  return env;
}

// One side of the profile: a test program, the sources it reads (WORKBOOK_SOURCE_DIR: the static
// checks, the messages) and the names of the kernels it defines.
struct Side {
  fs::path program;
  fs::path sources;
  std::vector<std::string> kernels;
};

// What the profiled exercises add up to: the exit status and the footer.
struct Totals {
  bool look = false;      // some metric is far from the reference's, or from its expected range
  bool failed = false;    // a side of yours could not be profiled
  bool compared = false;  // some metric had a reference's value or an expected range beside it
  double seconds = 0;
};

// Profiles exercise after exercise: yours, beside the reference's when there is one.
class ExerciseProfiler {
public:
  ExerciseProfiler(const LabConfig& config, const InspectOptions& o, fs::path ncu, TestProgramEnv env, double timeout,
                   fs::path run_dir, Side yours, std::optional<Side> reference,
                   std::vector<std::string> starter_kernels)
      : config_(config),
        o_(o),
        ncu_(std::move(ncu)),
        env_(std::move(env)),
        timeout_(timeout),
        run_dir_(std::move(run_dir)),
        yours_(std::move(yours)),
        reference_(std::move(reference)),
        starter_kernels_(std::move(starter_kernels)) {}

  // One exercise's timed cases under ncu: printed unless --json, added to the totals; its JSON.
  nlohmann::json profile(const std::string& exercise) {
    const std::string filter = "[" + exercise + "][performance]";
    std::vector<std::string> ids = profile_metric_ids(config_, exercise);
    const Profiled mine = run(yours_, filter, ids, "profile-" + exercise + ".csv");
    const Profiled theirs =
        reference_ ? run(*reference_, filter, ids, "profile-" + exercise + "-reference.csv") : Profiled{};
    totals_.seconds += mine.seconds + theirs.seconds;
    const ExerciseConfig* ex = config_.exercise(exercise);
    nlohmann::json jx = {{"exercise", exercise},
                         {"filter", filter},
                         {"failure", mine.failure},
                         {"reference_failure", theirs.failure},
                         {"kernels", nlohmann::json::array()}};
    if (!o_.json) std::cout << fmt::format("\n{}: {}   (ncu on \"{}\")\n", exercise, ex ? ex->title : "", filter);
    if (!mine.failure.empty()) {
      totals_.failed = true;
      if (!o_.json) std::cout << "  " << mine.failure << '\n';
    }
    std::set<std::string> read;  // metrics whose reading is shown: once an exercise, under its first row
    for (std::size_t k = 0; k < mine.launches.size(); ++k) {
      const KernelLaunch& launch = mine.launches[k];
      const KernelLaunch* match = matching_kernel(launch, k, theirs.launches);
      const auto rows = rows_of(exercise, ids, launch, match);
      jx["kernels"].push_back(launch_json(launch, match, rows));
      if (!o_.json) print_launch(launch, match, rows, reference_.has_value(), read);
    }
    if (!theirs.failure.empty() && !o_.json)
      std::cout << "  (the reference could not be profiled: " << theirs.failure << ")\n";
    return jx;
  }

  const Totals& totals() const { return totals_; }
  const ReferenceValues& expected_values() const { return expected_values_; }

private:
  Profiled run(const Side& side, const std::string& filter, std::vector<std::string>& ids, const std::string& csv) {
    TestProgramEnv env = env_;
    env.source_dir = side.sources;
    const RunTool tool = [&](const std::vector<std::string>& argv, const fs::path& log) {
      ProcessOptions p;
      p.argv = argv;
      p.set_env = test_program_env(env);
      p.timeout_s = timeout_;
      p.output_file = log;
      return run_process(p);
    };
    return profile_kernels(ncu_, tool, side.program, side.kernels, filter, ids, run_dir_ / csv);
  }

  // A launch's rows against the reference's matching launch, or else lab.toml's expected ranges;
  // for --expected-ranges, the values of the kernels a student's starter has are kept.
  std::vector<MetricRow> rows_of(const std::string& exercise, const std::vector<std::string>& ids,
                                 const KernelLaunch& launch, const KernelLaunch* match) {
    const auto rows = compare_launch(ids, launch, match, [&](const std::string& id) {
      return reference_ ? std::nullopt : expected_of(config_, exercise, launch.function, id);
    });
    const bool in_starter =
        std::find(starter_kernels_.begin(), starter_kernels_.end(), launch.function) != starter_kernels_.end();
    for (const auto& row : rows) {
      totals_.look = totals_.look || row.look_here;
      totals_.compared = totals_.compared || (row.id != "duration" && (row.reference || row.expected));
      if (in_starter && row.id != "duration" && row.yours)
        expected_values_[exercise][launch.function][row.id] = *row.yours;
    }
    return rows;
  }

  const LabConfig& config_;
  const InspectOptions& o_;
  fs::path ncu_;
  TestProgramEnv env_;
  double timeout_;
  fs::path run_dir_;
  Side yours_;
  std::optional<Side> reference_;
  std::vector<std::string> starter_kernels_;  // --expected-ranges: the starter's kernels' names
  ReferenceValues expected_values_;
  Totals totals_;
};

}  // namespace

int run_profile(const Paths& paths, const InspectOptions& o) {
  const LabConfig config = load_lab(paths, o.lab, o.overrides);
  std::vector<std::string> exercises;
  if (const auto stop = refused(paths, config, o, exercises)) return *stop;
  const Tool ncu = find_ncu();
  if (ncu.path.empty()) {
    std::cerr << "grader: " << ncu.missing << '\n';
    return kToolUnavailable;
  }
  const std::uint64_t seed = o.seed.value_or(workbook::fresh_seed());
  const fs::path run_dir = paths.run_dir(o.lab);
  fs::create_directories(run_dir);
  const FileLock lock = lock_lab_runs(run_dir, "grader check " + o.lab + " --profile");
  const bool beside = !o.reference && paths.has_reference(o.lab);
  const fs::path yours_program = inspect_program(paths, o.lab, o.reference);
  const fs::path reference_program = inspect_program(paths, o.lab, true);
  std::string device;
  if (const auto stop = ready_to_run(
          paths, config, o, beside ? std::vector{yours_program, reference_program} : std::vector{yours_program},
          run_dir, device))
    return *stop;
  const fs::path code_dir = o.reference ? paths.solution_dir(o.lab) : paths.lab_dir(o.lab);
  const Side yours{yours_program, code_dir, kernels_of(code_dir, config.files())};
  std::optional<Side> reference;
  if (beside)
    reference =
        Side{reference_program, paths.solution_dir(o.lab), kernels_of(paths.solution_dir(o.lab), config.files())};
  fs::remove(run_dir / "profile-results.jsonl");
  const double timeout = o.timeout_s > 0 ? o.timeout_s : config.timeout_s();
  // --expected-ranges: the reference's values of the kernels a student's starter has (a kernel
  // only the reference defines has no name a student's kernel could match).
  auto starter_kernels =
      o.expected_ranges ? kernels_of(paths.lab_dir(o.lab), config.files()) : std::vector<std::string>{};
  ExerciseProfiler profiler(config, o, ncu.path, profile_env(paths, o, seed, run_dir, timeout), timeout, run_dir, yours,
                            reference, std::move(starter_kernels));

  if (!o.json)
    std::cout << fmt::format("{}: Nsight Compute on {} at the graded size, {}seed {}\nGPU: {}\n", o.lab,
                             o.reference ? "the reference solution" : "your kernels",
                             beside ? "beside the reference solution's, " : "", seed, device);
  nlohmann::json report = {{"lab", o.lab}, {"seed", seed}, {"exercises", nlohmann::json::array()}};
  for (const auto& exercise : exercises) report["exercises"].push_back(profiler.profile(exercise));
  const Totals& totals = profiler.totals();
  report["seconds"] = totals.seconds;
  const std::string tables = o.expected_ranges ? expected_tables(profiler.expected_values()) : "";
  if (o.json) {
    if (o.expected_ranges) report["expected_ranges"] = tables;
    std::cout << report.dump(2) << std::endl;
  } else {
    print_footer(totals.seconds, totals.look, totals.compared, beside);
    if (o.expected_ranges) print_expected_tables(o.lab, device, tables);
  }
  if (totals.failed) return 3;
  return totals.look ? 1 : 0;
}

}  // namespace grader::inspect
