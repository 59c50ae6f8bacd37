// The harness's side of remote calls (call.hpp, harness.hpp): it starts the runner with a socket
// and the control page (wire.hpp), shares its device memory with it through CUDA IPC handles,
// and times each call on the host:
//
//   harness:  [inputs, poison, L2 flush; stream synchronized]  t0  send call . . . see done  t1
//   runner:                                  receive, launch on its stream, write done = seq
//
// The runner's work can only begin after t0: it learns of the call then, and the inputs were
// written just before. The clock stops when the runner's stream has written `done`, after the
// work it was given. A runner that signals early finishes nothing sooner: the outputs are read
// right after t1, and an unfinished output is a wrong one. Nothing on the GPU waits for the other
// process (the two CUDA contexts would then compete for time slices, which costs a fraction of
// a millisecond per call), and the runner sleeps only after `done`, outside the clock.
// A call that fails, crashes, or hangs past the call timeout costs that call only: the runner is
// ended and a fresh one started for the next call.
#include "remote/arena.hpp"
#include "remote/call.hpp"
#include "remote/driver.hpp"
#include "remote/harness.hpp"
#include "workbook/cuda_check.hpp"
#include "workbook/device_buffer.hpp"
#include "workbook/timer.hpp"

#include <cuda.h>
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <iostream>
#include <map>
#include <sstream>

extern char** environ;

namespace remote {
namespace {

std::string signal_name(int s) {
  const char* name = sigabbrev_np(s);
  return name ? std::string("SIG") + name : std::to_string(s);
}

// CPU time (all threads) and thread count of a process. The time comes from the process's CPU
// clock, which the kernel brings up to date when read: /proc's counters of a thread that is
// running only move at scheduler ticks, a few milliseconds apart.
void usage_of(pid_t pid, double& cpu_ms, int& threads) {
  cpu_ms = 0;
  threads = 0;
  clockid_t clock;
  timespec t{};
  if (::clock_getcpuclockid(pid, &clock) == 0 && ::clock_gettime(clock, &t) == 0)
    cpu_ms = t.tv_sec * 1e3 + t.tv_nsec / 1e6;
  const std::string dir = "/proc/" + std::to_string(pid) + "/task";
  if (DIR* d = ::opendir(dir.c_str())) {
    while (const dirent* e = ::readdir(d))
      if (e->d_name[0] != '.') ++threads;
    ::closedir(d);
  }
}

class Harness {
public:
  static Harness& get() {
    static Harness h;
    return h;
  }
  ~Harness() { workbook::set_before_free(nullptr); }  // buffers freed later, at exit, skip it
  HarnessOptions options;
  int restarts = 0;

  std::vector<unsigned char> invoke(const char* name, const Writer& arguments, cudaStream_t stream);
  // The IPC handle of the allocation that starts at `base`, asked for once: the runner knows an
  // allocation by its handle, and opening one allocation twice under two handles fails
  // (cudaErrorAlreadyMapped).
  cudaIpcMemHandle_t share(CUdeviceptr base);
  // Before `pointer` (an allocation's start) is freed: if it was shared, the runner closes its
  // mapping, or is ended when it does not (its mappings end with it). CUDA leaves freeing memory
  // another process has open undefined, and the code could go on reading it.
  void unshare(const void* pointer) noexcept;
  void stop(bool kill);
  void spawn();
  std::string wait_started(int timeout_ms);  // "" when main() was reached

private:
  void start();
  [[noreturn]] void fail(const std::string& what, bool hung = false);  // ends the runner, throws CallFailed
  std::string reap();  // waits for the ended runner: "exited with status 1", "killed by SIGSEGV"
  // `what`, and on a line of its own failed_allocations_note for the allocations of the call in
  // flight, from the control page.
  std::string with_allocation_note(const std::string& what) const;
  std::uint32_t allocations_before_call_ = 0;  // the page's count when the call was prepared

  pid_t pid_ = -1;
  int fd_ = -1;
  Control* control_ = nullptr;  // the shared page, as the harness maps it
  int control_fd_ = -1;
  std::uint32_t seq_ = 0;
  bool started_once_ = false;
  bool reached_main_ = false;
  bool ready_ = false;         // the CUDA handshake is done: calls can be sent
  std::string start_failure_;  // a runner that could not start will not start next time either
  std::map<unsigned long long, cudaIpcMemHandle_t> shared_;  // by the allocation's buffer id
};

cudaIpcMemHandle_t Harness::share(CUdeviceptr base) {
  const unsigned long long id = driver::buffer_id(base);
  auto it = shared_.find(id);
  if (it == shared_.end()) {
    cudaIpcMemHandle_t handle;
    CUDA_CHECK(cudaIpcGetMemHandle(&handle, reinterpret_cast<void*>(base)));
    it = shared_.emplace(id, handle).first;
  }
  return it->second;
}

void Harness::unshare(const void* pointer) noexcept {
  if (shared_.empty()) return;
  CUdeviceptr base = 0;
  size_t size = 0;
  if (!driver::address_range(reinterpret_cast<CUdeviceptr>(pointer), base, size)) return;
  const auto it = shared_.find(driver::buffer_id(base));
  if (it == shared_.end()) return;
  Writer release;
  release.put(it->second);
  shared_.erase(it);
  if (!ready_ || pid_ <= 0) return;  // no runner: nothing has it open
  // A close is a call into the driver, which the node serializes: slow when many processes start
  // at once, hence the generous limit (only a runner that does not answer at all reaches it).
  std::string why;
  try {
    Type type;
    std::vector<unsigned char> payload;
    if (!send_message(fd_, Type::Release, release))
      why = "it has ended";
    else if (!receive_message(fd_, type, payload, 60000))
      why = "no answer within 60 s";
    else
      why = type == Type::Release ? Reader(payload).get_string() : "an unexpected message";
  } catch (const std::exception& e) {
    why = e.what();
  }
  if (why.empty()) return;
  std::cerr << "grader: the program running your code did not close a buffer the tests free (" << why
            << "): it is restarted\n";
  stop(true);
}

void Harness::spawn() {
  if (options.runner.empty()) throw CallFailed("internal: no runner program configured (WORKBOOK_RUNNER)", true);
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
    throw CallFailed(std::string("socketpair: ") + std::strerror(errno), true);
  // The runner gets the environment without the grader's own settings (WORKBOOK_*, the test
  // program's one hardware queue), and the
  // socket as its only extra descriptor: everything else the harness holds is close-on-exec.
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e)
    if (std::strncmp(*e, "WORKBOOK_", 9) != 0 && std::strncmp(*e, "CUDA_DEVICE_MAX_CONNECTIONS=", 28) != 0)
      env.emplace_back(*e);
  if (!options.runner_max_connections.empty())
    env.emplace_back("CUDA_DEVICE_MAX_CONNECTIONS=" + options.runner_max_connections);
  env.emplace_back("WORKBOOK_RUNNER_FD=3");
  if (options.polite) env.emplace_back("WORKBOOK_RUNNER_POLITE=1");
  env.emplace_back("WORKBOOK_RUNNER_CONTROL_FD=4");
  env.emplace_back("WORKBOOK_RUNNER_ARENA_FD=5");
  const int arena = arena_fd();
  if (control_fd_ < 0) {
    control_fd_ = ::memfd_create("workbook-control", MFD_CLOEXEC);
    if (control_fd_ < 0 || ::ftruncate(control_fd_, sizeof(Control)) != 0)
      throw CallFailed(std::string("memfd_create: ") + std::strerror(errno), true);
    void* page = ::mmap(nullptr, sizeof(Control), PROT_READ | PROT_WRITE, MAP_SHARED, control_fd_, 0);
    if (page == MAP_FAILED) throw CallFailed(std::string("mmap: ") + std::strerror(errno), true);
    control_ = static_cast<Control*>(page);
  }
  __atomic_store_n(&control_->done, 0u, __ATOMIC_SEQ_CST);
  __atomic_store_n(&control_->ready, 0u, __ATOMIC_SEQ_CST);
  __atomic_store_n(&control_->failed_allocations, 0u, __ATOMIC_SEQ_CST);
  __atomic_store_n(&control_->failed_allocation_bytes, std::uint64_t{0}, __ATOMIC_SEQ_CST);
  seq_ = 0;
  std::vector<char*> envp;
  for (auto& s : env) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::string program = options.runner;
  char* argv[] = {program.data(), nullptr};
  std::cout.flush();
  std::cerr.flush();
  const pid_t pid = ::fork();
  if (pid == 0) {
    // Each source first to a number above 5 (any of them may itself be 3, 4 or 5), then to its
    // place; dup2 clears close-on-exec on the copy.
    const int socket_fd = ::fcntl(sv[1], F_DUPFD, 10), control_fd = ::fcntl(control_fd_, F_DUPFD, 10),
              arena_copy = ::fcntl(arena, F_DUPFD, 10);
    ::dup2(socket_fd, 3);
    ::dup2(control_fd, 4);
    ::dup2(arena_copy, 5);
    // Nothing else of the harness's reaches the runner, whatever was opened without
    // close-on-exec (the results descriptor before the harness marked it, say).
    ::syscall(SYS_close_range, 6u, ~0u, 0u);
    if (options.file_bytes > 0) {
      rlimit cap{};
      ::getrlimit(RLIMIT_FSIZE, &cap);  // a lower hard limit inherited stays (raising it needs root)
      const rlim_t bytes = std::min<rlim_t>(static_cast<rlim_t>(options.file_bytes), cap.rlim_max);
      cap = {bytes, bytes};
      if (::setrlimit(RLIMIT_FSIZE, &cap) != 0) {  // never run the code uncapped
        const char why[] = "cannot cap the runner's file size (setrlimit RLIMIT_FSIZE)\n";
        (void)!::write(2, why, sizeof why - 1);
        ::_exit(127);
      }
    }
    ::execve(program.c_str(), argv, envp.data());
    const std::string why = "cannot run " + program + ": " + std::strerror(errno) + "\n";
    (void)!::write(2, why.data(), why.size());
    ::_exit(127);
  }
  ::close(sv[1]);
  if (pid < 0) {
    ::close(sv[0]);
    throw CallFailed(std::string("fork: ") + std::strerror(errno), true);
  }
  pid_ = pid;
  fd_ = sv[0];
  reached_main_ = false;
  if (started_once_) ++restarts;
  started_once_ = true;
}

std::string Harness::wait_started(int timeout_ms) {
  if (reached_main_) return "";
  Type type;
  std::vector<unsigned char> payload;
  try {
    if (!receive_message(fd_, type, payload, timeout_ms)) {
      stop(true);
      return "did not reach main() within " + std::to_string(timeout_ms / 1000) + " s";
    }
    if (type != Type::Started) throw std::runtime_error("unexpected message");
  } catch (const std::exception&) {
    const std::string why = reap();
    stop(true);
    return why;
  }
  reached_main_ = true;
  return "";
}

void Harness::start() {
  if (!start_failure_.empty()) throw CallFailed(start_failure_, true);
  if (pid_ < 0) spawn();
  std::string why = wait_started(60000);  // a restart after a crash: its start-up ran before
  if (why.empty()) {
    Writer hello;
    Type type;
    std::vector<unsigned char> payload;
    try {
      if (!send_message(fd_, Type::Hello, hello) || !receive_message(fd_, type, payload, 60000) || type != Type::Hello)
        why = "did not set up CUDA within 60 s";
    } catch (const std::exception&) {
      why = reap();
    }
  }
  if (!why.empty()) {
    stop(true);
    start_failure_ = "the program built from your code did not start: it " + why +
                     " (code that runs before main, such as a global object's constructor, can end it)";
    throw CallFailed(start_failure_, true);
  }
  ready_ = true;
}

std::string Harness::reap() {
  if (pid_ < 0) return "was not running";
  int status = 0;
  for (int i = 0; i < 200; ++i) {  // up to 2 s for it to finish exiting
    const pid_t r = ::waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
      pid_ = -1;
      if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
      if (WIFSIGNALED(status))
        return "was killed by " + signal_name(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")";
      return "ended";
    }
    ::usleep(10000);
  }
  ::kill(pid_, SIGKILL);
  ::waitpid(pid_, &status, 0);
  pid_ = -1;
  return "stopped answering";
}

void Harness::stop(bool kill) {
  ready_ = false;
  reached_main_ = false;
  if (pid_ > 0) {
    if (kill)
      ::kill(pid_, SIGKILL);
    else
      send_message(fd_, Type::Bye, Writer());
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
  }
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

void Harness::fail(const std::string& what, bool hung) {
  if (pid_ > 0) ::kill(pid_, SIGKILL);
  reap();
  const std::string message = hung ? what : with_allocation_note(what);  // a hang is its own cause
  stop(true);
  throw CallFailed(message, true, hung);
}

std::string Harness::with_allocation_note(const std::string& what) const {
  if (control_ == nullptr) return what;
  const std::uint32_t failed = __atomic_load_n(&control_->failed_allocations, __ATOMIC_ACQUIRE);
  const std::string note =
      failed_allocations_note(failed - std::min(failed, allocations_before_call_),
                              __atomic_load_n(&control_->failed_allocation_bytes, __ATOMIC_RELAXED));
  return note.empty() ? what : what + "\n" + note;
}

std::vector<unsigned char> Harness::invoke(const char* name, const Writer& arguments, cudaStream_t stream) {
  using clock = std::chrono::steady_clock;
  if (!ready_) start();
  const std::uint32_t seq = ++seq_;
  // The harness's own work on the buffers (inputs, poison, the L2 flush) is finished before the
  // clock starts, so the runner's work can neither overlap it nor be charged for it.
  CUDA_CHECK(cudaStreamSynchronize(stream));
  // Prepare carries the call: the runner decodes its arguments (opens the buffers, unpacks host
  // data from the arena), maps the arena, and runs an empty kernel, so that the GPU switches
  // to the runner's context, all before the clock starts. Call then only says "go".
  Writer prepare;
  prepare.put(seq);
  prepare.put<std::uint64_t>(arena_size());
  prepare.put_string(name);
  prepare.put_bytes(arguments.bytes());
  allocations_before_call_ = __atomic_load_n(&control_->failed_allocations, __ATOMIC_ACQUIRE);
  if (!send_message(fd_, Type::Prepare, prepare)) fail(std::string(name) + ": the program running your code " + reap());
  {
    const auto until = clock::now() + std::chrono::seconds(10);
    while (__atomic_load_n(&control_->ready, __ATOMIC_ACQUIRE) < seq && clock::now() < until) {
      if (options.polite) ::usleep(20);  // nothing timed: leave the core to the builds
    }
  }
  Writer call;
  call.put(seq);
  double cpu0 = 0, cpu1 = 0;
  int threads = 0;
  usage_of(pid_, cpu0, threads);
  const auto t0 = clock::now();
  if (!send_message(fd_, Type::Call, call)) fail(std::string(name) + ": the program running your code " + reap());

  // Watch `done` from the CPU; now and then also the socket (a reply before `done` means the
  // call failed) and the clock (a hang). Polite (nothing timed): no watch, the reply is awaited
  // asleep, and the call's time runs to the reply.
  const auto deadline = t0 + std::chrono::duration<double>(options.call_timeout_s);
  bool finished = false;
  for (unsigned spin = 0; !options.polite; ++spin) {
    if (__atomic_load_n(&control_->done, __ATOMIC_ACQUIRE) >= seq) {
      finished = true;
      break;
    }
    if (spin % 1024 == 1023) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 0) > 0) break;  // a reply (an error) or the runner's end, before done
      if (clock::now() > deadline) break;
    }
  }
  auto t1 = clock::now();
  finished = finished || __atomic_load_n(&control_->done, __ATOMIC_ACQUIRE) >= seq;

  Type type;
  std::vector<unsigned char> payload;
  bool answered = false;
  try {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now()).count();
    answered = receive_message(fd_, type, payload, static_cast<int>(std::max<long long>(left, finished ? 60000 : 0)));
  } catch (const std::exception&) {
    fail(std::string(name) + ": the program running your code " + reap() + " during this call");
  }
  // The runner replies once its device is idle (a spinning synchronize): from `done` to here is
  // the tail, where work the call put on another stream of its own shows (escaped_work).
  const auto t2 = clock::now();
  if (options.polite) {
    finished = __atomic_load_n(&control_->done, __ATOMIC_ACQUIRE) >= seq;
    t1 = t2;
  }
  usage_of(pid_, cpu1, threads);
  if (!answered) {
    std::ostringstream why;
    why << name << " did not finish within " << options.call_timeout_s
        << " s (a kernel or a loop that never ends?); the call was stopped";
    fail(why.str(), true);
  }
  std::uint32_t got_seq = 0, status = 0;
  std::string message;
  std::vector<unsigned char> value;
  std::int64_t idle_ns = 0;
  try {
    Reader reply(payload);
    if (type != Type::Reply) throw std::runtime_error("unexpected message");
    got_seq = reply.get<std::uint32_t>();
    status = reply.get<std::uint32_t>();
    message = reply.get_string();
    value = reply.get_bytes();
    idle_ns = reply.get<std::int64_t>();
  } catch (const std::exception&) {
    fail(std::string(name) + ": the program running your code sent a malformed reply");
  }
  if (got_seq != seq) fail(std::string(name) + ": the program running your code answered out of turn");
  if (static_cast<Status>(status) == Status::Crashed)
    fail(message + " (the CUDA context was lost: this call is charged, the other cases run in a fresh process)");
  if (static_cast<Status>(status) == Status::InvalidArgument) throw std::invalid_argument(message);
  if (static_cast<Status>(status) != Status::Ok) throw CallFailed(with_allocation_note(message), false);
  if (!finished) fail(std::string(name) + ": the program running your code answered without finishing the call");
  if (const std::string outside = arena_check_guards(); !outside.empty())
    throw CallFailed(name + (": " + outside), false);
  workbook::ForeignCall report;
  report.device_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
  report.threads = threads;
  report.cpu_ms = cpu1 - cpu0;
  // From `done` to the runner's device idle, both on this machine's monotonic clock: work the call
  // left on another stream of its own (escaped_work), without the reply's trip over the socket.
  const auto idle = clock::time_point(std::chrono::duration_cast<clock::duration>(std::chrono::nanoseconds(idle_ns)));
  report.tail_ms = std::max(0.0, std::chrono::duration<double, std::milli>(std::min(idle, t2) - t1).count());
  workbook::report_foreign_call(report);
  return value;
}

thread_local cudaStream_t t_call_stream = nullptr;
thread_local bool t_has_stream = false;

}  // namespace

std::string start_runner() {
  auto& h = Harness::get();
  h.spawn();
  return h.wait_started(-1);
}

void configure(const HarnessOptions& options) {
  Harness::get().options = options;
  workbook::use_whole_blocks(true);  // device_buffer.hpp says why
  workbook::set_before_free([](void* pointer) noexcept { Harness::get().unshare(pointer); });
}
int restarts() { return Harness::get().restarts; }
void shutdown() {
  workbook::set_before_free(nullptr);  // buffers freed after this (static ones at exit) have no runner
  Harness::get().stop(false);
}

void note_call_stream(cudaStream_t stream) {
  t_call_stream = stream;
  t_has_stream = true;
}

PointerRef share_pointer(const void* pointer) {
  PointerRef ref;
  if (!pointer) return ref;
  CUdeviceptr base = 0;
  size_t size = 0;
  if (!driver::address_range(reinterpret_cast<CUdeviceptr>(pointer), base, size))
    throw std::runtime_error("internal: a pointer argument is not device memory the harness allocated");
  ref.handle = Harness::get().share(base);
  ref.kind = 1;
  ref.offset = reinterpret_cast<CUdeviceptr>(pointer) - base;
  return ref;
}

std::vector<unsigned char> invoke(const char* name, const Writer& arguments) {
  // A function without a stream argument (whole programs on host data) is ordered on the
  // legacy default stream.
  const cudaStream_t stream = t_has_stream ? t_call_stream : cudaStreamLegacy;
  t_has_stream = false;
  return Harness::get().invoke(name, arguments, stream);
}

}  // namespace remote
