#include "grader/process.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <sstream>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <sys/stat.h>
#include <system_error>
#include <thread>
#include <vector>

extern char** environ;

namespace grader {

std::string ProcessResult::describe() const {
  if (failed_to_start) return "could not start: " + start_error;
  if (cancelled) return "stopped: the grader was interrupted";
  if (timed_out) return "timed out after " + std::to_string(static_cast<int>(seconds + 0.5)) + " s and was killed";
  if (memory_exceeded)
    return "used more than its memory limit (" + std::to_string(peak_memory_bytes >> 20) +
           " MiB resident) and was killed";
  if (processes_exceeded) return "started too many processes (" + std::to_string(peak_processes) + ") and was killed";
  if (signal != 0) {
    const char* name = sigabbrev_np(signal);
    return std::string("killed by signal ") + (name ? std::string("SIG") + name : std::to_string(signal)) + " (" +
           strsignal(signal) + ")";
  }
  return "exited with status " + std::to_string(exit_code);
}

namespace {

struct TreeUsage {
  std::vector<pid_t> pids;  // the root and every descendant still alive
  std::size_t resident_bytes = 0;
};

// The processes of a child: its descendants (found by parent links, so one that changed its
// process group or session, as inside a sandbox, is still found) and the members of its process
// group (so an orphan whose parent exited, reparented to init, is still found).
TreeUsage tree_usage(pid_t root) {
  std::map<pid_t, std::vector<pid_t>> children;
  std::map<pid_t, std::size_t> rss;
  std::vector<pid_t> group;
  const long page = ::sysconf(_SC_PAGESIZE);
  if (DIR* proc = ::opendir("/proc")) {
    while (const dirent* e = ::readdir(proc)) {
      const pid_t pid = static_cast<pid_t>(std::atoi(e->d_name));
      if (pid <= 0) continue;
      std::ifstream stat("/proc/" + std::string(e->d_name) + "/stat");
      std::string line;
      if (!std::getline(stat, line)) continue;
      // Fields after the command (which may hold spaces) start after the last ')'.
      const auto close = line.rfind(')');
      if (close == std::string::npos) continue;
      char state = 0;
      int ppid = 0, pgrp = 0;
      std::sscanf(line.c_str() + close + 1, " %c %d %d", &state, &ppid, &pgrp);
      if (state == 'Z') continue;  // a zombie holds no memory and will be reaped
      children[ppid].push_back(pid);
      if (pgrp == root && pid != root) group.push_back(pid);
      std::ifstream statm("/proc/" + std::string(e->d_name) + "/statm");
      std::size_t size = 0, resident = 0;
      statm >> size >> resident;
      rss[pid] = resident * static_cast<std::size_t>(page);
    }
    ::closedir(proc);
  }
  TreeUsage usage;
  std::vector<pid_t> todo = group;
  todo.push_back(root);
  std::map<pid_t, bool> seen;
  while (!todo.empty()) {
    const pid_t p = todo.back();
    todo.pop_back();
    if (seen[p]) continue;
    seen[p] = true;
    usage.pids.push_back(p);
    usage.resident_bytes += rss[p];
    for (pid_t c : children[p]) todo.push_back(c);
  }
  return usage;
}

void kill_tree(pid_t root) {
  // Stop first so nothing forks while we collect, then kill every process found, then the
  // group; again while anything is left (a process may have forked between two passes).
  for (int round = 0; round < 10; ++round) {
    const auto usage = tree_usage(root);
    for (pid_t p : usage.pids) ::kill(p, SIGSTOP);
    const auto stopped = tree_usage(root);
    for (pid_t p : stopped.pids) ::kill(p, SIGKILL);
    ::kill(-root, SIGKILL);
    if (stopped.pids.size() <= 1) break;  // only the (now killed) root itself
  }
}

void set_limit(int resource, rlim_t value) {
  const rlimit limit{value, value};
  ::setrlimit(resource, &limit);
}

bool write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  out.flush();
  return static_cast<bool>(out);
}

// A kernel-enforced cap on the number of tasks (processes and threads) of one child: a pids
// cgroup, where the grader may create one (cgroup v2, or v1's pids hierarchy). A watch that
// polls cannot stop a fork bomb, which fills the process table within milliseconds; the kernel
// can. Where no cgroup can be made, RLIMIT_NPROC is the fallback (it binds ordinary users only).
class PidsCgroup {
public:
  static std::unique_ptr<PidsCgroup> create(int max_tasks) {
    static std::atomic<int> counter{0};
    const std::string name = "workbook-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
    for (const std::string root : {"/sys/fs/cgroup", "/sys/fs/cgroup/unified"}) {
      std::ifstream controllers(root + "/cgroup.controllers");
      std::string list;
      if (!std::getline(controllers, list) || list.find("pids") == std::string::npos) continue;
      write_text(root + "/cgroup.subtree_control", "+pids");  // may already be on
      if (auto g = make(root + "/" + name, max_tasks)) return g;
    }
    if (std::ifstream("/sys/fs/cgroup/pids/pids.max") || std::ifstream("/sys/fs/cgroup/pids/cgroup.procs"))
      if (auto g = make("/sys/fs/cgroup/pids/" + name, max_tasks)) return g;
    return nullptr;
  }
  ~PidsCgroup() {
    kill_all();
    for (int i = 0; i < 50 && ::rmdir(dir_.c_str()) != 0 && errno == EBUSY; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  const std::string& procs_file() const { return procs_; }
  // Every task in the cgroup, killed: exact, whatever their parents or sessions.
  void kill_all() const {
    for (int round = 0; round < 20; ++round) {
      std::ifstream in(procs_);
      bool any = false;
      for (pid_t p; in >> p;) {
        ::kill(p, SIGKILL);
        any = true;
      }
      if (!any) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }

private:
  static std::unique_ptr<PidsCgroup> make(const std::string& dir, int max_tasks) {
    if (::mkdir(dir.c_str(), 0755) != 0) return nullptr;
    auto g = std::unique_ptr<PidsCgroup>(new PidsCgroup);
    g->dir_ = dir;
    g->procs_ = dir + "/cgroup.procs";
    if (!write_text(dir + "/pids.max", std::to_string(max_tasks))) {
      ::rmdir(dir.c_str());
      return nullptr;
    }
    return g;
  }
  PidsCgroup() = default;
  std::string dir_, procs_;
};

// The child's stdout and stderr, drained by a thread of its own, continuously. The wait loop of
// run_process sleeps up to 100 ms between polls and scans /proc for the watches; had it also been
// the reader, a child writing gigabytes would sit blocked on a full 64 KiB pipe most of the time
// and turn into "timed out". A thread (rather than poll() folded into the wait loop) keeps the
// pipe empty whatever the loop is doing, and keeps the loop as it was. It sleeps in poll() on the
// pipe and on a wake-up pipe, writes the first three quarters of `limit` bytes to the output
// file, keeps the last quarter's worth in memory (the end of the output, where a program says why
// it stopped) and drops what lies between, so the child runs at full speed and ends normally; the
// end is written after a line that says how much was cut there (write_end). Nothing is ever
// killed for its output. It ends
// by itself at end of file (every writer gone), or when finish() wakes it after the child's tree
// is killed: then it takes what is left in the pipe (for at most a second, in case an escaped
// process still writes) and stops. Should no thread start, pump() drains from the wait loop as
// before.
class OutputDrain {
public:
  OutputDrain(int in, int out, std::size_t limit)
      : in_(in), out_(out), limit_(limit), head_(limit - limit / 4), end_(limit / 4), buffer_(256 * 1024) {
    ::fcntl(in_, F_SETFL, O_NONBLOCK);
    (void)::fcntl(in_, F_SETPIPE_SZ, 1 << 20);  // fewer wake-ups; the default 64 KiB where refused
    if (::pipe2(wake_, O_CLOEXEC) != 0) return;
    try {
      thread_ = std::thread([this] { run(); });
    } catch (const std::system_error&) {
      close_wake();
    }
  }
  ~OutputDrain() {
    finish();
    close_wake();
  }
  OutputDrain(const OutputDrain&) = delete;
  OutputDrain& operator=(const OutputDrain&) = delete;

  bool threaded() const { return thread_.joinable(); }
  // Without a thread: reads what is in the pipe now (called from the wait loop).
  void pump() {
    if (!threaded()) read_some(std::chrono::steady_clock::now() + std::chrono::milliseconds(50));
  }
  // The child's tree is gone: whatever is left, then the thread ends. Idempotent.
  void finish() {
    if (thread_.joinable()) {
      const char c = 0;
      (void)!::write(wake_[1], &c, 1);
      thread_.join();
    } else if (!finished_) {
      read_some(std::chrono::steady_clock::now() + std::chrono::seconds(1));
    }
    if (!finished_) write_end();
    finished_ = true;
  }
  bool truncated() const { return truncated_; }  // after finish()

private:
  void close_wake() {
    for (int& fd : wake_) {
      if (fd >= 0) ::close(fd);
      fd = -1;
    }
  }

  // Reads until the pipe is empty, at end of file (then returns false) or past `deadline`.
  bool read_some(std::chrono::steady_clock::time_point deadline) {
    for (;;) {
      const ssize_t n = ::read(in_, buffer_.data(), buffer_.size());
      if (n > 0) {
        keep(static_cast<std::size_t>(n));
        if (std::chrono::steady_clock::now() > deadline) return true;
        continue;
      }
      if (n == 0) return false;
      if (errno == EINTR) continue;
      return errno == EAGAIN || errno == EWOULDBLOCK;
    }
  }

  void write_all(const char* data, std::size_t n) {
    for (std::size_t done = 0; done < n;) {
      const ssize_t w = ::write(out_, data + done, n - done);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) break;  // the log cannot be written: the output is dropped, the child runs on
      done += static_cast<std::size_t>(w);
    }
  }

  // The first head_ bytes go to the file; after them, the last end_ bytes stay in memory.
  void keep(std::size_t n) {
    std::size_t k = n;
    if (limit_ > 0 && kept_ + k > head_) k = kept_ < head_ ? head_ - kept_ : 0;
    write_all(buffer_.data(), k);
    kept_ += k;
    past_head_ += n - k;
    if (n - k >= end_) {
      tail_.assign(buffer_.data() + n - end_, end_);
    } else {
      tail_.append(buffer_.data() + k, n - k);
      if (tail_.size() > 2 * end_) tail_.erase(0, tail_.size() - end_);  // copies end_ bytes per end_ read
    }
  }

  // The end of the output, after the head: whole when it fits in end_, else after a line that
  // says how much was dropped, from the first line break on. truncated_ when anything was dropped.
  void write_end() {
    if (past_head_ == 0) return;
    std::string end = tail_.size() > end_ ? tail_.substr(tail_.size() - end_) : tail_;
    truncated_ = past_head_ > end.size();
    if (truncated_) {
      if (const auto nl = end.find('\n'); nl != std::string::npos && nl + 1 < end.size()) end.erase(0, nl + 1);
      const std::string cut = "\n[output cut here: " + std::to_string(past_head_ - end.size()) +
                              " bytes dropped unread; its last " + std::to_string(end.size()) + " bytes follow]\n";
      write_all(cut.data(), cut.size());
    }
    write_all(end.data(), end.size());
  }

  void run() {
    pollfd fds[2] = {{in_, POLLIN, 0}, {wake_[0], POLLIN, 0}};
    for (;;) {
      if (::poll(fds, 2, -1) < 0 && errno != EINTR) break;
      if (fds[1].revents != 0) break;  // finish(): take what is left, below
      // A slice at a time, so that a wake-up is seen even while an escaped writer never stops.
      const auto slice = std::chrono::steady_clock::now() + std::chrono::milliseconds(100);
      if (fds[0].revents != 0 && !read_some(slice)) return;  // end of file
    }
    read_some(std::chrono::steady_clock::now() + std::chrono::seconds(1));
  }

  int in_, out_;
  std::size_t limit_, head_, end_;
  std::vector<char> buffer_;
  std::string tail_;           // the last end_ bytes after the head (up to twice that, trimmed)
  std::size_t past_head_ = 0;  // bytes read after the head
  int wake_[2] = {-1, -1};
  std::thread thread_;
  std::size_t kept_ = 0;
  bool truncated_ = false;
  bool finished_ = false;
};

// The child's argv and envp, built before fork: after fork only async-signal-safe calls are
// allowed. The pointers point into the strings held here, so it is neither copied nor moved.
class ChildCommand {
public:
  explicit ChildCommand(const ProcessOptions& options) : args_(options.argv), program(options.argv[0]) {
    if (!options.clear_env) {
      for (char** e = environ; *e; ++e) {
        const std::string entry = *e;
        const std::string key = entry.substr(0, entry.find('='));
        if (!options.set_env.count(key)) env_strings_.push_back(entry);
      }
    }
    for (const auto& [k, v] : options.set_env) env_strings_.push_back(k + "=" + v);
    for (auto& s : env_strings_) envp.push_back(s.data());
    envp.push_back(nullptr);
    for (auto& a : args_) argv.push_back(a.data());
    argv.push_back(nullptr);
  }
  ChildCommand(const ChildCommand&) = delete;
  ChildCommand& operator=(const ChildCommand&) = delete;

private:
  std::vector<std::string> env_strings_, args_;

public:
  std::vector<char*> envp, argv;
  // execvpe looks argv[0] up in the PATH of the grader's own environment, also when the child's
  // environment is cleared.
  const std::string program;
};

// The descriptors between the grader and the child: the output file and the pipe to it, and a
// pipe that closes on a successful exec and so tells the parent whether exec worked.
struct ChildPipes {
  int out_fd = -1;
  int out_pipe[2] = {-1, -1};
  int status_pipe[2] = {-1, -1};
};

// Opens them; false, with the reason in result, where one cannot be opened (nothing left open).
bool open_pipes(const ProcessOptions& options, ChildPipes& p, ProcessResult& result) {
  if (options.output_file) {
    p.out_fd = ::open(options.output_file->c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (p.out_fd < 0) {
      result.failed_to_start = true;
      result.start_error = "cannot write " + options.output_file->string() + ": " + std::strerror(errno);
      return false;
    }
  }
  // The child's output comes through a pipe, so that the grader decides how much of it to keep.
  if (p.out_fd >= 0 && ::pipe2(p.out_pipe, O_CLOEXEC) != 0) {
    result.failed_to_start = true;
    result.start_error = std::strerror(errno);
    ::close(p.out_fd);
    return false;
  }
  if (::pipe2(p.status_pipe, O_CLOEXEC) != 0) {
    result.failed_to_start = true;
    result.start_error = std::strerror(errno);
    if (p.out_fd >= 0) ::close(p.out_fd);
    return false;
  }
  return true;
}

// What the child needs between fork and exec, all of it made before fork.
struct ChildSetup {
  const ChildPipes& pipes;
  const std::vector<std::pair<int, int>>& pass_fds;  // {child's descriptor, parent's}
  const Limits& limits;
  const std::string& cgroup_procs;  // the cgroup to join, or ""
  bool root;
  const std::string& cwd;
};

// The child, after fork: only async-signal-safe calls. Its own process group, its output into
// the pipe, the descriptors given, its limits, then exec; exec's errno goes up the status pipe.
[[noreturn]] void exec_child(const ChildSetup& c, const ChildCommand& command) {
  ::setpgid(0, 0);  // its own group: the timeout kills everything it started
  if (c.pipes.out_pipe[1] >= 0) {
    ::dup2(c.pipes.out_pipe[1], STDOUT_FILENO);
    ::dup2(c.pipes.out_pipe[1], STDERR_FILENO);
  }
  // After stdout and stderr are in place (a descriptor given might be numbered like a pipe's).
  for (const auto& [child_fd, parent_fd] : c.pass_fds) {
    if (child_fd == parent_fd)
      ::fcntl(child_fd, F_SETFD, 0);
    else
      ::dup2(parent_fd, child_fd);  // the copy is not close-on-exec
  }
  const int devnull = ::open("/dev/null", O_RDONLY);
  if (devnull >= 0) ::dup2(devnull, STDIN_FILENO);
  set_limit(RLIMIT_CORE, 0);  // a crash must not litter core files
  if (c.limits.cpu_seconds > 0) set_limit(RLIMIT_CPU, static_cast<rlim_t>(c.limits.cpu_seconds + 1));
  if (c.limits.file_bytes > 0) set_limit(RLIMIT_FSIZE, c.limits.file_bytes);
  // RLIMIT_NPROC counts all of a user's processes and does not bind root: the watch below is
  // the real limit, this one a second line of defence for ordinary users.
  if (!c.cgroup_procs.empty()) {
    const int fd = ::open(c.cgroup_procs.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd >= 0) {
      (void)!::write(fd, "0", 1);  // "0": this process, and so everything it starts
      ::close(fd);
    }
  } else if (c.limits.max_processes > 0 && !c.root) {
    set_limit(RLIMIT_NPROC, static_cast<rlim_t>(c.limits.max_processes) + 256);
  }
  if (!c.cwd.empty() && ::chdir(c.cwd.c_str()) != 0) {
    const int err = errno;
    (void)!::write(c.pipes.status_pipe[1], &err, sizeof err);
    ::_exit(127);
  }
  ::execvpe(command.program.c_str(), command.argv.data(), command.envp.data());
  const int err = errno;
  (void)!::write(c.pipes.status_pipe[1], &err, sizeof err);
  ::_exit(127);
}

// Waits for the child, and kills its process group (and cgroup) on the timeout, a cancel, or a
// watched limit, noting which in result; the child's wait status.
int watch_child(pid_t pid, const ProcessOptions& options, PidsCgroup* cgroup, OutputDrain* drain,
                std::chrono::steady_clock::time_point started, ProcessResult& result) {
  const Limits& limits = options.limits;
  int status = 0;
  const bool watch = limits.memory_bytes > 0 || limits.max_processes > 0;
  for (int tick = 0;; ++tick) {
    if (drain) drain->pump();  // only where no drain thread could start
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) break;
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count() -
                           (options.paused_s ? options.paused_s() : 0.0);
    bool kill_now = false;
    if (options.timeout_s > 0 && elapsed > options.timeout_s) {
      result.timed_out = true;
      kill_now = true;
    }
    if (options.cancel && options.cancel->load()) result.cancelled = kill_now = true;
    if (watch && !kill_now) {
      const auto usage = tree_usage(pid);
      result.peak_memory_bytes = std::max(result.peak_memory_bytes, usage.resident_bytes);
      result.peak_processes = std::max(result.peak_processes, static_cast<int>(usage.pids.size()));
      if (limits.memory_bytes > 0 && usage.resident_bytes > limits.memory_bytes)
        result.memory_exceeded = kill_now = true;
      if (limits.max_processes > 0 && static_cast<int>(usage.pids.size()) > limits.max_processes)
        result.processes_exceeded = kill_now = true;
    }
    if (kill_now) {
      if (cgroup) cgroup->kill_all();
      kill_tree(pid);
      ::waitpid(pid, &status, 0);
      break;
    }
    if (options.on_poll && tick % 10 == 0) options.on_poll();
    // Poll quickly at first (most children are short), then every 100 ms.
    std::this_thread::sleep_for(std::chrono::milliseconds(tick < 20 ? 10 : 100));
  }
  return status;
}

}  // namespace

ProcessResult run_process(const ProcessOptions& options) {
  using clock = std::chrono::steady_clock;
  ProcessResult result;
  if (options.argv.empty()) {
    result.failed_to_start = true;
    result.start_error = "no command";
    return result;
  }

  const ChildCommand command(options);
  ChildPipes pipes;
  if (!open_pipes(options, pipes, result)) return result;
  const std::string cwd = options.cwd ? options.cwd->string() : std::string();
  const Limits limits = options.limits;
  const bool root = ::geteuid() == 0;
  // The hard cap sits a little above the watched limit, so the watch (which names the cause)
  // normally acts first, and the kernel stops whatever the watch is too slow for.
  std::unique_ptr<PidsCgroup> cgroup;
  if (limits.max_processes > 0) cgroup = PidsCgroup::create(limits.max_processes + 32);
  const std::string cgroup_procs = cgroup ? cgroup->procs_file() : std::string();
  result.kernel_capped = cgroup != nullptr;

  const auto started = clock::now();
  const std::vector<std::pair<int, int>> pass_fds(options.pass_fds.begin(), options.pass_fds.end());
  const pid_t pid = ::fork();
  if (pid == 0) exec_child({pipes, pass_fds, limits, cgroup_procs, root, cwd}, command);
  ::close(pipes.status_pipe[1]);
  if (pipes.out_pipe[1] >= 0) ::close(pipes.out_pipe[1]);
  if (pid < 0) {
    ::close(pipes.status_pipe[0]);
    if (pipes.out_fd >= 0) ::close(pipes.out_fd);
    if (pipes.out_pipe[0] >= 0) ::close(pipes.out_pipe[0]);
    result.failed_to_start = true;
    result.start_error = std::string("fork: ") + std::strerror(errno);
    return result;
  }
  ::setpgid(pid, pid);  // also from the parent, so the group exists before we might kill it
  int exec_errno = 0;
  if (::read(pipes.status_pipe[0], &exec_errno, sizeof exec_errno) == sizeof exec_errno) {
    result.failed_to_start = true;
    result.start_error = options.argv[0] + ": " + std::strerror(exec_errno);
  }
  ::close(pipes.status_pipe[0]);
  if (!result.failed_to_start && options.on_start) options.on_start(pid);

  std::unique_ptr<OutputDrain> drain;
  if (pipes.out_pipe[0] >= 0)
    drain = std::make_unique<OutputDrain>(pipes.out_pipe[0], pipes.out_fd, limits.output_bytes);

  const int status = watch_child(pid, options, cgroup.get(), drain.get(), started, result);
  // Whatever the child left behind (a forked helper) goes too.
  kill_tree(pid);
  if (cgroup) cgroup->kill_all();
  if (drain) {
    drain->finish();
    result.output_truncated = drain->truncated();
    drain.reset();
  }
  if (pipes.out_pipe[0] >= 0) ::close(pipes.out_pipe[0]);
  if (result.output_truncated && pipes.out_fd >= 0) {
    const std::string note = "\n[output truncated: more than " + std::to_string(limits.output_bytes) +
                             " bytes: the middle dropped, the program ran on]\n";
    (void)!::write(pipes.out_fd, note.data(), note.size());
  }
  if (pipes.out_fd >= 0) ::close(pipes.out_fd);
  result.seconds = std::chrono::duration<double>(clock::now() - started).count();
  if (options.on_poll) options.on_poll();
  if (result.failed_to_start) return result;
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status) && !result.killed_by_limit()) result.signal = WTERMSIG(status);
  return result;
}

bool kernel_process_cap_available() {
  if (::geteuid() != 0) return true;
  return PidsCgroup::create(64) != nullptr;  // made and removed again
}

std::string find_in_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const std::filesystem::path candidate = std::filesystem::path(dir) / name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
  }
  return {};
}

std::string tail_of_file(const std::filesystem::path& path, std::size_t max_bytes) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return {};
  const std::streamoff size = in.tellg();
  const std::streamoff start = size > static_cast<std::streamoff>(max_bytes) ? size - max_bytes : 0;
  in.seekg(start);
  std::string text(static_cast<std::size_t>(size - start), '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (start > 0) {
    const auto nl = text.find('\n');
    if (nl != std::string::npos) text.erase(0, nl + 1);
  }
  return text;
}

}  // namespace grader
