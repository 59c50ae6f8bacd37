#include "check/check.hpp"

#include "tree/build_tree.hpp"
#include "grader/test_program_env.hpp"
#include "grader/build_log.hpp"
#include "grader/file_lock.hpp"
#include "grader/isolation.hpp"
#include "grader/files.hpp"
#include "grader/include_check.hpp"
#include "grader/process.hpp"
#include "grader/report.hpp"
#include "grader/results.hpp"
#include "workbook/device_query.hpp"
#include "workbook/random.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <iostream>
#include <sstream>

namespace grader {
namespace fs = std::filesystem;

std::string device_line() {
  const auto d = workbook::query_device(0);
  return fmt::format("{} (sm_{}{}, {} SMs, {} MHz, CUDA driver {}.{})", d.name, d.cc_major, d.cc_minor,
                     d.multiprocessors, d.sm_clock_khz / 1000, d.driver_version / 1000, (d.driver_version % 1000) / 10);
}

// The pre-build check `grader batch` makes (grader/include_check.hpp), so that a student learns
// the rule here first: the editable files of the working copy (or of solutions/ with
// --reference) against the lab's headers and common/'s. Empty when nothing is refused.
std::string refused_includes(const Paths& paths, const LabConfig& config, const std::string& lab, bool reference) {
  const fs::path dir = reference ? paths.solution_dir(lab) : paths.lab_dir(lab);
  const auto allowed =
      lab_allowed_includes(paths.lab_dir(lab), config.files(), paths.source_root / "common" / "include");
  const auto violations = check_include_folder(dir, config.files(), allowed);
  if (violations.empty()) return {};
  std::string text = "rejected before building:";
  std::istringstream lines(format_violations(violations));
  for (std::string line; std::getline(lines, line);) text += "\n    " + line;
  return text;
}

std::optional<std::string> build_target(const Paths& paths, const std::string& target, const fs::path& log) {
  if (build_in_tree(paths, {target}, log)) return std::nullopt;
  return compiler_errors(read_file(log), paths.source_root) + "\n    (whole log: " + log.string() + ")";
}

namespace {

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// Shows progress while the tests run: on a terminal, one line rewritten in place.
class Progress {
public:
  Progress(fs::path results, bool enabled) : results_(std::move(results)), enabled_(enabled) {}
  void poll() {
    if (!enabled_) return;
    std::ifstream in(results_);
    in.seekg(offset_);
    std::string line;
    while (std::getline(in, line)) {
      if (in.eof()) break;  // a line still being written
      offset_ += static_cast<std::streamoff>(line.size() + 1);
      try {
        const auto r = case_from_json(nlohmann::json::parse(line));
        ++done_;
        if (!r.passed()) ++failed_;
        current_ = r.exercise + "/" + r.kind;
      } catch (const std::exception&) {
      }
    }
    std::cerr << fmt::format("\r\033[K  testing {:<24} {} cases done, {} failed", current_, done_, failed_)
              << std::flush;
  }
  void finish() {
    if (enabled_) std::cerr << "\r\033[K" << std::flush;
  }

private:
  fs::path results_;
  bool enabled_;
  std::streamoff offset_ = 0;
  int done_ = 0, failed_ = 0;
  std::string current_ = "...";
};

// Step 1 of a check, once nothing refused was found in the sources: the student's code built into
// the lab's test program (a compile error is the student's to fix: the compiler's own words, with
// file and line). The status to report when it stops the check; nullopt when the program is ready.
std::optional<RunStatus> build_program(const Paths& paths, const CheckOptions& o, const fs::path& program,
                                       const fs::path& run_dir) {
  if (o.build) {
    if (!o.json) std::cerr << "building " << o.lab << (o.reference ? " (reference solution)" : "") << " ...\n";
    if (const auto errors = build_target(paths, program.filename().string(), run_dir / "build.log"))
      return RunStatus{RunState::BuildFailed, *errors};
  }
  if (!fs::exists(program))
    return RunStatus{RunState::BuildFailed, "    " + program.string() +
                                                " does not exist: build it first (cmake --build " +
                                                paths.build_root.string() + ")"};
  return std::nullopt;
}

// How one run of the test program ended. Exit 0 or 1 (Catch2: some checks failed) is a completed
// run; 70 is the test program stopping after a CUDA fault; anything else is a crash.
RunStatus how_it_ended(const ProcessResult& outcome, const fs::path& log, double timeout_s) {
  if (outcome.timed_out)
    return RunStatus{RunState::TimedOut, fmt::format("no result after {:.0f} s (lab.toml timeout_s): a kernel "
                                                     "that never ends? Log: {}",
                                                     timeout_s, log.string())};
  if (outcome.failed_to_start) return RunStatus{RunState::Crashed, outcome.describe()};
  if (outcome.signal != 0 || (outcome.exit_code != 0 && outcome.exit_code != 1)) {
    const std::string why_code =
        outcome.exit_code == 70 ? "stopped after a CUDA error in your code" : outcome.describe();
    return RunStatus{RunState::Crashed, why_code + ". Last lines of " + log.string() + ":\n" + tail_of_file(log, 1500)};
  }
  return RunStatus{};
}

// The lab's test program in a child process, once per call, each run into a log of its own: a
// crash or a hang ends the child, not the grader. The `run_once` of run_isolated (isolation.hpp).
class TestProgramRuns {
public:
  TestProgramRuns(const Paths& paths, const CheckOptions& o, const LabConfig& config, std::uint64_t seed,
                  fs::path program, fs::path results, fs::path run_dir, Progress& progress)
      : o_(o),
        program_(std::move(program)),
        run_dir_(std::move(run_dir)),
        timeout_s_(config.timeout_s()),
        progress_(progress) {
    env_.seed = seed;
    env_.results = std::move(results);
    env_.config = paths.lab_dir(o.lab) / "lab.toml";
    env_.source_dir = o.reference ? paths.solution_dir(o.lab) : paths.lab_dir(o.lab);
    env_.overrides = override_list(o.overrides);
    env_.phase_timeout_s = timeout_s_;
  }

  RunStatus operator()(const std::string& filter) {
    const fs::path log = run_dir_ / (attempt_++ ? "test-" + std::to_string(attempt_) + ".log" : "test.log");
    ProcessOptions run;
    run.argv = {program_.string()};
    if (!filter.empty()) run.argv.push_back(filter);
    TestProgramEnv env = env_;
    env.untimed = untimed_spec(filter);
    run.set_env = test_program_env(env);
    run.output_file = log;
    run.timeout_s = timeout_s_;
    run.on_poll = [this] { progress_.poll(); };
    const auto outcome = run_process(run);
    if (o_.verbose && !o_.json) std::cerr << read_file(log);
    return how_it_ended(outcome, log, timeout_s_);
  }

private:
  const CheckOptions& o_;
  fs::path program_, run_dir_;
  double timeout_s_;
  Progress& progress_;
  TestProgramEnv env_;
  int attempt_ = 0;
};

// A whole run as batch makes it: the untimed cases first, then only the timed cases of the
// exercises whose results were right (a wrong result's time earns nothing: the report says
// "not graded"), so a starter's check does not time wrong kernels for their whole budget.
// Isolated (isolation.hpp): when the test program ends abnormally, the exercises it had not
// reached run again in a fresh process; one exercise's crash costs no other's points.
RunStatus run_tests(const std::string& filter, const LabConfig& config, const fs::path& results,
                    TestProgramRuns& runs) {
  const auto run_once = [&runs](const std::string& f) { return runs(f); };
  if (!filter.empty()) return run_isolated(filter, results, run_once).status;
  RunStatus status = run_isolated(kUntimedCases, results, run_once).status;
  const auto exercises = exercises_to_time(config, read_results(results));
  if (status.state == RunState::Completed && !exercises.empty())
    status = run_isolated(timed_filter(exercises), results, run_once).status;
  return status;
}

}  // namespace

int run_check(const Paths& paths, const CheckOptions& o) {
  const LabConfig config = load_lab(paths, o.lab, o.overrides);  // throws for an unknown lab
  if (o.reference && !paths.has_reference(o.lab)) {
    std::cerr << no_reference_message(o.lab) << '\n';
    return 64;  // a usage error: there is nothing to check
  }
  const std::uint64_t seed = o.seed.value_or(workbook::fresh_seed());
  const fs::path run_dir = paths.run_dir(o.lab);
  fs::create_directories(run_dir);
  // One check of a lab at a time per build folder: two at once would build into the same test
  // program and append to the same results file (each report then mixing in the other's cases),
  // and time their kernels on a shared GPU. A second one waits its turn, saying so.
  const auto wait_started = std::chrono::steady_clock::now();
  const FileLock lock = lock_lab_runs(run_dir, "grader check " + o.lab);
  const double wait_s = seconds_since(wait_started);
  const fs::path program = paths.test_program(o.lab, o.reference);

  const auto finish = [&](const LabReport& report) {
    if (o.json) {
      std::cout << to_json(report).dump(2) << std::endl;
    } else {
      std::cout << render_text(report, o.color);
    }
    return exit_status(report);
  };
  const auto no_run = [&](const RunStatus& status) { return finish(build_report(config, {}, status, seed, "")); };

  // 0. Nothing that could make the compiler read another file is built (exit 2, as a build error).
  if (const std::string refused = refused_includes(paths, config, o.lab, o.reference); !refused.empty())
    return no_run({RunState::NotGraded, refused});
  const auto build_started = std::chrono::steady_clock::now();
  if (const auto stopped = build_program(paths, o, program, run_dir)) return no_run(*stopped);
  const double build_s = o.build ? seconds_since(build_started) : 0.0;
  std::string why;
  if (workbook::device_count(&why) == 0) return no_run({RunState::NoGpu, "no CUDA GPU is usable here: " + why});
  const std::string device = device_line();

  const fs::path results = run_dir / "results.jsonl";
  fs::remove(results);
  Progress progress(results, ::isatty(STDERR_FILENO) && !o.json);
  if (!o.json) std::cerr << "testing " << o.lab << " on " << device << " (seed " << seed << ") ...\n";
  TestProgramRuns runs(paths, o, config, seed, program, results, run_dir, progress);
  const auto tests_started = std::chrono::steady_clock::now();
  const RunStatus status = run_tests(o.filter, config, results, runs);
  progress.finish();
  LabReport report =
      build_report(config, read_results(results), status, seed, device, read_plans(results), !o.filter.empty());
  report.filter = o.filter;
  report.thresholds = o.thresholds_note;
  report.time = sum_case_times(read_results(results), build_s, seconds_since(tests_started));
  report.time->wait_s = wait_s;
  return finish(report);
}

}  // namespace grader
