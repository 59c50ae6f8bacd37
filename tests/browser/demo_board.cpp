// leaderboard-demo-board OUT.html: a leaderboard with everything the page must show (two reference
// tiers, a tie, a flagged entry, an invalid one, a hostile student id), made the way
// `grader leaderboard` makes one: two runs stored in a history database (OUT.db, replaced), the
// board read back from it, rendered as HTML. check-board.sh opens the page in Chromium; what it
// counts (rows, tiers) is what this file stores: keep the two in step.
#include "grader/leaderboard.hpp"
#include "grader/leaderboard_db.hpp"

#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>

using namespace grader::leaderboard;

namespace {

EntryTiming entry(const char* id, const char* status, double median, double half_width, double cv, bool tier = false,
                  const char* reason = "") {
  EntryTiming t;
  t.entry = id;
  t.tier = tier;
  t.status = status;
  t.reason = reason;
  t.median_ms = median;
  t.low_ms = median - half_width;
  t.high_ms = median + half_width;
  t.cv = cv;
  t.samples = status[0] == 'i' ? 0 : 24;
  return t;
}

RunInfo run(const char* started_at) {
  RunInfo r;
  r.lab = "particle-storm";
  r.exercise = "storm";
  r.started_at = started_at;
  r.gpu_name = "NVIDIA H100 80GB HBM3";
  r.gpu_clock_mhz = 1980;
  r.driver = "580.65.06";
  r.host = "demo";
  r.method = "demo data, not a measurement";
  r.seed = 42;
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUT.html\n", argv[0]);
    return 64;
  }
  try {
    const std::filesystem::path html = argv[1];
    std::filesystem::path db_file = html;
    db_file.replace_extension(".db");
    std::filesystem::remove(db_file);
    HistoryDb db(db_file);
    // The first run: the best times of "bo" and "fay" come from it.
    db.add_run(run("2025-04-24T16:00:00Z"),
               {entry("bo", "valid", 12.1, 0.08, 0.004), entry("fay", "valid", 55.0, 0.6, 0.006),
                entry("gus", "invalid", 0, 0, 0, false, "wrong output: particle 17, energy 3.2e4, expected 3.1e4"),
                entry("Ref1", "valid", 24.9, 0.1, 0.003, true)});
    // The latest run: tiers, a tie (bo with chen), a flagged entry, invalid ones.
    db.add_run(run("2025-05-01T16:00:00Z"),
               {entry("Ref1", "valid", 24.5, 0.1, 0.003, true), entry("Ref2", "valid", 11.8, 0.05, 0.003, true),
                entry("amara", "valid", 9.7, 0.04, 0.003), entry("bo", "valid", 12.6, 0.1, 0.005),
                entry("chen", "valid", 12.2, 0.07, 0.004),
                entry("dima", "flagged", 18.4, 1.1, 0.031, false, "CV 3.1% after a re-run (target 1%)"),
                entry("eli", "valid", 31.0, 0.2, 0.004), entry("<img src=x onerror=alert(1)>", "valid", 26.0, 0.15, 0.005),
                entry("gus", "invalid", 0, 0, 0, false, "output cached from an earlier call"),
                entry("hana", "invalid", 0, 0, 0, false, "does not compile")});
    Board board = db.board("particle-storm", "storm");
    board.generated_at = "2025-05-01T16:20:00Z";  // not now: the screenshot in docs/ stays the same
    std::ofstream(html) << to_html(board);
    std::printf("wrote %s\n", html.c_str());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "leaderboard-demo-board: %s\n", e.what());
    return 1;
  }
}
