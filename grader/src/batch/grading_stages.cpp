// One submission graded, in the stages Batch::grade() names: its files collected, its test
// phases run on a GPU of the pool (beside others, or alone when timed), and its report.
#include "batch/batch_class.hpp"
#include "batch/gpu_gate_keeper.hpp"
#include "grader/gpu_gate.hpp"

namespace grader {
namespace batch_detail {

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
  if (why == "crashed" && watched(g) && !memory_holder_beside(g))
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

// Whether the memory watch saw g's own processes during its phase attempts: only then does its
// silence on neighbours mean that none held the GPU's memory.
bool Batch::watched(const Grading& g) {
  if (!watch_ || !watch_->enabled()) return false;
  return std::any_of(g.attempts.begin(), g.attempts.end(), [&](const PhaseAttempt& a) {
    return watch_->saw(g.r.student, a.gpu, a.from - std::chrono::seconds(2), a.to);
  });
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

// A process on one GPU of the submission's model, seen by the process as its only GPU. With
// --early-timed-start, a phase that needs the GPU alone goes through a gate (run_gated); one whose
// program could not set up beside the GPU's other work, and so ran nothing, runs again with the
// GPU its alone from the start.
Phase Batch::run_on_gpu(Grading& g, ProcessOptions p, bool exclusive) {
  if (!exclusive || !o_.early_timed_start) return run_leased(g, std::move(p), exclusive);
  bool set_up = true;
  Phase phase = run_gated(g, p, set_up);
  if (set_up) return phase;
  g.times.gpu_wait_s += phase.process.seconds;
  return run_leased(g, std::move(p), true);
}

// On the pool's least busy GPU that admits it; the wait for it is the submission's "waiting for
// the GPU". The memory watch follows a phase that shares the GPU.
Phase Batch::run_leased(Grading& g, ProcessOptions p, bool exclusive) {
  const GpuPool::Lease lease = pool_->acquire(g.model, exclusive);
  struct Release {
    GpuPool& pool;
    const GpuPool::Lease& lease;
    ~Release() { pool.release(lease); }
  } release{*pool_, lease};
  g.times.gpu_wait_s += lease.waited_s;
  on_gpu(g, p, lease.gpu);
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

// A phase with its GPU alone (timed, or checks run again alone): started at once on a GPU that
// admits a start (GpuPool::start_gated), the test program makes its CUDA context beside the GPU's
// other phases and waits at its gate (grader/gpu_gate.hpp) until the GPU is idle and its; only
// then does it start the submission's code. The wait counts as waiting for the GPU, not as the
// phase's time or against its timeout. `set_up`: false when the program could not make its
// context beside the others and ended without asking (kGateSetupFailed).
Phase Batch::run_gated(Grading& g, ProcessOptions p, bool& set_up) {
  GateKeeper gate(*pool_, pool_->start_gated(g.model));
  on_gpu(g, p, gate.gpu());
  TestProgramEnv env;
  env.gate_fd = gate.child_fd();
  for (const auto& [name, value] : test_program_env(env)) p.set_env[name] = value;
  p.pass_fds[gate.child_fd()] = gate.child_fd();
  p.on_start = [&gate](int) { gate.child_started(); };
  p.paused_s = [&gate] { return gate.waited_s(); };
  Phase phase;
  phase.gpu = gate.gpu();
  phase.from = clock::now();
  phase.process = run_process(p);
  phase.to = clock::now();
  gate.finish();
  set_up = gate.asked() || phase.process.exit_code != kGateSetupFailed;
  const double waited = gate.waited_s();
  g.times.gpu_wait_s += waited;
  phase.process.seconds = std::max(0.0, phase.process.seconds - waited);
  return phase;
}

// The process sees GPU `gpu` of the pool as its only one; the submission records it.
void Batch::on_gpu(Grading& g, ProcessOptions& p, int gpu) {
  const GpuSlot& slot = pool_->gpus()[gpu];
  if (!slot.visible.empty()) p.set_env["CUDA_VISIBLE_DEVICES"] = slot.visible;
  g.gpus.insert(gpu);
  if (!slot.visible.empty()) g.device = slot.shown();
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

}  // namespace batch_detail
}  // namespace grader
