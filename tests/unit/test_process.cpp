#include "grader/catch.hpp"
#include "grader/process.hpp"

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

using namespace grader;

namespace {
std::filesystem::path temp_path(const std::string& name) {
  return std::filesystem::temp_directory_path() / ("workbook-proc-" + std::to_string(::getpid()) + "-" + name);
}
}  // namespace

TEST_CASE("exit status, output captured to a file, environment passed", "[process]") {
  const auto log = temp_path("out.log");
  ProcessOptions o;
  o.argv = {"sh", "-c", "echo hello $GREETING_TARGET; echo oops >&2; exit 3"};
  o.set_env = {{"GREETING_TARGET", "world"}};
  o.output_file = log;
  const auto r = run_process(o);
  CHECK(r.exit_code == 3);
  CHECK_FALSE(r.ok());
  CHECK(r.describe() == "exited with status 3");
  std::ifstream in(log);
  std::string all((std::istreambuf_iterator<char>(in)), {});
  CHECK(all == "hello world\noops\n");
  std::filesystem::remove(log);
}

TEST_CASE("a child killed by a signal is reported as such", "[process]") {
  ProcessOptions o;
  o.argv = {"sh", "-c", "kill -SEGV $$"};
  const auto r = run_process(o);
  CHECK(r.signal == SIGSEGV);
  CHECK(r.describe().find("SIGSEGV") != std::string::npos);
}

TEST_CASE("a timeout kills the whole process group, grandchildren included", "[process]") {
  const auto marker = temp_path("grandchild-alive");
  std::filesystem::remove(marker);
  ProcessOptions o;
  // The grandchild would create the marker after 2 s if it survived the kill at 0.5 s.
  o.argv = {"sh", "-c", "(sleep 2; touch " + marker.string() + ") & sleep 60"};
  o.timeout_s = 0.5;
  const auto started = std::chrono::steady_clock::now();
  const auto r = run_process(o);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  CHECK(r.timed_out);
  CHECK(took < 5.0);
  CHECK(r.describe().find("timed out") != std::string::npos);
  ::sleep(3);
  CHECK_FALSE(std::filesystem::exists(marker));
}

TEST_CASE("time the child waits on the caller does not count against its timeout", "[process]") {
  ProcessOptions o;
  o.argv = {"sh", "-c", "sleep 1"};
  o.timeout_s = 0.6;
  const auto started = std::chrono::steady_clock::now();
  // Paused from the start: the child has run only a fifth of its time by the clock it is judged on.
  o.paused_s = [&] { return 0.8 * std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(); };
  const auto paused = run_process(o);
  CHECK_FALSE(paused.timed_out);
  CHECK(paused.exit_code == 0);
  o.paused_s = nullptr;  // the same child without the pause runs past the timeout
  CHECK(run_process(o).timed_out);
}

TEST_CASE("a program that does not exist fails to start, with the reason", "[process]") {
  ProcessOptions o;
  o.argv = {"/nonexistent/program"};
  const auto r = run_process(o);
  CHECK(r.failed_to_start);
  CHECK(r.describe().find("No such file") != std::string::npos);
}

TEST_CASE("the working directory is set for the child", "[process]") {
  const auto log = temp_path("pwd.log");
  ProcessOptions o;
  o.argv = {"pwd"};
  o.cwd = "/";
  o.output_file = log;
  CHECK(run_process(o).ok());
  std::ifstream in(log);
  std::string line;
  std::getline(in, line);
  CHECK(line == "/");
  std::filesystem::remove(log);
}

TEST_CASE("tail_of_file keeps the end, from a line boundary", "[process]") {
  const auto path = temp_path("tail.txt");
  {
    std::ofstream out(path);
    for (int i = 0; i < 100; ++i) out << "line " << i << "\n";
  }
  const auto tail = tail_of_file(path, 30);
  CHECK(tail.find("line 99\n") != std::string::npos);
  CHECK(tail.rfind("line ", 0) == 0);  // starts at a whole line
  CHECK(tail.size() <= 30);
  std::filesystem::remove(path);
}

TEST_CASE("the memory watch kills a tree that holds too much memory", "[process][limits]") {
  ProcessOptions o;
  // The shell keeps 200 MB in a variable, then waits.
  o.argv = {"sh", "-c", "x=$(head -c 200000000 /dev/zero | tr '\\0' a); sleep 30"};
  o.limits.memory_bytes = 64u << 20;
  o.timeout_s = 60;
  const auto r = run_process(o);
  CHECK(r.memory_exceeded);
  CHECK_FALSE(r.timed_out);
  CHECK(r.describe().find("memory limit") != std::string::npos);
}

TEST_CASE("the process watch kills a tree that forks too much, grandchildren included", "[process][limits]") {
  ProcessOptions o;
  o.argv = {"sh", "-c", "for i in $(seq 40); do (sleep 30 &); done; sleep 30"};
  o.limits.max_processes = 10;
  o.timeout_s = 60;
  const auto started = std::chrono::steady_clock::now();
  const auto r = run_process(o);
  CHECK(r.processes_exceeded);
  CHECK(r.describe().find("too many processes") != std::string::npos);
  CHECK(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count() < 20);
}

TEST_CASE("output beyond the limit is dropped and the cut is marked", "[process][limits]") {
  const auto log = temp_path("big.log");
  ProcessOptions o;
  o.argv = {"sh", "-c", "yes line | head -c 1000000"};
  o.output_file = log;
  o.limits.output_bytes = 1000;
  const auto r = run_process(o);
  CHECK(r.ok());
  CHECK(r.output_truncated);
  CHECK(std::filesystem::file_size(log) < 1200);
  CHECK(tail_of_file(log, 200).find("[output truncated") != std::string::npos);
  std::filesystem::remove(log);
}

TEST_CASE("a cleared environment holds only what was set", "[process]") {
  const auto log = temp_path("env.log");
  ::setenv("WORKBOOK_SECRET_FOR_TEST", "leak", 1);
  ProcessOptions o;
  o.argv = {"/usr/bin/env"};
  o.clear_env = true;
  o.set_env = {{"ONLY_THIS", "1"}};
  o.output_file = log;
  CHECK(run_process(o).ok());
  std::ifstream in(log);
  std::string all((std::istreambuf_iterator<char>(in)), {});
  CHECK(all == "ONLY_THIS=1\n");
  ::unsetenv("WORKBOOK_SECRET_FOR_TEST");
  std::filesystem::remove(log);
}

TEST_CASE("a fork bomb is capped by the kernel and killed, however fast it forks", "[process][limits]") {
  if (!kernel_process_cap_available()) {
    WARN("root without a pids cgroup: no kernel cap on processes here, so no fork bomb is started");
    return;
  }
  ProcessOptions o;
  // Every process forks copies of itself in a loop, forever, ignoring failed forks. The pids
  // cgroup (or RLIMIT_NPROC) caps the tree; the watch then kills it.
  o.argv = {"sh", "-c", "bomb() { while :; do bomb & done; }; bomb"};
  o.output_file = "/dev/null";  // "Cannot fork", thousands of times
  o.limits.max_processes = 16;
  o.timeout_s = 30;
  const auto r = run_process(o);
  // Either the watch killed the tree, or the shell at its root died of a refused fork (dash
  // exits on one) and the rest was killed with it; never a clean exit, never the timeout.
  CHECK((r.processes_exceeded || !r.ok()));
  CHECK_FALSE(r.timed_out);
  // With a pids cgroup the tree never passes the hard cap; without one (RLIMIT_NPROC binds
  // ordinary users only), the watch alone kills it.
  if (r.kernel_capped) CHECK(r.peak_processes <= 16 + 32 + 1);
}

TEST_CASE("an output flood is drained at full speed: capped, and the child ends normally", "[process][limits]") {
  // 2 GiB to stdout with 1 MiB kept: were the pipe read only between polls of the wait loop, the
  // child would spend most of its time blocked on a full pipe and be killed as "timed out".
  const auto log = temp_path("flood.log");
  ProcessOptions o;
  o.argv = {"sh", "-c", "head -c 2147483648 /dev/zero; echo done >&2"};
  o.output_file = log;
  o.limits.output_bytes = 1u << 20;
  o.timeout_s = 60;
  const auto r = run_process(o);
  INFO(r.describe() << " after " << r.seconds << " s");
  CHECK(r.ok());
  CHECK(r.exit_code == 0);
  CHECK_FALSE(r.timed_out);
  CHECK(r.output_truncated);
  CHECK(r.seconds < 60);
  const auto size = std::filesystem::file_size(log);
  CHECK(size >= (1u << 20) - (1u << 18));
  CHECK(size < (1u << 20) + 300);  // the start, the end, the two notes: nothing of the middle
  CHECK(tail_of_file(log, 300).find("[output truncated: more than 1048576 bytes") != std::string::npos);
  std::ifstream in(log, std::ios::binary);
  const std::string out((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(out.find("done\n", out.size() - 300) != std::string::npos);  // its last words are kept
  std::filesystem::remove(log);
}

TEST_CASE("an output cut at its cap says so, keeps the start and the end, and ends nothing", "[process][limits]") {
  // As a submission whose start-up code floods stderr, then says why it stops: the cut is named
  // where it is, the last line survives, and the exit status is the program's own.
  const auto log = temp_path("cut.log");
  ProcessOptions o;
  o.argv = {"sh", "-c",
            "echo first; yes flood-line-from-a-static-initializer | head -c 20000000 >&2; "
            "echo 'runner: the reason it stopped'; exit 3"};
  o.output_file = log;
  o.limits.output_bytes = 4000;
  o.timeout_s = 60;
  const auto r = run_process(o);
  INFO(r.describe());
  CHECK(r.exit_code == 3);
  CHECK(r.signal == 0);
  CHECK_FALSE(r.killed_by_limit());
  CHECK(r.output_truncated);
  std::ifstream in(log);
  std::stringstream text;
  text << in.rdbuf();
  const std::string out = text.str();
  CHECK(out.rfind("first\n", 0) == 0);
  const auto cut = out.find("[output cut here: ");
  const auto last = out.find("runner: the reason it stopped");
  CHECK(cut != std::string::npos);
  CHECK(last != std::string::npos);
  CHECK(cut < last);
  CHECK(out.size() < 4000 + 300);
  std::filesystem::remove(log);
}

TEST_CASE("output within its cap is kept whole, without a cut", "[process][limits]") {
  const auto log = temp_path("whole.log");
  ProcessOptions o;
  o.argv = {"sh", "-c", "yes 0123456789 | head -c 3900"};  // past the head (3000), within the cap
  o.output_file = log;
  o.limits.output_bytes = 4000;
  const auto r = run_process(o);
  CHECK(r.ok());
  CHECK_FALSE(r.output_truncated);
  CHECK(std::filesystem::file_size(log) == 3900);
  std::filesystem::remove(log);
}
