// `grader check <lab> --slurm` and `grader leaderboard --slurm` (docs/student-guide.md, "No GPU
// on your machine?"; docs/instructor-guide.md, "Grading on a cluster").
//
// check: a student on a login node without a GPU. The editable files of the working copy are
// copied as they are now into a one-submission class, graded by one Slurm job with the batch
// grader's sandboxed pipeline on a GPU node; the terminal shows the job queued, then running;
// the report and the exit status are those of a local check.
//
// leaderboard: the class graded through the job array (slurm_batch.hpp), then the timed rounds in
// one job on one node held exclusively (--exclusive): rounds spread over nodes would not compare.
#pragma once

#include "check/check.hpp"
#include "tree/labs.hpp"
#include "leaderboard/leaderboard_run.hpp"
#include "slurm/slurm_batch.hpp"

namespace grader::slurm {

int run_check_slurm(const Paths& paths, const CheckOptions& check, const SlurmOptions& slurm);
int run_leaderboard_slurm(const Paths& paths, const LeaderboardOptions& leaderboard, const SlurmOptions& slurm);

}  // namespace grader::slurm
