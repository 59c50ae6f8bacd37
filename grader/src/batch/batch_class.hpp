// The Batch class of `grader batch`, private to src/batch/: the class is declared here and
// its parts are defined a concern a file: batch.cpp (the run and its stages), grading_stages.cpp
// (one submission: collect, build, checks, timed, report), submission_build.cpp (building a
// submission), class_record.cpp (results, feedback, gradebook), feedback_profile.cpp
// (--feedback-profile).
#pragma once
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

namespace batch_detail {

inline std::atomic<bool> g_interrupted{false};
inline void on_signal(int) { g_interrupted = true; }

inline std::string format_duration(double s) {
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
inline double seconds_since(clock::time_point t0) { return std::chrono::duration<double>(clock::now() - t0).count(); }

inline RunStatus status_of(const Phase& phase, const fs::path& log) {
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
inline std::string submission_status(const LabReport& report) {
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
  Phase run_leased(Grading& g, ProcessOptions p, bool exclusive);
  Phase run_gated(Grading& g, ProcessOptions p, bool& set_up);
  void on_gpu(Grading& g, ProcessOptions& p, int gpu);
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
  bool watched(const Grading& g);
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

}  // namespace batch_detail
}  // namespace grader
