// `grader batch`: a class of submissions graded. Batch::run() and its stages (the GPUs, the
// submissions found, the seed, the baselines, the workers, the summary), and batch.hpp's functions
// but class_submissions (class_submissions.cpp). The class itself: batch_class.hpp.
#include "batch/batch_class.hpp"
#include "grader/test_program_env.hpp"

namespace grader {
namespace batch_detail {

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

std::string Batch::overrides_env(const std::string& model) const {
  const auto of_model = gpu_setup_.overrides.find(model);
  return override_list(of_model != gpu_setup_.overrides.end() ? of_model->second : o_.overrides);
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

}  // namespace batch_detail

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
  action.sa_handler = batch_detail::on_signal;
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
  batch_detail::Batch batch(paths, options, std::move(config), std::move(roster), std::move(late), std::move(times));
  return batch.run();
}

}  // namespace grader
