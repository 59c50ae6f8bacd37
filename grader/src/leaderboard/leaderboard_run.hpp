// `grader leaderboard <lab> <submissions> [--exercise X] -o <folder>`: rank a class by speed.
//
// 1. Grade the submissions as `grader batch` does (into <folder>/batch: builds, sandbox,
//    resume): only an exercise that is correct on every grading case can enter.
// 2. Refuse submissions that use a forbidden API (forbidden_api.hpp): a library doing the work,
//    threads, streams of their own.
// 3. Time every entry and the reference solution (the tiers) in interleaved rounds, each run in
//    the sandbox, alone on the GPU, through the lab's hidden [leaderboard] test: fresh inputs and
//    a checked output every call (workbook::time_contest). Round r uses seed + r for everyone.
// 4. Pool each entry's calls: median, a 95% interval of the median (overlapping intervals are
//    ties), CV. An entry whose CV stays above the target after two more rounds is flagged.
// 5. Store the run in the SQLite history (--db) and write the board from it: leaderboard.md,
//    .csv, .json and a self-contained leaderboard.html.
#pragma once

#include "batch/batch.hpp"
#include "tree/labs.hpp"

#include <filesystem>
#include <string>

namespace grader {

struct LeaderboardOptions {
  BatchOptions batch;  // lab, submissions, out (the batch goes to out/batch), limits
  std::filesystem::path out;
  std::string exercise;      // default: [leaderboard] exercise in lab.toml, else the last exercise
  std::filesystem::path db;  // default: out/leaderboard.sqlite
  int rounds = 5;
  int calls = 0;  // timed calls per entry and round; 0: [leaderboard] calls
};

int run_leaderboard(const Paths& paths, const LeaderboardOptions& options);

// `grader check <lab> --leaderboard`: the student's leaderboard time beside the reference tiers'.
int check_leaderboard(const Paths& paths, const std::string& lab, const std::string& exercise, bool reference,
                      const std::vector<std::filesystem::path>& overrides, bool build = true);

// The exercise a leaderboard times when none is named.
std::string default_leaderboard_exercise(const LabConfig& config);

}  // namespace grader
