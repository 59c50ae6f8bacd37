// `grader batch --slurm`: a class graded as one Slurm job array (docs/instructor-guide.md,
// "Grading on a cluster"). The grader on the login node builds what the tasks need, splits the
// submissions that have no result yet into tasks of a few each, submits them with sbatch, shows
// progress from squeue, retries once a task that Slurm ended (node failure, preemption, time
// limit), and merges what the tasks wrote into one gradebook. Each array task is `grader batch`
// for its students (BatchOptions::task_students) on a GPU node, with today's sandboxed pipeline.
// Only Slurm's own commands are used: sbatch, squeue, sacct, scancel.
#pragma once

#include "batch/batch.hpp"
#include "tree/labs.hpp"

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace grader::slurm {

struct SlurmOptions {
  std::string partition;                 // -p; empty: the cluster's default
  std::string gres = "gpu:1";            // --gres; empty: none
  int max_parallel = 0;                  // tasks running at once (--array=...%N); 0: as Slurm allows
  int per_task = 4;                      // submissions graded by one task
  std::vector<std::string> sbatch_args;  // passed to sbatch as they are (--time=..., --account=...)
  double poll_s = 5;                     // seconds between squeue polls
};

int run_batch_slurm(const Paths& paths, const BatchOptions& batch, const SlurmOptions& slurm);

// The command an array task runs (sh, for sbatch --wrap): this grader's `batch` on the students
// of task $SLURM_ARRAY_TASK_ID of `tasks`, with `b`'s settings and the class's seed.
std::string task_command(const BatchOptions& b, const std::filesystem::path& tasks, std::uint64_t seed);
std::filesystem::path self_executable();

// The task side: "<tasks.json>:<index>" -> the students of that task (throws on a bad spec).
std::vector<std::string> task_students(const std::string& spec);

}  // namespace grader::slurm
