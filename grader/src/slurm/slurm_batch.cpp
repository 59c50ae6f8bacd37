#include "slurm/slurm_batch.hpp"

#include "grader/roster.hpp"

#include "slurm/jobs.hpp"

#include "grader/file_lock.hpp"
#include "grader/files.hpp"
#include "grader/gradebook.hpp"
#include "grader/report.hpp"
#include "grader/submission.hpp"
#include "workbook/random.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <map>
#include <optional>
#include <thread>

namespace grader::slurm {
namespace fs = std::filesystem;

namespace {

std::optional<StudentResult> result_of(const fs::path& students, const std::string& id) {
  const fs::path file = students / (id + ".json");
  if (!fs::exists(file)) return std::nullopt;
  try {
    return student_from_json(nlohmann::json::parse(read_file(file)));
  } catch (const std::exception&) {
    return std::nullopt;
  }
}
// A task graded this student (whatever came of it).
bool has_result(const fs::path& students, const std::string& id) {
  const auto r = result_of(students, id);
  return r && r->status != "slurm failed";
}
// An earlier run's result that this run keeps (batch.hpp: worth_keeping).
bool kept_result(const fs::path& students, const std::string& id, bool build_only) {
  const auto r = result_of(students, id);
  return r && worth_keeping(*r, build_only);
}

class Run {
public:
  Run(const Paths& paths, const BatchOptions& b, const SlurmOptions& s) : paths_(paths), b_(b), s_(s) {}
  int run();

private:
  // The run's steps, in order (each prints what it did, or why the run stops: then an exit status).
  int refuse_earlier_job();                      // 0, or 3 while an earlier array still grades
  void choose_seed();                            // one for the class, kept from an earlier run
  std::vector<std::string> students_to_grade();  // without a result this run keeps
  int grade_in_tasks(const LabConfig& config, const std::vector<std::string>& todo);  // 0, 64 or 130
  // The students of `indices` still ungraded after the retry: "slurm failed", with how it ended.
  void record_failed_tasks(const LabConfig& config, const std::vector<int>& indices, std::map<int, std::string>& ended);
  int merge();  // the class's files, by the batch grader with nothing left to grade
  std::optional<std::string> submit(const std::vector<int>& indices);  // the job id; prints why not
  bool wait(const std::string& job);                                   // false: interrupted
  int graded() const {
    int n = 0;
    for (const auto& task : tasks_)
      for (const auto& id : task) n += has_result(students_, id);
    return n;
  }
  // Tasks Slurm says completed whose results are not all visible here yet.
  std::vector<int> unfinished_completed(const std::map<int, std::string>& states) const {
    std::vector<int> out;
    for (const int i : unfinished_tasks())
      if (states.count(i) && states.at(i) == "COMPLETED") out.push_back(i);
    return out;
  }
  std::vector<int> unfinished_tasks() const {
    std::vector<int> out;
    for (std::size_t i = 0; i < tasks_.size(); ++i)
      for (const auto& id : tasks_[i])
        if (!has_result(students_, id)) {
          out.push_back(static_cast<int>(i));
          break;
        }
    return out;
  }

  const Paths& paths_;
  const BatchOptions& b_;
  const SlurmOptions& s_;
  fs::path out_, students_, slurm_dir_, tasks_file_;
  std::uint64_t seed_ = 0;
  std::vector<std::vector<std::string>> tasks_;
  int todo_ = 0;
};

std::optional<std::string> Run::submit(const std::vector<int>& indices) {
  std::vector<std::string> args = {"--job-name", "workbook-" + b_.lab,
                                   "--array",    array_spec(indices, s_.max_parallel),
                                   "--output",   (slurm_dir_ / "logs" / "%A_%a.log").string()};
  if (!s_.partition.empty()) args.insert(args.end(), {"--partition", s_.partition});
  if (!s_.gres.empty()) args.insert(args.end(), {"--gres", s_.gres});
  args.insert(args.end(), s_.sbatch_args.begin(), s_.sbatch_args.end());
  args.insert(args.end(), {"--wrap", task_command(b_, tasks_file_, seed_)});
  return slurm::submit("grader batch --slurm", args, slurm_dir_ / "active.json");
}

bool Run::wait(const std::string& job) {
  return wait_for(job, slurm_dir_ / "active.json", s_.poll_s, [&](const std::map<std::string, int>& states) {
    int pending = 0, running = 0, other = 0;
    for (const auto& [state, n] : states) {
      if (state == "PENDING")
        pending += n;
      else if (state == "RUNNING" || state == "COMPLETING" || state == "CONFIGURING")
        running += n;
      else
        other += n;
    }
    return fmt::format("job {}: {} of {} submissions graded; tasks {} running, {} pending{}", job, graded(), todo_,
                       running, pending, other ? fmt::format(", {} other", other) : "");
  });
}

int Run::run() {
  if (const std::string missing = sbatch_missing("grader batch --slurm"); !missing.empty()) {
    std::cerr << missing << '\n';
    return 64;
  }
  refuse_output_inside_submissions(b_);
  const LabConfig config = load_lab(paths_, b_.lab, b_.overrides);
  out_ = fs::absolute(b_.out);
  students_ = out_ / "students";
  slurm_dir_ = out_ / "slurm";
  fs::create_directories(students_);
  fs::create_directories(slurm_dir_ / "logs");

  // Nothing is graded twice at once: one submitting grader per results folder (the lock, held
  // until this one ends), and no array of an earlier one still queued or running.
  const auto lock = FileLock::try_lock(slurm_dir_ / "lock");
  if (!lock) {
    std::cerr << "grader batch --slurm: another grader is submitting or following " << out_.string() << " now\n";
    return 3;
  }
  if (const int status = refuse_earlier_job(); status != 0) return status;
  choose_seed();

  std::cerr << "building " << b_.lab << "'s test programs for the tasks ...\n";
  if (!build_for_tasks(paths_, b_.lab, slurm_dir_ / "build.log")) {
    std::cerr << "grader batch --slurm: the test programs do not build (see " << (slurm_dir_ / "build.log").string()
              << ")\n";
    return 3;
  }
  const std::vector<std::string> todo = students_to_grade();
  catch_interrupts();
  if (!todo.empty())
    if (const int status = grade_in_tasks(config, todo); status != 0) return status;
  return merge();
}

int Run::refuse_earlier_job() {
  if (!fs::exists(slurm_dir_ / "active.json")) return 0;
  const auto active = nlohmann::json::parse(read_file(slurm_dir_ / "active.json"), nullptr, false);
  const std::string job = active.is_object() ? active.value("job", "") : "";
  const auto states =
      job.empty() ? std::optional<std::map<std::string, int>>{std::map<std::string, int>{}} : queue_states(job);
  if (!states) {
    std::cerr << "grader batch --slurm: squeue cannot say whether job " << job << " still grades " << out_.string()
              << "; try again when it answers\n";
    return 3;
  }
  if (!states->empty()) {
    std::cerr << "grader batch --slurm: job " << job << " is still grading " << out_.string()
              << ": wait for it (squeue -j " << job << "), or cancel it (scancel " << job << ")\n";
    return 3;
  }
  fs::remove(slurm_dir_ / "active.json");
  return 0;
}

void Run::choose_seed() {
  const fs::path meta = out_ / "batch.json";
  const auto previous = fs::exists(meta) ? nlohmann::json::parse(read_file(meta), nullptr, false) : nlohmann::json();
  seed_ = b_.seed                                             ? *b_.seed
          : previous.is_object() && previous.contains("seed") ? previous["seed"].get<std::uint64_t>()
                                                              : workbook::fresh_seed();
  write_atomically(meta, nlohmann::json{{"lab", b_.lab}, {"seed", seed_}, {"updated_at", now_iso()}}.dump(2) + "\n");
}

std::vector<std::string> Run::students_to_grade() {
  // Named as the tasks and the merge name them: in the --from layout, by the roster's ids.
  std::optional<Roster> roster;
  if (b_.roster) roster = read_roster(*b_.roster);
  const auto submissions =
      class_submissions(b_, load_lab(paths_, b_.lab, b_.overrides), roster ? &*roster : nullptr, true).submissions;
  std::vector<std::string> todo;
  for (const auto& s : submissions) {
    const bool regrade =
        b_.regrade_all || std::find(b_.regrade.begin(), b_.regrade.end(), s.student) != b_.regrade.end();
    if (regrade) fs::remove(students_ / (s.student + ".json"));
    if (!kept_result(students_, s.student, b_.build_only)) todo.push_back(s.student);
  }
  todo_ = static_cast<int>(todo.size());
  std::cerr << fmt::format("{} submissions of {}: {} to grade, {} already graded (seed {})\n", submissions.size(),
                           b_.lab, todo.size(), submissions.size() - todo.size(), seed_);
  return todo;
}

int Run::grade_in_tasks(const LabConfig& config, const std::vector<std::string>& todo) {
  const int per_task = std::max(1, s_.per_task);
  for (std::size_t i = 0; i < todo.size(); i += per_task)
    tasks_.emplace_back(todo.begin() + i, todo.begin() + std::min(todo.size(), i + per_task));
  tasks_file_ = slurm_dir_ / fmt::format("tasks-{}.json", now_iso());
  write_atomically(tasks_file_, nlohmann::json(tasks_).dump(1) + "\n");
  std::vector<int> all(tasks_.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int>(i);

  std::map<int, std::string> ended;  // task -> how Slurm ended it, where it left students ungraded
  std::vector<int> indices = all;
  for (int attempt = 0; attempt < 2 && !indices.empty(); ++attempt) {
    if (attempt == 1)
      std::cerr << fmt::format("retrying {} task(s) once: {}\n", indices.size(), array_spec(indices, 0));
    const auto job = submit(indices);
    if (!job) {
      if (attempt == 0) return 64;
      break;  // the retry refused (a limit of the account, say): record and merge what there is
    }
    std::cerr << fmt::format("submitted job {}: {} task(s) of up to {} submissions ({})\n", *job, indices.size(),
                             per_task, s_.partition.empty() ? "default partition" : "partition " + s_.partition);
    if (!wait(*job)) return 130;
    fs::remove(slurm_dir_ / "active.json");
    const auto states = final_states(*job);
    // A task Slurm says completed wrote its results; on a shared filesystem they may show here a
    // little later than Slurm says so. Wait for those before calling anything missing.
    for (int i = 0; i < 30 && !unfinished_completed(states).empty(); ++i)
      std::this_thread::sleep_for(std::chrono::seconds(1));
    indices = unfinished_tasks();
    for (const int i : indices)
      ended[i] = fmt::format("job {} task {} ended {}", *job, i, states.count(i) ? states.at(i) : "without a result");
  }
  record_failed_tasks(config, indices, ended);
  return 0;
}

void Run::record_failed_tasks(const LabConfig& config, const std::vector<int>& indices,
                              std::map<int, std::string>& ended) {
  // Still ungraded after the retry: a named outcome; the next run grades them again.
  for (const int i : indices) {
    for (const auto& id : tasks_[i]) {
      if (has_result(students_, id)) continue;
      StudentResult r;
      r.student = id;
      r.status = "slurm failed";
      r.detail = "its Slurm task ended before grading it, twice (last: " + ended[i] +
                 "; its log: " + (slurm_dir_ / "logs").string() + "); run grader batch --slurm again to retry";
      r.report = build_report(config, {}, RunStatus{RunState::NotGraded, r.detail}, seed_, "");
      r.graded_at = now_iso();
      write_atomically(students_ / (id + ".json"), to_json(r).dump(2) + "\n");
    }
  }
}

int Run::merge() {
  // The class's files, from every student's: the batch grader with nothing left to grade.
  std::cerr << "merging the tasks' results ...\n";
  BatchOptions merge = b_;
  merge.merge_only = true;
  merge.seed = seed_;
  merge.regrade.clear();
  merge.regrade_all = false;
  return run_batch(paths_, merge);
}

}  // namespace

fs::path self_executable() { return fs::read_symlink("/proc/self/exe"); }

// The command every array task runs: this grader, on its own students (--slurm-task).
std::string task_command(const BatchOptions& b, const fs::path& tasks, std::uint64_t seed) {
  std::vector<std::string> a = {self_executable().string(),
                                "batch",
                                b.lab,
                                fs::absolute(b.submissions).string(),
                                "-o",
                                fs::absolute(b.out).string(),
                                "--seed",
                                std::to_string(seed)};
  for (const auto& c : b.overrides) a.insert(a.end(), {"--config", fs::absolute(c).string()});
  if (b.run_timeout_s) a.insert(a.end(), {"--timeout", fmt::format("{}", *b.run_timeout_s)});
  a.insert(a.end(), {"--build-timeout", fmt::format("{}", b.build_timeout_s), "--memory-limit",
                     fmt::format("{}", double(b.memory_bytes) / double(1ull << 30)), "--max-processes",
                     std::to_string(b.max_processes)});
  if (b.gpu_jobs > 0) a.insert(a.end(), {"--gpu-jobs", std::to_string(b.gpu_jobs)});
  if (b.early_timed_start) a.push_back("--early-timed-start");
  if (b.jobs > 0) a.insert(a.end(), {"--jobs", std::to_string(b.jobs)});
  if (!b.sandbox) a.push_back("--no-sandbox");
  if (b.build_only) a.push_back("--build-only");
  if (b.feedback_profile)
    a.insert(a.end(), {"--feedback-profile", "--feedback-profile-time", fmt::format("{}", b.feedback_profile_s)});
  // The class as the submitter read it: the same layout and roster, so that the task's ids are its.
  a.insert(a.end(), {"--from", b.from});
  if (b.roster) a.insert(a.end(), {"--roster", fs::absolute(*b.roster).string()});
  std::string line;
  for (const auto& s : a) line += quoted(s) + " ";
  return line + "--slurm-task " + quoted(tasks.string() + ":") + "\"$SLURM_ARRAY_TASK_ID\"";
}

int run_batch_slurm(const Paths& paths, const BatchOptions& batch, const SlurmOptions& slurm) {
  return Run(paths, batch, slurm).run();
}

std::vector<std::string> task_students(const std::string& spec) {
  const auto colon = spec.rfind(':');
  if (colon == std::string::npos) throw std::invalid_argument("--slurm-task wants <tasks.json>:<index>, not " + spec);
  const auto tasks = nlohmann::json::parse(read_file(spec.substr(0, colon)));
  const std::size_t index = std::stoul(spec.substr(colon + 1));
  if (!tasks.is_array() || index >= tasks.size())
    throw std::invalid_argument(fmt::format("--slurm-task {}: no task {} in that file", spec, index));
  return tasks[index].get<std::vector<std::string>>();
}

}  // namespace grader::slurm
