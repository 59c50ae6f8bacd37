// Options several subcommands share.
#include "command.hpp"

#include <cstdlib>

namespace grader::cli {

// CLI11's PositiveNumber names no reason a student can read in its message.
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

void add_slurm_options(CLI::App* command, slurm::SlurmOptions& s, bool array) {
  command->add_option("--partition", s.partition, "With --slurm: the partition (default: the cluster's)");
  command->add_option("--gres", s.gres, "With --slurm: each job's generic resources")->capture_default_str();
  command
      ->add_option("--sbatch-arg", s.sbatch_args,
                   "With --slurm: an option for sbatch, e.g. --sbatch-arg=--time=1:00:00")
      ->allow_extra_args(false);  // one value per --sbatch-arg, never the positionals after it
  if (const char* poll = std::getenv("WORKBOOK_SLURM_POLL_S"); poll && std::atof(poll) > 0) s.poll_s = std::atof(poll);
  if (!array) return;
  command->add_option("--max-parallel", s.max_parallel, "With --slurm: tasks running at once (0: no limit)")
      ->check(CLI::NonNegativeNumber);
  command->add_option("--per-task", s.per_task, "With --slurm: submissions graded by one task")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));
}

}  // namespace grader::cli
