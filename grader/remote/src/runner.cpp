// The runner: the one process that holds a submission's code. It is started by the harness
// (harness.cpp) with a socket on descriptor WORKBOOK_RUNNER_FD and the control page (wire.hpp) on
// WORKBOOK_RUNNER_CONTROL_FD, and serves calls one at a time:
//
//   1. call the student's function, which launches on this runner's stream (the harness's own
//      work on the buffers, poisoning and flushing, finished before it sent the call);
//   2. write done = seq on this stream: the harness sees it from the CPU and stops its clock;
//   3. synchronize the device (spinning) and reply: ok, the error the call threw, or a crash; the
//      harness takes the time from `done` to the reply as the call's tail (escaped work).
//
// Nothing here decides a verdict: the harness times the call on its own stream and checks the
// outputs itself. The runner's stream is a *blocking* stream, so work a submission puts on the
// legacy default stream (a launch without a stream argument, a plain cudaMemcpy between two
// kernels) is ordered with it and timed, as in an ordinary program.
#include "remote/allocation_watch.hpp"
#include "remote/arena.hpp"
#include "remote/call.hpp"
#include "remote/driver.hpp"
#include "workbook/contest.hpp"
#include "workbook/cuda_check.hpp"

#include <cuda.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdlib>
#include <iostream>
#include <map>
#include <typeinfo>
#include <vector>

namespace remote {
cudaError_t warm(cudaStream_t stream);  // warm.cu
void vendor_check_start();              // vendor_check.cpp: a vendor math library loaded
std::string vendor_library_after_call();
std::string vendor_library_mapped();
namespace {

std::map<std::string, Binder>& registry() {
  static std::map<std::string, Binder> r;
  return r;
}

cudaStream_t g_stream = nullptr;
bool g_polite = false;  // an untimed phase: no spinning (serve)

// The harness's buffers this process has open, by IPC handle bytes. Each stays open until the
// harness frees it (Release): opening and closing are calls into the driver, which the node
// serializes across its GPUs, and the harness keeps its cases' buffers from case to case
// (grader/kept_cases.hpp).
std::map<std::string, void*> g_opened;

std::string key_of(const cudaIpcMemHandle_t& h) { return std::string(reinterpret_cast<const char*>(&h), sizeof h); }

std::string error_text(cudaError_t e) { return std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e); }

// Release: the harness frees this memory next. The answer is "" once it is closed here (or was
// never open), else why not: the harness then ends this process, whose mappings end with it.
Writer release(const std::vector<unsigned char>& payload) {
  Writer answer;
  Reader message(payload);
  const auto it = g_opened.find(key_of(message.get<cudaIpcMemHandle_t>()));
  std::string why;
  if (it != g_opened.end()) {
    void* const base = it->second;
    if (const cudaError_t e = cudaIpcCloseMemHandle(base); e != cudaSuccess)
      why = "cudaIpcCloseMemHandle(base): " + error_text(e);
    g_opened.erase(it);
  }
  answer.put_string(why);
  return answer;
}

// Waits for the next message. After a Prepare, the Call follows within microseconds and the
// harness's clock is already running when it is sent: spin for it, since a sleeping process can
// take milliseconds to wake on some hosts. Otherwise sleep: between calls nothing is timed, and
// a runner spinning there takes a core from every other submission graded at the same time.
bool next_message(int fd, Type& type, std::vector<unsigned char>& payload, bool call_expected) {
  if (call_expected) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(1);
    while (std::chrono::steady_clock::now() < until)
      if (receive_message(fd, type, payload, 0)) return true;
  }
  return receive_message(fd, type, payload, -1);
}

// Runs `work`, turning what it throws into a status and a message.
void attempt(const std::function<void()>& work, Status& status, std::string& message) {
  try {
    work();
  } catch (const workbook::CudaError& e) {
    status = e.sticky() ? Status::Crashed : Status::Error;
    message = e.what();
  } catch (const std::invalid_argument& e) {
    status = Status::InvalidArgument;
    message = e.what();
  } catch (const std::exception& e) {
    status = Status::Error;
    message = std::string(e.what()) + " (" + typeid(e).name() + ")";
  } catch (...) {
    status = Status::Error;
    message = "the call threw something that is not a std::exception";
  }
}

// The control page (wire.hpp) the harness shares on WORKBOOK_RUNNER_CONTROL_FD, mapped and
// registered with CUDA: its address on the device, where the runner's stream writes done and ready.
Control* control_on_device() {
  const char* control_fd = std::getenv("WORKBOOK_RUNNER_CONTROL_FD");
  void* page = control_fd
                   ? ::mmap(nullptr, sizeof(Control), PROT_READ | PROT_WRITE, MAP_SHARED, std::atoi(control_fd), 0)
                   : MAP_FAILED;
  if (page == MAP_FAILED) throw std::runtime_error("the control page is missing (WORKBOOK_RUNNER_CONTROL_FD)");
  auto* control = static_cast<Control*>(page);
  wrap_allocations(control);
  CUDA_CHECK(cudaHostRegister(control, sizeof(Control), cudaHostRegisterMapped));
  Control* on_device = nullptr;
  CUDA_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&on_device), control, 0));
  return on_device;
}

// The call prepared last (Prepare), run when its Call comes.
struct Prepared {
  std::uint32_t seq = 0;  // 0: none
  std::string name;       // the function's, kept for the messages of its Call
  Bound bound;
  Status status = Status::Ok;
  std::string message;
};

// A Prepare: everything the call needs before the clock starts: its arguments decoded (buffers
// opened, host data unpacked), the arena mapped, and something for this process's context to do
// on the GPU, so that the GPU switches from the harness's context to this one now.
void prepare_call(const std::vector<unsigned char>& payload, Prepared& p, CUdeviceptr ready) {
  Reader prepare(payload);
  p.seq = prepare.get<std::uint32_t>();
  const auto arena = prepare.get<std::uint64_t>();
  p.name = prepare.get_string();
  const std::vector<unsigned char> arguments = prepare.get_bytes();
  p.bound = nullptr;
  p.status = Status::Ok;
  p.message.clear();
  attempt(
      [&] {
        arena_map(arena);
        Reader args(arguments);
        p.bound = find(p.name)(args);
      },
      p.status, p.message);
  // Someone else's library in this process fails the call, by name (before the clock).
  if (const std::string vendor = vendor_library_mapped(); !vendor.empty() && p.status == Status::Ok) {
    p.status = Status::Error;
    p.message = vendor;
  }
  // Every call ends with the device idle (the synchronize before the reply), so work on this
  // stream now was queued between calls, by a thread of the submission's: it would run before
  // the clock starts (ready waits behind it) and could compute the next answer ahead.
  if (cudaStreamQuery(g_stream) == cudaErrorNotReady && p.status == Status::Ok) {
    p.status = Status::Error;
    p.message =
        "work was queued on the call's stream between calls (a thread of your code's?): only the "
        "call itself may put work on it";
  }
  warm(g_stream);
  driver::try_write_value(reinterpret_cast<CUstream>(g_stream), ready, p.seq);
}

// A Call of the prepared call `seq`: run it, write done, synchronize, reply. The status replied.
// `threads_at_start`: this process's threads before its first call (see serve).
Status answer_call(int fd, std::uint32_t seq, Prepared& p, CUdeviceptr done, int threads_at_start, bool& sent) {
  Status status = p.status;
  std::string message = p.message;
  Writer value;
  (void)cudaGetLastError();  // an error of an earlier call is not this one's
  if (status == Status::Ok && p.bound) attempt([&] { p.bound(value); }, status, message);
  p.bound = nullptr;
  if (const cudaError_t launch = cudaGetLastError(); launch != cudaSuccess && status == Status::Ok) {
    status = workbook::CudaError::is_sticky(launch) ? Status::Crashed : Status::Error;
    message = "a kernel launch in " + p.name + " failed: " + error_text(launch) +
              " (check the grid and block sizes and the shared memory it asks for)";
  }
  const CUresult written = driver::try_write_value(reinterpret_cast<CUstream>(g_stream), done, seq);
  const cudaError_t synced = cudaDeviceSynchronize();
  // When the whole device went idle, on the clock the harness reads `done` by (both processes'
  // steady clock is CLOCK_MONOTONIC): the call's tail without the reply's trip over the socket.
  const std::int64_t idle_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
  if (synced != cudaSuccess && status != Status::Crashed) {
    status = workbook::CudaError::is_sticky(synced) ? Status::Crashed : Status::Error;
    message = "the GPU reported " + error_text(synced) + " while running " + p.name;
  }
  // A vendor library the call loaded, or tried to: named, whatever the call made of it.
  if (const std::string vendor = vendor_library_after_call(); !vendor.empty() && status != Status::Crashed) {
    message = status == Status::Ok ? vendor : vendor + " (and then: " + message + ")";
    status = Status::Error;
  }
  if (const int threads = workbook::thread_count(); threads > threads_at_start && status == Status::Ok) {
    status = Status::Error;
    message = "the program running your code has " + std::to_string(threads) + " threads after " + p.name + ", " +
              std::to_string(threads_at_start) +
              " before the first call: your code started a thread that outlives the call (work outside "
              "the timed calls); join every thread you start before the call returns";
  }
  if (written != CUDA_SUCCESS && status == Status::Ok) {
    status = Status::Crashed;
    message = std::string("the runner could not signal the harness (") + driver::error_name(written) + ")";
  }
  Writer reply;
  reply.put<std::uint32_t>(seq);
  reply.put<std::uint32_t>(static_cast<std::uint32_t>(status));
  reply.put_string(message.substr(0, 8000));
  reply.put_bytes(value.bytes());
  reply.put<std::int64_t>(idle_ns);
  sent = send_message(fd, Type::Reply, reply);
  return status;
}

}  // namespace

Registration::Registration(const char* name, Binder binder) { registry()[name] = binder; }

Binder find(const std::string& name) {
  const auto it = registry().find(name);
  if (it == registry().end()) throw std::runtime_error("the runner has no function " + name);
  return it->second;
}

cudaStream_t runner_stream() { return g_stream; }

void* open_pointer(const PointerRef& ref) {
  if (ref.kind == 0) return nullptr;
  if (ref.kind != 1) throw std::runtime_error("malformed pointer argument");
  const std::string key = key_of(ref.handle);
  auto it = g_opened.find(key);
  if (it == g_opened.end()) {
    void* base = nullptr;
    CUDA_CHECK(cudaIpcOpenMemHandle(&base, ref.handle, cudaIpcMemLazyEnablePeerAccess));
    it = g_opened.emplace(key, base).first;
  }
  return static_cast<char*>(it->second) + ref.offset;
}

int serve(int fd) {
  Type type;
  std::vector<unsigned char> payload;
  {
    // Reached main(): whatever the submission runs before it (global constructors) is over.
    Writer started;
    started.put<std::int64_t>(::getpid());
    if (!send_message(fd, Type::Started, started)) return 2;
  }
  if (!receive_message(fd, type, payload, -1) || type == Type::Bye) return 0;
  if (type != Type::Hello) return 2;
  // The device synchronize after `done` spins: the harness times from `done` to the reply, and
  // a tail longer than a spin and a message means work on another stream (escaped_work in
  // workbook/timer.hpp). A blocking wait wakes up to milliseconds late on some hosts, which would
  // look like escaped work. (The CPU time this costs is not judged for calls run here.)
  // Polite (WORKBOOK_RUNNER_POLITE: an untimed phase, harness.hpp): block instead, and do not
  // spin for the Call after a Prepare either.
  g_polite = std::getenv("WORKBOOK_RUNNER_POLITE") != nullptr;
  cudaSetDeviceFlags(g_polite ? cudaDeviceScheduleBlockingSync : cudaDeviceScheduleSpin);
  Control* const control = control_on_device();
  CUDA_CHECK(cudaStreamCreate(&g_stream));  // blocking: see the top of this file
  {
    Writer ready;
    ready.put<std::int64_t>(::getpid());
    if (!send_message(fd, Type::Hello, ready)) return 2;
  }
  vendor_check_start();
  // This process's threads before any call: the CUDA runtime's own are up (the context exists).
  // A thread of the submission's still alive after the call that started it works outside the
  // timed calls (it can compute the next call's answer as soon as its inputs land).
  const int threads_at_start = workbook::thread_count();
  const auto done = reinterpret_cast<CUdeviceptr>(&control->done);
  const auto ready = reinterpret_cast<CUdeviceptr>(&control->ready);
  Prepared prepared;
  for (;;) {
    if (!next_message(fd, type, payload, prepared.seq != 0 && !g_polite) || type == Type::Bye) return 0;
    if (type == Type::Prepare) {
      prepare_call(payload, prepared, ready);
      continue;
    }
    if (type == Type::Release) {
      if (!send_message(fd, Type::Release, release(payload))) return 2;
      continue;
    }
    if (type != Type::Call) return 2;
    Reader call(payload);
    const auto seq = call.get<std::uint32_t>();
    if (seq != prepared.seq) return 2;
    prepared.seq = 0;  // until the next Prepare
    bool sent = false;
    const Status status = answer_call(fd, seq, prepared, done, threads_at_start, sent);
    if (!sent) return 2;
    if (status == Status::Crashed) return 3;  // the CUDA context is lost: the harness starts a fresh runner
  }
}

}  // namespace remote

int main() {
  const char* fd_text = std::getenv("WORKBOOK_RUNNER_FD");
  if (!fd_text) {
    std::cerr << "this program runs a submission's code for the grader's tests; run the lab's grade-<lab> program\n";
    return 64;
  }
  // The harness hands over a socket and two shared-memory files (harness.cpp, spawn): a wrong
  // descriptor here would only show at the first call, as a puzzling mmap error.
  struct stat st {};
  const char* control_text = std::getenv("WORKBOOK_RUNNER_CONTROL_FD");
  const char* arena_text = std::getenv("WORKBOOK_RUNNER_ARENA_FD");
  const auto is_file = [&](const char* fd) { return fd && ::fstat(std::atoi(fd), &st) == 0 && S_ISREG(st.st_mode); };
  if (::fstat(std::atoi(fd_text), &st) != 0 || !S_ISSOCK(st.st_mode) || !is_file(control_text) ||
      !is_file(arena_text)) {
    std::cerr << "runner: the grader's descriptors are missing or of the wrong kind\n";
    return 2;
  }
  try {
    return remote::serve(std::atoi(fd_text));
  } catch (const std::exception& e) {
    std::cerr << "runner: " << e.what() << '\n';
    return 2;
  }
}
