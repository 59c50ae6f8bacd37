// Running a child program (a build, a test program) so that it cannot take the grader with it:
// it runs in a process group of its own, which is killed whole when the wall-clock limit passes,
// its output goes to a file, and how it ended (exit code, signal, timeout) is reported exactly.
#pragma once

#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace grader {

// Limits on a child and everything it starts. The watched ones are checked about every 100 ms
// over the whole process tree (a fork inside a fork is still counted), and exceeding one kills
// the tree; the others are kernel resource limits set in the child before it starts.
struct Limits {
  double cpu_seconds = 0;        // RLIMIT_CPU, per process
  std::size_t file_bytes = 0;    // RLIMIT_FSIZE: the largest file it may write
  std::size_t memory_bytes = 0;  // watched: resident memory of the whole tree
  int max_processes = 0;         // watched: processes in the tree; also a hard cap by the kernel
                                 // (a pids cgroup where one can be made, else RLIMIT_NPROC)
  std::size_t output_bytes = 0;  // stdout and stderr kept in output_file; the rest is discarded
};

struct ProcessOptions {
  std::vector<std::string> argv;               // argv[0] is looked up in PATH if relative
  std::map<std::string, std::string> set_env;  // added to (or replacing) the environment
  bool clear_env = false;                      // start from an empty environment instead
  Limits limits;                               // 0 everywhere: no limit
  std::optional<std::filesystem::path> cwd;
  std::optional<std::filesystem::path> output_file;  // stdout and stderr together; else inherited
  double timeout_s = 0;                              // 0: no limit
  // Descriptors handed to the child: child's number -> the parent's descriptor (which should be
  // close-on-exec, so that children started at the same time by other threads do not get it).
  std::map<int, int> pass_fds;
  // Called about every 100 ms while the child runs (e.g. to show progress); not on a timer thread.
  std::function<void()> on_poll;
  // Called once the child runs (its exec succeeded), with its pid: the root of its tree.
  std::function<void(int pid)> on_start;
  // When it becomes true the child's whole tree is killed (the grader was interrupted).
  const std::atomic<bool>* cancel = nullptr;
  // Seconds the child has spent waiting on the caller so far (at a gate it asked at, a wait in
  // progress included: grader/gpu_gate.hpp): not counted against timeout_s.
  std::function<double()> paused_s;
};

struct ProcessResult {
  int exit_code = -1;  // when the child exited normally
  int signal = 0;      // when a signal killed it (SIGSEGV, SIGKILL ...)
  bool timed_out = false;
  bool memory_exceeded = false;     // killed by the memory watch
  bool processes_exceeded = false;  // killed by the process-count watch
  bool output_truncated = false;
  bool cancelled = false;
  bool kernel_capped = false;  // the task count was capped by a pids cgroup
  std::size_t peak_memory_bytes = 0;
  int peak_processes = 0;
  bool failed_to_start = false;
  std::string start_error;
  double seconds = 0;
  bool killed_by_limit() const { return timed_out || memory_exceeded || processes_exceeded || cancelled; }
  bool ok() const { return !killed_by_limit() && !failed_to_start && signal == 0 && exit_code == 0; }
  std::string describe() const;  // "exited with 1", "killed by SIGSEGV (segmentation fault)" ...
};

ProcessResult run_process(const ProcessOptions& options);

// Whether Limits::max_processes is enforced by the kernel here: a pids cgroup can be made, or
// the grader is not root (RLIMIT_NPROC binds). When false, only the watch stands between a fork
// bomb and the machine's process table.
bool kernel_process_cap_available();

// The last `max_bytes` of a file (for showing a log's end), starting at a line boundary.
std::string tail_of_file(const std::filesystem::path& path, std::size_t max_bytes);

// The program `name` as found in PATH ("" when it is not there).
std::string find_in_path(const std::string& name);

}  // namespace grader
