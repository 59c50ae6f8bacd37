// The `grader` command line, one subcommand a file (grader/cli/<subcommand>.cpp), in the manner
// of CLI11's subcommands-in-files example: each file binds its options to a struct of its own and
// returns what to run once the command line is parsed. main.cpp only wires them.
#pragma once

#include "tree/labs.hpp"
#include "slurm/slurm_batch.hpp"

#include <CLI/CLI.hpp>

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace grader::cli {

inline constexpr int kUsageError = 64;

// What a parsed subcommand does: its exit status (main.cpp turns exceptions into statuses).
using Run = std::function<int(const Paths&)>;

struct Command {
  CLI::App* app;  // the subcommand, to ask whether it was parsed
  Run run;
};

// Each adds its subcommand to `app` and returns it with its run.
Command setup_list(CLI::App& app);
Command setup_device(CLI::App& app);
Command setup_check(CLI::App& app);
Command setup_batch(CLI::App& app);
Command setup_leaderboard(CLI::App& app);
Command setup_starters(CLI::App& app);
Command setup_release(CLI::App& app);
Command setup_calibrate(CLI::App& app);

// Shared by several subcommands (options.cpp):
// a number above 0 (a time, an amount of memory), with a message a student can read;
CLI::Validator positive();
// the options every --slurm path takes; `array`: also those of a job array's tasks;
void add_slurm_options(CLI::App* command, slurm::SlurmOptions& s, bool array);
// the thresholds of `lab` on this machine (thresholds.cpp): its profile's, laid first under
// `overrides`; returns where they come from, for the report.
std::string apply_thresholds(const Paths& paths, const std::string& lab, std::vector<std::filesystem::path>& overrides,
                             bool calibrate_if_missing);

}  // namespace grader::cli
