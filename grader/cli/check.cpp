// grader check <lab>: a student's working copy, built, tested and reported; with --leaderboard,
// --sanitize or --profile, the leaderboard's timing or a tool's view instead; with --slurm,
// through a Slurm job on a GPU node.
#include "check/check.hpp"
#include "command.hpp"
#include "inspect/inspect.hpp"
#include "leaderboard/leaderboard_run.hpp"
#include "slurm/slurm_check.hpp"

#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <memory>

namespace grader::cli {
namespace {

struct CheckCommand {
  CheckOptions check;
  std::uint64_t seed = 0;
  CLI::Option* seed_option = nullptr;
  bool no_build = false, no_color = false;
  bool slurm = false;
  slurm::SlurmOptions slurm_options;
  bool leaderboard = false;
  std::string exercise;
  bool sanitize = false, profile = false, expected_ranges = false, run_without_gpu = false;
  std::vector<std::string> tools;
  double tool_timeout = 0;
};

void add_check_options(CLI::App* c, CheckCommand& o) {
  c->add_option("lab", o.check.lab, "The lab to check (grader list shows them)")->required();
  o.seed_option = c->add_option("--seed", o.seed, "Reuse the inputs of an earlier run (its report prints the seed)");
  c->add_option("--config", o.check.overrides, "Override file(s) laid over lab.toml (points, thresholds)")
      ->check(CLI::ExistingFile);
  c->add_option("--filter", o.check.filter, "Only these tests, as a Catch2 test spec, e.g. \"[naive]\"");
  c->add_flag("--json", o.check.json, "Print the report as JSON");
  c->add_flag("--reference", o.check.reference, "Check the reference solution (solutions/) instead of labs/");
  c->add_flag("--no-build", o.no_build, "Do not rebuild first");
  c->add_flag("--no-color", o.no_color, "No colours in the report (also: NO_COLOR=1)");
  c->add_flag("-v,--verbose", o.check.verbose, "Also show the test program's own output");
  c->add_flag("--slurm", o.slurm, "No GPU here? Check in a Slurm job on a GPU node (sbatch), report here");
  add_slurm_options(c, o.slurm_options, false);
  c->add_flag("--leaderboard", o.leaderboard,
              "Time your code the leaderboard's way and show where it would place between the reference tiers");
  c->add_option("--exercise", o.exercise,
                "With --leaderboard: the exercise (default: the leaderboard's); with --sanitize or --profile: "
                "only this exercise");
}

void add_inspect_options(CLI::App* c, CheckCommand& o) {
  auto* sanitize = c->add_flag(
      "--sanitize", o.sanitize,
      "Why is it wrong? Run the correctness cases under compute-sanitizer and show each problem at its line");
  c->add_option("--tool", o.tools,
                "With --sanitize: memcheck, racecheck, synccheck, initcheck (repeatable; default: the first three)")
      ->check(CLI::IsMember({"memcheck", "racecheck", "synccheck", "initcheck"}))
      ->needs(sanitize);
  auto* profile = c->add_flag(
      "--profile", o.profile,
      "Why is it slow? Profile your kernels at the graded size with Nsight Compute, beside the reference's");
  c->add_option("--tool-timeout", o.tool_timeout,
                "With --sanitize or --profile: seconds per tool run (default: lab.toml timeout_s)")
      ->check(positive());
  sanitize->excludes(profile);
  c->add_flag("--expected-ranges", o.expected_ranges,
              "With --profile --reference: also print lab.toml's [profile.expected] tables from this GPU's "
              "profile (for a course whose GPU is not the labs' home)")
      ->needs(profile);
  c->add_flag("--run-without-gpu", o.run_without_gpu,
              "With --sanitize or --profile: skip the GPU check (the project's CPU tests, with stand-in tools)")
      ->group("");
}

int run_inspect(const Paths& paths, CheckCommand& o) {
  if (o.slurm || o.leaderboard) {
    std::cerr
        << "grader: --sanitize and --profile run here, on this machine's GPU (not with --slurm or --leaderboard)\n";
    return kUsageError;
  }
  inspect::InspectOptions i;
  i.lab = o.check.lab;
  i.filter = o.check.filter;
  i.exercise = o.exercise;
  i.tools = o.tools;
  if (*o.seed_option) i.seed = o.seed;
  i.overrides = o.check.overrides;
  i.reference = o.check.reference;
  i.build = !o.no_build;
  i.json = o.check.json;
  i.timeout_s = o.tool_timeout;
  i.run_without_gpu = o.run_without_gpu;
  i.expected_ranges = o.expected_ranges;
  if (o.profile) apply_thresholds(paths, i.lab, i.overrides, false);
  return o.sanitize ? inspect::run_sanitize(paths, i) : inspect::run_profile(paths, i);
}

int run(const Paths& paths, CheckCommand& o) {
  if (o.leaderboard && !o.sanitize && !o.profile) {
    apply_thresholds(paths, o.check.lab, o.check.overrides, false);
    return check_leaderboard(paths, o.check.lab, o.exercise, o.check.reference, o.check.overrides, !o.no_build);
  }
  if (o.sanitize || o.profile) return run_inspect(paths, o);
  if (!o.slurm) o.check.thresholds_note = apply_thresholds(paths, o.check.lab, o.check.overrides, !o.check.json);
  if (*o.seed_option) o.check.seed = o.seed;
  o.check.build = !o.no_build;
  o.check.color = !o.no_color && !std::getenv("NO_COLOR") && ::isatty(STDOUT_FILENO);
  return o.slurm ? slurm::run_check_slurm(paths, o.check, o.slurm_options) : run_check(paths, o.check);
}

}  // namespace

Command setup_check(CLI::App& app) {
  auto o = std::make_shared<CheckCommand>();
  auto* check = app.add_subcommand("check", "Rebuild your code for a lab, test it and report");
  add_check_options(check, *o);
  add_inspect_options(check, *o);
  return {check, [o](const Paths& paths) { return run(paths, *o); }};
}

}  // namespace grader::cli
