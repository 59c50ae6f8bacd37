// grader leaderboard <lab> <submissions> -o <out>: submissions graded, then ranked by speed.
#include "command.hpp"
#include "leaderboard/leaderboard_run.hpp"
#include "slurm/slurm_check.hpp"

#include <memory>

namespace grader::cli {
namespace {

struct LeaderboardCommand {
  LeaderboardOptions board;
  std::uint64_t seed = 0;
  CLI::Option* seed_option = nullptr;
  double timeout = 0;
  bool no_sandbox = false;
  bool slurm = false;
  slurm::SlurmOptions slurm_options;
};

int run(const Paths& paths, LeaderboardCommand& o) {
  // Through Slurm, each job applies its own node's profile (main's batch, on the node).
  if (!o.slurm)
    o.board.batch.thresholds_note = apply_thresholds(paths, o.board.batch.lab, o.board.batch.overrides, false);
  if (*o.seed_option) o.board.batch.seed = o.seed;
  if (o.timeout > 0) o.board.batch.run_timeout_s = o.timeout;
  o.board.batch.out = o.board.out;
  o.board.batch.sandbox = !o.no_sandbox;
  return o.slurm ? slurm::run_leaderboard_slurm(paths, o.board, o.slurm_options) : run_leaderboard(paths, o.board);
}

}  // namespace

Command setup_leaderboard(CLI::App& app) {
  auto o = std::make_shared<LeaderboardCommand>();
  auto* lb = app.add_subcommand("leaderboard", "Rank a folder of submissions by speed (grades them first)");
  lb->add_option("lab", o->board.batch.lab, "The lab the submissions are for")->required();
  lb->add_option("submissions", o->board.batch.submissions, "Folder of submissions, named by student id")
      ->required()
      ->check(CLI::ExistingDirectory);
  lb->add_option("-o,--output", o->board.out, "Folder for the board (leaderboard.md/.csv/.json/.html) and the batch")
      ->required();
  lb->add_option("--exercise", o->board.exercise, "The exercise to time (default: [leaderboard] exercise in lab.toml)");
  lb->add_option("--db", o->board.db, "SQLite history of every run (default: <output>/leaderboard.sqlite)");
  lb->add_option("--rounds", o->board.rounds, "Rounds, each timing every entry in a fresh random order")
      ->capture_default_str()
      ->check(CLI::Range(1, 100));
  lb->add_option("--calls", o->board.calls, "Timed calls per entry and round (default: [leaderboard] calls)")
      ->check(CLI::Range(1, 10000));
  lb->add_option("--config", o->board.batch.overrides, "Override file(s) laid over lab.toml")->check(CLI::ExistingFile);
  o->seed_option = lb->add_option("--seed", o->seed, "Seed of the grading inputs (the timed inputs derive from it)");
  lb->add_option("-j,--jobs", o->board.batch.jobs, "Submissions built at once (default: CPU count)")
      ->check(CLI::Range(1, 4096));
  lb->add_option("--timeout", o->timeout, "Seconds per test run (default: lab.toml timeout_s)")->check(positive());
  lb->add_flag("--no-sandbox", o->no_sandbox, "Do not use bubblewrap or namespaces (process limits only)");
  lb->add_flag("--slurm", o->slurm,
               "Grade through a Slurm job array, then time the rounds in one job on one node held exclusively");
  add_slurm_options(lb, o->slurm_options, true);
  return {lb, [o](const Paths& paths) { return run(paths, *o); }};
}

}  // namespace grader::cli
