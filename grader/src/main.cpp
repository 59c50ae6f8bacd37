// grader: the CUDA Workbook's command line.
//
//   grader list                      the labs, their exercises and points
//   grader device                    what the GPU is (like the CUDA samples' deviceQuery)
//   grader check <lab>               rebuild your code for <lab>, test it, report
//   grader check <lab> --sanitize    why is it wrong: compute-sanitizer, problems at their lines
//   grader check <lab> --profile     why is it slow: Nsight Compute, beside the reference
//   grader batch <lab> <dir> -o <out> grade a folder of submissions (instructors)
//   grader leaderboard <lab> <dir> -o <out>   rank them by speed (contests)
//   grader starters [lab...] [--write]   the starters, generated from the marked solutions
//   grader release <dir>             the student workbook, without the solutions
//   grader calibrate [lab...]        measure this machine: the thresholds it grades with
//
// Exit status: 0 all passed; 1 some check failed; 2 the code does not compile; 3 the tests
// crashed or timed out; 4 no GPU; 64 a usage error (unknown lab, bad option).
#include "batch.hpp"
#include "calibrate/calibrate.hpp"
#include "check.hpp"
#include "inspect/inspect.hpp"
#include "labs.hpp"
#include "leaderboard_run.hpp"
#include "release/release.hpp"
#include "release/starters.hpp"
#include "slurm/slurm_batch.hpp"
#include "slurm/slurm_check.hpp"

#include "grader/lab_config.hpp"
#include "workbook/device_query.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <iostream>

namespace {

constexpr int kUsageError = 64;

// A number above 0 (a time, an amount of memory): CLI11's PositiveNumber names no reason a
// student can read in its message.
CLI::Validator positive() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        try {
          std::size_t used = 0;
          if (std::stod(text, &used) > 0 && used == text.size()) return {};
        } catch (const std::exception&) {
        }
        return "must be a number above 0, not " + text;
      },
      "> 0");
}

int cmd_list(const grader::Paths& paths, bool json) {
  struct Row {
    std::string name, title, points, exercises;
  };
  std::vector<Row> rows{{"LAB", "TITLE", "POINTS", "EXERCISES"}};
  nlohmann::json all = nlohmann::json::array();
  for (const auto& name : grader::available_labs(paths)) {  // in the course's order
    const auto config = grader::load_lab(paths, name);
    std::string exercises;
    nlohmann::json ex = nlohmann::json::array();
    for (const auto& e : config.exercises()) {
      exercises += (exercises.empty() ? "" : ", ") + e.name;
      ex.push_back({{"name", e.name}, {"title", e.title}, {"points", e.total_points()}});
    }
    all.push_back({{"name", name}, {"title", config.title()}, {"files", config.files()},
                   {"points", config.total_points()}, {"exercises", ex}});
    rows.push_back({name, config.title(), fmt::format("{:g}", config.total_points()), exercises});
  }
  if (json) {
    std::cout << all.dump(2) << std::endl;
    return 0;
  }
  std::size_t w_name = 0, w_title = 0, w_points = 0;
  for (const auto& r : rows) {
    w_name = std::max(w_name, r.name.size());
    w_title = std::max(w_title, r.title.size());
    w_points = std::max(w_points, r.points.size());
  }
  for (const auto& r : rows)
    std::cout << fmt::format("{:<{}}  {:<{}}  {:>{}}  {}\n", r.name, w_name, r.title, w_title, r.points, w_points,
                             r.exercises);
  return 0;
}

int cmd_device(bool json) {
  std::string why;
  const int count = workbook::device_count(&why);
  if (count == 0) {
    if (json) {
      std::cout << nlohmann::json{{"devices", nlohmann::json::array()}, {"error", why}}.dump(2) << std::endl;
    } else {
      std::cerr << "no CUDA GPU is usable here: " << why << '\n';
    }
    return 4;
  }
  nlohmann::json devices = nlohmann::json::array();
  for (const auto& d : workbook::query_all_devices()) {
    if (json) {
      devices.push_back({{"index", d.index}, {"name", d.name}, {"compute_capability", d.compute_capability()},
                         {"multiprocessors", d.multiprocessors}, {"sm_clock_mhz", d.sm_clock_khz / 1000},
                         {"memory_clock_mhz", d.memory_clock_khz / 1000}, {"memory_bus_bits", d.memory_bus_bits},
                         {"peak_bandwidth_gbs", d.peak_bandwidth_gbs()}, {"global_memory_bytes", d.global_memory_bytes},
                         {"l2_bytes", d.l2_bytes}, {"shared_per_block", d.shared_per_block},
                         {"shared_per_block_optin", d.shared_per_block_optin}, {"shared_per_sm", d.shared_per_sm},
                         {"driver_version", d.driver_version}, {"runtime_version", d.runtime_version}});
    } else {
      std::cout << workbook::format_device(d) << '\n';
    }
  }
  if (json) std::cout << nlohmann::json{{"devices", devices}}.dump(2) << std::endl;
  return 0;
}

// The thresholds of `lab` on this machine: its profile's, laid first under the instructor's
// override files (which win). `grader check` calibrates a lab its machine has not measured,
// once, saying so in one line; batch and leaderboard only apply what exists.
std::string apply_thresholds(const grader::Paths& paths, const std::string& lab,
                             std::vector<std::filesystem::path>& overrides, bool calibrate_if_missing) try {
  auto applied = grader::calibrate::apply_profile(paths, lab);
  if (!applied.measured && applied.derivable && calibrate_if_missing && !applied.note.empty()) {
    std::cerr << "no profile of " << lab << " on this machine yet: calibrating once (grader calibrate " << lab
              << ") ..." << std::flush;
    const auto t0 = std::chrono::steady_clock::now();
    grader::calibrate::CalibrateOptions once;
    once.labs = {lab};
    once.quiet = true;
    const int status = grader::calibrate::cmd_calibrate(paths, once);
    std::cerr << fmt::format(" {} in {:.0f} s\n", status == 0 ? "done" : "failed",
                             std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    applied = grader::calibrate::apply_profile(paths, lab);
  }
  if (applied.override_file) overrides.insert(overrides.begin(), *applied.override_file);
  return applied.note;
} catch (const grader::UnknownLab&) {
  throw;  // the command's own error
} catch (const std::exception& e) {
  // A machine profile that cannot be made or read never stops the grading: the shipped values.
  std::cerr << "warning: the thresholds stay as shipped: " << e.what() << '\n';
  return std::string("as shipped in lab.toml: ") + e.what();
}

// The options every --slurm path takes; `array`: also those of a job array's tasks.
void add_slurm_options(CLI::App* command, grader::slurm::SlurmOptions& s, bool array) {
  command->add_option("--partition", s.partition, "With --slurm: the partition (default: the cluster's)");
  command->add_option("--gres", s.gres, "With --slurm: each job's generic resources")->capture_default_str();
  command->add_option("--sbatch-arg", s.sbatch_args, "With --slurm: an option for sbatch, e.g. --sbatch-arg=--time=1:00:00")
      ->allow_extra_args(false);  // one value per --sbatch-arg, never the positionals after it
  if (const char* poll = std::getenv("WORKBOOK_SLURM_POLL_S"); poll && std::atof(poll) > 0) s.poll_s = std::atof(poll);
  if (!array) return;
  command->add_option("--max-parallel", s.max_parallel, "With --slurm: tasks running at once (0: no limit)")
      ->check(CLI::NonNegativeNumber);
  command->add_option("--per-task", s.per_task, "With --slurm: submissions graded by one task")
      ->capture_default_str()->check(CLI::Range(1, 100000));
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"CUDA Workbook grader: checks your lab kernels for correctness and speed"};
  app.require_subcommand(1);
  app.footer(
      "Exit status of check: 0 all passed, 1 some check failed, 2 does not compile, 3 crashed or timed\n"
      "out, 4 no GPU, 64 usage error. Of batch and leaderboard: 0 every submission graded (whatever\n"
      "their grades), 3 the grader could not go on, 4 no GPU (leaderboard), 64 usage error, 130\n"
      "interrupted (run it again to resume). Of calibrate: 0 done, 3 a lab could not be measured, 4 no GPU.\n"
      "Of check --sanitize and --profile: 0 nothing found, 1 problems found, 2 does not compile, 3 a tool\n"
      "run did not finish, 4 no GPU, 5 the tool is missing or not permitted.\n"
      "Docs: docs/student-guide.md, docs/instructor-guide.md");

  bool json = false;
  auto* list = app.add_subcommand("list", "List the labs, their exercises and points");
  list->add_flag("--json", json, "Machine-readable output");

  auto* device = app.add_subcommand("device", "Describe the GPU(s) of this machine");
  device->add_flag("--json", json, "Machine-readable output");

  grader::CheckOptions check_opts;
  std::uint64_t seed = 0;
  bool no_build = false, no_color = false;
  auto* check = app.add_subcommand("check", "Rebuild your code for a lab, test it and report");
  check->add_option("lab", check_opts.lab, "The lab to check (grader list shows them)")->required();
  auto* seed_opt = check->add_option("--seed", seed, "Reuse the inputs of an earlier run (its report prints the seed)");
  check->add_option("--config", check_opts.overrides, "Override file(s) laid over lab.toml (points, thresholds)")
      ->check(CLI::ExistingFile);
  check->add_option("--filter", check_opts.filter, "Only these tests, as a Catch2 test spec, e.g. \"[naive]\"");
  check->add_flag("--json", check_opts.json, "Print the report as JSON");
  check->add_flag("--reference", check_opts.reference, "Check the reference solution (solutions/) instead of labs/");
  check->add_flag("--no-build", no_build, "Do not rebuild first");
  check->add_flag("--no-color", no_color, "No colours in the report (also: NO_COLOR=1)");
  check->add_flag("-v,--verbose", check_opts.verbose, "Also show the test program's own output");
  bool check_slurm = false;
  grader::slurm::SlurmOptions check_slurm_opts;
  check->add_flag("--slurm", check_slurm, "No GPU here? Check in a Slurm job on a GPU node (sbatch), report here");
  add_slurm_options(check, check_slurm_opts, false);

  grader::BatchOptions batch_opts;
  double run_timeout = 0, memory_gib = 16;
  auto* batch = app.add_subcommand("batch", "Grade a folder of submissions (one folder, .zip or .tar.gz per student)");
  batch->add_option("lab", batch_opts.lab, "The lab the submissions are for")->required();
  batch->add_option("submissions", batch_opts.submissions, "Folder of submissions, named by student id")
      ->required()->check(CLI::ExistingDirectory);
  batch->add_option("-o,--output", batch_opts.out, "Results folder (gradebook.csv, results.json, feedback/ ...)")->required();
  batch->add_option("--config", batch_opts.overrides, "Override file(s): the course's points and thresholds")
      ->check(CLI::ExistingFile);
  auto* batch_seed = batch->add_option("--seed", seed, "Inputs for every submission (default: fresh, kept on resume)");
  batch->add_option("--regrade", batch_opts.regrade, "Grade these students again (ids; others are kept)")->delimiter(',');
  batch->add_flag("--regrade-all", batch_opts.regrade_all, "Grade every submission again");
  batch->add_flag("--feedback-profile", batch_opts.feedback_profile,
                  "Add Nsight Compute's view of each correct but slow exercise to its feedback, beside the "
                  "reference's (needs ncu and counters the sandbox may read)");
  batch->add_option("--feedback-profile-time", batch_opts.feedback_profile_s,
                    "With --feedback-profile: seconds of profiling at most per submission")
      ->capture_default_str()->check(positive());
  batch->add_option("--roster", batch_opts.roster,
                    "CSV of the enrolled students (columns id, and optionally name, lms_id and extension, such as "
                    "2d or 36h): every one gets a row")
      ->check(CLI::ExistingFile);
  batch->add_option("--from", batch_opts.from,
                    "How the submissions folder is laid out: folders (one per student id), or a Canvas, "
                    "Moodle or Gradescope download as it comes")
      ->capture_default_str()->check(CLI::IsMember({"folders", "canvas", "moodle", "gradescope"}));
  batch->add_option("--times", batch_opts.times,
                    "CSV of submission times (columns id, submitted_at) for the course config's [deadline]")
      ->check(CLI::ExistingFile);
  batch->add_option("--lms-assignment", batch_opts.lms_assignment,
                    "The grade column's heading in canvas.csv and moodle.csv, as the LMS names the assignment "
                    "(default: the lab)");
  batch->add_flag("--build-only", batch_opts.build_only,
                  "Build every submission and run nothing (works without a GPU; a later run grades them)");
  batch->add_flag("--run-without-gpu", batch_opts.run_without_gpu,
                  "(testing) run the submissions where no GPU is usable; each reports 'no GPU'")
      ->group("");
  batch->add_option("-j,--jobs", batch_opts.jobs, "Submissions prepared and built at once (default: CPU count)")
      ->check(CLI::Range(1, 4096));
  batch->add_option("--gpu-jobs", batch_opts.gpu_jobs, "Correctness runs on each GPU at once; timed runs are always alone")
      ->capture_default_str()->check(CLI::Range(1, 256));
  batch->add_option("--gpus", batch_opts.gpus, "The GPUs to grade on: all (default), or e.g. 0,2 or 0-3 ('grader devices')");
  batch->add_option("--gpu-apps-command", batch_opts.gpu_apps_command,
                    "(testing) the command listing GPU processes as pid,MiB lines (default: nvidia-smi); none: off")
      ->group("");
  batch->add_flag("--configure-each", batch_opts.configure_each,
                  "(testing) configure CMake for each submission instead of once for the batch")->group("");
  batch->add_option("--timeout", run_timeout, "Seconds per test phase (default: lab.toml timeout_s)")
      ->check(positive());
  batch->add_option("--build-timeout", batch_opts.build_timeout_s, "Seconds per build")->capture_default_str()
      ->check(positive());
  batch->add_option("--memory-limit", memory_gib, "GiB of host memory a submission's run may hold")->capture_default_str()
      ->check(positive());
  batch->add_option("--max-processes", batch_opts.max_processes, "Processes a submission's run may have")->capture_default_str()
      ->check(CLI::Range(1, 1 << 20));
  bool no_sandbox = false;
  batch->add_flag("--no-sandbox", no_sandbox, "Do not use bubblewrap or namespaces (process limits only)");
  bool batch_slurm = false;
  grader::slurm::SlurmOptions slurm_opts;
  std::string slurm_task;
  batch->add_flag("--slurm", batch_slurm, "Grade as a Slurm job array on the cluster's GPU nodes (sbatch), then merge");
  add_slurm_options(batch, slurm_opts, true);
  batch->add_option("--slurm-task", slurm_task, "(internal) one array task: <tasks.json>:<index>")->group("");

  grader::LeaderboardOptions lb_opts;
  double lb_timeout = 0;
  bool lb_no_sandbox = false;
  auto* lb = app.add_subcommand("leaderboard", "Rank a folder of submissions by speed (grades them first)");
  lb->add_option("lab", lb_opts.batch.lab, "The lab the submissions are for")->required();
  lb->add_option("submissions", lb_opts.batch.submissions, "Folder of submissions, named by student id")
      ->required()->check(CLI::ExistingDirectory);
  lb->add_option("-o,--output", lb_opts.out, "Folder for the board (leaderboard.md/.csv/.json/.html) and the batch")
      ->required();
  lb->add_option("--exercise", lb_opts.exercise, "The exercise to time (default: [leaderboard] exercise in lab.toml)");
  lb->add_option("--db", lb_opts.db, "SQLite history of every run (default: <output>/leaderboard.sqlite)");
  lb->add_option("--rounds", lb_opts.rounds, "Rounds, each timing every entry in a fresh random order")
      ->capture_default_str()->check(CLI::Range(1, 100));
  lb->add_option("--calls", lb_opts.calls, "Timed calls per entry and round (default: [leaderboard] calls)")
      ->check(CLI::Range(1, 10000));
  lb->add_option("--config", lb_opts.batch.overrides, "Override file(s) laid over lab.toml")->check(CLI::ExistingFile);
  auto* lb_seed = lb->add_option("--seed", seed, "Seed of the grading inputs (the timed inputs derive from it)");
  lb->add_option("-j,--jobs", lb_opts.batch.jobs, "Submissions built at once (default: CPU count)")
      ->check(CLI::Range(1, 4096));
  lb->add_option("--timeout", lb_timeout, "Seconds per test run (default: lab.toml timeout_s)")->check(positive());
  lb->add_flag("--no-sandbox", lb_no_sandbox, "Do not use bubblewrap or namespaces (process limits only)");
  bool lb_slurm = false;
  grader::slurm::SlurmOptions lb_slurm_opts;
  lb->add_flag("--slurm", lb_slurm, "Grade through a Slurm job array, then time the rounds in one job on one node held exclusively");
  add_slurm_options(lb, lb_slurm_opts, true);

  std::string check_exercise;
  bool check_leaderboard = false;
  grader::StartersOptions starters_opts;
  std::string starters_hints = "full";
  auto* starters = app.add_subcommand(
      "starters", "Check (or --write) that each lab's starters are what its marked solutions generate");
  starters->add_option("lab", starters_opts.labs, "Labs (default: every lab with solutions/<lab>/)");
  starters->add_flag("--write", starters_opts.write, "Write labs/<lab>/<file> from solutions/<lab>/<file>");
  starters->add_option("--hints", starters_hints, "How much of the TODO text: full, brief or none")
      ->check(CLI::IsMember({"full", "brief", "none"}))
      ->capture_default_str();

  grader::ReleaseOptions release_opts;
  std::string release_hints;
  auto* release = app.add_subcommand("release", "Write the student workbook (no solutions) into a new folder");
  release->add_option("dir", release_opts.out, "The folder to write (new, or empty)")->required();
  release->add_option("--config", release_opts.course, "The course's config: [hints] per lab, [labs.<lab>] overrides")
      ->check(CLI::ExistingFile);
  release->add_option("--hints", release_hints, "One hint level for every lab: full, brief or none")
      ->check(CLI::IsMember({"full", "brief", "none"}));
  release->add_flag("--git", release_opts.git, "Make the folder a git repository with one commit");

  grader::calibrate::CalibrateOptions calibrate_opts;
  std::string calibrate_output;
  bool calibrate_no_build = false;
  auto* calibrate = app.add_subcommand(
      "calibrate", "Measure this machine (GPU ceilings, sequential baselines, the reference solutions) and write "
                   "its profile: the thresholds check, batch and leaderboard grade with here");
  calibrate->add_option("lab", calibrate_opts.labs, "Labs (default: every lab)");
  calibrate->add_option("--output", calibrate_output,
                        "The profile's folder (default: <cache>/profiles/<machine>; grader/profiles/<name> to ship it)");
  calibrate->add_flag("--no-build", calibrate_no_build, "Do not rebuild the test programs first");
  calibrate->add_flag("--json", calibrate_opts.json, "Machine-readable output");
  calibrate->add_option("--show", calibrate_opts.show,
                        "Print the thresholds a profile gives (a name in grader/profiles/, or a folder), measuring nothing");

  check->add_flag("--leaderboard", check_leaderboard,
                  "Time your code the leaderboard's way and show where it would place between the reference tiers");
  check->add_option("--exercise", check_exercise,
                    "With --leaderboard: the exercise (default: the leaderboard's); with --sanitize or --profile: "
                    "only this exercise");
  bool check_sanitize = false, check_profile = false;
  std::vector<std::string> sanitize_tools;
  double inspect_timeout = 0;
  auto* sanitize_flag = check->add_flag(
      "--sanitize", check_sanitize,
      "Why is it wrong? Run the correctness cases under compute-sanitizer and show each problem at its line");
  check->add_option("--tool", sanitize_tools,
                    "With --sanitize: memcheck, racecheck, synccheck, initcheck (repeatable; default: the first three)")
      ->check(CLI::IsMember({"memcheck", "racecheck", "synccheck", "initcheck"}))
      ->needs(sanitize_flag);
  auto* profile_flag = check->add_flag(
      "--profile", check_profile,
      "Why is it slow? Profile your kernels at the graded size with Nsight Compute, beside the reference's");
  check->add_option("--tool-timeout", inspect_timeout, "With --sanitize or --profile: seconds per tool run "
                                                      "(default: lab.toml timeout_s)")
      ->check(positive());
  sanitize_flag->excludes(profile_flag);
  bool expected_ranges = false;
  check->add_flag("--expected-ranges", expected_ranges,
                  "With --profile --reference: also print lab.toml's [profile.expected] tables from this GPU's "
                  "profile (for a course whose GPU is not the labs' home)")
      ->needs(profile_flag);
  bool inspect_without_gpu = false;
  check->add_flag("--run-without-gpu", inspect_without_gpu,
                  "With --sanitize or --profile: skip the GPU check (the project's CPU tests, with stand-in tools)")
      ->group("");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kUsageError;
  }

  const grader::Paths paths = grader::default_paths();
  try {
    if (list->parsed()) return cmd_list(paths, json);
    if (release->parsed()) {
      if (!release_hints.empty()) release_opts.hints = grader::parse_hint_level(release_hints);
      return grader::cmd_release(paths, release_opts);
    }
    if (starters->parsed()) {
      starters_opts.hints = *grader::parse_hint_level(starters_hints);
      return grader::cmd_starters(paths, starters_opts);
    }
    if (device->parsed()) return cmd_device(json);
    if (calibrate->parsed()) {
      if (!calibrate_output.empty()) calibrate_opts.output = std::filesystem::absolute(calibrate_output);
      calibrate_opts.build = !calibrate_no_build;
      return grader::calibrate::cmd_calibrate(paths, calibrate_opts);
    }
    if (batch->parsed()) {
      if (!batch_slurm)  // through Slurm, each task applies its own node's profile
        batch_opts.thresholds_note = apply_thresholds(paths, batch_opts.lab, batch_opts.overrides, false);
      if (*batch_seed) batch_opts.seed = seed;
      if (run_timeout > 0) batch_opts.run_timeout_s = run_timeout;
      batch_opts.memory_bytes = static_cast<std::size_t>(memory_gib * (1ull << 30));
      batch_opts.sandbox = !no_sandbox;
      if (!slurm_task.empty()) {
        batch_opts.task_students = grader::slurm::task_students(slurm_task);
        const char* job = std::getenv("SLURM_ARRAY_JOB_ID");
        batch_opts.task_name = fmt::format("{}_{}", job ? job : "task", slurm_task.substr(slurm_task.rfind(':') + 1));
      }
      if (batch_slurm) {
        return grader::slurm::run_batch_slurm(paths, batch_opts, slurm_opts);
      }
      return grader::run_batch(paths, batch_opts);
    }
    if (lb->parsed()) {
      // Through Slurm, each job applies its own node's profile (main's batch, on the node).
      if (!lb_slurm)
        lb_opts.batch.thresholds_note = apply_thresholds(paths, lb_opts.batch.lab, lb_opts.batch.overrides, false);
      if (*lb_seed) lb_opts.batch.seed = seed;
      if (lb_timeout > 0) lb_opts.batch.run_timeout_s = lb_timeout;
      lb_opts.batch.out = lb_opts.out;
      lb_opts.batch.sandbox = !lb_no_sandbox;
      if (lb_slurm) {
        return grader::slurm::run_leaderboard_slurm(paths, lb_opts, lb_slurm_opts);
      }
      return grader::run_leaderboard(paths, lb_opts);
    }
    if (check->parsed() && check_leaderboard) {
      apply_thresholds(paths, check_opts.lab, check_opts.overrides, false);
      return grader::check_leaderboard(paths, check_opts.lab, check_exercise, check_opts.reference, check_opts.overrides,
                                       !no_build);
    }
    if (check->parsed() && (check_sanitize || check_profile)) {
      if (check_slurm || check_leaderboard) {
        std::cerr << "grader: --sanitize and --profile run here, on this machine's GPU (not with --slurm or --leaderboard)\n";
        return kUsageError;
      }
      grader::inspect::InspectOptions o;
      o.lab = check_opts.lab;
      o.filter = check_opts.filter;
      o.exercise = check_exercise;
      o.tools = sanitize_tools;
      if (*seed_opt) o.seed = seed;
      o.overrides = check_opts.overrides;
      o.reference = check_opts.reference;
      o.build = !no_build;
      o.json = check_opts.json;
      o.timeout_s = inspect_timeout;
      o.run_without_gpu = inspect_without_gpu;
      o.expected_ranges = expected_ranges;
      if (check_profile) apply_thresholds(paths, o.lab, o.overrides, false);
      return check_sanitize ? grader::inspect::run_sanitize(paths, o) : grader::inspect::run_profile(paths, o);
    }
    if (check->parsed()) {
      if (!check_slurm)
        check_opts.thresholds_note = apply_thresholds(paths, check_opts.lab, check_opts.overrides, !check_opts.json);
      if (*seed_opt) check_opts.seed = seed;
      check_opts.build = !no_build;
      check_opts.color = !no_color && !std::getenv("NO_COLOR") && ::isatty(STDOUT_FILENO);
      if (check_slurm) {
        return grader::slurm::run_check_slurm(paths, check_opts, check_slurm_opts);
      }
      return grader::run_check(paths, check_opts);
    }
  } catch (const grader::UnknownLab& e) {
    std::cerr << "grader: " << e.what() << '\n';
    return kUsageError;
  } catch (const grader::ConfigError& e) {
    std::cerr << "grader: configuration error: " << e.what() << '\n';
    return kUsageError;
  } catch (const std::invalid_argument& e) {
    std::cerr << "grader: " << e.what() << '\n';
    return kUsageError;
  } catch (const std::exception& e) {
    std::cerr << "grader: " << e.what() << '\n';
    return 3;
  }
  return kUsageError;
}
