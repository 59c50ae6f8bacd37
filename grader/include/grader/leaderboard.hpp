// The leaderboard of `grader leaderboard`: what one run measured for each entry, the board made
// from every run so far (leaderboard_db.hpp keeps them), how its rows are ranked, and the board
// rendered as Markdown, CSV, JSON and one self-contained HTML page.
//
// Times are medians with an interval of about 95%: two entries whose intervals overlap cannot be
// told apart by that run, so they share a rank and are shown as tied rather than ordered by noise.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace grader::leaderboard {

// One entry's result in one leaderboard run.
struct EntryTiming {
  std::string entry;   // student id, or a reference tier name ("Ref1", "Ref2", "reference")
  bool tier = false;   // a reference tier from solutions/, shown as a highlighted row
  std::string status;  // "valid", "flagged" (valid, but its CV stayed above target after a re-run), "invalid"
  std::string reason;  // why invalid or flagged; empty when valid
  double median_ms = 0, low_ms = 0, high_ms = 0;  // median and its ~95% interval
  double cv = 0;
  int samples = 0;
};

// One leaderboard run: where and how the times were taken.
struct RunInfo {
  std::string lab, exercise;
  std::string started_at;  // ISO 8601, UTC
  std::string gpu_name, driver, host;
  std::string method;  // how it was timed, in words (kept with the run for the record)
  int gpu_clock_mhz = 0;
  std::uint64_t seed = 0;
};

// A row of the board: an entry's result, the run it comes from, and its place.
struct BoardRow {
  int rank = 0;       // 1 = fastest; tied rows share the rank of the first; 0 for tier rows
  bool tied = false;  // its interval overlaps a neighbour's: no order between them
  EntryTiming timing;
  std::string date;  // the run's started_at
  std::string gpu;   // the run's GPU name
  int gpu_clock_mhz = 0;
  std::int64_t run_id = 0;
};

struct Board {
  std::string lab, exercise, generated_at;
  std::vector<BoardRow> rows;     // valid and flagged results, ranked (rank_rows)
  std::vector<BoardRow> invalid;  // the latest invalid result of each entry with no valid one
};

// Sorts by median (then entry name) and ranks. A row whose interval [low, high] overlaps that of
// the group before it (the union of its rows' intervals) joins the group, every interval reaching
// at least 0.5% on each side of its median (medians less than 1% apart are one GPU's run-to-run
// variation, not an order): chains of overlaps form
// one group, and every row of a group of two or more is marked tied and shares the group's rank.
// Tier rows are placed and grouped like the others (a student tied with Ref1 is worth seeing)
// but take no rank (0) and do not count in the students' ranks: rank 3 is the third student.
// An interval not given (low and high 0) is the median alone.
void rank_rows(std::vector<BoardRow>& rows);

std::string to_markdown(const Board& board);
// Header: rank,tied,entry,tier,status,median_ms,low_ms,high_ms,cv,samples,date,gpu,gpu_clock_mhz,reason
// The ranked rows, then the invalid ones (empty rank).
std::string to_csv(const Board& board);
nlohmann::json to_json(const Board& board);
// One page with nothing to load: inline style, an SVG plot (id "plot") of each row's median and
// interval, the ranked table (id "board"), the invalid entries (id "invalid"). Every string from
// the board is escaped: student ids are untrusted.
std::string to_html(const Board& board);

}  // namespace grader::leaderboard
