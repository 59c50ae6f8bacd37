// grader batch <lab> <submissions> -o <out>: a class's submissions graded (instructors); with
// --slurm, as a Slurm job array; --slurm-task is one of its tasks.
#include "batch/batch.hpp"
#include "command.hpp"
#include "slurm/slurm_batch.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <memory>

namespace grader::cli {
namespace {

struct BatchCommand {
  BatchOptions batch;
  std::uint64_t seed = 0;
  CLI::Option* seed_option = nullptr;
  double run_timeout = 0, memory_gib = 16;
  bool no_sandbox = false;
  bool slurm = false;
  slurm::SlurmOptions slurm_options;
  std::string slurm_task;
};

// The submissions, where they come from, and the class around them.
void add_input_options(CLI::App* b, BatchCommand& o) {
  b->add_option("lab", o.batch.lab, "The lab the submissions are for")->required();
  b->add_option("submissions", o.batch.submissions, "Folder of submissions, named by student id")
      ->required()
      ->check(CLI::ExistingDirectory);
  b->add_option("-o,--output", o.batch.out, "Results folder (gradebook.csv, results.json, feedback/ ...)")->required();
  b->add_option("--config", o.batch.overrides, "Override file(s): the course's points and thresholds")
      ->check(CLI::ExistingFile);
  o.seed_option = b->add_option("--seed", o.seed, "Inputs for every submission (default: fresh, kept on resume)");
  b->add_option("--regrade", o.batch.regrade, "Grade these students again (ids; others are kept)")->delimiter(',');
  b->add_flag("--regrade-all", o.batch.regrade_all, "Grade every submission again");
  b->add_option("--roster", o.batch.roster,
                "CSV of the enrolled students (columns id, and optionally name, lms_id and extension, such as "
                "2d or 36h): every one gets a row")
      ->check(CLI::ExistingFile);
  b->add_option("--from", o.batch.from,
                "How the submissions folder is laid out: folders (one per student id), or a Canvas, "
                "Moodle or Gradescope download as it comes")
      ->capture_default_str()
      ->check(CLI::IsMember({"folders", "canvas", "moodle", "gradescope"}));
  b->add_option("--times", o.batch.times,
                "CSV of submission times (columns id, submitted_at) for the course config's [deadline]")
      ->check(CLI::ExistingFile);
  b->add_option("--lms-assignment", o.batch.lms_assignment,
                "The grade column's heading in canvas.csv and moodle.csv, as the LMS names the assignment "
                "(default: the lab)");
  b->add_flag("--feedback-profile", o.batch.feedback_profile,
              "Add Nsight Compute's view of each correct but slow exercise to its feedback, beside the "
              "reference's (needs ncu and counters the sandbox may read)");
  b->add_option("--feedback-profile-time", o.batch.feedback_profile_s,
                "With --feedback-profile: seconds of profiling at most per submission")
      ->capture_default_str()
      ->check(positive());
}

// How the machine is used: builds, GPUs, limits, the sandbox.
void add_machine_options(CLI::App* b, BatchCommand& o) {
  b->add_flag("--build-only", o.batch.build_only,
              "Build every submission and run nothing (works without a GPU; a later run grades them)");
  b->add_flag("--run-without-gpu", o.batch.run_without_gpu,
              "(testing) run the submissions where no GPU is usable; each reports 'no GPU'")
      ->group("");
  b->add_option("-j,--jobs", o.batch.jobs, "Submissions prepared and built at once (default: CPU count)")
      ->check(CLI::Range(1, 4096));
  b->add_option("--gpu-jobs", o.batch.gpu_jobs,
                "Correctness runs on each GPU at once (default: 16 over the node, 2 to 8 a GPU); timed runs are "
                "always alone")
      ->check(CLI::Range(1, 256));
  b->add_flag("--early-timed-start", o.batch.early_timed_start,
              "(testing) timed runs start their test programs at once and wait for the GPU once their CUDA "
              "context is made")
      ->group("");
  b->add_option("--gpus", o.batch.gpus, "The GPUs to grade on: all (default), or e.g. 0,2 or 0-3 ('grader devices')");
  b->add_option("--gpu-apps-command", o.batch.gpu_apps_command,
                "(testing) the command listing GPU processes as pid,MiB lines (default: nvidia-smi); none: off")
      ->group("");
  b->add_flag("--configure-each", o.batch.configure_each,
              "(testing) configure CMake for each submission instead of once for the batch")
      ->group("");
  b->add_option("--timeout", o.run_timeout, "Seconds per test phase (default: lab.toml timeout_s)")->check(positive());
  b->add_option("--build-timeout", o.batch.build_timeout_s, "Seconds per build")
      ->capture_default_str()
      ->check(positive());
  b->add_option("--memory-limit", o.memory_gib, "GiB of host memory a submission's run may hold")
      ->capture_default_str()
      ->check(positive());
  b->add_option("--max-processes", o.batch.max_processes, "Processes a submission's run may have")
      ->capture_default_str()
      ->check(CLI::Range(1, 1 << 20));
  b->add_flag("--no-sandbox", o.no_sandbox, "Do not use bubblewrap or namespaces (process limits only)");
  b->add_flag("--slurm", o.slurm, "Grade as a Slurm job array on the cluster's GPU nodes (sbatch), then merge");
  add_slurm_options(b, o.slurm_options, true);
  b->add_option("--slurm-task", o.slurm_task, "(internal) one array task: <tasks.json>:<index>")->group("");
}

int run(const Paths& paths, BatchCommand& o) {
  if (!o.slurm)  // through Slurm, each task applies its own node's profile
    o.batch.thresholds_note = apply_thresholds(paths, o.batch.lab, o.batch.overrides, false);
  if (*o.seed_option) o.batch.seed = o.seed;
  if (o.run_timeout > 0) o.batch.run_timeout_s = o.run_timeout;
  o.batch.memory_bytes = static_cast<std::size_t>(o.memory_gib * (1ull << 30));
  o.batch.sandbox = !o.no_sandbox;
  if (!o.slurm_task.empty()) {
    o.batch.task_students = slurm::task_students(o.slurm_task);
    const char* job = std::getenv("SLURM_ARRAY_JOB_ID");
    o.batch.task_name = fmt::format("{}_{}", job ? job : "task", o.slurm_task.substr(o.slurm_task.rfind(':') + 1));
  }
  return o.slurm ? slurm::run_batch_slurm(paths, o.batch, o.slurm_options) : run_batch(paths, o.batch);
}

}  // namespace

Command setup_batch(CLI::App& app) {
  auto o = std::make_shared<BatchCommand>();
  auto* batch = app.add_subcommand("batch", "Grade a folder of submissions (one folder, .zip or .tar.gz per student)");
  add_input_options(batch, *o);
  add_machine_options(batch, *o);
  return {batch, [o](const Paths& paths) { return run(paths, *o); }};
}

}  // namespace grader::cli
