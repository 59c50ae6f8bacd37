#include "slurm/slurm_check.hpp"

#include "slurm/jobs.hpp"

#include "grader/files.hpp"
#include "grader/gradebook.hpp"
#include "grader/process.hpp"
#include "grader/report.hpp"
#include "workbook/random.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <iostream>

namespace grader::slurm {
namespace fs = std::filesystem;

namespace {

// A folder name from the time: 2026-11-25T23-40-12Z.
std::string stamp() {
  std::string s = now_iso();
  std::replace(s.begin(), s.end(), ':', '-');
  return s;
}

std::vector<std::string> job_args(const SlurmOptions& s, const std::string& name, const fs::path& log) {
  std::vector<std::string> args = {"--job-name", name, "--array", "0", "--output", log.string()};
  if (!s.partition.empty()) args.insert(args.end(), {"--partition", s.partition});
  if (!s.gres.empty()) args.insert(args.end(), {"--gres", s.gres});
  args.insert(args.end(), s.sbatch_args.begin(), s.sbatch_args.end());
  return args;
}

std::string one_job_progress(const std::string& job, const std::map<std::string, int>& states) {
  if (states.count("PENDING")) return "job " + job + ": queued";
  if (states.count("RUNNING") || states.count("COMPLETING") || states.count("CONFIGURING"))
    return "job " + job + ": running";
  return "job " + job + ": " + (states.empty() ? "done" : states.begin()->first);
}

std::string ended(const std::string& job) {
  const auto states = final_states(job);
  return states.count(0) ? states.at(0) : "without a state Slurm still knows";
}

}  // namespace

int run_check_slurm(const Paths& paths, const CheckOptions& o, const SlurmOptions& s) {
  if (const std::string missing = sbatch_missing("grader check --slurm"); !missing.empty()) {
    std::cerr << missing << '\n';
    return 64;
  }
  const LabConfig config = load_lab(paths, o.lab, o.overrides);
  if (o.reference && !paths.has_reference(o.lab)) {
    std::cerr << no_reference_message(o.lab) << '\n';
    return 64;
  }
  // The files as they are now: the student may go on editing while the job waits.
  const fs::path dir = fs::absolute(paths.run_dir(o.lab) / "slurm" / stamp());
  const fs::path from = o.reference ? paths.solution_dir(o.lab) : paths.lab_dir(o.lab);
  const fs::path submission = dir / "submissions" / "working-copy";
  fs::create_directories(submission);
  for (const auto& file : config.files())
    if (fs::exists(from / file)) fs::copy_file(from / file, submission / file);
  if (!o.json) std::cerr << "building " << o.lab << "'s test programs for the job ...\n";
  if (!build_for_tasks(paths, o.lab, dir / "build.log")) {
    std::cerr << "grader check --slurm: the test programs do not build (see " << (dir / "build.log").string() << ")\n";
    return 3;
  }
  const fs::path tasks = dir / "tasks.json";
  write_atomically(tasks, R"([["working-copy"]])"
                          "\n");
  BatchOptions b;
  b.lab = o.lab;
  b.submissions = dir / "submissions";
  b.out = dir / "out";
  b.overrides = o.overrides;
  const std::uint64_t seed = o.seed.value_or(workbook::fresh_seed());
  auto args = job_args(s, "workbook-check-" + o.lab, dir / "job.log");
  args.insert(args.end(), {"--wrap", task_command(b, tasks, seed)});

  catch_interrupts();
  const auto job = submit("grader check --slurm", args, dir / "active.json");
  if (!job) return 64;
  if (!o.json)
    std::cerr << "submitted job " << *job << " ("
              << (s.partition.empty() ? "default partition" : "partition " + s.partition) << ")\n";
  if (!wait_for(*job, dir / "active.json", s.poll_s,
                [&](const std::map<std::string, int>& states) { return one_job_progress(*job, states); }))
    return 130;
  fs::remove(dir / "active.json");

  const fs::path result = b.out / "students" / "working-copy.json";
  if (!fs::exists(result)) {
    std::cerr << "grader check --slurm: job " << *job << " ended " << ended(*job) << " without a report. Its log, "
              << (dir / "job.log").string() << ", ends:\n"
              << tail_of_file(dir / "job.log", 1500) << '\n';
    return 3;
  }
  const StudentResult r = student_from_json(nlohmann::json::parse(read_file(result)));
  LabReport report = r.report;
  if (report.run.detail.empty() && !r.detail.empty()) report.run.detail = r.detail;  // a rejected or missing file
  if (o.json) {
    std::cout << to_json(report).dump(2) << std::endl;
  } else {
    std::cout << render_text(report, o.color);
  }
  return exit_status(report);
}

int run_leaderboard_slurm(const Paths& paths, const LeaderboardOptions& lb, const SlurmOptions& s) {
  if (const std::string missing = sbatch_missing("grader leaderboard --slurm"); !missing.empty()) {
    std::cerr << missing << '\n';
    return 64;
  }
  // 1. The class, graded through the job array, into the folder the leaderboard grades into.
  BatchOptions b = lb.batch;
  b.out = lb.out / "batch";
  std::cerr << "grading the submissions first, through Slurm (" << b.out.string() << ") ...\n";
  if (const int status = run_batch_slurm(paths, b, s); status != 0) return status;

  // 2. The timed rounds: one job, one node, held whole. Its own grading finds every result kept.
  const fs::path out = fs::absolute(lb.out);
  std::vector<std::string> cmd = {self_executable().string(),
                                  "leaderboard",
                                  lb.batch.lab,
                                  fs::absolute(lb.batch.submissions).string(),
                                  "-o",
                                  out.string(),
                                  "--rounds",
                                  std::to_string(lb.rounds)};
  if (!lb.exercise.empty()) cmd.insert(cmd.end(), {"--exercise", lb.exercise});
  if (lb.calls > 0) cmd.insert(cmd.end(), {"--calls", std::to_string(lb.calls)});
  if (!lb.db.empty()) cmd.insert(cmd.end(), {"--db", fs::absolute(lb.db).string()});
  for (const auto& c : lb.batch.overrides) cmd.insert(cmd.end(), {"--config", fs::absolute(c).string()});
  if (lb.batch.run_timeout_s) cmd.insert(cmd.end(), {"--timeout", fmt::format("{}", *lb.batch.run_timeout_s)});
  if (!lb.batch.sandbox) cmd.push_back("--no-sandbox");
  std::string line;
  for (const auto& a : cmd) line += quoted(a) + " ";
  auto args = job_args(s, "workbook-leaderboard-" + lb.batch.lab, out / "slurm-rounds.log");
  args.insert(args.end(), {"--exclusive", "--nodes", "1", "--wrap", line});
  catch_interrupts();
  const auto submitted = fs::file_time_type::clock::now();
  const auto job = submit("grader leaderboard --slurm", args, out / "slurm-rounds.json");
  if (!job) return 64;
  std::cerr << "submitted job " << *job << ": the timed rounds, on one node held exclusively\n";
  if (!wait_for(*job, out / "slurm-rounds.json", s.poll_s,
                [&](const std::map<std::string, int>& states) { return one_job_progress(*job, states); }))
    return 130;
  fs::remove(out / "slurm-rounds.json");
  std::cerr << tail_of_file(out / "slurm-rounds.log", 4000) << '\n';
  // Done when the job wrote the board (Slurm may no longer know how the job ended).
  std::error_code ec;
  const bool board = fs::exists(out / "leaderboard.md") && fs::last_write_time(out / "leaderboard.md", ec) >= submitted;
  if (!board) {
    const std::string state = ended(*job);
    std::cerr << "grader leaderboard --slurm: the timed rounds' job " << *job << " ended " << state
              << " without writing the board (its log: " << (out / "slurm-rounds.log").string() << ")\n";
    return 3;
  }
  return 0;
}

}  // namespace grader::slurm
