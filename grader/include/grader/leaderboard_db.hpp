// The leaderboard's history: every run of `grader leaderboard`, kept in one SQLite file (--db),
// so that the board shows each student's best over a whole course, not only the last run.
//
// Two tables: `runs` (one row per run: lab, exercise, date, GPU, clock, driver, host, method,
// seed) and `results` (one row per entry of a run). The schema's version is the database's
// user_version; a file written by a newer grader, or a database that is not a leaderboard's, is
// refused rather than changed.
#pragma once

#include "grader/leaderboard.hpp"

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

struct sqlite3;

namespace grader::leaderboard {

class HistoryDb {
public:
  // Opens the file, creating it and the schema when absent. Throws std::runtime_error naming the
  // file and SQLite's message (e.g. "file is not a database" for a corrupt one).
  explicit HistoryDb(const std::filesystem::path& file);

  // Stores the run and every entry of it in one transaction (all or nothing); returns the run's id.
  // Throws on a status other than valid/flagged/invalid, a valid or flagged entry without a
  // finite median, or an entry named twice.
  std::int64_t add_run(const RunInfo& run, const std::vector<EntryTiming>& entries);

  // The board of a lab's exercise, over every run stored:
  //   - each student's best (lowest median) valid or flagged result, with that run's date and GPU;
  //   - the reference tiers from the most recent run that timed any;
  //   - students with no valid or flagged result in any run, with their latest reason (invalid);
  // ranked with rank_rows; generated_at is now.
  Board board(const std::string& lab, const std::string& exercise) const;

  // The runs of a lab's exercise, oldest first.
  std::vector<RunInfo> runs(const std::string& lab, const std::string& exercise) const;

  const std::filesystem::path& file() const { return file_; }

  struct Close {
    void operator()(sqlite3* db) const;
  };

private:
  std::filesystem::path file_;
  std::unique_ptr<sqlite3, Close> db_;
};

}  // namespace grader::leaderboard
