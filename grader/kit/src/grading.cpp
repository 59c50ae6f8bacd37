#include "grader/grading.hpp"

#include "remote/call.hpp"
#include "workbook/compare.hpp"
#include "workbook/cuda_check.hpp"
#include "workbook/phases.hpp"
#include "workbook/random.hpp"
#include "workbook/stats.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <fcntl.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <utility>

namespace grading {
namespace {

struct Context {
  grader::LabConfig config;
  std::uint64_t seed = 0;
  std::optional<grader::ResultsWriter> results;
  std::filesystem::path source_dir;
  bool fewer_cases = false;
};
std::unique_ptr<Context> g_context;

const Context& context() {
  if (!g_context) throw std::logic_error("grading::init() was not called");
  return *g_context;
}

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

}  // namespace

void init(const Defaults& defaults) {
  auto ctx = std::make_unique<Context>();
  const std::string toml = env("WORKBOOK_CONFIG");
  std::vector<std::filesystem::path> overrides;
  std::stringstream list(env("WORKBOOK_OVERRIDES"));
  for (std::string path; std::getline(list, path, ':');)
    if (!path.empty()) overrides.emplace_back(path);
  ctx->config = grader::LabConfig::load(toml.empty() ? defaults.lab_toml : std::filesystem::path(toml), overrides);
  ctx->fewer_cases = defaults.inspecting && env("WORKBOOK_FEWER_CASES") == "1";

  const std::string seed = env("WORKBOOK_SEED");
  ctx->seed = seed.empty() ? workbook::fresh_seed() : std::stoull(seed);
  if (const std::string fd = env("WORKBOOK_RESULTS_FD"); !fd.empty()) {
    // Close-on-exec: the runner this program starts must not inherit it (results.hpp says why).
    const int n = std::stoi(fd);
    if (::fcntl(n, F_SETFD, FD_CLOEXEC) != 0) throw std::runtime_error("WORKBOOK_RESULTS_FD=" + fd + " is not open");
    ctx->results.emplace(n);
  } else if (const std::string results = env("WORKBOOK_RESULTS"); !results.empty()) {
    ctx->results.emplace(std::filesystem::path(results));
  }
  const std::string sources = env("WORKBOOK_SOURCE_DIR");
  ctx->source_dir = sources.empty() ? defaults.source_dir : std::filesystem::path(sources);

  std::cout << "grading " << ctx->config.name() << " with seed " << ctx->seed << " (WORKBOOK_SEED=" << ctx->seed
            << " reproduces these inputs)\n"
            << "sources: " << ctx->source_dir.string() << "\n";
  g_context = std::move(ctx);
}

const grader::LabConfig& config() { return context().config; }
std::uint64_t seed() { return context().seed; }
std::uint64_t timed_draw() {
  static std::uint64_t next = 0;
  return next++;
}
std::filesystem::path source_file(const std::string& name) { return context().source_dir / name; }

workbook::TimingOptions timing_options() {
  const auto& c = config();
  workbook::TimingOptions o;
  o.warmup = static_cast<int>(c.number("timing.warmup").value_or(o.warmup));
  o.min_runs = static_cast<int>(c.number("timing.min_runs").value_or(o.min_runs));
  o.max_runs = static_cast<int>(c.number("timing.max_runs").value_or(o.max_runs));
  o.target_cv = c.number("timing.target_cv").value_or(o.target_cv);
  o.budget_s = c.number("timing.budget_s").value_or(o.budget_s);
  return o;
}

workbook::ContestOptions contest_options() {
  const auto& c = config();
  workbook::ContestOptions o;
  // The board's own warm-up where the lab sets one (kmeans times its graded calls without one).
  o.warmup = static_cast<int>(c.number("leaderboard.warmup").value_or(c.number("timing.warmup").value_or(o.warmup)));
  o.calls = static_cast<int>(c.number("leaderboard.calls").value_or(o.calls));
  if (const std::string calls = env("WORKBOOK_LEADERBOARD_CALLS"); !calls.empty()) o.calls = std::stoi(calls);
  return o;
}

bool leaderboard_tiers() { return !env("WORKBOOK_LEADERBOARD_TIERS").empty(); }

bool fewer_cases() { return context().fewer_cases; }

void record_leaderboard(const std::string& exercise, const std::string& entry, const workbook::ContestResult& r) {
  nlohmann::json j = {
      {"exercise", exercise}, {"entry", entry}, {"seed", seed()}, {"samples", r.samples}, {"invalid", r.invalid}};
  nlohmann::json calls = nlohmann::json::array();
  for (const auto& m : r.calls)
    calls.push_back({{"event_ms", m.event_ms},
                     {"host_ms", m.host_ms},
                     {"cpu_ms", m.cpu_ms},
                     {"threads", m.threads_after},
                     {"wrong", m.wrong}});
  j["calls"] = calls;
  if (const std::string fd = env("WORKBOOK_LEADERBOARD_OUT_FD"); !fd.empty()) {
    const int n = std::stoi(fd);
    ::fcntl(n, F_SETFD, FD_CLOEXEC);  // not for the runner
    grader::ResultsWriter(n).write_line(j.dump());
  } else if (const std::string out = env("WORKBOOK_LEADERBOARD_OUT"); !out.empty()) {
    std::ofstream f(out, std::ios::app);
    f << j.dump() << '\n' << std::flush;
    if (!f) throw std::runtime_error("cannot append to " + out);
  }
  std::cout << "  [" << exercise << "/leaderboard] " << entry << ": ";
  if (!r.valid())
    std::cout << "INVALID - " << r.invalid << std::endl;
  else
    std::cout << "median " << workbook::median(r.samples) << " ms of " << r.samples.size() << " calls" << std::endl;
}

void plan(const std::string& exercise, const std::string& kind, int cases) {
  const auto& ctx = context();
  if (ctx.results) ctx.results->write(grader::Plan{exercise, kind, cases});
}

namespace {
// An exercise whose code hangs, or crashes call after call, stops costing time: after a call
// that hung (each costs the call timeout, and the GPU while it spins) or kCrashesInARow calls
// that crashed (each costs a fresh runner), its remaining cases are recorded as not run. The
// other exercises are not affected.
constexpr int kCrashesInARow = 5;
struct Trouble {
  bool hung = false;
  int crashes_in_a_row = 0;
  std::string last;
  bool told_computed_nan = false;  // the computed-NaN hint is given once an exercise, not once a case
};
std::map<std::string, Trouble>& trouble() {
  static std::map<std::string, Trouble> t;
  return t;
}

// What a hidden case may say: its outcome in words. Never its inputs, its output, or a message of
// the student's code (which could carry the inputs it was given).
std::string hidden_detail(const grader::CaseResult& r) {
  const auto has = [&](const char* what) { return r.detail.find(what) != std::string::npos; };
  std::string what;
  switch (r.outcome) {
    case grader::Outcome::Passed:
      return "";
    case grader::Outcome::Incorrect:
      what = has("wrote outside")         ? "wrote outside its output"
             : has("nothing was written") ? "nothing was written to the output"
                                          : "wrong result";
      break;
    case grader::Outcome::TooSlow:
      what = "too slow";
      break;
    case grader::Outcome::Crashed:
      what = has("did not finish") ? "did not finish" : "crashed";
      break;
    case grader::Outcome::Error:
      what = "the call failed with an error";
      break;
    case grader::Outcome::NotRun:
      what = has("skipped") ? "skipped after an earlier failure" : "not run";
      break;
  }
  // A failed allocation is said even here: `grader batch` runs a phase that ran out of GPU memory
  // beside other submissions again alone, and reads that from the cases' words.
  if ((r.outcome == grader::Outcome::Crashed || r.outcome == grader::Outcome::Error) && has("out of memory"))
    what += " after a device allocation failed: out of memory";
  return what + " (an instructor's hidden case: its inputs and messages are not shown)";
}

// The command that shows where a kernel goes wrong (grader check --sanitize: compute-sanitizer,
// each problem at its line of the student's file).
std::string sanitize_command(const std::string& exercise, const std::string& tool) {
  return "grader check " + config().name() + " --sanitize --exercise " + exercise +
         (tool.empty() ? "" : " --tool " + tool);
}

// A correctness case that failed runs once more on the same inputs (they come from the seed
// alone): an indexing error gives the same wrong elements again, a race (a missing barrier, an
// unsynchronised read or write) other ones, or none. The case says which it was, in its detail
// and as metrics.deterministic, and a race names the tool that finds it.
// A second call that never finishes counts as the first would (the exercise's later cases are
// skipped): a racy kernel that sometimes hangs costs one call timeout, not one per case.
void run_again(grader::CaseResult& r, const std::function<void(grader::CaseResult&)>& body, Trouble& t) {
  grader::CaseResult again;
  again.exercise = r.exercise;
  again.kind = r.kind;
  again.name = r.name;
  again.seed = r.seed;
  std::string other;
  try {
    body(again);
    if (again.outcome != r.outcome || again.detail != r.detail || again.metrics != r.metrics)
      other = again.outcome == grader::Outcome::Passed ? "a right result" : again.detail;
  } catch (const remote::CallFailed& e) {
    other = std::string(e.crashed ? "a crash: " : "an error: ") + e.what();
    if (e.hung) {
      t.hung = true;
      t.last = e.what();
    }
  } catch (const workbook::CudaError& e) {
    if (e.sticky()) throw;  // the context is gone: the caller stops the program, as for any fault
    other = std::string("an error: ") + e.what();
  } catch (const std::exception& e) {
    other = std::string("an error: ") + e.what();
  }
  r.metrics["deterministic"] = other.empty();
  if (other.empty()) return;
  if (other.size() > 160) other = other.substr(0, 157) + "...";
  r.detail += "\nNOT DETERMINISTIC: the same inputs gave another result on a second run (" + other +
              "). That is a race: a missing __syncthreads(), or threads reading what others write without one. "
              "Find its lines with: " +
              sanitize_command(r.exercise, "racecheck");
}

// {"case": ms since `started`, and each phase's ms (workbook/phases.hpp)}.
nlohmann::json time_spent(std::chrono::steady_clock::time_point started) {
  nlohmann::json t = {
      {"case", std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count()}};
  const workbook::PhaseTotals phases = workbook::take_phases();
  for (std::size_t i = 0; i < workbook::kPhases; ++i) t[workbook::kPhaseNames[i]] = phases[i];
  return t;
}

// The thresholds read by the case whose body is running (grading::threshold).
std::vector<std::string>* g_case_thresholds = nullptr;

grader::CaseResult run_case_impl(const std::string& exercise, const std::string& kind, const std::string& name,
                                 const std::function<void(grader::CaseResult&)>& body, bool hidden) {
  grader::CaseResult r;
  std::vector<std::string> thresholds;
  struct Current {
    explicit Current(std::vector<std::string>* t) { g_case_thresholds = t; }
    ~Current() { g_case_thresholds = nullptr; }
  } current(&thresholds);
  r.exercise = exercise;
  r.kind = kind;
  r.name = name;
  r.hidden = hidden;
  r.seed = seed();
  workbook::take_phases();  // what ran between cases is not this case's
  const auto started = std::chrono::steady_clock::now();
  bool fatal = false;
  bool remembered = false;  // t.last now holds this case's failure
  Trouble& t = trouble()[exercise];
  try {
    if (t.hung || t.crashes_in_a_row >= kCrashesInARow) {
      r.outcome = grader::Outcome::NotRun;
      r.detail = "skipped: " +
                 (t.hung ? "an earlier call of " + exercise + " did not finish"
                         : std::to_string(t.crashes_in_a_row) + " calls of " + exercise + " in a row crashed") +
                 ", so its other cases are not run (last: " + t.last + ")";
    } else {
      body(r);
      t.crashes_in_a_row = 0;
      if (r.outcome == grader::Outcome::Incorrect && kind == "correctness" && !hidden) {
        run_again(r, body, t);
        // Once an exercise: a beta * C epilogue makes every case NaN, and 38 copies of the same
        // paragraph bury the cases' own lines.
        if (r.metrics.value("deterministic", false) && r.detail.find(workbook::kComputedNan) != std::string::npos &&
            !std::exchange(t.told_computed_nan, true))
          r.detail +=
              "\nA NaN computed from memory nothing wrote? Outputs and scratch buffers start as NaN, so "
              "reading one before writing it (+= or a beta * term on the output) gives NaN, and so can a "
              "read past the end of an input. To find such a read: " +
              sanitize_command(exercise, "memcheck");
      }
    }
  } catch (const remote::CallFailed& e) {
    // The student's code failed in the runner: this case is charged, and nothing else (a crash
    // ended only the runner, which the next case starts afresh).
    r.outcome = e.crashed ? grader::Outcome::Crashed : grader::Outcome::Error;
    r.detail = e.what();
    if (e.crashed && !e.hung) r.detail += "\nTo find the line: " + sanitize_command(exercise, "memcheck");
    r.metrics = nlohmann::json::object();
    t.hung = t.hung || e.hung;
    t.crashes_in_a_row = e.crashed ? t.crashes_in_a_row + 1 : 0;
    t.last = e.what();
    remembered = true;
  } catch (const workbook::CudaError& e) {
    fatal = e.sticky();
    r.outcome = fatal ? grader::Outcome::Crashed : grader::Outcome::Error;
    r.detail = e.what();
    if (fatal)
      r.detail +=
          " (the kernel faulted: the CUDA context is lost, so the remaining cases cannot run)"
          "\nTo find the line: " +
          sanitize_command(exercise, "memcheck");
  } catch (const std::exception& e) {
    r.outcome = grader::Outcome::Error;
    r.detail = e.what();
  }
  if (!hidden) r.thresholds = thresholds;
  r.time_ms = time_spent(started);
  if (r.outcome == grader::Outcome::NotRun && r.detail.empty()) {  // a body that forgot to decide
    r.outcome = grader::Outcome::Error;
    r.detail = "internal: the test set no outcome";
  }
  if (hidden) {
    r.detail = hidden_detail(r);
    r.metrics = nlohmann::json::object();
    if (remembered) t.last = r.detail;  // a later case's "skipped" line must not quote it either
  }
  const auto& ctx = context();
  if (ctx.results) ctx.results->write(r);
  std::cout << "  [" << exercise << "/" << kind << "] " << name << ": " << grader::to_string(r.outcome)
            << (r.detail.empty() ? "" : " - " + r.detail) << std::endl;
  if (fatal) {
    std::cout << "stopping: a CUDA error left the context unusable\n" << std::flush;
    std::_Exit(70);
  }
  return r;
}

}  // namespace

grader::CaseResult run_case(const std::string& exercise, const std::string& kind, const std::string& name,
                            const std::function<void(grader::CaseResult&)>& body) {
  return run_case_impl(exercise, kind, name, body, false);
}

double threshold(const std::string& path) {
  const double value = config().require_number(path);
  if (g_case_thresholds &&
      std::find(g_case_thresholds->begin(), g_case_thresholds->end(), path) == g_case_thresholds->end())
    g_case_thresholds->push_back(path);
  return value;
}

grader::CaseResult run_hidden_case(const std::string& exercise, const std::string& kind, const std::string& prefix,
                                   const std::function<void(grader::CaseResult&)>& body) {
  static std::map<std::string, int> numbers;  // per exercise, kind and prefix: hidden case 1, 2, ...
  const int n = ++numbers[exercise + "/" + kind + "/" + prefix];
  return run_case_impl(exercise, kind, prefix + "hidden case " + std::to_string(n), body, true);
}

const std::vector<std::vector<int>>& hidden_shapes() { return config().hidden().shapes; }

}  // namespace grading
