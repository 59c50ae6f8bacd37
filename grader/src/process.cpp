#include "grader/process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <thread>

extern char** environ;

namespace grader {

std::string ProcessResult::describe() const {
  if (failed_to_start) return "could not start: " + start_error;
  if (timed_out) return "timed out after " + std::to_string(static_cast<int>(seconds + 0.5)) + " s and was killed";
  if (signal != 0) {
    const char* name = sigabbrev_np(signal);
    return std::string("killed by signal ") + (name ? std::string("SIG") + name : std::to_string(signal)) +
           " (" + strsignal(signal) + ")";
  }
  return "exited with status " + std::to_string(exit_code);
}

ProcessResult run_process(const ProcessOptions& options) {
  using clock = std::chrono::steady_clock;
  ProcessResult result;
  if (options.argv.empty()) {
    result.failed_to_start = true;
    result.start_error = "no command";
    return result;
  }

  // Build argv and envp before fork: after fork only async-signal-safe calls are allowed.
  std::vector<std::string> env_strings;
  for (char** e = environ; *e; ++e) {
    const std::string entry = *e;
    const std::string key = entry.substr(0, entry.find('='));
    if (!options.set_env.count(key)) env_strings.push_back(entry);
  }
  for (const auto& [k, v] : options.set_env) env_strings.push_back(k + "=" + v);
  std::vector<char*> envp, argv;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = options.argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  int out_fd = -1;
  if (options.output_file) {
    out_fd = ::open(options.output_file->c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (out_fd < 0) {
      result.failed_to_start = true;
      result.start_error = "cannot write " + options.output_file->string() + ": " + std::strerror(errno);
      return result;
    }
  }
  // A pipe that closes on a successful exec tells the parent whether exec worked.
  int status_pipe[2];
  if (::pipe2(status_pipe, O_CLOEXEC) != 0) {
    result.failed_to_start = true;
    result.start_error = std::strerror(errno);
    if (out_fd >= 0) ::close(out_fd);
    return result;
  }
  const std::string cwd = options.cwd ? options.cwd->string() : std::string();

  const auto started = clock::now();
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setpgid(0, 0);  // its own group: the timeout kills everything it started
    if (out_fd >= 0) {
      ::dup2(out_fd, STDOUT_FILENO);
      ::dup2(out_fd, STDERR_FILENO);
    }
    const int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0) ::dup2(devnull, STDIN_FILENO);
    if (!cwd.empty() && ::chdir(cwd.c_str()) != 0) {
      const int err = errno;
      (void)!::write(status_pipe[1], &err, sizeof err);
      ::_exit(127);
    }
    ::execvpe(argv[0], argv.data(), envp.data());
    const int err = errno;
    (void)!::write(status_pipe[1], &err, sizeof err);
    ::_exit(127);
  }
  ::close(status_pipe[1]);
  if (out_fd >= 0) ::close(out_fd);
  if (pid < 0) {
    ::close(status_pipe[0]);
    result.failed_to_start = true;
    result.start_error = std::string("fork: ") + std::strerror(errno);
    return result;
  }
  ::setpgid(pid, pid);  // also from the parent, so the group exists before we might kill it
  int exec_errno = 0;
  if (::read(status_pipe[0], &exec_errno, sizeof exec_errno) == sizeof exec_errno) {
    result.failed_to_start = true;
    result.start_error = options.argv[0] + ": " + std::strerror(exec_errno);
  }
  ::close(status_pipe[0]);

  int status = 0;
  for (;;) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) break;
    const double elapsed = std::chrono::duration<double>(clock::now() - started).count();
    if (options.timeout_s > 0 && elapsed > options.timeout_s) {
      result.timed_out = true;
      ::kill(-pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      break;
    }
    if (options.on_poll) options.on_poll();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  // Whatever the child left behind in its group (a forked helper) goes too.
  ::kill(-pid, SIGKILL);
  result.seconds = std::chrono::duration<double>(clock::now() - started).count();
  if (options.on_poll) options.on_poll();
  if (result.failed_to_start) return result;
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status) && !result.timed_out) result.signal = WTERMSIG(status);
  return result;
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
