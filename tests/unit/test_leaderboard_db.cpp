#include "grader/catch.hpp"
#include "grader/leaderboard_db.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

using namespace grader::leaderboard;
namespace fs = std::filesystem;

namespace {

// A fresh folder per test case, removed at the end.
struct TempDir {
  fs::path path;
  explicit TempDir(const std::string& name)
      : path(fs::temp_directory_path() / ("workbook-leaderboard-" + std::to_string(::getpid()) + "-" + name)) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

EntryTiming timing(const std::string& entry, const std::string& status, double median, bool tier = false,
                   const std::string& reason = "") {
  EntryTiming t;
  t.entry = entry;
  t.tier = tier;
  t.status = status;
  t.reason = reason;
  t.median_ms = median;
  t.low_ms = median * 0.99;
  t.high_ms = median * 1.01;
  t.cv = 0.005;
  t.samples = 12;
  return t;
}

RunInfo run_info(const std::string& started_at, const std::string& gpu, int clock) {
  RunInfo r;
  r.lab = "particle-storm";
  r.exercise = "storm";
  r.started_at = started_at;
  r.gpu_name = gpu;
  r.gpu_clock_mhz = clock;
  r.driver = "580.65";
  r.host = "gpu-node-1";
  r.method = "median of >= 10 calls, L2 flushed, rounds interleaved";
  r.seed = 0xFEDCBA9876543210ULL;  // above INT64_MAX: stored as its bit pattern
  return r;
}

const BoardRow* find(const std::vector<BoardRow>& rows, const std::string& entry) {
  for (const auto& r : rows)
    if (r.timing.entry == entry) return &r;
  return nullptr;
}

// Two runs: alice improves, bob gets worse, carol is invalid then valid, dave is never valid,
// the tiers change between the runs.
void two_runs(HistoryDb& db) {
  db.add_run(
      run_info("2025-05-01T10:00:00Z", "NVIDIA H100 80GB HBM3", 1980),
      {timing("alice", "valid", 3.0), timing("bob", "valid", 2.0), timing("carol", "invalid", 0, false, "wrong output"),
       timing("dave", "invalid", 0, false, "did not compile"), timing("Ref1", "valid", 2.5, true),
       timing("Ref2", "valid", 1.5, true)});
  db.add_run(
      run_info("2025-05-08T10:00:00Z", "NVIDIA H200", 1755),
      {timing("alice", "valid", 1.0), timing("bob", "flagged", 4.0, false, "CV 2.5% after a re-run"),
       timing("carol", "flagged", 5.0, false, "CV 1.8% after a re-run"),
       timing("dave", "invalid", 0, false, "work launched on another stream"), timing("Ref1", "valid", 2.4, true)});
}

}  // namespace

TEST_CASE("HistoryDb: the board keeps each student's best, with its run's date and GPU", "[leaderboard]") {
  TempDir dir("best");
  HistoryDb db(dir.path / "history.db");
  two_runs(db);
  const Board b = db.board("particle-storm", "storm");
  CHECK(b.lab == "particle-storm");
  CHECK(b.exercise == "storm");
  CHECK_FALSE(b.generated_at.empty());

  const BoardRow* alice = find(b.rows, "alice");
  REQUIRE(alice);
  CHECK(alice->timing.median_ms == 1.0);  // the second run's, better
  CHECK(alice->date == "2025-05-08T10:00:00Z");
  CHECK(alice->gpu == "NVIDIA H200");
  CHECK(alice->gpu_clock_mhz == 1755);

  const BoardRow* bob = find(b.rows, "bob");
  REQUIRE(bob);
  CHECK(bob->timing.median_ms == 2.0);  // the first run's: the later, slower one does not replace it
  CHECK(bob->timing.status == "valid");
  CHECK(bob->date == "2025-05-01T10:00:00Z");
  CHECK(bob->gpu == "NVIDIA H100 80GB HBM3");
  CHECK(bob->gpu_clock_mhz == 1980);
  CHECK(bob->timing.samples == 12);
  CHECK(bob->timing.cv == 0.005);

  const BoardRow* carol = find(b.rows, "carol");  // invalid once, flagged later: on the board
  REQUIRE(carol);
  CHECK(carol->timing.status == "flagged");
  CHECK(carol->timing.reason == "CV 1.8% after a re-run");
  CHECK(find(b.invalid, "carol") == nullptr);

  // Ranked: alice 1.0, bob 2.0, Ref1 2.4 (tier), carol 5.0.
  REQUIRE(b.rows.size() == 4);
  CHECK(b.rows[0].timing.entry == "alice");
  CHECK(b.rows[0].rank == 1);
  CHECK(b.rows[1].timing.entry == "bob");
  CHECK(b.rows[1].rank == 2);
  CHECK(b.rows[2].timing.entry == "Ref1");
  CHECK(b.rows[2].rank == 0);
  CHECK(b.rows[3].timing.entry == "carol");
  CHECK(b.rows[3].rank == 3);
}

TEST_CASE("HistoryDb: tiers come from the latest run, invalid-only entries are listed", "[leaderboard]") {
  TempDir dir("tiers");
  HistoryDb db(dir.path / "history.db");
  two_runs(db);
  const Board b = db.board("particle-storm", "storm");

  const BoardRow* ref1 = find(b.rows, "Ref1");
  REQUIRE(ref1);
  CHECK(ref1->timing.tier);
  CHECK(ref1->timing.median_ms == 2.4);  // the latest run's, not the best
  CHECK(ref1->date == "2025-05-08T10:00:00Z");
  CHECK(find(b.rows, "Ref2") == nullptr);  // not timed in the latest run

  REQUIRE(b.invalid.size() == 1);
  CHECK(b.invalid[0].timing.entry == "dave");
  CHECK(b.invalid[0].timing.reason == "work launched on another stream");  // the latest reason
  CHECK(b.invalid[0].date == "2025-05-08T10:00:00Z");
}

TEST_CASE("HistoryDb: boards and runs are per lab and exercise", "[leaderboard]") {
  TempDir dir("scoped");
  HistoryDb db(dir.path / "history.db");
  two_runs(db);
  RunInfo other = run_info("2025-05-09T10:00:00Z", "NVIDIA H100 80GB HBM3", 1980);
  other.exercise = "other";
  db.add_run(other, {timing("zoe", "valid", 0.1)});

  const Board b = db.board("particle-storm", "other");
  REQUIRE(b.rows.size() == 1);
  CHECK(b.rows[0].timing.entry == "zoe");
  CHECK(db.board("particle-storm", "storm").rows.size() == 4);
  CHECK(db.board("no-such-lab", "storm").rows.empty());

  const auto runs = db.runs("particle-storm", "storm");
  REQUIRE(runs.size() == 2);
  CHECK(runs[0].started_at == "2025-05-01T10:00:00Z");
  CHECK(runs[1].started_at == "2025-05-08T10:00:00Z");
  CHECK(runs[1].gpu_name == "NVIDIA H200");
  CHECK(runs[1].gpu_clock_mhz == 1755);
  CHECK(runs[1].driver == "580.65");
  CHECK(runs[1].host == "gpu-node-1");
  CHECK(runs[1].method == "median of >= 10 calls, L2 flushed, rounds interleaved");
  CHECK(runs[1].seed == 0xFEDCBA9876543210ULL);
}

TEST_CASE("HistoryDb: reopening an existing file keeps its history", "[leaderboard]") {
  TempDir dir("reopen");
  const fs::path file = dir.path / "history.db";
  {
    HistoryDb db(file);
    two_runs(db);
  }
  HistoryDb again(file);
  CHECK(again.runs("particle-storm", "storm").size() == 2);
  again.add_run(run_info("2025-05-15T10:00:00Z", "NVIDIA H100 80GB HBM3", 1980), {timing("erin", "valid", 0.5)});
  const Board b = again.board("particle-storm", "storm");
  REQUIRE(b.rows.size() == 5);
  CHECK(b.rows[0].timing.entry == "erin");
  CHECK(find(b.rows, "alice") != nullptr);
  // The latest run timed no tier: the tiers are those of the latest run that did.
  CHECK(find(b.rows, "Ref1") != nullptr);
}

TEST_CASE("HistoryDb: a run is stored whole or not at all", "[leaderboard]") {
  TempDir dir("atomic");
  HistoryDb db(dir.path / "history.db");
  const RunInfo run = run_info("2025-05-01T10:00:00Z", "NVIDIA H100 80GB HBM3", 1980);
  // The same entry twice: the second insert fails, the first is rolled back with the run.
  CHECK_THROWS_AS(db.add_run(run, {timing("alice", "valid", 1.0), timing("alice", "valid", 2.0)}), std::runtime_error);
  CHECK(db.runs("particle-storm", "storm").empty());
  CHECK(db.board("particle-storm", "storm").rows.empty());
  CHECK_THROWS_AS(db.add_run(run, {timing("alice", "fast", 1.0)}), std::runtime_error);
  CHECK_THROWS_AS(db.add_run(run, {timing("alice", "valid", 0)}), std::runtime_error);
  CHECK(db.runs("particle-storm", "storm").empty());
  // Still usable afterwards.
  db.add_run(run, {timing("alice", "valid", 1.0)});
  CHECK(db.board("particle-storm", "storm").rows.size() == 1);
}

TEST_CASE("HistoryDb: a hostile id is only data", "[leaderboard]") {
  TempDir dir("hostile");
  HistoryDb db(dir.path / "history.db");
  const std::string id = "x'); DROP TABLE results; --";
  db.add_run(run_info("2025-05-01T10:00:00Z", "GPU", 0), {timing(id, "valid", 1.0)});
  const Board b = db.board("particle-storm", "storm");
  REQUIRE(b.rows.size() == 1);
  CHECK(b.rows[0].timing.entry == id);
}

TEST_CASE("HistoryDb: a corrupt file gives an error naming the file", "[leaderboard]") {
  TempDir dir("corrupt");
  const fs::path file = dir.path / "history.db";
  {
    std::ofstream out(file, std::ios::binary);
    for (int i = 0; i < 256; ++i) out << "this is not an SQLite database, only text. ";
  }
  try {
    HistoryDb db(file);
    FAIL("opening a corrupt file did not throw");
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    INFO(what);
    CHECK(what.find(file.string()) != std::string::npos);
    CHECK(what.find("not a database") != std::string::npos);
    CHECK(what.find("sqlite3_") != std::string::npos);  // the call that failed
  }
}

TEST_CASE("HistoryDb: a folder that does not exist gives an error naming the file", "[leaderboard]") {
  TempDir dir("missing");
  const fs::path file = dir.path / "no" / "such" / "history.db";
  try {
    HistoryDb db(file);
    FAIL("opening a file in a missing folder did not throw");
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    INFO(what);
    CHECK(what.find(file.string()) != std::string::npos);
    CHECK(what.find("sqlite3_open_v2") != std::string::npos);
  }
}
