#include "leaderboard/leaderboard_run.hpp"

#include <fcntl.h>
#include <unistd.h>

#include "batch/gpu_pool.hpp"
#include "tree/build_tree.hpp"
#include "grader/test_program_env.hpp"
#include "grader/files.hpp"
#include "grader/forbidden_api.hpp"
#include "grader/gradebook.hpp"
#include "grader/leaderboard.hpp"
#include "grader/leaderboard_db.hpp"
#include "grader/process.hpp"
#include "grader/report.hpp"
#include "grader/sandbox.hpp"
#include "grader/submission.hpp"
#include "workbook/device_query.hpp"
#include "workbook/random.hpp"
#include "workbook/stats.hpp"

#include <cstdlib>
#include <cuda_runtime.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <map>
#include <random>

namespace grader {
namespace fs = std::filesystem;
namespace lb = grader::leaderboard;

namespace {

// One contestant: a student's program, or the reference solution's (whose tiers it reports).
struct Entry {
  std::string name;
  bool reference = false;
  fs::path program, src, build;    // src and build: shown read-only in the sandbox
  std::optional<fs::path> runner;  // the runner's path, for a harness with a runner
  // Each round's timed calls, one vector per round (each round is a process of its own).
  using Rounds = std::vector<std::vector<double>>;
  Rounds rounds;
  std::string invalid;
  std::map<std::string, Rounds> tiers;  // the reference's: tier name -> its rounds
};

std::vector<double> all_calls(const Entry::Rounds& rounds) {
  std::vector<double> all;
  for (const auto& r : rounds) all.insert(all.end(), r.begin(), r.end());
  return all;
}

// The lines of one leaderboard run's output file, as written by grading::record_leaderboard.
struct Recorded {
  std::string entry, invalid;
  std::vector<double> samples;
};
std::vector<Recorded> read_recorded(const fs::path& file, const std::string& exercise) {
  std::vector<Recorded> out;
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);) {
    const auto j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_object() || j.value("exercise", "") != exercise) continue;  // a torn line, or another exercise
    Recorded r;
    r.entry = j.value("entry", "");
    r.invalid = j.value("invalid", "");
    if (j.contains("samples") && j["samples"].is_array())
      for (const auto& v : j["samples"])
        if (v.is_number()) r.samples.push_back(v.get<double>());
    out.push_back(r);
  }
  return out;
}

// The interval of an entry's median. The calls of one round share a process, and whole rounds
// can shift together (measured on an H100: a 2 ms particle-storm program whose 7 rounds' medians
// ranged from 2.13 to 2.46 ms, six of them within 4%): pooled as independent, its
// calls would give an interval far narrower than the run can support, and order entries that
// it cannot. So the interval is the wider of the pooled calls' and the rounds' medians' (with
// up to 5 rounds, their whole range; order statistics again).
workbook::MedianInterval entry_interval(const Entry::Rounds& rounds) {
  auto interval = workbook::median_interval(all_calls(rounds));
  std::vector<double> medians;
  for (const auto& r : rounds)
    if (!r.empty()) medians.push_back(workbook::median(r));
  if (medians.size() >= 2) {
    const auto between = workbook::median_interval(medians);
    interval.low = std::min(interval.low, between.low);
    interval.high = std::max(interval.high, between.high);
  }
  return interval;
}

lb::EntryTiming summarize_entry(const std::string& name, bool tier, const Entry::Rounds& rounds,
                                const std::string& invalid, double target_cv) {
  const std::vector<double> samples = all_calls(rounds);
  lb::EntryTiming t;
  t.entry = name;
  t.tier = tier;
  t.samples = static_cast<int>(samples.size());
  if (!invalid.empty() || samples.empty()) {
    t.status = "invalid";
    t.reason = invalid.empty() ? "no timed call completed" : invalid;
    return t;
  }
  const auto s = workbook::summarize(samples);
  const auto interval = entry_interval(rounds);
  t.median_ms = s.median;
  t.low_ms = interval.low;
  t.high_ms = interval.high;
  // The robust CV (stats.hpp): a call delayed now and then by the host must not flag an entry
  // whose other calls agree to a tenth of a percent.
  t.cv = workbook::robust_cv(samples);
  t.status = t.cv > target_cv ? "flagged" : "valid";
  if (t.status == "flagged")
    t.reason = fmt::format("CV {:.1f}% over {} calls, above the {:.1f}% target even after re-runs", 100 * t.cv,
                           samples.size(), 100 * target_cv);
  return t;
}

}  // namespace

std::string default_leaderboard_exercise(const LabConfig& config) {
  if (const auto it = config.table()["leaderboard"]["exercise"].value<std::string>()) return *it;
  if (config.exercises().empty()) throw ConfigError(config.name() + ": no exercises");
  return config.exercises().back().name;
}

// Builds the test programs (`cmake --build` of their targets); false, with the log named, on failure.
bool build_programs(const Paths& paths, const std::vector<fs::path>& programs, const fs::path& log) {
  std::vector<std::string> targets;
  for (const auto& p : programs) targets.push_back(p.filename().string());
  const bool ok = build_in_tree(paths, targets, log);
  if (!ok) std::cerr << "building " << programs.front().filename().string() << " failed: see " << log.string() << '\n';
  return ok;
}

namespace {

class Leaderboard {
public:
  Leaderboard(const Paths& paths, const LeaderboardOptions& o, LabConfig config)
      : paths_(paths), o_(o), config_(std::move(config)) {}
  int run();

private:
  // The run's steps, in order: the entries (the reference, then every student whose exercise is
  // correct and clean, from the batch's results in batch_out) and the refused; the timed rounds;
  // the record and the board.
  void collect_entries(const fs::path& batch_out, std::vector<Entry>& entries, std::vector<lb::EntryTiming>& refused);
  // Why a student may not enter ("" where they may); src is their submission's files.
  std::string refusal(const StudentResult& s, const fs::path& src) const;
  void time_rounds(std::vector<Entry>& entries, double target_cv);
  void write_board(const std::vector<Entry>& entries, const std::vector<lb::EntryTiming>& refused,
                   const std::string& started, double target_cv) const;
  // Runs one entry's leaderboard test once, in the sandbox; records its samples or why not.
  void time_once(Entry& e, int round);

  const Paths& paths_;
  const LeaderboardOptions& o_;
  LabConfig config_;
  std::string exercise_;
  Sandbox sandbox_;
  std::uint64_t seed_ = 0;
  int calls_ = 10;
  fs::path runs_dir_;
};

void Leaderboard::time_once(Entry& e, int round) {
  if (!e.invalid.empty()) return;  // one broken rule is enough
  const fs::path dir = runs_dir_ / e.name;
  fs::create_directories(dir);
  // Outside the run's folder, which is the only one the sandbox shows writable, and handed over
  // as a descriptor: the submission's code cannot find it (results.hpp).
  const fs::path out = runs_dir_ / fmt::format("{}-round-{}.jsonl", e.name, round);
  fs::remove(out);
  const std::string overrides = override_list(o_.batch.overrides);
  SandboxedRun run;
  run.argv = {e.program.string(), "[leaderboard][" + exercise_ + "]"};
  run.run_dir = dir;
  if (!e.src.empty()) run.readable = {e.src, e.build};
  for (const auto& path : o_.batch.overrides) run.readable.push_back(fs::absolute(path));
  run.hidden =
      hidden_from_submissions(paths_, config_.name(), {fs::absolute(o_.batch.submissions), fs::absolute(o_.out)});
  run.readable.push_back(fs::absolute(e.program));
  if (e.reference) run.readable.push_back(fs::absolute(paths_.build_root) / "bin");  // its runner
  run.base = {fs::absolute(paths_.source_root), fs::absolute(paths_.build_root)};
  TestProgramEnv env;
  env.seed = seed_ + static_cast<std::uint64_t>(round);
  env.leaderboard_calls = calls_;
  env.config = paths_.lab_dir(config_.name()) / "lab.toml";
  env.overrides = overrides;
  if (!e.src.empty()) env.source_dir = e.src;
  env.leaderboard_tiers = e.reference;
  env.runner = e.runner;
  const int out_fd = ::open(out.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (out_fd < 0) throw std::runtime_error("cannot write " + out.string());
  env.leaderboard_out_fd = out_fd;
  run.log = dir / fmt::format("round-{}.log", round);
  run.timeout_s = o_.batch.run_timeout_s.value_or(config_.timeout_s());
  env.runner_file_bytes = 64ull << 20;  // the runner's, as in batch
  run.env = test_program_env(env);
  run.limits.memory_bytes = o_.batch.memory_bytes;
  run.limits.max_processes = o_.batch.max_processes;
  run.limits.output_bytes = 1 << 20;
  // The reference too runs in the sandbox: tiers and students timed under the same conditions.
  // (Outside it, the reference measured 0.2-0.4% faster than copies of it inside, on the H100.)
  ProcessOptions p = sandboxed_process(sandbox_, run);
  // Every entry on one GPU, the one the board names (query_device(0) of the grader's own view):
  // the sandbox clears the environment, so the child is told which, as batch's phases are.
  p.set_env["CUDA_VISIBLE_DEVICES"] = child_visible_devices(std::getenv("CUDA_VISIBLE_DEVICES"), 0);
  p.pass_fds[out_fd] = out_fd;
  const auto r = run_process(p);
  ::close(out_fd);
  bool any = false;
  for (const auto& rec : read_recorded(out, exercise_)) {
    if (rec.entry == "self") {
      any = true;
      if (!rec.invalid.empty()) e.invalid = fmt::format("round {}: {}", round + 1, rec.invalid);
      e.rounds.push_back(rec.samples);
    } else if (e.reference && rec.invalid.empty()) {
      e.tiers[rec.entry].push_back(rec.samples);  // a course tier the reference's test timed beside itself
    }
  }
  if (e.invalid.empty() && (!any || !(r.exit_code == 0 || r.exit_code == 1) || r.signal != 0 || r.timed_out))
    e.invalid = fmt::format("round {}: the leaderboard run {} (log: {})", round + 1,
                            r.timed_out ? "timed out" : r.describe(), p.output_file->string());
}

int Leaderboard::run() {
  exercise_ = o_.exercise.empty() ? default_leaderboard_exercise(config_) : o_.exercise;
  if (!config_.exercise(exercise_)) throw ConfigError(config_.name() + " has no exercise " + exercise_);
  calls_ = o_.calls > 0 ? o_.calls : static_cast<int>(config_.number("leaderboard.calls").value_or(10));
  const double target_cv = config_.number("leaderboard.target_cv").value_or(0.01);
  std::string why_no_gpu;
  if (workbook::device_count(&why_no_gpu) == 0) {
    std::cerr << "grader leaderboard: no CUDA GPU is usable here (" << why_no_gpu << "): nothing can be timed\n";
    return 4;
  }

  // 1. Grade first: only a correct exercise may enter.
  BatchOptions b = o_.batch;
  b.out = o_.out / "batch";
  std::cerr << "grading the submissions first (" << b.out.string() << ") ...\n";
  if (const int status = run_batch(paths_, b); status != 0) return status;

  sandbox_ = Sandbox::detect(o_.batch.sandbox);
  const fs::path meta = b.out / "batch.json";
  seed_ = nlohmann::json::parse(read_file(meta)).value("seed", std::uint64_t{0}) ^ 0x1eadb0a2dull;
  runs_dir_ = fs::absolute(o_.out) / "runs";

  // 2. The entries.
  std::vector<Entry> entries;
  std::vector<lb::EntryTiming> refused;
  collect_entries(b.out, entries, refused);
  // 3-4. The rounds.
  const std::string started = now_iso();
  time_rounds(entries, target_cv);
  // 5. The record and the board.
  write_board(entries, refused, started, target_cv);
  return 0;
}

void Leaderboard::collect_entries(const fs::path& batch_out, std::vector<Entry>& entries,
                                  std::vector<lb::EntryTiming>& refused) {
  const bool with_reference = paths_.has_reference(config_.name());
  if (!with_reference) {
    std::cerr << "no reference solution in this workbook (solutions/" << config_.name()
              << "/ is not here): the board has no reference row, nor the tiers its run times\n";
  } else {
    Entry ref;
    ref.name = "reference";
    ref.reference = true;
    ref.program = paths_.test_program(config_.name(), true);
    build_programs(paths_, {ref.program}, o_.out / "reference-build.log");  // a failure shows as its row
    entries.push_back(ref);
  }
  for (const auto& file : fs::directory_iterator(batch_out / "students")) {
    if (file.path().extension() != ".json") continue;
    const StudentResult s = student_from_json(nlohmann::json::parse(read_file(file.path())));
    const fs::path src = fs::absolute(batch_out) / "work" / s.student / "src";
    if (std::string reason = refusal(s, src); !reason.empty()) {
      lb::EntryTiming no;
      no.entry = s.student;
      no.status = "invalid";
      no.reason = std::move(reason);
      refused.push_back(no);
      continue;
    }
    Entry e;
    e.name = s.student;
    e.src = src;
    e.build = fs::absolute(batch_out) / "work" / s.student / "build";
    const SubmissionProgram program = submission_program(paths_, config_.name(), e.build);
    e.program = program.program;
    e.runner = program.runner;
    entries.push_back(e);
  }
  std::cerr << fmt::format("leaderboard of {} / {}: {} entries, {} refused, {} rounds of {} calls\n", config_.name(),
                           exercise_, entries.size() - (with_reference ? 1 : 0), refused.size(), o_.rounds, calls_);
}

std::string Leaderboard::refusal(const StudentResult& s, const fs::path& src) const {
  const auto correct = exercises_to_time(config_, all_cases(s.report));
  const auto ex = std::find_if(s.report.exercises.begin(), s.report.exercises.end(),
                               [&](const ExerciseReport& e) { return e.name == exercise_; });
  // Forbidden APIs first: a submission calling cuBLAS may not even build (the tests do not
  // link it), and "forbidden" is the reason to give, not "build failed".
  std::string findings;
  for (const auto& name : config_.files())
    if (fs::exists(src / name))
      for (const auto& f : find_forbidden_apis(name, read_file(src / name)))
        findings += (findings.empty() ? "" : "; ") + to_string(f);
  if (!findings.empty()) return "forbidden: " + findings;
  if (s.report.run.state == RunState::BuildFailed || s.report.run.state == RunState::NotGraded)
    return "not graded: " + s.status;
  if (std::find(correct.begin(), correct.end(), exercise_) == correct.end() || ex == s.report.exercises.end())
    return exercise_ + " is not correct on every grading case (" + s.status + ")";
  return "";
}

void Leaderboard::time_rounds(std::vector<Entry>& entries, double target_cv) {
  // 3. Rounds, each in a fresh random order: drift of the machine spreads over everyone.
  std::mt19937_64 shuffle(seed_);
  for (int round = 0; round < o_.rounds; ++round) {
    std::vector<Entry*> order;
    for (auto& e : entries) order.push_back(&e);
    std::shuffle(order.begin(), order.end(), shuffle);
    for (Entry* e : order) time_once(*e, round);
    std::cerr << fmt::format("round {}/{} done\n", round + 1, o_.rounds);
  }
  // 4. An entry still too noisy gets two more rounds, then is flagged if it stays so.
  int extra = o_.rounds;
  for (auto& e : entries) {
    const auto calls = all_calls(e.rounds);
    if (e.invalid.empty() && calls.size() > 1 && workbook::robust_cv(calls) > target_cv) {
      std::cerr << "re-running " << e.name << " (CV above target)\n";
      for (int k = 0; k < 2; ++k) time_once(e, extra + k);
    }
  }
}

void Leaderboard::write_board(const std::vector<Entry>& entries, const std::vector<lb::EntryTiming>& refused,
                              const std::string& started, double target_cv) const {
  std::vector<lb::EntryTiming> timings = refused;
  for (const auto& e : entries) {
    if (e.reference) {
      auto t = summarize_entry("reference", true, e.rounds, e.invalid, target_cv);
      timings.push_back(t);
      for (const auto& [name, rounds] : e.tiers) timings.push_back(summarize_entry(name, true, rounds, "", target_cv));
    } else {
      timings.push_back(summarize_entry(e.name, false, e.rounds, e.invalid, target_cv));
    }
  }
  const auto device = workbook::query_device(0);
  int driver = 0;
  cudaDriverGetVersion(&driver);
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  lb::RunInfo info;
  info.lab = config_.name();
  info.exercise = exercise_;
  info.started_at = started;
  info.gpu_name = device.name;
  info.gpu_clock_mhz = device.sm_clock_khz / 1000;
  info.driver = fmt::format("{}.{}", driver / 1000, (driver % 1000) / 10);
  info.host = host;
  info.seed = seed_;
  info.method = fmt::format(
      "{} rounds in random order, {} warm-up and {} timed calls per entry and round; fresh "
      "inputs and a checked output every call; L2 flushed; CUDA events; median of all calls "
      "with a 95% order-statistics interval; every entry timed on one GPU ({}, the first of {} visible)",
      o_.rounds,
      static_cast<int>(config_.number("leaderboard.warmup").value_or(config_.number("timing.warmup").value_or(2))),
      calls_, device.name, workbook::device_count());
  const fs::path db_file = o_.db.empty() ? o_.out / "leaderboard.sqlite" : o_.db;
  lb::HistoryDb db(db_file);
  db.add_run(info, timings);
  const lb::Board board = db.board(config_.name(), exercise_);
  fs::create_directories(o_.out);
  write_atomically(o_.out / "leaderboard.md", lb::to_markdown(board));
  write_atomically(o_.out / "leaderboard.csv", lb::to_csv(board));
  write_atomically(o_.out / "leaderboard.json", lb::to_json(board).dump(2) + "\n");
  write_atomically(o_.out / "leaderboard.html", lb::to_html(board));
  std::cout << lb::to_markdown(board);
  std::cerr << "board: " << (o_.out / "leaderboard.html").string()
            << " (and .md, .csv, .json); history: " << db_file.string() << '\n';
}

}  // namespace

int run_leaderboard(const Paths& paths, const LeaderboardOptions& options) {
  Leaderboard board(paths, options, load_lab(paths, options.batch.lab, options.batch.overrides));
  return board.run();
}

int check_leaderboard(const Paths& paths, const std::string& lab, const std::string& exercise_name, bool reference,
                      const std::vector<fs::path>& overrides, bool build) {
  const LabConfig config = load_lab(paths, lab, overrides);
  const std::string exercise = exercise_name.empty() ? default_leaderboard_exercise(config) : exercise_name;
  // A student release has no solutions/: then your code is timed alone (with the lab's tiers,
  // which your test program times itself), and --reference has nothing to time.
  const bool with_reference = paths.has_reference(lab);
  if (reference && !with_reference) {
    std::cerr << no_reference_message(lab) << '\n';
    return 64;
  }
  std::string why;
  if (workbook::device_count(&why) == 0) {
    std::cerr << "no CUDA GPU is usable here: " << why << '\n';
    return 4;
  }
  const fs::path dir = paths.run_dir(lab) / "leaderboard";
  fs::create_directories(dir);
  if (build) {
    std::cerr << "building " << lab << " ...\n";
    std::vector<fs::path> programs = {paths.test_program(lab, reference)};
    if (with_reference && !reference) programs.push_back(paths.test_program(lab, true));
    if (!build_programs(paths, programs, dir / "build.log")) return 2;
  }
  if (!with_reference)
    std::cerr << "no reference solution in this workbook (solutions/" << lab
              << "/ is not here): your code is timed without the reference's row\n";
  const std::string overrides_env = override_list(overrides);
  const std::uint64_t seed = workbook::fresh_seed();
  std::vector<lb::EntryTiming> rows;
  // Yours, then the reference's; checking the reference itself, once. Without a reference, your
  // run times the lab's tiers too (the reference's run does where there is one).
  const std::vector<bool> runs = reference        ? std::vector<bool>{true}
                                 : with_reference ? std::vector<bool>{false, true}
                                                  : std::vector<bool>{false};
  for (const bool ref : runs) {
    const fs::path out = dir / (ref ? "reference.jsonl" : "yours.jsonl");
    fs::remove(out);
    ProcessOptions p;
    p.argv = {paths.test_program(lab, ref).string(), "[leaderboard][" + exercise + "]"};
    TestProgramEnv env;
    env.seed = seed;
    env.leaderboard_out = out;
    env.config = paths.lab_dir(lab) / "lab.toml";
    env.overrides = overrides_env;
    env.source_dir = ref ? paths.solution_dir(lab) : paths.lab_dir(lab);
    env.leaderboard_tiers = ref || !with_reference;
    p.set_env = test_program_env(env);
    p.output_file = dir / (ref ? "reference.log" : "yours.log");
    p.timeout_s = config.timeout_s();
    std::cerr << "timing " << (ref ? "the reference solution" : "your code") << " (" << exercise << ") ...\n";
    const auto r = run_process(p);
    const auto recorded = read_recorded(out, exercise);
    if (recorded.empty())
      rows.push_back(summarize_entry(ref ? "reference" : "you", ref, {},
                                     "the run " + r.describe() + " (log: " + p.output_file->string() + ")", 1.0));
    for (const auto& rec : recorded) {
      const std::string name = rec.entry == "self" ? (ref ? "reference" : "you") : rec.entry;
      if (rec.entry != "self" && !ref && with_reference) continue;
      rows.push_back(summarize_entry(name, ref || rec.entry != "self", {rec.samples}, rec.invalid, 1.0));
    }
  }
  lb::Board board;
  board.lab = lab;
  board.exercise = exercise;
  board.generated_at = now_iso();
  const auto device = workbook::query_device(0);
  for (const auto& t : rows) {
    lb::BoardRow row;
    row.timing = t;
    row.date = board.generated_at;
    row.gpu = device.name;
    row.gpu_clock_mhz = device.sm_clock_khz / 1000;
    (t.status == "invalid" ? board.invalid : board.rows).push_back(row);
  }
  lb::rank_rows(board.rows);
  std::cout << lb::to_markdown(board);
  // Where "you" would land: between which tiers.
  const auto you =
      std::find_if(board.rows.begin(), board.rows.end(), [](const lb::BoardRow& r) { return r.timing.entry == "you"; });
  if (you != board.rows.end()) {
    std::string faster, slower;
    for (const auto& r : board.rows) {
      if (!r.timing.tier) continue;
      if (r.timing.median_ms < you->timing.median_ms)
        slower = r.timing.entry;  // the last tier faster than you
      else if (faster.empty())
        faster = r.timing.entry;  // the first tier slower than you
    }
    std::cout << fmt::format("\nyour {} median: {:.3f} ms; {}\n", exercise, you->timing.median_ms,
                             slower.empty()   ? "faster than every tier"
                             : faster.empty() ? "slower than every tier (" + slower + " is the slowest ahead of you)"
                                              : "between " + slower + " (faster) and " + faster + " (slower)");
  }
  return board.invalid.empty() ? 0 : 1;
}

}  // namespace grader
