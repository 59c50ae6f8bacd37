#include "slurm/jobs.hpp"

#include "tree/build_tree.hpp"
#include "grader/files.hpp"
#include "grader/process.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <thread>

namespace grader::slurm {
namespace fs = std::filesystem;

namespace {
std::atomic<bool> g_interrupted{false};
void on_interrupt(int) { g_interrupted = true; }
}  // namespace

void catch_interrupts() {
  std::signal(SIGINT, on_interrupt);
  std::signal(SIGTERM, on_interrupt);
}

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

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

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

std::string sbatch_missing(const std::string& command) {
  if (!find_in_path("sbatch").empty()) return {};
  return command + ": sbatch not found in PATH (is Slurm's client installed here, or its module loaded?)";
}

bool build_for_tasks(const Paths& paths, const std::string& lab, const fs::path& log) {
  std::vector<std::string> targets = {paths.test_program(lab, false).filename().string()};
  if (paths.has_reference(lab)) {
    targets.push_back(paths.test_program(lab, true).filename().string());
    targets.push_back("inspect-reference-" + lab);  // the reference's column of --feedback-profile
  }
  fs::create_directories(log.parent_path());
  return build_in_tree(paths, targets, log);
}

std::string array_spec(const std::vector<int>& indices, int max_parallel) {
  std::string spec;
  for (std::size_t i = 0; i < indices.size();) {  // runs of consecutive indices as a-b
    std::size_t j = i;
    while (j + 1 < indices.size() && indices[j + 1] == indices[j] + 1) ++j;
    spec += (spec.empty() ? "" : ",") +
            (j == i ? std::to_string(indices[i]) : fmt::format("{}-{}", indices[i], indices[j]));
    i = j + 1;
  }
  return max_parallel > 0 ? spec + "%" + std::to_string(max_parallel) : spec;
}

std::optional<std::string> submit(const std::string& who, const std::vector<std::string>& args,
                                  const fs::path& active) {
  std::vector<std::string> argv = {"sbatch", "--parsable"};
  argv.insert(argv.end(), args.begin(), args.end());
  const Command c = run_command(argv);
  if (c.status != 0) {
    std::cerr << who << ": sbatch refused the job: " << first_line(c.out) << '\n';
    return std::nullopt;
  }
  std::string job = first_line(c.out);
  job = job.substr(0, job.find(';'));  // "<id>;<cluster>" on a federation
  write_atomically(active, nlohmann::json{{"job", job}}.dump() + "\n");
  return job;
}

bool wait_for(const std::string& job, const fs::path& active, double poll_s,
              const std::function<std::string(const std::map<std::string, int>&)>& progress) {
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
          fs::remove(active);
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
      const std::string line = progress(*states);
      if (line != last) {
        std::cerr << (tty ? "\r\033[K" : "") << line << (tty ? "" : "\n") << std::flush;
        last = line;
      }
      if (states->empty()) break;
    }
    for (int i = 0; i < poll_s * 10 && !g_interrupted; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (tty) std::cerr << '\n';
  return true;
}

}  // namespace grader::slurm
