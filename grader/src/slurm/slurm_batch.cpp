#include "slurm/slurm_batch.hpp"

#include "grader/files.hpp"
#include "grader/gradebook.hpp"
#include "grader/process.hpp"
#include "grader/report.hpp"
#include "grader/submission.hpp"
#include "workbook/random.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

namespace grader::slurm {
namespace fs = std::filesystem;

namespace {

std::atomic<bool> g_interrupted{false};
void on_interrupt(int) { g_interrupted = true; }

struct Command {
  int status = -1;
  std::string out;  // stdout and stderr together
};

Command run_command(const std::vector<std::string>& argv) {
  const fs::path file = fs::temp_directory_path() / fmt::format("workbook-slurm-{}-{}.out", ::getpid(), std::rand());
  ProcessOptions p;
  p.argv = argv;
  p.output_file = file;
  p.timeout_s = 120;
  const ProcessResult r = run_process(p);
  Command c;
  c.status = r.failed_to_start ? 127 : r.exit_code;
  std::error_code ec;
  if (fs::exists(file, ec)) c.out = read_file(file);
  fs::remove(file, ec);
  while (!c.out.empty() && (c.out.back() == '\n' || c.out.back() == ' ')) c.out.pop_back();
  return c;
}

std::string quoted(const std::string& s) {
  std::string out = "'";
  for (const char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

fs::path self_executable() { return fs::read_symlink("/proc/self/exe"); }

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

// The command every array task runs: this grader, on its own students (--slurm-task).
std::string task_command(const BatchOptions& b, const fs::path& tasks, std::uint64_t seed) {
  std::vector<std::string> a = {self_executable().string(), "batch", b.lab, fs::absolute(b.submissions).string(), "-o",
                                fs::absolute(b.out).string(), "--seed", std::to_string(seed)};
  for (const auto& c : b.overrides) a.insert(a.end(), {"--config", fs::absolute(c).string()});
  if (b.run_timeout_s) a.insert(a.end(), {"--timeout", fmt::format("{}", *b.run_timeout_s)});
  a.insert(a.end(), {"--build-timeout", fmt::format("{}", b.build_timeout_s), "--memory-limit",
                     fmt::format("{}", double(b.memory_bytes) / double(1ull << 30)), "--max-processes",
                     std::to_string(b.max_processes), "--gpu-jobs", std::to_string(b.gpu_jobs)});
  if (b.jobs > 0) a.insert(a.end(), {"--jobs", std::to_string(b.jobs)});
  if (!b.sandbox) a.push_back("--no-sandbox");
  std::string line;
  for (const auto& s : a) line += quoted(s) + " ";
  return line + "--slurm-task " + quoted(tasks.string() + ":") + "\"$SLURM_ARRAY_TASK_ID\"";
}

// Array tasks still known to squeue, by state ("PENDING", "RUNNING", ...); nullopt when squeue
// itself failed (the controller is briefly unreachable, say).
std::optional<std::map<std::string, int>> queue_states(const std::string& job) {
  const Command c = run_command({"squeue", "-h", "-r", "-j", job, "-o", "%T"});
  if (c.status != 0) {
    // A job that has left the queue altogether is "Invalid job id" for squeue: it is done.
    if (c.out.find("Invalid job id") != std::string::npos) return std::map<std::string, int>{};
    return std::nullopt;
  }
  std::map<std::string, int> states;
  std::istringstream lines(c.out);
  for (std::string state; std::getline(lines, state);)
    if (!state.empty()) ++states[state];
  return states;
}

// Final state of each array task (index -> "COMPLETED", "NODE_FAIL", ...): from squeue, which
// keeps ended jobs for the cluster's MinJobAge, else from sacct; empty where neither knows.
std::map<int, std::string> final_states(const std::string& job) {
  std::map<int, std::string> out;
  const Command q = run_command({"squeue", "-h", "-r", "-t", "all", "-j", job, "-o", "%K %T"});
  if (q.status == 0) {
    std::istringstream lines(q.out);
    for (std::string line; std::getline(lines, line);) {
      std::istringstream words(line);
      int index = -1;
      std::string state;
      if (words >> index >> state) out[index] = state;
    }
    if (!out.empty()) return out;
  }
  Command c = run_command({"sacct", "-n", "-P", "-X", "-j", job, "-o", "JobID,State"});
  // Without an accounting database (slurmdbd), only the job-completion log answers (-c).
  if (c.status != 0 || c.out.empty()) c = run_command({"sacct", "-c", "-n", "-P", "-j", job, "-o", "JobID,State"});
  if (c.status != 0) return out;
  std::istringstream lines(c.out);
  for (std::string line; std::getline(lines, line);) {
    const auto bar = line.find('|'), under = line.find('_');
    if (bar == std::string::npos || under == std::string::npos || under > bar) continue;
    try {
      const std::string state = line.substr(bar + 1);  // "COMPLETED", "CANCELLED by 0" ...
      out[std::stoi(line.substr(under + 1, bar - under - 1))] = state.substr(0, state.find(' '));
    } catch (const std::exception&) {
    }
  }
  return out;
}

bool has_result(const fs::path& students, const std::string& id) {
  const fs::path file = students / (id + ".json");
  if (!fs::exists(file)) return false;
  try {
    return student_from_json(nlohmann::json::parse(read_file(file))).status != "slurm failed";
  } catch (const std::exception&) {
    return false;
  }
}

std::string array_spec(const std::vector<int>& indices, int max_parallel) {
  std::string spec;
  for (std::size_t i = 0; i < indices.size();) {  // runs of consecutive indices as a-b
    std::size_t j = i;
    while (j + 1 < indices.size() && indices[j + 1] == indices[j] + 1) ++j;
    spec += (spec.empty() ? "" : ",") + (j == i ? std::to_string(indices[i]) : fmt::format("{}-{}", indices[i], indices[j]));
    i = j + 1;
  }
  return max_parallel > 0 ? spec + "%" + std::to_string(max_parallel) : spec;
}

class Run {
public:
  Run(const Paths& paths, const BatchOptions& b, const SlurmOptions& s) : paths_(paths), b_(b), s_(s) {}
  int run();

private:
  std::optional<std::string> submit(const std::vector<int>& indices);  // the job id; prints why not
  bool wait(const std::string& job);                                    // false: interrupted
  int graded() const {
    int n = 0;
    for (const auto& task : tasks_)
      for (const auto& id : task) n += has_result(students_, id);
    return n;
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
  std::vector<std::string> argv = {"sbatch", "--parsable", "--job-name", "workbook-" + b_.lab,
                                   "--array", array_spec(indices, s_.max_parallel),
                                   "--output", (slurm_dir_ / "logs" / "%A_%a.log").string()};
  if (!s_.partition.empty()) argv.insert(argv.end(), {"--partition", s_.partition});
  if (!s_.gres.empty()) argv.insert(argv.end(), {"--gres", s_.gres});
  argv.insert(argv.end(), s_.sbatch_args.begin(), s_.sbatch_args.end());
  argv.insert(argv.end(), {"--wrap", task_command(b_, tasks_file_, seed_)});
  const Command c = run_command(argv);
  if (c.status != 0) {
    std::cerr << "grader batch --slurm: sbatch refused the job: " << first_line(c.out) << '\n';
    return std::nullopt;
  }
  std::string job = first_line(c.out);
  job = job.substr(0, job.find(';'));  // "<id>;<cluster>" on a federation
  write_atomically(slurm_dir_ / "active.json", nlohmann::json{{"job", job}}.dump() + "\n");
  return job;
}

bool Run::wait(const std::string& job) {
  const bool tty = ::isatty(STDERR_FILENO);
  std::string last;
  int failures = 0;
  for (;;) {
    if (g_interrupted) {
      std::cerr << "\ninterrupted: job " << job << " keeps running. ";
      if (::isatty(STDIN_FILENO)) {
        std::cerr << "Cancel it (scancel " << job << ")? [y/N] " << std::flush;
        std::string answer;
        std::getline(std::cin, answer);
        if (!answer.empty() && (answer[0] == 'y' || answer[0] == 'Y')) {
          const Command c = run_command({"scancel", job});
          std::cerr << (c.status == 0 ? "cancelled job " + job : "scancel failed: " + first_line(c.out)) << '\n';
          fs::remove(slurm_dir_ / "active.json");
        }
      } else {
        std::cerr << "`scancel " << job << "` cancels it.\n";
      }
      std::cerr << "Run the same command again to merge what was graded and grade the rest.\n";
      return false;
    }
    const auto states = queue_states(job);
    if (!states) {
      if (++failures >= 12) throw std::runtime_error("squeue keeps failing for job " + job);
    } else {
      failures = 0;
      int pending = 0, running = 0, other = 0;
      for (const auto& [state, n] : *states) {
        if (state == "PENDING") pending += n;
        else if (state == "RUNNING" || state == "COMPLETING" || state == "CONFIGURING") running += n;
        else other += n;
      }
      const std::string line = fmt::format("job {}: {} of {} submissions graded; tasks {} running, {} pending{}", job,
                                           graded(), todo_, running, pending,
                                           other ? fmt::format(", {} other", other) : "");
      if (line != last) {
        std::cerr << (tty ? "\r\033[K" : "") << line << (tty ? "" : "\n") << std::flush;
        last = line;
      }
      if (states->empty()) break;
    }
    for (int i = 0; i < s_.poll_s * 10 && !g_interrupted; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (tty) std::cerr << '\n';
  return true;
}

int Run::run() {
  if (find_in_path("sbatch").empty()) {
    std::cerr << "grader batch --slurm: sbatch not found in PATH (is Slurm's client installed here, or its module "
                 "loaded?)\n";
    return 64;
  }
  const LabConfig config = load_lab(paths_, b_.lab, b_.overrides);
  out_ = fs::absolute(b_.out);
  students_ = out_ / "students";
  slurm_dir_ = out_ / "slurm";
  fs::create_directories(students_);
  fs::create_directories(slurm_dir_ / "logs");

  // Nothing is graded twice at once: one array per results folder.
  if (fs::exists(slurm_dir_ / "active.json")) {
    const auto active = nlohmann::json::parse(read_file(slurm_dir_ / "active.json"), nullptr, false);
    const std::string job = active.is_object() ? active.value("job", "") : "";
    const auto states = job.empty() ? std::nullopt : queue_states(job);
    if (states && !states->empty()) {
      std::cerr << "grader batch --slurm: job " << job << " is still grading " << out_.string()
                << ": wait for it (squeue -j " << job << "), or cancel it (scancel " << job << ")\n";
      return 3;
    }
    fs::remove(slurm_dir_ / "active.json");
  }

  // The seed: one for the whole class, kept from an earlier run.
  const fs::path meta = out_ / "batch.json";
  const auto previous = fs::exists(meta) ? nlohmann::json::parse(read_file(meta), nullptr, false) : nlohmann::json();
  seed_ = b_.seed ? *b_.seed
                  : previous.is_object() && previous.contains("seed") ? previous["seed"].get<std::uint64_t>()
                                                                       : workbook::fresh_seed();
  write_atomically(meta, nlohmann::json{{"lab", b_.lab}, {"seed", seed_}, {"updated_at", now_iso()}}.dump(2) + "\n");

  // What the tasks run is built here, once: builds from several nodes in one tree would collide.
  std::vector<std::string> targets = {paths_.test_program(b_.lab, false).filename().string()};
  if (paths_.has_reference(b_.lab)) targets.push_back(paths_.test_program(b_.lab, true).filename().string());
  std::cerr << "building " << b_.lab << "'s test programs for the tasks ...\n";
  ProcessOptions build;
  build.argv = {paths_.cmake.string(), "--build", paths_.build_root.string(), "--target"};
  build.argv.insert(build.argv.end(), targets.begin(), targets.end());
  build.output_file = slurm_dir_ / "build.log";
  if (!run_process(build).ok()) {
    std::cerr << "grader batch --slurm: the test programs do not build (see " << (slurm_dir_ / "build.log").string() << ")\n";
    return 3;
  }

  std::vector<std::string> skipped;
  const auto submissions = discover_submissions(b_.submissions, &skipped);
  for (const auto& why : skipped) std::cerr << "skipped " << why << '\n';
  std::vector<std::string> todo;
  for (const auto& s : submissions) {
    const bool regrade = b_.regrade_all || std::find(b_.regrade.begin(), b_.regrade.end(), s.student) != b_.regrade.end();
    if (regrade) fs::remove(students_ / (s.student + ".json"));
    if (!has_result(students_, s.student)) todo.push_back(s.student);
  }
  todo_ = static_cast<int>(todo.size());
  std::cerr << fmt::format("{} submissions of {}: {} to grade, {} already graded (seed {})\n", submissions.size(),
                           b_.lab, todo.size(), submissions.size() - todo.size(), seed_);

  std::signal(SIGINT, on_interrupt);
  std::signal(SIGTERM, on_interrupt);
  if (!todo.empty()) {
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
      if (!job) return 64;
      std::cerr << fmt::format("submitted job {}: {} task(s) of up to {} submissions ({})\n", *job, indices.size(),
                               per_task, s_.partition.empty() ? "default partition" : "partition " + s_.partition);
      if (!wait(*job)) return 130;
      fs::remove(slurm_dir_ / "active.json");
      const auto states = final_states(*job);
      indices = unfinished_tasks();
      for (const int i : indices)
        ended[i] = fmt::format("job {} task {} ended {}", *job, i, states.count(i) ? states.at(i) : "without a result");
    }
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

  // The class's files, from every student's: the batch grader with nothing left to grade.
  std::cerr << "merging the tasks' results ...\n";
  BatchOptions merge = b_;
  merge.seed = seed_;
  merge.regrade.clear();
  merge.regrade_all = false;
  return run_batch(paths_, merge);
}

}  // namespace

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
