#include "batch/batch.hpp"
#include "batch/build_template.hpp"
#include "batch/gpu_memory.hpp"
#include "batch/gpu_pool.hpp"
#include "batch/gpu_setup.hpp"
#include "batch/time_ledger.hpp"
#include "tree/build_tree.hpp"
#include "check/check.hpp"

#include "grader/test_program_env.hpp"
#include "grader/baseline_cache.hpp"
#include "grader/build_log.hpp"
#include "grader/file_lock.hpp"
#include "grader/files.hpp"
#include "grader/forbidden_api.hpp"
#include "grader/gradebook.hpp"
#include "grader/isolation.hpp"
#include "grader/process.hpp"
#include "grader/report.hpp"
#include "grader/results.hpp"
#include "grader/roster.hpp"
#include "grader/student_id.hpp"
#include "course/duplicates.hpp"
#include "course/lateness.hpp"
#include "course/lms.hpp"
#include "course/lms_export.hpp"
#include "course/rejudge.hpp"
#include "calibrate/calibrate.hpp"
#include "grader/sandbox.hpp"
#include "grader/time_spent.hpp"
#include "grader/submission.hpp"
#include "grader/utf8.hpp"
#include "grader/utf8_json.hpp"
#include "inspect/inspect.hpp"
#include "inspect/tools.hpp"
#include "workbook/device_query.hpp"
#include "workbook/random.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <iostream>
#include <map>
#include <mutex>
#include <set>
#include <thread>

namespace grader {
namespace fs = std::filesystem;

namespace {

std::atomic<bool> g_interrupted{false};
void on_signal(int) { g_interrupted = true; }

std::string format_duration(double s) {
  if (s < 90) return fmt::format("{:.0f} s", s);
  if (s < 5400) return fmt::format("{:.0f} min", s / 60);
  return fmt::format("{:.1f} h", s / 3600);
}

struct Phase {
  ProcessResult process;
  bool ran = false;
  int gpu = 0;                      // the pool's index of the GPU it ran on
  bool shared_with_others = false;  // another phase ran on that GPU beside it
  std::chrono::steady_clock::time_point from, to;
};

// One attempt of a phase (isolation.hpp may start a phase's program several times).
struct PhaseAttempt {
  bool shared = false;
  int gpu = 0;
  std::chrono::steady_clock::time_point from, to;
  std::string log_tail;
};

// One submission as it is graded: its folders, its result so far and where its time went.
struct Grading {
  explicit Grading(const Submission& submission) : s(submission) {}
  const Submission& s;
  StudentResult r;
  std::filesystem::path dir, src, build, run;
  StageTimes times;
  std::string model;                   // the GPU model it is graded on (the pool's): its thresholds
  std::string device;                  // the GPU's name, for its report
  std::set<int> gpus;                  // the pool's GPUs its phases ran on
  std::vector<PhaseAttempt> attempts;  // of the stage running now
  bool output_cut = false;
  std::string ran_alone;      // why its checks ran again alone ("out of GPU memory beside ..."), or ""
  double* stage_s = nullptr;  // the stage the running phase's time counts in (times.*)
  std::string memory_holder;  // the submission that held the GPU memory then (batch.json only)
};

using clock = std::chrono::steady_clock;
double seconds_since(clock::time_point t0) { return std::chrono::duration<double>(clock::now() - t0).count(); }

RunStatus status_of(const Phase& phase, const fs::path& log) {
  const auto& p = phase.process;
  if (p.timed_out) return {RunState::TimedOut, p.describe() + " (a kernel or a loop that never ends?)"};
  if (p.exit_code == 77) return {RunState::NoGpu, "no CUDA GPU was usable on the grading machine"};
  if (p.failed_to_start || p.killed_by_limit() || p.signal != 0 || (p.exit_code != 0 && p.exit_code != 1)) {
    const std::string what = p.exit_code == 70 ? "stopped after a CUDA error (the kernel faulted)" : p.describe();
    // The cap on output ends nothing (the middle is dropped, the program runs on): say so, lest
    // the cut be taken for the cause.
    const std::string cut = p.output_truncated ? " (its output was cut at its cap, which ends no program: the start "
                                                 "and the end are kept)"
                                               : "";
    return {RunState::Crashed, what + cut + ". End of its output:\n" + tail_of_file(log, 1500)};
  }
  return {};
}

// A completed run is passed or incomplete; any other state is the run's own (report.hpp).
std::string submission_status(const LabReport& report) {
  if (report.run.state != RunState::Completed) return to_string(report.run.state);
  return report.passed() ? "passed" : "incomplete";
}

class Batch {
public:
  Batch(const Paths& paths, const BatchOptions& o, LabConfig config, std::optional<Roster> roster,
        std::optional<course::LatePolicy> late, std::map<std::string, std::int64_t> times)
      : paths_(paths),
        o_(o),
        config_(std::move(config)),
        roster_(std::move(roster)),
        late_policy_(std::move(late)),
        times_(std::move(times)),
        times_rows_(times_.size()) {}

  int run();

private:
  // One submission's grading, in named stages, each timed into g.times; a stage returning false
  // ends the grading there (finish() has recorded why). Their input and output is the Grading:
  //   1. collect      the submission's editable files -> g.src (or rejected, missing file)
  //   2. build        g.src -> its programs in g.build (or build failed)
  //   3. correctness  the checks, GPU shared -> results.jsonl (run_checks)
  //   4. timed        the correct exercises' timed cases, GPU alone -> results.jsonl (run_timed)
  //   5. report       results.jsonl -> g.r: report, status, notes, feedback profile (report_run)
  // then record() writes the outputs (students/<id>.json, feedback, gradebook); a kept result is
  // judged again with today's configuration by earlier_result() instead of stages 1-5.
  StudentResult grade(const Submission& s);
  bool collect(Grading& g);
  bool build(Grading& g);
  void build_inspect(Grading& g);
  void run_tests(Grading& g);  // stages 3 to 5
  IsolatedRun run_checks(Grading& g, const fs::path& results);
  RunStatus run_timed(Grading& g, const fs::path& results, const RunStatus& checks);
  void report_run(Grading& g, const fs::path& results, const IsolatedRun& checks, const RunStatus& status);
  std::function<RunStatus(const std::string&)> phase(Grading& g, const std::string& name, bool exclusive);
  Phase run_phase(Grading& g, const fs::path& results, const std::string& filter, bool exclusive, const fs::path& log);
  Phase run_on_gpu(Grading& g, ProcessOptions p, bool exclusive);
  void finish(Grading& g, const std::string& status, const std::string& detail, RunStatus run_status) const;
  std::vector<std::string> configure_args() const;
  std::vector<std::string> configure_argv(const Grading& g) const;
  ProcessResult run_build_step(const Grading& g, const std::vector<std::string>& argv, const fs::path& log,
                               double timeout_s = 0) const;
  ProcessResult build_from_template(const Grading& g, const std::string& target, const fs::path& log,
                                    double timeout_s = 0);
  // The batch's build template (batch/build_template.hpp), configured once; said when it cannot be.
  void prepare_template();
  bool template_builds_starter(const fs::path& dir, std::string* why);
  void blame_memory_holder(Grading& g);
  std::optional<GpuMemoryWatch::Holder> memory_holder_beside(const Grading& g);
  // A note for a student's feedback found after its grading (or during): added, files written again.
  void add_note_later(const std::string& student, const std::string& note);
  void account(const Grading& g);
  // " GPU 2, waited 3.1 s" for the progress line where the batch grades on several GPUs (results_mutex_ held).
  std::string progress_gpu(const std::string& student) const;
  // run()'s stages, in order.
  void read_first_architecture();  // of the build's CMAKE_CUDA_ARCHITECTURES
  void merge_task_times();
  // lab.toml as a student was graded under: its GPU model's thresholds (batch.json), else the run's.
  const LabConfig& config_of(const std::string& student) const;
  std::vector<Submission> discover();  // the class's submissions (this task's, in a Slurm task)
  nlohmann::json choose_seed();
  void announce(std::size_t submissions, const std::string& why_no_gpu);  // the header; ncu found
  std::vector<Submission> to_grade(const std::vector<Submission>& submissions, const nlohmann::json& previous,
                                   std::size_t& kept_count);
  void calibrate_reference();  // the sequential baselines measured once (or found cached), timed
  void grade_all(const std::vector<Submission>& todo);
  int summarize(std::size_t kept_count);
  int workers() const;
  // The GPUs this run grades on (--gpus), each model's thresholds, the memory watch. Throws the
  // refusal of a node of two models where one has no thresholds of its own.
  void prepare_gpus();
  void record(StudentResult r);
  // The course's late rule applied to a result (kept or new): its `late`, from today's deadline,
  // the student's extension and the submission's time; nothing without a [deadline].
  void judge_lateness(StudentResult& r) const;
  // feedback/<id>.md and gradescope/<id>/results.json, rendered from a result (a kept one too,
  // rescored with today's configuration: every output says what the gradebook says).
  void write_student_files(const StudentResult& r);
  void write_gradebook();
  // similarity/: every graded student's editable files, one folder each, beside the starter's
  // (the code they were given), in the layout JPlag and MOSS take (instructor guide, section 6).
  void write_similarity_layout() const;
  nlohmann::json run_info() const;
  nlohmann::json gpus_json() const;  // the GPUs graded on, each with its model's thresholds
  // batch.json: the run's settings, and an unfinished regrade's students (for its resume).
  void write_meta() const;
  // Which students this run grades again: --regrade's, or what an interrupted run of the same
  // --regrade left (batch.json's "regrading"); said on stderr when it resumes one.
  std::set<std::string> students_to_regrade(const std::vector<Submission>& submissions, const nlohmann::json& previous);
  // The id a student is graded under, for an id given on the command line: itself, or the
  // course id of the student whose LMS id or e-mail it is (the run prints "201 is the LMS id
  // of sg"), or of whom it names an entry.
  std::string graded_as(const std::string& given) const {
    if (roster_)
      if (const auto id = roster_->id_of(given)) return *id;
    for (const auto& [id, entry] : entry_name_)
      if (entry == given) return id;
    return given;
  }
  // Whether an id given on the command line names `student`: graded_as, or the name of the
  // student's entry ("José Núñez" for the folder a Mac named so; every member of a Gradescope
  // group's submission_101).
  bool names(const std::string& given, const std::string& student) const {
    if (graded_as(given) == student) return true;
    const auto e = entries_.find(student);
    return e != entries_.end() && course::times_key(e->second) == course::times_key(given);
  }
  // record(), and where even that fails, the student recorded as the grader's error: one
  // student never stops the class.
  void record_or_report(StudentResult r);
  // --times ids that match no submission and no roster row, named (their times go unused).
  void warn_unmatched_times() const;
  // A student's kept result (students/<id>.json), scored again with today's configuration and
  // its student files written again from it; nothing when there is none or it cannot be read.
  std::optional<StudentResult> earlier_result(const std::string& id);
  // build_report with the run's words on where the thresholds come from (a machine profile).
  LabReport report_of(const std::vector<CaseResult>& results, const RunStatus& run, std::uint64_t seed,
                      const std::string& device, const std::vector<Plan>& plans = {}) const {
    LabReport report = build_report(config_, results, run, seed, device, plans);
    report.thresholds = o_.thresholds_note;
    return report;
  }
  // A kept result keeps the words on its thresholds where this run has none of its own (the
  // merge of a Slurm array, on a login node, says nothing of the nodes' profiles).
  LabReport rescored(const StudentResult& kept, const std::vector<CaseResult>& cases) const {
    LabReport report = report_of(cases, kept.report.run, kept.report.seed, kept.report.device);
    if (o_.thresholds_note.empty()) report.thresholds = kept.report.thresholds;
    return report;
  }
  std::string overrides_env(const std::string& model = "") const;  // the override files, absolute, ':'-separated
  // What every run of a test program here is told (grader/test_program_env.hpp): the seed, the
  // lab's lab.toml and the code's files; each run adds its own.
  TestProgramEnv test_env(const fs::path& source_dir) const {
    TestProgramEnv env;
    env.seed = seed_;
    env.config = paths_.lab_dir(config_.name()) / "lab.toml";
    env.source_dir = source_dir;
    return env;
  }
  // --feedback-profile: Nsight Compute's view of the submission's correct-but-slow exercises
  // (Markdown for its feedback), in the sandbox, beside the reference's; "" when none is slow.
  std::string profile_feedback(Grading& g, const LabReport& report);
  // The reference solution's profile of one exercise, measured once per run; null without one.
  const inspect::Profiled* reference_profile(const std::string& exercise);
  // A run with a GPU of `model` to itself (the gate's exclusive side), as the timed phases have it.
  ProcessResult run_alone(ProcessOptions p, const std::string& model);
  std::vector<fs::path> hidden_from_submission() const {
    return hidden_from_submissions(paths_, config_.name(), {fs::absolute(o_.submissions), fs::absolute(o_.out)});
  }
  std::vector<fs::path> shown_objects() const {
    const fs::path dir = fs::absolute(paths_.build_root) / "grader" / "labs" / config_.name() / "CMakeFiles";
    return {dir / (config_.name() + "-tests.dir"), dir / (config_.name() + "-remote-runner.dir")};
  }
  // The repository, the build and the baseline cache: shown read-only inside the sandbox even
  // where they live under /tmp, which the sandbox replaces with an empty one (a cache under /tmp
  // hidden so made every submission's timed phase measure the sequential baselines again: 279 s
  // summed over a class of 20 matmul-tiled submissions on an H100, whose calls took 3.8 s).
  std::vector<fs::path> base_folders() const {
    std::vector<fs::path> base = {fs::absolute(paths_.source_root), fs::absolute(paths_.build_root)};
    std::error_code error;
    if (const fs::path cache = fs::weakly_canonical(cache_dir(), error); !error && fs::is_directory(cache, error))
      base.push_back(cache);
    return base;
  }

  const Paths& paths_;
  const BatchOptions& o_;
  LabConfig config_;
  std::unique_ptr<GpuPool> pool_;  // the GPUs: one gate each (batch/gpu_pool.hpp)
  GpuSetup gpu_setup_;             // each model's thresholds (batch/gpu_setup.hpp)
  std::unique_ptr<GpuMemoryWatch> watch_;
  std::optional<BuildTemplate> template_;
  std::string template_target_;  // "runner", or "grade-submission" for a lab without one
  TimeLedger ledger_;
  std::map<std::string, LabConfig> model_configs_;               // per GPU model: lab.toml under its thresholds
  std::map<std::string, nlohmann::json> student_meta_;           // batch.json's "students" (results_mutex_)
  std::set<std::string> graded_now_;                             // recorded by this run (results_mutex_)
  std::map<std::string, std::vector<std::string>> later_notes_;  // for students not yet recorded
  Sandbox sandbox_;
  std::uint64_t seed_ = 0;
  std::string device_;
  std::string first_architecture_;  // of the build's CMAKE_CUDA_ARCHITECTURES
  fs::path work_, students_dir_;

  std::mutex results_mutex_;
  std::map<std::string, StudentResult> results_;   // every student graded so far, this run or before
  std::optional<Roster> roster_;                   // --roster
  std::set<std::string> submitted_;                // who has an entry in the submissions folder
  std::optional<course::LatePolicy> late_policy_;  // the course's [deadline]
  std::map<std::string, std::int64_t> times_;      // --times: by roster id, LMS id or submission name
  std::size_t times_rows_ = 0;                     // the ids --times gave (times_ gains the kept entries' ids)
  std::map<std::string, std::string> entry_name_;  // a student's submission as named in the folder (an LMS id)
  std::map<std::string, std::string> entries_;     // a student's kept entry's name (ClassSubmissions)
  std::set<std::string> entry_keys_;               // every entry's LMS id and name (ClassSubmissions)
  std::map<std::string, std::string> lms_name_;    // a student's name as the LMS download gives it
  // name_key -> (name, id) of the entries graded under an id on no roster row (discover)
  std::multimap<std::string, std::pair<std::string, std::string>> strangers_by_name_;
  std::set<std::string> in_progress_;
  std::vector<std::string> skipped_;  // entries of the submissions folder not graded, and why
  nlohmann::json regrading_;          // batch.json's "regrading": {"request", "pending"}
  // --feedback-profile
  inspect::Tool ncu_;
  bool profiling_ = false;
  std::atomic<bool> profile_refused_{false};  // the counters were refused: no more tries
  std::mutex reference_profiles_mutex_;
  std::map<std::string, inspect::Profiled> reference_profiles_;
  int done_ = 0, total_ = 0;
  std::chrono::steady_clock::time_point started_;
};

void Batch::write_meta() const {
  if (o_.task()) {  // the class's batch.json is the merging grader's; its students' times go to it
    write_atomically(o_.out / "slurm" / "times" / (o_.task_name + ".json"), dump_json(student_meta_));
    return;
  }
  nlohmann::json meta = run_info();
  if (regrading_.is_object()) meta["regrading"] = regrading_;
  // Where the time went: the class's totals over this run's submissions, and each student's.
  meta["time"] = ledger_.to_json(std::chrono::duration<double>(clock::now() - started_).count());
  meta["students"] = student_meta_;
  write_atomically(o_.out / "batch.json", dump_json(meta));
}

std::set<std::string> Batch::students_to_regrade(const std::vector<Submission>& submissions,
                                                 const nlohmann::json& previous) {
  std::set<std::string> asked;
  for (const auto& s : submissions)
    if (o_.regrade_all ||
        std::any_of(o_.regrade.begin(), o_.regrade.end(), [&](const std::string& id) { return names(id, s.student); }))
      asked.insert(s.student);
  if (asked.empty() || o_.task() || o_.merge_only) return asked;
  const nlohmann::json request = {{"all", o_.regrade_all}, {"students", o_.regrade}};
  const nlohmann::json earlier =
      previous.is_object() ? previous.value("regrading", nlohmann::json()) : nlohmann::json();
  std::set<std::string> todo = asked;
  if (earlier.is_object() && earlier.value("request", nlohmann::json()) == request && earlier["pending"].is_array()) {
    // The same regrade, interrupted: those it regraded are kept, the rest are graded now.
    std::set<std::string> pending;
    for (const auto& id : earlier["pending"])
      if (id.is_string()) pending.insert(id.get<std::string>());
    todo.clear();
    for (const auto& id : asked)
      if (pending.count(id)) todo.insert(id);
    std::cerr << fmt::format("resuming the interrupted {}: {} of {} regraded already (kept), {} to go\n",
                             o_.regrade_all ? "--regrade-all" : "--regrade", asked.size() - todo.size(), asked.size(),
                             todo.size());
  }
  regrading_ = {{"request", request}, {"pending", todo}};
  return todo;
}

void Batch::record_or_report(StudentResult r) {
  try {
    record(r);
    return;
  } catch (const std::exception& e) {
    StudentResult error;
    error.student = r.student;
    error.status = "grader error";
    error.detail = "the grader could not record this student's result (" + std::string(e.what()) +
                   "); it was: " + r.status + ". Fix the cause and run the batch again: it is graded again";
    error.report = report_of({}, {RunState::NotGraded, error.detail}, seed_, device_);
    error.graded_at = now_iso();
    try {
      record(error);
    } catch (const std::exception& again) {
      std::cerr << "grader error: " << r.student << ": the result could not be recorded: " << again.what() << '\n';
    }
  }
}

std::optional<StudentResult> Batch::earlier_result(const std::string& id) {
  const fs::path saved = students_dir_ / (id + ".json");
  if (!fs::exists(saved)) return std::nullopt;
  try {
    // Scored again with today's configuration (a changed point value or threshold applies to
    // everyone, not only to those graded after the change).
    StudentResult kept = student_from_json(nlohmann::json::parse(read_file(saved)));
    // "not run" ones too: they count. A timed case whose threshold changed since is judged
    // again from its kept measurement.
    int rejudged = 0;
    const std::vector<CaseResult> cases =
        course::rejudged(all_cases(kept.report), kept.thresholds, config_of(id), &rejudged);
    if (rejudged > 0)
      std::cerr << fmt::format("{}: {} timed case{} judged again by changed thresholds\n", id, rejudged,
                               rejudged == 1 ? "" : "s");
    if (kept.report.run.state == RunState::Completed || kept.report.run.state == RunState::Crashed ||
        kept.report.run.state == RunState::TimedOut) {
      kept.report = rescored(kept, cases);
      kept.status = submission_status(kept.report);
    } else {
      kept.report = rescored(kept, {});
    }
    judge_lateness(kept);
    // Rendered again, and its record too: a changed --times or deadline shows the same in
    // students/<id>.json as in the gradebook and the feedback.
    if (!o_.task()) write_atomically(saved, dump_json(to_json(kept)));
    write_student_files(kept);
    return kept;
  } catch (const std::exception&) {
    return std::nullopt;  // unreadable: graded again
  }
}

void Batch::warn_unmatched_times() const {
  if (!o_.times || times_.empty()) return;
  std::set<std::string> known = submitted_;
  known.insert(entry_keys_.begin(), entry_keys_.end());  // every entry's, the ignored ones' too
  if (roster_)
    for (const auto& e : roster_->students) {
      known.insert(course::times_key(e.id));
      if (!e.lms_id.empty()) known.insert(course::times_key(e.lms_id));
    }
  std::vector<std::string> strangers;
  for (const auto& [id, t] : times_)
    if (!known.count(id)) strangers.push_back(id);
  if (strangers.empty()) return;
  std::string list;
  for (std::size_t i = 0; i < strangers.size() && i < 10; ++i) list += (i ? ", " : "") + strangers[i];
  if (strangers.size() > 10) list += fmt::format(" and {} more", strangers.size() - 10);
  std::cerr << fmt::format(
      "warning: --times {}: {} of its {} ids match no submission and no roster row, so their "
      "times are not used{}: {}\n",
      o_.times->string(), strangers.size(), times_rows_,
      strangers.size() == times_rows_ ? " (none matches: no late penalty comes from this file; "
                                        "are its ids the course's, the LMS's or the entries' names?)"
                                      : "",
      list);
}

nlohmann::json Batch::run_info() const {
  return {{"lab", config_.name()},
          {"seed", seed_},
          {"device", device_},
          {"protection", sandbox_.describe()},
          {"thresholds", o_.thresholds_note},
          {"machine", machine_id()},
          {"gpus", gpus_json()},
          {"updated_at", now_iso()}};
}

nlohmann::json Batch::gpus_json() const {
  nlohmann::json gpus = nlohmann::json::array();
  if (!pool_) return gpus;
  for (const auto& g : pool_->gpus())
    if (!g.visible.empty()) {
      nlohmann::json entry = {{"ordinal", g.ordinal}, {"cuda_visible_devices", g.visible}, {"model", g.model}};
      if (const auto n = gpu_setup_.notes.find(g.model); n != gpu_setup_.notes.end() && !n->second.empty())
        entry["thresholds"] = n->second;
      gpus.push_back(std::move(entry));
    }
  return gpus;
}

void Batch::finish(Grading& g, const std::string& status, const std::string& detail, RunStatus run_status) const {
  g.r.report = report_of({}, run_status, seed_, device_);
  g.r.status = status;
  g.r.detail = detail;
}

StudentResult Batch::grade(const Submission& s) {
  Grading g{s};
  g.r.student = s.student;
  g.r.source = submission_fingerprint(s);
  g.dir = work_ / s.student;
  g.src = g.dir / "src";
  g.build = g.dir / "build";
  g.run = g.dir / "run";
  const auto t0 = clock::now();
  if (collect(g) && build(g)) {
    if (o_.build_only) {
      const std::string why =
          "built (--build-only): not run yet; the same command without --build-only, on a "
          "machine with a GPU, grades it";
      finish(g, "built", why, {RunState::NotGraded, why});
    } else {
      g.model = pool_->assign_model();
      struct Done {
        GpuPool& pool;
        const std::string& model;
        ~Done() { pool.finish_model(model); }
      } done{*pool_, g.model};
      run_tests(g);
    }
  }
  g.times.total_s = seconds_since(t0);
  g.r.seconds = g.times.total_s;
  g.r.graded_at = now_iso();
  account(g);
  return g.r;
}

// 1. The lab's editable files, and nothing else.
bool Batch::collect(Grading& g) {
  const auto t0 = clock::now();
  struct Timed {
    double& into;
    clock::time_point t0;
    ~Timed() { into += seconds_since(t0); }
  } timed{g.times.collect_s, t0};
  const Collected files = collect_files(
      g.s, config_.files(), g.src, {},
      lab_allowed_includes(paths_.lab_dir(config_.name()), config_.files(), paths_.source_root / "common" / "include"));
  g.r.notes = g.s.notes;  // how its entry was chosen or named (course/duplicates.hpp), then what was taken from it
  g.r.notes.insert(g.r.notes.end(), files.notes.begin(), files.notes.end());
  if (files.rejected) {
    finish(g, "rejected", files.reason, {RunState::NotGraded, files.reason});
    return false;
  }
  if (!files.missing.empty()) {
    std::string list;
    for (const auto& m : files.missing) list += (list.empty() ? "" : ", ") + m;
    const std::string why = "missing file: " + list + " (a submission holds the lab's files under their starter names)";
    finish(g, "missing file", why, {RunState::NotGraded, why});
    return false;
  }
  // What the leaderboard refuses (a library loaded at run time, a thread ...), named in the
  // feedback; the points come from the tests, in a sandbox without the vendor libraries.
  for (auto& note : forbidden_api_notes(g.src.string(), config_.files())) g.r.notes.push_back(std::move(note));
  return true;
}

// 2. Build them in their own folder against this build's tests: the batch's template's commands
// (batch/build_template.hpp), or where there is none a configure of its own.
bool Batch::build(Grading& g) {
  const auto t0 = clock::now();
  fs::create_directories(g.build);
  ProcessResult built;
  bool configured = true;
  if (template_) {
    built = build_from_template(g, "runner-or-program", g.dir / "compile.log");
  } else {
    const auto c0 = clock::now();
    built = run_build_step(g, configure_argv(g), g.dir / "build.log");
    g.times.configure_s = seconds_since(c0);
    configured = built.ok();
    if (configured)
      built = run_build_step(g, {paths_.cmake.string(), "--build", g.build.string(), "-j", "2"}, g.dir / "compile.log");
  }
  if (built.ok() && o_.build_only && o_.feedback_profile) build_inspect(g);
  g.times.build_s = seconds_since(t0);
  if (g_interrupted) throw std::runtime_error("interrupted");
  if (built.ok()) return true;
  if (configured) {
    const std::string errors = compiler_errors(read_file(g.dir / "compile.log"), g.src);
    finish(g, "build failed", errors, {RunState::BuildFailed, errors});
  } else {
    const std::string why =
        "configuring the build failed (" + built.describe() + "):\n" + tail_of_file(g.dir / "build.log", 2000);
    finish(g, "grader error", why, {RunState::BuildFailed, why});
  }
  return false;
}

// --build-only --feedback-profile: the program Nsight Compute will profile, built now too (a later
// run on a GPU finds it; a machine without one shows that it builds).
void Batch::build_inspect(Grading& g) {
  const fs::path log = g.dir / "inspect-build.log";
  const ProcessResult built =
      template_ ? build_from_template(g, "inspect", log)
                : run_build_step(
                      g, {paths_.cmake.string(), "--build", g.build.string(), "--target", "inspect", "-j", "2"}, log);
  if (!built.ok())
    g.r.notes.push_back("the program to profile (--feedback-profile) did not build (" + built.describe() + "; " +
                        log.string() + ")");
}

std::vector<std::string> Batch::configure_argv(const Grading& g) const {
  std::vector<std::string> argv = {paths_.cmake.string(),
                                   "-S",
                                   (paths_.source_root / "grader" / "batch").string(),
                                   "-B",
                                   g.build.string(),
                                   "-DSUBMISSION_DIR=" + g.src.string()};
  for (auto& a : configure_args()) argv.push_back(std::move(a));
  return argv;
}

std::vector<std::string> Batch::configure_args() const {
  std::string sources;
  for (const auto& f : config_.files()) sources += (sources.empty() ? "" : ";") + f;
  std::vector<std::string> args = {"-G", "Ninja", "-DWORKBOOK_BUILD_ROOT=" + paths_.build_root.string(),
                                   "-DLAB=" + config_.name(), "-DSOURCES=" + sources};
  // Device code for this machine's GPUs only: it is where the submission runs, and one
  // architecture compiles several times faster than the build's portable list. Without a GPU
  // (nothing will run), the first architecture of the build's list.
  if (!device_.empty())
    args.push_back("-DCMAKE_CUDA_ARCHITECTURES=native");
  else if (!first_architecture_.empty())
    args.push_back("-DCMAKE_CUDA_ARCHITECTURES=" + first_architecture_);
  return args;
}

// A build step in the sandbox: the compiler reads only what any submission could see, never
// another student's work, and writes only the build folder.
ProcessResult Batch::run_build_step(const Grading& g, const std::vector<std::string>& argv, const fs::path& log,
                                    double timeout_s) const {
  std::vector<fs::path> shown = {g.src};
  for (const auto& d : shown_objects())
    if (fs::exists(d)) shown.push_back(d);
  ProcessOptions p;
  p.argv = sandbox_.wrap(argv, {g.build}, hidden_from_submission(), shown, base_folders());
  p.output_file = log;
  p.timeout_s = timeout_s > 0 ? timeout_s : o_.build_timeout_s;
  p.cancel = &g_interrupted;
  p.limits.output_bytes = 1 << 20;
  p.cwd = g.build;
  return run_process(p);
}

// `target`: "runner-or-program" is what the batch project builds by default (the runner, or the
// submission's own test program); else a target's name ("inspect").
ProcessResult Batch::build_from_template(const Grading& g, const std::string& target, const fs::path& log,
                                         double timeout_s) {
  std::string why;
  const std::string name = target != "runner-or-program" ? target : template_target_;
  const auto recipe = template_->recipe(name, g.src, g.build, &why);
  if (!recipe) {
    ProcessResult failed;
    failed.failed_to_start = true;
    failed.start_error = why;
    write_atomically(log, "grader batch could not build from its template: " + why + "\n");
    return failed;
  }
  for (const auto& [from, to] : recipe->copies) {
    fs::create_directories((g.build / to).parent_path());
    fs::copy_file(from, g.build / to, fs::copy_options::overwrite_existing);
  }
  write_atomically(g.build / ("build-" + name + ".sh"), recipe->script);
  return run_build_step(g, {"/bin/sh", (g.build / ("build-" + name + ".sh")).string()}, log, timeout_s);
}

// 3-5. Run: correctness and static checks (GPU shared), then the timed cases (GPU alone), then
// the report of what they recorded.
void Batch::run_tests(Grading& g) {
  fs::remove_all(g.run);
  fs::create_directories(g.run);
  // The results go to a file outside the sandbox's view, handed to the test program as a
  // descriptor: nothing in the sandbox can find it by name (results.hpp).
  const fs::path results = g.dir / "results.jsonl";
  fs::remove(results);
  const IsolatedRun checks = run_checks(g, results);
  const RunStatus status = run_timed(g, results, checks.status);
  report_run(g, results, checks, status);
}

// 4. The timed cases of the exercises whose checks were all right, the GPU alone; the run's
// status (the checks' where nothing was timed).
RunStatus Batch::run_timed(Grading& g, const fs::path& results, const RunStatus& checks) {
  RunStatus status = checks;
  if (status.state == RunState::Completed) {
    // Only correct exercises are timed: the GPU is the batch's one serial resource.
    const auto exercises = exercises_to_time(config_, read_results(results));
    if (!exercises.empty()) status = run_isolated(timed_filter(exercises), results, phase(g, "timed", true)).status;
  }
  return status;
}

// 5. The submission's report from what its test program recorded, with the notes of its runs
// and, with --feedback-profile, Nsight Compute's view of its slow exercises.
void Batch::report_run(Grading& g, const fs::path& results, const IsolatedRun& checks, const RunStatus& status) {
  if (!checks.ended_in.empty())
    g.r.notes.push_back("the test program ended abnormally in " + checks.ended_in.front() +
                        "; the exercises after it ran again in a fresh process");
  if (g_interrupted) throw std::runtime_error("interrupted");
  if (g.output_cut)
    g.r.notes.push_back(
        "the program's output was cut at 4 MiB: its start and its end are in the log, the middle was "
        "dropped unread, and the program ran on (the grade comes from its results, not its output)");
  const auto cases = read_results(results);
  g.r.report = report_of(cases, status, seed_, g.device.empty() ? device_ : g.device, read_plans(results));
  g.r.report.time = sum_case_times(cases, g.times.build_s, g.times.correctness_s + g.times.timed_s + g.times.rerun_s);
  g.times.cases = *g.r.report.time;
  if (const auto note = gpu_setup_.notes.find(g.model); note != gpu_setup_.notes.end() && gpu_setup_.notes.size() > 1)
    g.r.report.thresholds = note->second;
  if (const auto c = model_configs_.find(g.model); c != model_configs_.end())
    g.r.thresholds = course::threshold_values(c->second);  // what judged it, for a resume's rejudging
  g.r.status = submission_status(g.r.report);
  g.r.detail = status.detail;
  if (profiling_ && !profile_refused_) {
    const auto p0 = clock::now();
    g.r.profile = profile_feedback(g, g.r.report);
    g.times.profile_s = seconds_since(p0);
  }
  if (g_interrupted) throw std::runtime_error("interrupted");
}

// Each phase isolated (isolation.hpp): a test program that ends abnormally is started again
// for the exercises it had not reached, so one exercise's crash costs no other's points.
std::function<RunStatus(const std::string&)> Batch::phase(Grading& g, const std::string& name, bool exclusive) {
  const fs::path results = g.dir / "results.jsonl";
  return [this, &g, name, exclusive, results, attempt = 0](const std::string& filter) mutable {
    g.stage_s = name == "timed" ? &g.times.timed_s : exclusive ? &g.times.rerun_s : &g.times.correctness_s;
    const fs::path log = g.run / (name + (attempt++ ? "-" + std::to_string(attempt) : "") + ".log");
    const Phase p = run_phase(g, results, filter, exclusive, log);
    g.output_cut = g.output_cut || p.process.output_truncated;
    RunStatus status = status_of(p, log);
    g.attempts.push_back({p.shared_with_others, p.gpu, p.from, p.to, tail_of_file(log, 64 << 10)});
    return status;
  };
}

// 3. The correctness and static phases, beside other submissions on the GPU; run again alone when
// they ran out of GPU memory or crashed while others shared it (one student's memory costs no one
// else: a process started beside a hog can fail in its CUDA start-up with no word of memory).
IsolatedRun Batch::run_checks(Grading& g, const fs::path& results) {
  g.attempts.clear();
  IsolatedRun checks = run_isolated(kUntimedCases, results, phase(g, "checks", false));
  std::string ended_how = checks.status.detail;
  for (const auto& a : g.attempts) ended_how += "\n" + a.log_tail;
  const bool shared = std::any_of(g.attempts.begin(), g.attempts.end(), [](const PhaseAttempt& a) { return a.shared; });
  const bool abnormal = checks.status.state == RunState::Crashed || !checks.ended_in.empty();
  const std::vector<CaseResult> recorded = shared ? read_results(results) : std::vector<CaseResult>{};
  std::string why = shared ? reason_to_run_alone(recorded, ended_how, abnormal) : "";
  if (why == "crashed" && watch_ && watch_->enabled() && !memory_holder_beside(g))
    why = reason_to_run_alone(recorded, ended_how, abnormal, /*memory_held_beside=*/false);
  if (g_interrupted || why.empty()) return checks;
  blame_memory_holder(g);
  fs::remove(results);  // what the crowded run recorded is not the submission's result
  g.r.notes.push_back("its tests " + std::string(why == "crashed" ? "crashed" : "ran out of GPU memory") +
                      " while other submissions shared the GPU: they ran again with the GPU to themselves, "
                      "and this is that run's result");
  g.ran_alone = why + " beside other submissions";
  g.attempts.clear();
  return run_isolated(kUntimedCases, results, phase(g, "checks-alone", true));
}

// The submission whose processes held the most GPU memory (kHogMiB or more) beside g's phase
// attempts, as the watch saw it; nullopt when none did, or nobody watched.
std::optional<GpuMemoryWatch::Holder> Batch::memory_holder_beside(const Grading& g) {
  if (!watch_ || !watch_->enabled()) return std::nullopt;
  watch_->sample();  // now too: a phase shorter than the watch's period may have no sample of its own
  const auto now = clock::now();
  std::optional<GpuMemoryWatch::Holder> worst;
  for (const auto& a : g.attempts)
    if (const auto h =
            watch_->largest_beside(g.r.student, a.gpu, a.from - std::chrono::seconds(2), std::max(a.to, now));
        h && (!worst || h->peak_mib > worst->peak_mib))
      worst = h;
  return worst;
}

// The submission whose processes held the most memory beside an out-of-memory failure, told so
// in its own feedback (and the victim's entry in batch.json names it for the instructor).
void Batch::blame_memory_holder(Grading& g) {
  const auto worst = memory_holder_beside(g);
  if (!worst) return;
  g.memory_holder = worst->student;
  add_note_later(worst->student,
                 fmt::format("while its tests ran, its processes held up to {:.1f} GiB of the GPU's memory, and a "
                             "submission sharing that GPU ran out of memory (it was graded again alone, so it lost "
                             "nothing): free what the code allocates, and allocate no more than the lab needs",
                             worst->peak_mib / 1024.0));
}

namespace {

// An exercise whose every other check passed and whose timed cases were too slow.
bool correct_but_slow(const ExerciseReport& e) {
  bool slow = false;
  for (const auto& k : e.kinds)
    for (const auto& c : k.cases) {
      if (c.outcome == Outcome::TooSlow)
        slow = true;
      else if (!c.passed() && k.kind != "performance")
        return false;
    }
  return slow;
}

}  // namespace

const inspect::Profiled* Batch::reference_profile(const std::string& exercise) {
  std::lock_guard<std::mutex> lock(reference_profiles_mutex_);
  if (const auto it = reference_profiles_.find(exercise); it != reference_profiles_.end()) return &it->second;
  const fs::path program = inspect::inspect_program(paths_, config_.name(), true);
  if (!paths_.has_reference(config_.name()) || !fs::exists(program)) return nullptr;
  const fs::path timing = o_.out / "profile-timing.toml";
  write_atomically(timing, inspect::kOneCallPerCase);
  std::string overrides = overrides_env();
  overrides += (overrides.empty() ? "" : ":") + fs::absolute(timing).string();
  // The reference is the project's own code: run as it is, not in the sandbox, the GPU alone.
  const inspect::RunTool direct = [&](const std::vector<std::string>& argv, const fs::path& log) {
    ProcessOptions p;
    p.argv = argv;
    TestProgramEnv env = test_env(paths_.solution_dir(config_.name()));
    env.overrides = overrides;
    p.set_env = test_program_env(env);
    p.output_file = log;
    p.timeout_s = o_.feedback_profile_s;
    p.cancel = &g_interrupted;
    return run_alone(p, "");
  };
  std::vector<std::string> ids = inspect::profile_metric_ids(config_, exercise);
  inspect::Profiled profiled = inspect::profile_kernels(
      ncu_.path, direct, program, inspect::kernels_of(paths_.solution_dir(config_.name()), config_.files()),
      "[" + exercise + "][performance]", ids, o_.out / ("profile-reference-" + exercise + ".csv"));
  return &reference_profiles_.emplace(exercise, std::move(profiled)).first->second;
}

std::string Batch::profile_feedback(Grading& g, const LabReport& report) {
  const fs::path& dir = g.dir;
  std::vector<std::string> slow;
  for (const auto& e : report.exercises)
    if (correct_but_slow(e) && !inspect::profile_metric_ids(config_, e.name).empty()) slow.push_back(e.name);
  if (slow.empty()) return {};
  const auto t0 = std::chrono::steady_clock::now();
  const auto left = [&] {
    return o_.feedback_profile_s - std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  const fs::path src = dir / "src", build = dir / "build", run = dir / "run";
  const std::vector<fs::path> hidden = hidden_from_submission();
  std::vector<fs::path> shown = {src};
  for (const auto& d : shown_objects())
    if (fs::exists(d)) shown.push_back(d);

  // The submission's code with the tests in one process, built in the sandbox like its runner.
  const fs::path log = dir / "inspect-build.log";
  const ProcessResult built =
      template_
          ? build_from_template(g, "inspect", log, std::max(10.0, left()))
          : run_build_step(g, {paths_.cmake.string(), "--build", build.string(), "--target", "inspect", "-j", "2"}, log,
                           std::max(10.0, left()));
  if (!built.ok())
    return fmt::format("Not profiled: the program to profile did not build ({}; {}).\n", built.describe(),
                       log.string());
  fs::create_directories(run);
  const fs::path timing = run / "profile-timing.toml";
  write_atomically(timing, inspect::kOneCallPerCase);
  std::string overrides = overrides_env(g.model);
  overrides += (overrides.empty() ? "" : ":") + timing.string();

  std::string md;
  for (const auto& exercise : slow) {
    const double budget = left();
    if (budget < 10) {
      md += fmt::format("### {}\n\nNot profiled: this submission's profiling time ({:.0f} s) was spent.\n\n", exercise,
                        o_.feedback_profile_s);
      continue;
    }
    // ncu runs the submission's code: in the sandbox, as its tests do, and alone on the GPU.
    const inspect::RunTool sandboxed = [&](const std::vector<std::string>& argv, const fs::path& log) {
      SandboxedRun sr;
      sr.argv = argv;
      sr.run_dir = run;
      sr.readable = {src, build};
      for (const auto& path : o_.overrides) sr.readable.push_back(fs::absolute(path));
      sr.hidden = hidden;
      sr.base = base_folders();
      TestProgramEnv env = test_env(src);
      env.cache_dir = cache_dir();
      env.overrides = overrides;
      sr.env = test_program_env(env);
      sr.log = log;
      sr.timeout_s = budget;
      sr.limits.memory_bytes = o_.memory_bytes;
      sr.limits.max_processes = o_.max_processes;
      sr.limits.output_bytes = 16 << 20;
      ProcessOptions p = sandboxed_process(sandbox_, sr);
      p.cancel = &g_interrupted;
      return run_alone(p, g.model);
    };
    std::vector<std::string> ids = inspect::profile_metric_ids(config_, exercise);
    const inspect::Profiled mine =
        inspect::profile_kernels(ncu_.path, sandboxed, build / "inspect", inspect::kernels_of(src, config_.files()),
                                 "[" + exercise + "][performance]", ids, run / ("profile-" + exercise + ".csv"));
    if (mine.failure.find("ERR_NVGPUCTRPERM") != std::string::npos) {
      if (!profile_refused_.exchange(true))
        std::cerr << "\nfeedback profiles: stopped: " << mine.failure << " (in the sandbox, as the submissions run)\n";
      return {};
    }
    md += inspect::profile_markdown(exercise, ids, mine, mine.failure.empty() ? reference_profile(exercise) : nullptr);
    md += "\n";
  }
  return md;
}

Phase Batch::run_phase(Grading& g, const fs::path& results, const std::string& filter, bool exclusive,
                       const fs::path& log) {
  // Inside the sandbox, the submissions and the results are hidden; this submission's own
  // sources and program are shown read-only, its scratch folder read-write.
  const SubmissionProgram program = submission_program(paths_, config_.name(), g.build);
  SandboxedRun sr;
  sr.argv = {program.program.string(), filter};
  sr.run_dir = g.run;
  sr.readable = {g.src, g.build};
  if (program.program.parent_path() != g.build) sr.readable.push_back(fs::absolute(program.program));  // the harness
  for (const auto& path : o_.overrides) sr.readable.push_back(fs::absolute(path));
  sr.hidden = hidden_from_submission();
  sr.base = base_folders();
  TestProgramEnv env = test_env(g.src);
  env.cache_dir = cache_dir();
  env.overrides = overrides_env(g.model);
  env.untimed = untimed_spec(filter);
  sr.log = log;
  sr.timeout_s = o_.run_timeout_s.value_or(config_.timeout_s());
  env.phase_timeout_s = sr.timeout_s;  // bounds the call timeout (test_main)
  // The cap on file size binds the submission's code (the runner), not the harness, whose arena
  // (a memfd) holds a call's host data: kmeans' 256 MB of objects, more than the cap.
  env.runner_file_bytes = 256ull << 20;
  sr.limits.memory_bytes = o_.memory_bytes;
  sr.limits.max_processes = o_.max_processes;
  sr.limits.output_bytes = 4 << 20;
  env.runner = program.runner;
  const int results_fd = ::open(results.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (results_fd < 0) throw std::runtime_error("cannot write " + results.string());
  env.results_fd = results_fd;
  sr.env = test_program_env(env);
  ProcessOptions p = sandboxed_process(sandbox_, sr);
  p.cancel = &g_interrupted;
  p.pass_fds[results_fd] = results_fd;

  Phase phase = run_on_gpu(g, p, exclusive);
  ::close(results_fd);
  *g.stage_s += phase.process.seconds;
  // Under bubblewrap the program is bwrap's child, and bwrap exits with 128 + the signal that
  // killed it, as a shell does: report the signal.
  auto& r = phase.process;
  if (sandbox_.kind() == Sandbox::Kind::Bubblewrap && r.signal == 0 && r.exit_code > 128 && r.exit_code < 128 + 65) {
    r.signal = r.exit_code - 128;
    r.exit_code = -1;
  }
  phase.ran = true;
  return phase;
}

// A process on one GPU of the submission's model (the pool's least busy that admits it), seen
// by the process as its only GPU; the wait for it is the submission's "waiting for the GPU".
Phase Batch::run_on_gpu(Grading& g, ProcessOptions p, bool exclusive) {
  const GpuPool::Lease lease = pool_->acquire(g.model, exclusive);
  struct Release {
    GpuPool& pool;
    const GpuPool::Lease& lease;
    ~Release() { pool.release(lease); }
  } release{*pool_, lease};
  g.times.gpu_wait_s += lease.waited_s;
  const GpuSlot& slot = pool_->gpus()[lease.gpu];
  if (!slot.visible.empty()) p.set_env["CUDA_VISIBLE_DEVICES"] = slot.visible;
  g.gpus.insert(lease.gpu);
  if (!slot.visible.empty()) g.device = slot.shown();
  std::optional<int> root;
  if (watch_ && !exclusive) {
    p.on_start = [&](int pid) {
      root = pid;
      watch_->started(pid, g.r.student, lease.gpu);
    };
  }
  Phase phase;
  phase.gpu = lease.gpu;
  phase.from = clock::now();
  phase.process = run_process(p);
  phase.to = clock::now();
  if (root) watch_->ended(*root);
  phase.shared_with_others = lease.shared_with_others();
  return phase;
}

// A run with a GPU of `model` to itself (the gate's exclusive side), as the timed phases have it.
ProcessResult Batch::run_alone(ProcessOptions p, const std::string& model) {
  const GpuPool::Lease lease = pool_->acquire(model, true);
  struct Release {
    GpuPool& pool;
    const GpuPool::Lease& lease;
    ~Release() { pool.release(lease); }
  } release{*pool_, lease};
  if (const auto& v = pool_->gpus()[lease.gpu].visible; !v.empty()) p.set_env["CUDA_VISIBLE_DEVICES"] = v;
  return run_process(p);
}

// What batch.json says of a submission graded in this run: its GPU(s) and where its time went.
void Batch::account(const Grading& g) {
  ledger_.add(g.times);
  nlohmann::json entry = {{"time", to_json(g.times)}, {"status", g.r.status}};
  nlohmann::json gpus = nlohmann::json::array();
  for (const int i : g.gpus) {
    const GpuSlot& slot = pool_->gpus()[i];
    if (!slot.visible.empty())
      gpus.push_back({{"ordinal", slot.ordinal}, {"cuda_visible_devices", slot.visible}, {"model", slot.model}});
  }
  if (!gpus.empty()) entry["gpus"] = gpus;
  if (!g.model.empty()) entry["model"] = g.model;
  if (!g.ran_alone.empty()) entry["checks_ran_again_alone"] = g.ran_alone;
  if (!g.memory_holder.empty()) entry["gpu_memory_held_by"] = g.memory_holder;
  std::lock_guard<std::mutex> l(results_mutex_);
  student_meta_[g.r.student] = std::move(entry);
}

std::string Batch::progress_gpu(const std::string& student) const {
  const auto it = student_meta_.find(student);
  if (!pool_ || pool_->gpus().size() < 2 || it == student_meta_.end() || !it->second.contains("gpus")) return "";
  std::string gpus;
  for (const auto& g : it->second["gpus"]) gpus += (gpus.empty() ? "" : ",") + std::to_string(g.value("ordinal", 0));
  return fmt::format("  GPU {}, waited {:.1f} s", gpus, it->second["time"].value("gpu_wait_s", 0.0));
}

void Batch::add_note_later(const std::string& student, const std::string& note) {
  std::optional<StudentResult> again;
  {
    std::lock_guard<std::mutex> l(results_mutex_);
    if (graded_now_.count(student) && results_.count(student)) {
      again = results_[student];
      again->notes.push_back(note);
    } else {
      later_notes_[student].push_back(note);
    }
  }
  if (again) record_or_report(*again);  // its files written again, with the note
}

void Batch::write_student_files(const StudentResult& r) {
  if (o_.task()) return;  // the submitting grader renders them, from every task's results
  write_atomically(o_.out / "feedback" / (r.student + ".md"), to_valid_utf8(feedback_markdown(r)));
  write_atomically(o_.out / "gradescope" / r.student / "results.json",
                   dump_json(gradescope_json(r, gradescope_visibility(config_))));
}

void Batch::judge_lateness(StudentResult& r) const {
  r.late.reset();
  if (!late_policy_) return;
  // The time, keyed in --times by the course's id, the LMS id or the submission's name.
  std::vector<std::string> keys = {r.student};
  if (const auto e = entry_name_.find(r.student); e != entry_name_.end()) keys.push_back(e->second);
  std::string extension;
  if (roster_)
    for (const auto& e : roster_->students)
      if (e.id == r.student) {
        extension = e.extension;
        if (!e.lms_id.empty()) keys.push_back(e.lms_id);
      }
  std::optional<std::int64_t> at;
  for (const auto& key : keys)
    if (const auto t = times_.find(course::times_key(key)); t != times_.end() && !at) at = t->second;
  const auto l = course::assess(*late_policy_, at, extension, r.report.points_earned, r.report.points_possible);
  r.late = StudentResult::Late{
      l.known ? course::format_time(l.submitted) : "", l.late_s / 3600.0, l.days, l.percent, l.final_points, l.why};
}

void Batch::record(StudentResult r) {
  {
    std::lock_guard<std::mutex> lock(results_mutex_);
    if (const auto it = later_notes_.find(r.student); it != later_notes_.end()) {
      r.notes.insert(r.notes.end(), it->second.begin(), it->second.end());
      later_notes_.erase(it);
    }
  }
  judge_lateness(r);
  if (r.thresholds.empty()) r.thresholds = course::threshold_values(config_);  // what judged it
  // The kept result first, then what is rendered from it, each atomic; the gradebook after, from
  // everything so far.
  write_atomically(students_dir_ / (r.student + ".json"), dump_json(to_json(r)));
  write_student_files(r);
  std::vector<std::string> later;  // notes that came while it was written (add_note_later)
  {
    std::lock_guard<std::mutex> lock(results_mutex_);
    results_[r.student] = r;
    graded_now_.insert(r.student);
    if (const auto it = later_notes_.find(r.student); it != later_notes_.end()) {
      later = std::move(it->second);
      later_notes_.erase(it);
    }
    if (regrading_.is_object() && regrading_["pending"].is_array()) {  // a regrade's progress, for its resume
      auto& pending = regrading_["pending"];
      pending.erase(std::remove(pending.begin(), pending.end(), nlohmann::json(r.student)), pending.end());
    }
    write_meta();
    write_gradebook();
  }
  if (!later.empty()) {
    r.notes.insert(r.notes.end(), later.begin(), later.end());
    record(std::move(r));
  }
}

void Batch::write_gradebook() {
  if (o_.task()) return;  // the submitting grader writes the class's files, from every task's
  std::vector<StudentResult> all;
  for (const auto& [id, r] : results_) all.push_back(r);
  // Everyone on the roster has a row: nothing submitted is a row too (not kept, not graded).
  if (roster_)
    for (const auto& e : roster_->students)
      if (!results_.count(e.id) && !submitted_.count(e.id)) {
        StudentResult none;
        none.student = e.id;
        none.status = "no submission";
        none.detail = "nothing was submitted" + (e.name.empty() ? std::string() : " by " + e.name);
        std::vector<std::string> maybe;  // never a silent "no submission": what may be theirs
        // An entry of the same name graded under a made id (a name two students share).
        const auto [from, to] = strangers_by_name_.equal_range(e.name.empty() ? "" : name_key(e.name));
        for (auto it = from; it != to; ++it)
          if (const auto& [name, id] = it->second; results_.count(id))
            maybe.push_back(fmt::format("the entry '{}', graded as {}, has this name: if it is theirs, rename it to {}",
                                        name, id, e.id));
        if (!skipped_.empty())
          maybe.push_back(fmt::format(
              "{} entr{} of the submissions folder {} skipped (results.json's \"skipped\"): is one of them theirs?",
              skipped_.size(), skipped_.size() == 1 ? "y" : "ies", skipped_.size() == 1 ? "was" : "were"));
        for (std::size_t i = 0; i < maybe.size(); ++i) none.detail += (i ? "; " : " under this id; ") + maybe[i];
        none.report = report_of({}, {RunState::NotGraded, none.detail}, seed_, device_);
        all.push_back(std::move(none));
      }
  std::sort(all.begin(), all.end(),
            [](const StudentResult& a, const StudentResult& b) { return a.student < b.student; });
  write_atomically(o_.out / "gradebook.csv", to_valid_utf8(gradebook_csv(config_, all)));
  // The grades in the shapes Canvas's and Moodle's gradebook imports take (course/lms_export.hpp).
  std::vector<course::GradeRow> rows;
  for (const auto& r : all) {
    course::GradeRow row{r.student, "", "", r.final_points(), r.status};
    if (const auto n = lms_name_.find(r.student); n != lms_name_.end()) row.name = n->second;
    if (const auto e = entry_name_.find(r.student); e != entry_name_.end() && e->second != r.student)
      row.lms_id = e->second;
    if (roster_)
      for (const auto& e : roster_->students)
        if (e.id == r.student) {
          if (!e.name.empty()) row.name = e.name;
          if (!e.lms_id.empty()) row.lms_id = e.lms_id;
        }
    if (row.lms_id.empty() && o_.from != "folders") row.lms_id = r.student;  // graded under the LMS's own id
    rows.push_back(std::move(row));
  }
  const std::string column = o_.lms_assignment.empty() ? config_.name() : o_.lms_assignment;
  write_atomically(o_.out / "canvas.csv", to_valid_utf8(course::canvas_csv(rows, column)));
  write_atomically(o_.out / "moodle.csv", to_valid_utf8(course::moodle_csv(rows, column)));
  nlohmann::json info = run_info();
  if (!skipped_.empty()) info["skipped"] = skipped_;
  write_atomically(o_.out / "results.json", dump_json(results_json(config_, all, info)));
}

void Batch::write_similarity_layout() const {
  const fs::path root = fs::absolute(o_.out) / "similarity";
  fs::remove_all(root);  // from today's submissions only: a removed entry leaves no folder
  for (const auto& f : config_.files()) {
    const fs::path starter = paths_.lab_dir(config_.name()) / f;
    if (fs::exists(starter)) write_atomically(root / "base" / f, read_file(starter));
  }
  for (const auto& [id, r] : results_) {
    const fs::path src = work_ / id / "src";
    for (const auto& f : config_.files())
      if (fs::is_regular_file(src / f)) write_atomically(root / "submissions" / id / f, read_file(src / f));
  }
}

std::string Batch::overrides_env(const std::string& model) const {
  std::string list;
  const auto of_model = gpu_setup_.overrides.find(model);
  for (const auto& path : of_model != gpu_setup_.overrides.end() ? of_model->second : o_.overrides)
    list += (list.empty() ? "" : ":") + fs::absolute(path).string();
  return list;
}

void Batch::prepare_gpus() {
  std::vector<GpuSlot> chosen;
  if (!device_.empty() && !o_.build_only && !o_.merge_only) chosen = choose_gpus(visible_gpu_slots(), o_.gpus);
  if (!chosen.empty()) {
    const auto thresholds = [&](int ordinal) {
      try {
        const auto a = calibrate::apply_profile(paths_, config_.name(), ordinal);
        return ModelThresholds{a.override_file, a.note};
      } catch (const std::exception& e) {
        return ModelThresholds{std::nullopt, std::string("as shipped in lab.toml: ") + e.what()};
      }
    };
    gpu_setup_ = plan_gpus(chosen, config_.name(), o_.overrides, thresholds(0).file, thresholds);
    device_.clear();
    for (const auto& m : gpu_models(chosen)) {
      const auto first = std::find_if(chosen.begin(), chosen.end(), [&](const GpuSlot& g) { return g.model == m; });
      device_ += (device_.empty() ? "" : " + ") + first->shown();
    }
    for (const auto& [model, files] : gpu_setup_.overrides)
      model_configs_.emplace(model, load_lab(paths_, config_.name(), files));
  }
  // Without a GPU (--build-only, the CPU tests' --run-without-gpu) one slot stands for the GPU:
  // its gate still orders the runs, and no CUDA_VISIBLE_DEVICES is set.
  const int shared =
      o_.gpu_jobs > 0 ? o_.gpu_jobs : shared_phases_per_gpu(std::max<int>(1, static_cast<int>(chosen.size())));
  pool_ = std::make_unique<GpuPool>(chosen.empty() ? std::vector<GpuSlot>{GpuSlot{}} : chosen, shared);
  std::string command = o_.gpu_apps_command;
  if (command.empty() && !chosen.empty() && !find_in_path("nvidia-smi").empty())
    command = "nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader,nounits";
  if (command != "none" && !command.empty() && shared > 1) watch_ = std::make_unique<GpuMemoryWatch>(command, 1.0);
}

// The template proves itself on the starter (which builds as shipped) before any submission uses
// it: a toolchain whose commands do not survive being run outside Ninja (a response file Ninja
// writes only while it builds, say) falls back to CMake's own build per submission, instead of
// failing every student's link.
bool Batch::template_builds_starter(const fs::path& dir, std::string* why) {
  Submission starter;
  starter.student = "(the starter)";
  Grading g{starter};
  g.dir = dir;
  g.src = dir / "src";
  g.build = dir / "starter-build";
  fs::remove_all(g.build);
  fs::create_directories(g.build);
  // As a submission is built: in the sandbox, with its view.
  const ProcessResult built = build_from_template(g, "runner-or-program", dir / "starter-build.log");
  if (built.ok()) return true;
  *why = "its commands did not build the starter here (" + built.describe() + "; " +
         (dir / "starter-build.log").string() + "):\n" + tail_of_file(dir / "starter-build.log", 1500);
  return false;
}

void Batch::prepare_template() {
  if (o_.configure_each) return;
  // The commands are rewritten by path and their outputs' folders made by a shell: a results
  // folder whose path a shell would split or expand gets CMake's own build per submission.
  const std::string out = fs::absolute(o_.out).string();
  if (out.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/._+@-") !=
      std::string::npos) {
    std::cerr << "build: a CMake configure per submission (the results folder's path " << out
              << " holds a character a shell command would need quoted)\n";
    return;
  }
  const auto t0 = clock::now();
  BuildTemplate::Options t;
  t.cmake = paths_.cmake;
  t.project = paths_.source_root / "grader" / "batch";
  const std::string suffix = o_.task() ? "-" + o_.task_name : "";
  t.dir = fs::absolute(o_.out) / ("build-template" + suffix);
  t.log = fs::absolute(o_.out) / ("build-template" + suffix + ".log");
  t.configure_args = configure_args();
  for (const auto& f : config_.files()) t.files[f] = read_file(paths_.lab_dir(config_.name()) / f);
  std::string why;
  template_ = BuildTemplate::configure(t, &why);
  for (const char* target : {"runner", "grade-submission"})
    if (template_ && template_target_.empty() && template_->recipe(target, t.dir / "src", t.dir / "probe", nullptr))
      template_target_ = target;
  if (template_ && template_target_.empty()) {
    template_.reset();
    why = "the batch project has neither a runner nor a grade-submission target";
  }
  if (template_ && !template_builds_starter(t.dir, &why)) template_.reset();
  if (template_)
    std::cerr << fmt::format(
        "build: configured once for the batch in {:.1f} s ({}), each submission compiled and "
        "linked by its commands\n",
        seconds_since(t0), t.dir.string());
  else
    std::cerr << "build: a CMake configure per submission (" << why << ")\n";
}

int Batch::run() {
  started_ = clock::now();
  if (fs::exists(paths_.build_root / "batch" / "unsupported.txt"))
    throw std::runtime_error("this build cannot grade batches: " +
                             read_file(paths_.build_root / "batch" / "unsupported.txt"));
  if (!fs::exists(paths_.build_root / "batch" / "WorkbookExports.cmake"))
    throw std::runtime_error("this build has no batch support files (" + (paths_.build_root / "batch").string() +
                             "): reconfigure it with CMake");
  read_first_architecture();
  std::vector<Submission> submissions = discover();
  const nlohmann::json previous = choose_seed();
  sandbox_ = Sandbox::detect(o_.sandbox);
  std::string why_no_gpu;
  device_ = workbook::device_count(&why_no_gpu) > 0 ? workbook::query_device(0).name : "";
  prepare_gpus();
  if (!o_.merge_only) prepare_template();
  if (const auto saved = previous.find("students"); saved != previous.end() && saved->is_object())
    for (const auto& [id, entry] : saved->items()) student_meta_[id] = entry;  // the kept students'
  if (o_.merge_only) merge_task_times();
  write_meta();
  announce(submissions.size(), why_no_gpu);
  std::size_t kept_count = 0;
  const std::vector<Submission> todo = to_grade(submissions, previous, kept_count);
  calibrate_reference();
  const CpuTicks cpu0 = read_cpu_ticks();
  grade_all(todo);
  if (const CpuTicks cpu1 = read_cpu_ticks(); cpu1.total > cpu0.total)
    ledger_.set_cpu_busy(double(cpu1.busy - cpu0.busy) / double(cpu1.total - cpu0.total),
                         std::thread::hardware_concurrency());
  if (!o_.task() && !g_interrupted) write_similarity_layout();
  return summarize(kept_count);
}

const LabConfig& Batch::config_of(const std::string& student) const {
  const auto meta = student_meta_.find(student);
  if (meta == student_meta_.end() || !meta->second.contains("model")) return config_;
  const auto c = model_configs_.find(meta->second["model"].get<std::string>());
  return c == model_configs_.end() ? config_ : c->second;
}

// A Slurm array's merge: each task's students' GPUs and times (slurm/times/<task>.json) into
// batch.json, and into the class's totals.
void Batch::merge_task_times() {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(o_.out / "slurm" / "times", ec)) {
    const auto task = nlohmann::json::parse(read_file(e.path()), nullptr, false);
    if (!task.is_object()) continue;
    for (const auto& [id, entry] : task.items()) {
      student_meta_[id] = entry;
      ledger_.add(stage_times_from_json(entry.value("time", nlohmann::json::object())));
    }
  }
}

void Batch::read_first_architecture() {
  // set(CMAKE_CUDA_ARCHITECTURES "75-real;80-real;...") in the build's batch settings
  const std::string settings = read_file(paths_.build_root / "batch" / "WorkbookBatchSettings.cmake");
  const auto at = settings.find("set(CMAKE_CUDA_ARCHITECTURES \"");
  if (at != std::string::npos) {
    const auto start = at + std::string("set(CMAKE_CUDA_ARCHITECTURES \"").size();
    first_architecture_ = settings.substr(start, settings.find_first_of(";\"", start) - start);
  }
}

std::vector<Submission> Batch::discover() {
  ClassSubmissions found = class_submissions(o_, config_, roster_ ? &*roster_ : nullptr, !o_.task());
  auto& submissions = found.submissions;
  entry_name_ = found.entry_names;
  entries_ = found.entries;
  entry_keys_ = found.entry_keys;
  lms_name_ = found.names;
  if (roster_)
    for (const auto& [id, name] : lms_name_)
      if (const std::string key = name_key(name); !key.empty() && !roster_->id_of(id))
        strangers_by_name_.emplace(key, std::make_pair(name, id));
  skipped_ = found.skipped;
  // The kept entry's own time first: a --times key equal to the student's id may be the name of
  // an entry that was ignored (a folder named by the course id beside a newer one by name).
  for (const auto& [id, t] : found.kept_times) times_[id] = t;
  for (const auto& s : submissions)  // the LMS's own time (Gradescope's), unless --times gives one
    if (const auto t = course::parse_time(s.submitted_at); t && !times_.count(s.student)) times_[s.student] = *t;
  if (o_.task()) {
    submissions.erase(std::remove_if(submissions.begin(), submissions.end(),
                                     [&](const Submission& s) {
                                       return std::find(o_.task_students.begin(), o_.task_students.end(), s.student) ==
                                              o_.task_students.end();
                                     }),
                      submissions.end());
  }
  for (const auto& s : submissions) submitted_.insert(s.student);
  if (!o_.task()) warn_unmatched_times();
  work_ = fs::absolute(o_.out) / "work";
  students_dir_ = fs::absolute(o_.out) / "students";
  fs::create_directories(work_);
  fs::create_directories(students_dir_);

  return submissions;
}

// The seed is fixed for the whole batch, so that every student gets the same inputs; a resumed
// run keeps the seed it started with. Returns the previous batch.json (an empty object if none).
nlohmann::json Batch::choose_seed() {
  const fs::path meta = o_.out / "batch.json";
  nlohmann::json previous = nlohmann::json::object();
  if (fs::exists(meta)) previous = nlohmann::json::parse(read_file(meta), nullptr, false);
  const bool has_previous = previous.is_object() && previous.contains("seed");
  if (o_.seed)
    seed_ = *o_.seed;
  else if (has_previous)
    seed_ = previous["seed"].get<std::uint64_t>();
  else
    seed_ = workbook::fresh_seed();
  if (!o_.task() && has_previous && previous["seed"].get<std::uint64_t>() != seed_ && !o_.regrade_all &&
      !fs::is_empty(students_dir_))
    throw std::runtime_error(
        fmt::format("{} was graded with seed {}: grading the rest with seed {} would give "
                    "students different inputs. Use that seed, or --regrade-all.",
                    o_.out.string(), previous["seed"].get<std::uint64_t>(), seed_));
  return previous;
}

void Batch::announce(std::size_t n, const std::string& why_no_gpu) {
  std::cerr << fmt::format("grading {} submissions of {} (seed {})\n", n, config_.name(), seed_) << "GPU: "
            << (o_.build_only     ? "not used (--build-only: every submission is built, none is run)"
                : device_.empty() ? "none (" + why_no_gpu + "): runs will report 'no GPU'"
                                  : device_)
            << '\n'
            << "protection: " << sandbox_.describe() << '\n';
  if (pool_->gpus().size() > 1 || gpu_setup_.notes.size() > 1)
    for (const auto& g : pool_->gpus()) {
      const auto note = gpu_setup_.notes.find(g.model);
      std::cerr << fmt::format(
          "  GPU {} (CUDA_VISIBLE_DEVICES={}): {}{}\n", g.ordinal, g.visible, g.model,
          note != gpu_setup_.notes.end() && !note->second.empty() ? "; thresholds " + note->second : "");
    }
  if (!o_.thresholds_note.empty() && gpu_setup_.notes.size() <= 1)
    std::cerr << "thresholds: " << o_.thresholds_note << '\n';
  if (o_.feedback_profile && !o_.build_only && !device_.empty()) {
    ncu_ = inspect::find_ncu();
    if (ncu_.path.empty()) {
      std::cerr << "feedback profiles: none: " << ncu_.missing << '\n';
    } else {
      profiling_ = true;
      std::cerr << fmt::format(
          "feedback profiles: Nsight Compute ({}) on each correct but slow exercise, at most "
          "{:.0f} s a submission, the GPU alone\n",
          ncu_.path.string(), o_.feedback_profile_s);
      const std::string reference = "inspect-reference-" + config_.name();
      if (!o_.task() && paths_.has_reference(config_.name()))
        if (const auto errors = build_target(paths_, reference, o_.out / "inspect-reference-build.log"))
          std::cerr << "feedback profiles: " << reference << " did not build, so no reference column:\n"
                    << *errors << '\n';
    }
  }
}

std::vector<Submission> Batch::to_grade(const std::vector<Submission>& submissions, const nlohmann::json& previous,
                                        std::size_t& kept_count) {
  // Earlier results are kept (a resumed run), except those asked to be graded again. Until a
  // student is graded again, the class's files show their earlier result: every output agrees
  // with the others, and holds the whole class, at every moment (an interrupted regrade too).
  const std::set<std::string> regrade = students_to_regrade(submissions, previous);
  write_meta();
  std::vector<Submission> todo;
  for (const auto& s : submissions) {
    std::optional<StudentResult> earlier = earlier_result(s.student);
    // Not kept: what says nothing of the student's work (worth_keeping). A Slurm merge shows
    // every task's result as it came.
    // A kept result of other files than the entry taken now (a newer upload, an edited folder)
    // is not the student's: graded again, and said.
    const bool changed =
        earlier && !earlier->source.empty() && !o_.merge_only && earlier->source != submission_fingerprint(s);
    if (changed)
      std::cerr << s.student << ": its submission changed since it was graded (" << earlier->graded_at
                << "): graded again\n";
    const bool keep =
        earlier && !changed && !regrade.count(s.student) && (o_.merge_only || worth_keeping(*earlier, o_.build_only));
    if (earlier) results_[s.student] = *earlier;
    if (keep) {
      ++kept_count;
      continue;
    }
    todo.push_back(s);
  }
  if (o_.merge_only) {
    for (const auto& s : todo) std::cerr << "not graded yet (no result from the Slurm tasks): " << s.student << '\n';
    todo.clear();
  }
  for (const auto& id : o_.regrade)
    if (std::none_of(submissions.begin(), submissions.end(), [&](const Submission& s) { return names(id, s.student); }))
      std::cerr << "warning: --regrade " << id << ": no such submission\n";
  total_ = static_cast<int>(todo.size());
  if (kept_count) std::cerr << kept_count << " already graded (kept; --regrade to redo)\n";
  write_gradebook();

  return todo;
}

void Batch::calibrate_reference() {
  // The sequential baselines are measured once, before any submission runs: inside the sandbox
  // the cache is read-only, so no submission can spend time on them, or tamper with them. Only
  // the hidden [baseline] tests run (a cached baseline costs nothing): the reference's own timed
  // cases are `grader calibrate`'s business. A workbook without solutions/ (a student release)
  // has no reference program to run them in: said once, and skipped.
  const auto started = clock::now();
  if (o_.build_only) {
    // nothing runs: no baseline to measure
  } else if (!device_.empty() && total_ > 0 && !paths_.has_reference(config_.name())) {
    std::cerr << "calibrating: skipped: no reference solution in this workbook (solutions/" << config_.name()
              << "/ is not here): the thresholds are lab.toml's (and your --config files') as they are, and a "
                 "sequential baseline not yet cached for this machine is measured in each submission's timed "
                 "phase\n";
  } else if (!device_.empty() && total_ > 0) {
    std::cerr << "calibrating: the sequential baselines (measured once per machine and size, then cached) ...\n";
    // A Slurm task's reference is built by the grader that submitted it (builds in one tree at
    // once from several nodes would collide); its logs are its own.
    const fs::path log_dir = o_.task() ? o_.out / "slurm" / "logs" : o_.out;
    const std::string log_prefix = o_.task() ? o_.task_name + "-" : "";
    if (!o_.task()) {
      if (!build_in_tree(paths_, {paths_.test_program(config_.name(), true).filename().string()},
                         o_.out / "calibration-build.log", &g_interrupted))
        std::cerr << "warning: could not build the reference solution (see "
                  << (o_.out / "calibration-build.log").string()
                  << "): each submission's timed phase will measure the baseline itself\n";
    }
    ProcessOptions calibrate;
    calibrate.argv = {paths_.test_program(config_.name(), true).string(), "[baseline]"};
    // On the first GPU graded on, with its model's thresholds (--gpus may leave out device 0).
    const GpuSlot& first = pool_->gpus().front();
    TestProgramEnv env;
    env.seed = seed_;
    env.overrides = overrides_env(first.model);
    calibrate.set_env = test_program_env(env);
    if (!first.visible.empty()) calibrate.set_env["CUDA_VISIBLE_DEVICES"] = first.visible;
    fs::create_directories(log_dir);
    calibrate.output_file = log_dir / (log_prefix + "calibration.log");
    calibrate.timeout_s = config_.timeout_s();
    calibrate.cancel = &g_interrupted;
    const auto c = run_process(calibrate);
    if (!c.ok())
      std::cerr << "warning: the sequential baselines' run " << c.describe() << " (see "
                << (log_dir / (log_prefix + "calibration.log")).string()
                << "): each submission's timed phase will measure a baseline not cached\n";
  }
  ledger_.set_calibration(seconds_since(started));
}

int Batch::workers() const {
  return std::max(1, o_.jobs > 0 ? o_.jobs : static_cast<int>(std::thread::hardware_concurrency()));
}

void Batch::grade_all(const std::vector<Submission>& todo) {
  std::mutex queue_mutex;
  std::size_t next = 0;
  const auto worker = [&] {
    for (;;) {
      Submission s;
      {
        std::lock_guard<std::mutex> lock(queue_mutex);
        if (g_interrupted || next >= todo.size()) return;
        s = todo[next++];
        std::lock_guard<std::mutex> lr(results_mutex_);
        in_progress_.insert(s.student);
      }
      StudentResult r;
      try {
        r = grade(s);
      } catch (const std::exception& e) {
        if (g_interrupted) return;  // not recorded: a resumed run grades it again
        r.student = s.student;
        r.status = "grader error";
        r.detail = e.what();
        r.report = report_of({}, {RunState::Crashed, e.what()}, seed_, device_);
        r.graded_at = now_iso();
      }
      record_or_report(r);
      std::lock_guard<std::mutex> lock(results_mutex_);
      in_progress_.erase(s.student);
      ++done_;
      const double elapsed = std::chrono::duration<double>(clock::now() - started_).count();
      const double eta = elapsed / done_ * (total_ - done_);
      std::string running;
      for (const auto& id : in_progress_) running += (running.empty() ? "" : ", ") + id;
      std::cerr << fmt::format("[{:>{}}/{}] {:<20} {:<13} {:>6} / {:<4} {:>6.1f} s{}   ETA {}{}\n", done_,
                               std::to_string(total_).size(), total_, r.student, r.status,
                               fmt::format("{:.1f}", r.report.points_earned), config_.total_points(), r.seconds,
                               progress_gpu(r.student), done_ == total_ ? "-" : format_duration(eta),
                               running.empty() ? "" : "   running: " + running);
    }
  };
  std::vector<std::thread> threads;
  for (int i = 0; i < workers(); ++i) threads.emplace_back(worker);
  for (auto& t : threads) t.join();
}

int Batch::summarize(std::size_t kept_count) {
  const double elapsed = std::chrono::duration<double>(clock::now() - started_).count();
  std::map<std::string, int> counts;
  for (const auto& [id, r] : results_) ++counts[r.status];
  std::string summary;
  for (const auto& [status, n] : counts) summary += fmt::format("{}{} {}", summary.empty() ? "" : ", ", n, status);
  if (g_interrupted) {
    std::cerr << fmt::format("\ninterrupted after {} of {} submissions ({}); run the same command again to resume\n",
                             done_, total_, format_duration(elapsed));
    return 130;
  }
  if (regrading_.is_object()) {  // the regrade ran to its end: nothing of it to resume
    regrading_ = nullptr;
    write_meta();
  }
  // The counts are of every result this run's outputs hold: a resume's kept ones too, named apart.
  const std::size_t kept = kept_count;
  std::cerr << fmt::format("\ngraded {} submission{} in {}{}: {}\n", total_, total_ == 1 ? "" : "s",
                           format_duration(elapsed), kept ? fmt::format(" (with the {} kept)", kept) : "", summary);
  if (o_.merge_only)  // the tasks ran elsewhere, side by side: their stages, not this merge's wall
    std::cerr << "time: the Slurm tasks' submissions (batch.json \"students\"): " << ledger_.line(elapsed, workers())
              << '\n';
  else
    std::cerr << "time: " << ledger_.line(elapsed, workers()) << '\n';
  write_meta();
  if (!skipped_.empty()) {
    std::cerr << fmt::format("skipped {} entr{} of the submissions folder (not graded; in results.json):\n",
                             skipped_.size(), skipped_.size() == 1 ? "y" : "ies");
    for (const auto& why : skipped_) std::cerr << "  " << why << '\n';
  }
  if (o_.task())
    std::cerr << "results: " << students_dir_.string() << " (the grader that submitted this task merges them)\n";
  else
    std::cerr << "results: " << (o_.out / "gradebook.csv").string() << ", " << (o_.out / "results.json").string()
              << ", canvas.csv, moodle.csv, feedback/, gradescope/, similarity/\n";
  return 0;
}

}  // namespace

namespace {

// The course's id of an entry, by the roster: its LMS id (or e-mail), else, for an entry named
// as people are or a stranger with a name, the one student of that name.
std::optional<std::string> roster_id(const Roster& roster, const Submission& s) {
  if (const auto id = roster.id_of(s.student)) return id;
  if (s.name.empty()) return std::nullopt;
  return roster.id_by_name(s.name);
}

// One entry given two times by --times (its LMS id, then a correction by the course's id):
// which holds is no rule's to pick, as for one id given twice. A student with two entries may
// have a time for each (by the entries' names); the roster's ids apply to a lone entry only.
void refuse_two_times(const std::vector<Submission>& submissions, const Roster* roster,
                      const std::map<std::string, std::int64_t>& times) {
  if (times.empty()) return;
  std::map<std::string, int> entries;
  for (const Submission& s : submissions) ++entries[s.student];
  for (const Submission& s : submissions) {
    std::vector<std::string> keys = {s.lms_id, s.entry};
    if (entries[s.student] == 1) {
      keys.push_back(s.student);
      if (roster)
        for (const auto& e : roster->students)
          if (e.id == s.student) keys.insert(keys.end(), {e.lms_id, e.email});
    }
    std::optional<std::pair<std::string, std::int64_t>> first;
    for (const auto& key : keys) {
      const auto t = key.empty() ? times.end() : times.find(course::times_key(key));
      if (t == times.end()) continue;
      if (first && first->second != t->second)
        throw std::invalid_argument(fmt::format("--times gives {} two times: {} as {} and {} as {}; keep one row",
                                                s.student, course::format_time(first->second), first->first,
                                                course::format_time(t->second), key));
      if (!first) first.emplace(key, t->second);
    }
  }
}

// When an entry came: --times by the entry's LMS id or name, else the LMS's own time.
course::EntryTime entry_time(const std::map<std::string, std::int64_t>& times) {
  return [&times](const Submission& s) -> std::optional<std::int64_t> {
    for (const auto& key : {s.lms_id, s.entry})
      if (const auto t = times.find(course::times_key(key)); !key.empty() && t != times.end()) return t->second;
    return course::parse_time(s.submitted_at);
  };
}

}  // namespace

ClassSubmissions class_submissions(const BatchOptions& o, const LabConfig& config, const Roster* roster, bool say) {
  ClassSubmissions out;
  auto submissions = course::discover_lms(course::parse_lms_layout(o.from), o.submissions, config.files(),
                                          fs::absolute(o.out) / "lms", &out.skipped);
  if (say)
    for (const auto& why : out.skipped) std::cerr << "skipped " << why << '\n';
  std::vector<std::string> strangers;
  for (Submission& s : submissions) {
    s.lms_id = s.derived_id ? "" : s.student;  // an id made from a name is no LMS's id
    if (s.entry.empty()) s.entry = s.path.filename().string();
    const auto id = roster ? roster_id(*roster, s) : std::nullopt;
    if (roster && !id) strangers.push_back(s.student);
    if (roster && !id && !s.name.empty())
      if (const auto same = roster->ids_by_name(s.name); same.size() > 1 && say) {
        std::string list;
        for (const auto& other : same) list += (list.empty() ? "" : ", ") + other;
        std::cerr << "roster: " << s.entry << " is the name of " << same.size() << " students (" << list
                  << "): graded as " << s.student << "; rename it to the right one's id\n";
        s.notes.push_back("'" + s.name + "' is the roster's name of " + list +
                          ": graded under an id made from it until its folder is renamed to the right one's id");
      }
    if (id && *id != s.student) {
      if (say)
        std::cerr << "roster: " << (s.derived_id ? s.entry : s.student) << " is " << roster->word_for(s.student)
                  << " of " << *id << ": graded as " << *id << '\n';
      if (s.derived_id)  // the note said the id made from the name; the roster's is the one graded
        for (auto& note : s.notes)
          if (note.rfind("'" + s.name + "' is not a usable id", 0) == 0)
            note = "'" + s.name + "' is the roster's name of " + *id + ": graded as " + *id;
      s.student = *id;
    } else if (s.derived_id && say) {
      std::cerr << "named: " << (s.name.empty() ? s.entry : s.name)
                << " is no usable id (letters, digits, . _ - @): graded as " << s.student
                << (s.name.empty() || s.name == s.entry ? "" : " (" + s.entry + ")") << '\n';
    }
  }
  std::map<std::string, std::int64_t> times;
  if (o.times) try {
      times = course::read_times(*o.times);
    } catch (const std::exception&) {
      // said by run_batch, which reads it first
    }
  for (const Submission& s : submissions)
    for (const auto& key : {s.lms_id, s.entry})
      if (!key.empty()) out.entry_keys.insert(course::times_key(key));
  refuse_two_times(submissions, roster, times);
  for (Submission& s : course::one_entry_per_student(std::move(submissions), entry_time(times))) {
    for (const auto& key : {s.lms_id, s.entry})
      if (const auto t = times.find(course::times_key(key));
          !key.empty() && t != times.end() && !out.kept_times.count(s.student))
        out.kept_times[s.student] = t->second;
    if (say)
      for (const auto& note : s.notes)
        if (note.rfind("took ", 0) == 0) std::cerr << "two entries for " << s.student << ": " << note << '\n';
    out.entry_names[s.student] = s.lms_id;
    out.entries[s.student] = s.entry;
    if (!s.name.empty()) out.names[s.student] = s.name;
    out.submissions.push_back(std::move(s));
  }
  if (say && !strangers.empty()) {
    std::string list;
    for (const auto& id : strangers) list += (list.empty() ? "" : ", ") + id;
    std::cerr << "not on the roster (graded all the same; is the roster complete?): " << list << '\n';
  }
  return out;
}

std::vector<fs::path> hidden_from_submissions(const Paths& paths, const std::string& lab, std::vector<fs::path> also) {
  const fs::path src = fs::absolute(paths.source_root), bld = fs::absolute(paths.build_root);
  // Only what exists: bubblewrap cannot put a tmpfs on a path missing under the read-only root
  // (a student release has no solutions/), and what is not there has nothing to hide.
  // The grader's own folders of each lab: its grading (labs/), and its programs and benchmarks
  // (programs/, bench/: tuning programs hold answers), as sources and as build output.
  std::error_code exists_ec;
  for (const auto& p : {src / "solutions", src / "tests", src / "docs", bld / "bin"})
    if (fs::exists(p, exists_ec)) also.push_back(p);
  for (const char* part : {"labs", "programs", "bench"})
    for (const auto& p : {src / "grader" / part, bld / "grader" / part})
      if (fs::exists(p, exists_ec)) also.push_back(p);
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(src / "labs", ec))
    if (e.path().filename() != lab) also.push_back(e.path());
  return also;
}

SubmissionProgram submission_program(const Paths& paths, const std::string& lab, const fs::path& build) {
  if (fs::exists(build / "runner")) return {paths.test_program(lab, false), build / "runner"};
  return {build / "grade-submission", {}};
}

bool worth_keeping(const StudentResult& r, bool build_only) {
  if (r.report.run.state == RunState::NoGpu || r.status == "grader error" || r.status == "slurm failed") return false;
  return r.status != "built" || build_only;
}

void refuse_output_inside_submissions(const BatchOptions& o) {
  if (std::error_code ec; fs::exists(o.out, ec) && !fs::is_directory(o.out, ec))
    throw std::invalid_argument("-o " + o.out.string() +
                                " is a file, not a folder: -o names the results folder "
                                "(created if it does not exist), which gradebook.csv, results.json ... go into");
  // A folder that cannot be made: some folder above it is a file (-o results.csv/class), or it or
  // a folder above it is a link to nothing.
  for (fs::path at = fs::absolute(o.out); !at.empty() && at != at.parent_path(); at = at.parent_path()) {
    std::error_code ec;
    if (fs::is_symlink(fs::symlink_status(at, ec)) && !fs::exists(at, ec))
      throw std::invalid_argument("-o " + o.out.string() + ": " + at.string() + " is a link to " +
                                  fs::read_symlink(at, ec).string() +
                                  ", which does not exist: make that folder, or name another");
    if (at != fs::absolute(o.out) && fs::exists(at, ec) && !fs::is_directory(at, ec))
      throw std::invalid_argument("-o " + o.out.string() + ": " + at.string() +
                                  " is a file, so no results folder can be made under it");
  }
  std::error_code subs_ec, out_ec;
  const fs::path subs = fs::weakly_canonical(fs::absolute(o.submissions), subs_ec);
  const fs::path out = fs::weakly_canonical(fs::absolute(o.out), out_ec);
  if (subs_ec || out_ec || subs.empty()) return;  // the batch itself will say what is wrong with them
  const auto [end, at] = std::mismatch(subs.begin(), subs.end(), out.begin(), out.end());
  if (end == subs.end())
    throw std::invalid_argument("-o " + o.out.string() + " is inside the submissions folder " + o.submissions.string() +
                                ": its results would be graded as a student. Put them elsewhere.");
}

namespace {

// One batch per results folder: two would grade the same students and write the same files.
// The lock is held until this grader ends (a crash or Ctrl-C drops it with the process). A
// Slurm task writes its own students' files under the submitting grader's lock.
std::optional<FileLock> lock_results(const BatchOptions& o) {
  if (o.task()) return std::nullopt;
  fs::create_directories(o.out);
  const fs::path path = o.out / "batch.lock";
  auto lock = FileLock::try_lock(path);
  const bool slurm_busy =
      !o.merge_only && fs::exists(o.out / "slurm" / "lock") && !FileLock::try_lock(o.out / "slurm" / "lock");
  if (!lock || slurm_busy) {
    const std::string who = read_file(path);
    throw std::runtime_error("another grader batch is grading into " + o.out.string() +
                             (slurm_busy    ? " (through Slurm)"
                              : who.empty() ? ""
                                            : " (" + who.substr(0, who.find('\n')) + ")") +
                             " now: two would grade the same students and write the same files. Wait for it to end, "
                             "or give this one another -o");
  }
  char host[64] = "";
  ::gethostname(host, sizeof host - 1);
  std::ofstream(path, std::ios::trunc) << "pid " << ::getpid() << " on " << host << ", since " << now_iso() << '\n';
  return lock;
}

// The course's [deadline] refused, naming the file that holds it.
std::optional<course::LatePolicy> late_policy_of(const Paths& paths, const BatchOptions& o, const LabConfig& config) {
  try {
    return course::late_policy(config);
  } catch (const ConfigError& e) {
    std::vector<fs::path> files = {paths.lab_dir(o.lab) / "lab.toml", paths.lab_dir(o.lab) / "course.toml"};
    files.insert(files.end(), o.overrides.begin(), o.overrides.end());
    const std::string file = course::deadline_file(files);
    throw ConfigError(file.empty() ? e.what() : file + ": " + e.what());
  }
}

}  // namespace

int run_batch(const Paths& paths, const BatchOptions& options) {
  refuse_output_inside_submissions(options);
  LabConfig config = load_lab(paths, options.lab, options.overrides);
  std::optional<Roster> roster;
  if (options.roster) {
    try {
      roster = read_roster(*options.roster);
    } catch (const RosterError& e) {
      throw std::invalid_argument(e.what());  // a usage error (64), said before anything starts
    }
  }
  // Without a GPU nothing can be graded: say so now, not after building every submission (a
  // Slurm task records its students "no GPU" instead, for the grader that merges them to show).
  if (std::string why; !options.build_only && !options.run_without_gpu && !options.task() && !options.merge_only &&
                       workbook::device_count(&why) == 0) {
    std::cerr << "grader batch: no CUDA GPU is usable here (" << why
              << "): nothing can be graded.\n  On a cluster, run it where the job has a GPU (sbatch --gres=gpu:1), "
                 "or use --slurm. To build every submission without running it, add --build-only.\n";
    return 4;
  }
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  // The course's deadline, the students' extensions and the submission times: checked now, so
  // that a typo stops the batch before it starts, not after it graded everyone.
  std::optional<course::LatePolicy> late = late_policy_of(paths, options, config);
  std::map<std::string, std::int64_t> times;
  try {
    course::parse_lms_layout(options.from);
    if (options.times) {
      if (!late)
        throw std::invalid_argument("--times " + options.times->string() +
                                    ": the course config has no [deadline] to judge them by");
      times = course::read_times(*options.times);
    }
    if (late && roster)
      for (const auto& e : roster->students) course::due_for(*late, e.extension);
  } catch (const std::runtime_error& e) {
    throw std::invalid_argument(e.what());
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string(e.what()) +
                                (options.roster ? " (roster " + options.roster->string() + ")" : ""));
  }
  const auto lock = lock_results(options);
  Batch batch(paths, options, std::move(config), std::move(roster), std::move(late), std::move(times));
  return batch.run();
}

}  // namespace grader
