// Slurm's own commands, as the grader uses them: submit with sbatch, follow with squeue (and
// sacct), cancel with scancel. No scheduler, queue or daemon of our own.
#pragma once

#include "tree/labs.hpp"

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace grader::slurm {

struct Command {
  int status = -1;
  std::string out;  // stdout and stderr together, without trailing blank lines
};
Command run_command(const std::vector<std::string>& argv);

std::string quoted(const std::string& s);  // for sh: 'it'\''s'
std::string first_line(const std::string& text);

// "" when sbatch is in PATH, else the one line that says it is not.
std::string sbatch_missing(const std::string& command);

// What the tasks run is built before they start, once, here: builds in one tree from several
// nodes at once would collide. The lab's test program, and its reference's where there is one.
bool build_for_tasks(const Paths& paths, const std::string& lab, const std::filesystem::path& log);

// 0-3,7 (runs of consecutive indices), with %N when at most N may run at once.
std::string array_spec(const std::vector<int>& indices, int max_parallel);

// sbatch --parsable with these arguments; the job id, or nullopt after printing sbatch's
// refusal ("invalid partition specified: nosuch"). The id is kept in `active` (a JSON file)
// until the job is over, so that a second grader does not submit the same work.
std::optional<std::string> submit(const std::string& who, const std::vector<std::string>& args,
                                  const std::filesystem::path& active);

// Jobs (or array tasks) still known to squeue, by state ("PENDING", "RUNNING" ...); empty when
// the job has left the queue; nullopt when squeue itself failed.
std::optional<std::map<std::string, int>> queue_states(const std::string& job);

// How each array task ended (index -> "COMPLETED", "NODE_FAIL" ...): squeue keeps ended jobs
// for the cluster's MinJobAge, else sacct answers; empty where neither knows.
std::map<int, std::string> final_states(const std::string& job);

// Waits until `job` has left the queue, showing `progress(states)` (one line, rewritten on a
// terminal). On Ctrl-C it offers scancel (on a terminal) and returns false.
void catch_interrupts();
bool wait_for(const std::string& job, const std::filesystem::path& active, double poll_s,
              const std::function<std::string(const std::map<std::string, int>&)>& progress);

}  // namespace grader::slurm
