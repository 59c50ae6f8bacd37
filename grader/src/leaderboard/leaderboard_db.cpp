#include "grader/leaderboard_db.hpp"
#include "grader/files.hpp"

#include <fmt/format.h>
#include <sqlite3.h>

#include <cmath>
#include <ctime>
#include <stdexcept>

namespace grader::leaderboard {

namespace {

// The schema this grader writes and reads (the database's user_version).
constexpr int kSchemaVersion = 1;

// The start of a statement, white space collapsed: enough to say which one failed.
std::string summary(const char* sql) {
  std::string s;
  const char* p = sql;
  for (; *p && s.size() < 48; ++p) {
    const bool space = *p == ' ' || *p == '\n' || *p == '\t';
    if (!space)
      s += *p;
    else if (!s.empty() && s.back() != ' ')
      s += ' ';
  }
  return *p ? s + "..." : s;
}

[[noreturn]] void fail(sqlite3* db, const std::filesystem::path& file, const std::string& call) {
  throw std::runtime_error(fmt::format("leaderboard database {}: {} failed: {}", file.string(), call,
                                       db ? sqlite3_errmsg(db) : "out of memory"));
}

struct Finalize {
  void operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }  // its code repeats the last step's
};

// A prepared statement; values only ever reach SQL through bind().
class Statement {
public:
  Statement(sqlite3* db, const std::filesystem::path& file, const char* sql) : db_(db), file_(file), sql_(sql) {
    sqlite3_stmt* raw = nullptr;
    if (sqlite3_prepare_v2(db, sql, -1, &raw, nullptr) != SQLITE_OK) fail(db_, file_, what("sqlite3_prepare_v2"));
    stmt_.reset(raw);
  }

  Statement& bind(int i, const std::string& v) {
    check(sqlite3_bind_text(stmt_.get(), i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT),
          "sqlite3_bind_text");
    return *this;
  }
  Statement& bind(int i, double v) {
    check(sqlite3_bind_double(stmt_.get(), i, v), "sqlite3_bind_double");
    return *this;
  }
  Statement& bind(int i, std::int64_t v) {
    check(sqlite3_bind_int64(stmt_.get(), i, v), "sqlite3_bind_int64");
    return *this;
  }
  Statement& bind(int i, int v) { return bind(i, static_cast<std::int64_t>(v)); }
  Statement& bind(int i, bool v) { return bind(i, static_cast<std::int64_t>(v ? 1 : 0)); }

  // True while there is a row to read.
  bool step() {
    const int rc = sqlite3_step(stmt_.get());
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    fail(db_, file_, what("sqlite3_step"));
  }
  void run() {
    while (step()) {
    }
  }
  void reset() {
    check(sqlite3_reset(stmt_.get()), "sqlite3_reset");
    check(sqlite3_clear_bindings(stmt_.get()), "sqlite3_clear_bindings");
  }

  std::string text(int col) const {
    const auto* p = sqlite3_column_text(stmt_.get(), col);
    return p ? std::string(reinterpret_cast<const char*>(p), sqlite3_column_bytes(stmt_.get(), col)) : "";
  }
  double real(int col) const { return sqlite3_column_double(stmt_.get(), col); }
  std::int64_t integer(int col) const { return sqlite3_column_int64(stmt_.get(), col); }

private:
  std::string what(const char* call) const { return fmt::format("{} ({})", call, summary(sql_)); }
  void check(int rc, const char* call) {
    if (rc != SQLITE_OK) fail(db_, file_, what(call));
  }

  sqlite3* db_;
  const std::filesystem::path& file_;
  const char* sql_;
  std::unique_ptr<sqlite3_stmt, Finalize> stmt_;
};

void exec(sqlite3* db, const std::filesystem::path& file, const char* sql) { Statement(db, file, sql).run(); }

// BEGIN IMMEDIATE takes the write lock at once, so two graders writing the same file queue
// (busy timeout) instead of failing half way. Rolled back unless committed.
class Transaction {
public:
  Transaction(sqlite3* db, const std::filesystem::path& file) : db_(db), file_(file) {
    exec(db_, file_, "BEGIN IMMEDIATE");
  }
  void commit() {
    exec(db_, file_, "COMMIT");
    open_ = false;
  }
  ~Transaction() {
    // Already failing: the error being thrown says why; a failed rollback has nothing to add.
    if (open_) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
  }
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;

private:
  sqlite3* db_;
  const std::filesystem::path& file_;
  bool open_ = true;
};

const char* const kSchema[] = {
    R"(CREATE TABLE runs (
         id            INTEGER PRIMARY KEY,
         lab           TEXT NOT NULL,
         exercise      TEXT NOT NULL,
         started_at    TEXT NOT NULL,
         gpu_name      TEXT NOT NULL,
         gpu_clock_mhz INTEGER NOT NULL,
         driver        TEXT NOT NULL,
         host          TEXT NOT NULL,
         method        TEXT NOT NULL,
         seed          INTEGER NOT NULL))",
    "CREATE INDEX runs_by_exercise ON runs (lab, exercise, started_at)",
    R"(CREATE TABLE results (
         run_id    INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
         entry     TEXT NOT NULL,
         tier      INTEGER NOT NULL,
         status    TEXT NOT NULL CHECK (status IN ('valid', 'flagged', 'invalid')),
         reason    TEXT NOT NULL,
         median_ms REAL,
         low_ms    REAL,
         high_ms   REAL,
         cv        REAL,
         samples   INTEGER NOT NULL,
         PRIMARY KEY (run_id, entry)))",
    "PRAGMA user_version = 1",  // kSchemaVersion
};

int user_version(sqlite3* db, const std::filesystem::path& file) {
  Statement s(db, file, "PRAGMA user_version");
  s.step();
  return static_cast<int>(s.integer(0));
}

void create_schema(sqlite3* db, const std::filesystem::path& file) {
  int version = user_version(db, file);
  if (version == 0) {
    Statement tables(db, file, "SELECT count(*) FROM sqlite_master");
    tables.step();
    if (tables.integer(0) > 0)
      throw std::runtime_error(
          fmt::format("leaderboard database {}: not a leaderboard database (it has tables but "
                      "no schema version)",
                      file.string()));
    Transaction t(db, file);
    if (user_version(db, file) == 0)  // not created meanwhile by another grader
      for (const char* sql : kSchema) exec(db, file, sql);
    t.commit();
    version = user_version(db, file);
  }
  if (version != kSchemaVersion)
    throw std::runtime_error(
        fmt::format("leaderboard database {}: schema version {}, this grader reads version {} "
                    "(written by another version of the grader?)",
                    file.string(), version, kSchemaVersion));
}

// The columns every board query selects, in the order read_row reads them.
#define BOARD_COLUMNS                                                                               \
  "SELECT r.entry, r.tier, r.status, r.reason, r.median_ms, r.low_ms, r.high_ms, r.cv, r.samples, " \
  "u.started_at, u.gpu_name, u.gpu_clock_mhz, u.id FROM results r JOIN runs u ON u.id = r.run_id "

BoardRow read_row(const Statement& s) {
  BoardRow row;
  auto& t = row.timing;
  t.entry = s.text(0);
  t.tier = s.integer(1) != 0;
  t.status = s.text(2);
  t.reason = s.text(3);
  t.median_ms = s.real(4);
  t.low_ms = s.real(5);
  t.high_ms = s.real(6);
  t.cv = s.real(7);
  t.samples = static_cast<int>(s.integer(8));
  row.date = s.text(9);
  row.gpu = s.text(10);
  row.gpu_clock_mhz = static_cast<int>(s.integer(11));
  row.run_id = s.integer(12);
  return row;
}

// Rows sorted by entry, the one to keep first: keeps the first row of each entry.
std::vector<BoardRow> first_per_entry(Statement& s) {
  std::vector<BoardRow> rows;
  while (s.step()) {
    BoardRow row = read_row(s);
    if (rows.empty() || rows.back().timing.entry != row.timing.entry) rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace

void HistoryDb::Close::operator()(sqlite3* db) const {
  sqlite3_close_v2(db);  // every statement is finalized by then (RAII); nothing to report from here
}

HistoryDb::HistoryDb(const std::filesystem::path& file) : file_(file) {
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(file.c_str(), &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  db_.reset(raw);  // closed even when the open failed
  if (rc != SQLITE_OK) fail(raw, file_, "sqlite3_open_v2");
  if (sqlite3_extended_result_codes(raw, 1) != SQLITE_OK) fail(raw, file_, "sqlite3_extended_result_codes");
  // Another grader writing the same file waits up to this long for it, not fails.
  if (sqlite3_busy_timeout(raw, 30000) != SQLITE_OK) fail(raw, file_, "sqlite3_busy_timeout");
  exec(raw, file_, "PRAGMA foreign_keys = ON");
  create_schema(raw, file_);
}

std::int64_t HistoryDb::add_run(const RunInfo& run, const std::vector<EntryTiming>& entries) {
  for (const auto& e : entries) {
    if (e.status != "valid" && e.status != "flagged" && e.status != "invalid")
      throw std::runtime_error(
          fmt::format("leaderboard: entry '{}' has status '{}'; expected valid, flagged or "
                      "invalid",
                      e.entry, e.status));
    if (e.status != "invalid" && !(std::isfinite(e.median_ms) && e.median_ms > 0))
      throw std::runtime_error(
          fmt::format("leaderboard: entry '{}' is {} but has no time (median {} ms)", e.entry, e.status, e.median_ms));
  }
  sqlite3* db = db_.get();
  Transaction t(db, file_);
  Statement insert_run(db, file_,
                       "INSERT INTO runs (lab, exercise, started_at, gpu_name, gpu_clock_mhz, driver, host, method, "
                       "seed) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)");
  // SQLite integers are signed 64-bit: the seed is stored as its bit pattern.
  insert_run.bind(1, run.lab).bind(2, run.exercise).bind(3, run.started_at).bind(4, run.gpu_name);
  insert_run.bind(5, run.gpu_clock_mhz).bind(6, run.driver).bind(7, run.host).bind(8, run.method);
  insert_run.bind(9, static_cast<std::int64_t>(run.seed)).run();
  const std::int64_t id = sqlite3_last_insert_rowid(db);

  Statement insert(db, file_,
                   "INSERT INTO results (run_id, entry, tier, status, reason, median_ms, low_ms, high_ms, cv, "
                   "samples) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)");
  for (const auto& e : entries) {
    insert.reset();
    insert.bind(1, id).bind(2, e.entry).bind(3, e.tier).bind(4, e.status).bind(5, e.reason);
    insert.bind(6, e.median_ms).bind(7, e.low_ms).bind(8, e.high_ms).bind(9, e.cv).bind(10, e.samples);
    insert.run();
  }
  t.commit();
  return id;
}

Board HistoryDb::board(const std::string& lab, const std::string& exercise) const {
  sqlite3* db = db_.get();
  Board board;
  board.lab = lab;
  board.exercise = exercise;
  board.generated_at = now_iso();

  // Each student's best: lowest median first, the earliest run among equal ones.
  Statement best(db, file_,
                 BOARD_COLUMNS
                 "WHERE u.lab = ?1 AND u.exercise = ?2 AND r.tier = 0 AND r.status IN ('valid', "
                 "'flagged') ORDER BY r.entry, r.median_ms, u.started_at, u.id");
  best.bind(1, lab).bind(2, exercise);
  board.rows = first_per_entry(best);

  // The tiers of the latest run that timed any: the references as they are now.
  Statement tiers(db, file_,
                  BOARD_COLUMNS
                  "WHERE r.tier = 1 AND r.run_id = (SELECT u2.id FROM runs u2 JOIN results r2 ON "
                  "r2.run_id = u2.id WHERE u2.lab = ?1 AND u2.exercise = ?2 AND r2.tier = 1 ORDER BY "
                  "u2.started_at DESC, u2.id DESC LIMIT 1) ORDER BY r.entry");
  tiers.bind(1, lab).bind(2, exercise);
  while (tiers.step()) {
    BoardRow row = read_row(tiers);
    (row.timing.status == "invalid" ? board.invalid : board.rows).push_back(std::move(row));
  }

  // Students never valid: their latest result says why.
  Statement invalid(db, file_,
                    BOARD_COLUMNS
                    "WHERE u.lab = ?1 AND u.exercise = ?2 AND r.tier = 0 AND r.status = 'invalid' AND "
                    "r.entry NOT IN (SELECT r2.entry FROM results r2 JOIN runs u2 ON u2.id = r2.run_id "
                    "WHERE u2.lab = ?1 AND u2.exercise = ?2 AND r2.tier = 0 AND r2.status IN ('valid', "
                    "'flagged')) ORDER BY r.entry, u.started_at DESC, u.id DESC");
  invalid.bind(1, lab).bind(2, exercise);
  for (auto& row : first_per_entry(invalid)) board.invalid.push_back(std::move(row));

  rank_rows(board.rows);
  return board;
}

std::vector<RunInfo> HistoryDb::runs(const std::string& lab, const std::string& exercise) const {
  Statement s(db_.get(), file_,
              "SELECT lab, exercise, started_at, gpu_name, driver, host, method, gpu_clock_mhz, seed FROM runs "
              "WHERE lab = ?1 AND exercise = ?2 ORDER BY started_at, id");
  s.bind(1, lab).bind(2, exercise);
  std::vector<RunInfo> out;
  while (s.step()) {
    RunInfo r;
    r.lab = s.text(0);
    r.exercise = s.text(1);
    r.started_at = s.text(2);
    r.gpu_name = s.text(3);
    r.driver = s.text(4);
    r.host = s.text(5);
    r.method = s.text(6);
    r.gpu_clock_mhz = static_cast<int>(s.integer(7));
    r.seed = static_cast<std::uint64_t>(s.integer(8));
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace grader::leaderboard
