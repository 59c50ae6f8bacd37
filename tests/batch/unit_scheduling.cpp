// `grader batch`'s scheduling and time accounting, on the CPU with fake GPU lists and stand-ins:
// the GPU pool (batch/gpu_pool.hpp), the models' thresholds (gpu_setup.hpp), the out-of-memory
// rule and the memory watch (gpu_memory.hpp), the build template's commands
// (build_template.hpp) and the time ledger (time_ledger.hpp).
#include "grader/catch.hpp"

#include "batch/build_template.hpp"
#include "batch/gpu_gate_keeper.hpp"
#include "batch/gpu_memory.hpp"
#include "batch/gpu_pool.hpp"
#include "batch/gpu_setup.hpp"
#include "batch/time_ledger.hpp"
#include "grader/gpu_gate.hpp"
#include "grader/process.hpp"
#include "remote/wire.hpp"

#include <atomic>
#include <chrono>
#include <optional>
#include <stdexcept>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

using namespace grader;
using namespace std::chrono_literals;

namespace {

const std::string kH100 = "NVIDIA H100 80GB HBM3 (132 SMs)", kH200 = "NVIDIA H200 (132 SMs)";

std::vector<GpuSlot> fake_gpus(const std::vector<std::string>& models) {
  std::vector<GpuSlot> gpus;
  for (std::size_t i = 0; i < models.size(); ++i) {
    GpuSlot slot;
    slot.ordinal = static_cast<int>(i);
    slot.visible = std::to_string(i);
    slot.model = models[i];
    gpus.push_back(slot);
  }
  return gpus;
}

// The message of what `f` throws ("" when it throws nothing).
template <typename F>
std::string thrown(F f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("--gpus chooses GPUs by ordinal, ranges too, and names what is not there", "[batch][gpus]") {
  const auto all = fake_gpus({kH100, kH100, kH100, kH100});
  CHECK(choose_gpus(all, "all").size() == 4);
  const auto some = choose_gpus(all, "0,2-3");
  REQUIRE(some.size() == 3);
  CHECK(some[0].ordinal == 0);
  CHECK(some[2].ordinal == 3);
  CHECK(thrown([&] { choose_gpus(all, "5"); }).find("there is no GPU 5") != std::string::npos);
  CHECK(thrown([&] { choose_gpus(all, "x"); }).find("not a GPU number") != std::string::npos);
}

TEST_CASE("a child's CUDA_VISIBLE_DEVICES follows the grader's own", "[batch][gpus]") {
  CHECK(child_visible_devices(nullptr, 2) == "2");
  CHECK(child_visible_devices("", 1) == "1");
  CHECK(child_visible_devices("4,5,6", 1) == "5");
  CHECK(child_visible_devices("GPU-aaaa, GPU-bbbb", 1) == "GPU-bbbb");
}

TEST_CASE("by default 16 correctness phases share the node, 2 to 8 a GPU", "[batch][gpus]") {
  CHECK(shared_phases_per_gpu(1) == 8);
  CHECK(shared_phases_per_gpu(2) == 8);
  CHECK(shared_phases_per_gpu(4) == 4);
  CHECK(shared_phases_per_gpu(8) == 2);
  CHECK(shared_phases_per_gpu(16) == 2);
  CHECK(shared_phases_per_gpu(0) == 8);  // no GPU (--build-only): one slot stands for it
}

TEST_CASE("shared phases spread over the GPUs, the least busy first", "[batch][gpus]") {
  GpuPool pool(fake_gpus({kH100, kH100, kH100, kH100}), 2);
  std::vector<GpuPool::Lease> held;
  for (int i = 0; i < 8; ++i) held.push_back(pool.acquire(kH100, false));
  CHECK(pool.busy() == std::vector<int>{2, 2, 2, 2});
  for (const auto& l : held) pool.release(l);
  CHECK(pool.busy() == std::vector<int>{0, 0, 0, 0});
}

TEST_CASE("a timed phase has its GPU alone while correctness runs on the others", "[batch][gpus]") {
  GpuPool pool(fake_gpus({kH100, kH100}), 4);
  const auto timed = pool.acquire(kH100, true);
  const auto a = pool.acquire(kH100, false);
  const auto b = pool.acquire(kH100, false);
  CHECK(a.gpu != timed.gpu);
  CHECK(b.gpu != timed.gpu);
  CHECK_FALSE(timed.shared_with_others());
  CHECK(a.shared_with_others());  // a and b shared a GPU
  // A second timed phase waits for a GPU to itself: it gets the first one freed.
  std::atomic<int> got{-1};
  std::thread waiter([&] {
    const auto l = pool.acquire(kH100, true);
    got = l.gpu;
    pool.release(l);
  });
  std::this_thread::sleep_for(50ms);
  CHECK(got == -1);
  pool.release(timed);
  waiter.join();
  CHECK(got == timed.gpu);
  pool.release(a);
  pool.release(b);
}

TEST_CASE("a waiting timed phase goes before new correctness phases on its GPU", "[batch][gpus]") {
  GpuPool pool(fake_gpus({kH100}), 4);
  const auto running = pool.acquire(kH100, false);
  std::atomic<bool> timed_done{false}, shared_started{false};
  std::thread timed([&] {
    const auto l = pool.acquire(kH100, true);
    CHECK_FALSE(shared_started);
    std::this_thread::sleep_for(20ms);
    timed_done = true;
    pool.release(l);
  });
  std::this_thread::sleep_for(30ms);
  std::thread shared([&] {
    const auto l = pool.acquire(kH100, false);
    shared_started = true;
    CHECK(timed_done);
    pool.release(l);
  });
  std::this_thread::sleep_for(30ms);
  pool.release(running);
  timed.join();
  shared.join();
}

TEST_CASE("a GPU drains once for several timings: correctness waiting to start goes on until then", "[batch][gpus]") {
  GpuPool pool(fake_gpus({kH100}), 2);
  const auto a = pool.acquire(kH100, false), b = pool.acquire(kH100, false);  // the GPU is full
  std::atomic<int> order{0}, first_at{-1}, second_at{-1}, timed1_at{-1}, timed2_at{-1};
  std::atomic<bool> release_first{false};
  std::thread first([&] {  // a correctness phase waits for a slot
    const auto l = pool.acquire(kH100, false);
    first_at = order++;
    while (!release_first) std::this_thread::sleep_for(1ms);
    pool.release(l);
  });
  std::this_thread::sleep_for(30ms);
  const auto timed = [&](std::atomic<int>& at) {
    const auto l = pool.acquire(kH100, true);
    at = order++;
    pool.release(l);
  };
  std::thread timed1(timed, std::ref(timed1_at));  // one timing waits, a correctness phase too: no drain
  std::this_thread::sleep_for(30ms);
  pool.release(a);  // the waiting correctness phase takes the slot, ahead of the timing
  std::this_thread::sleep_for(30ms);
  CHECK(first_at == 0);
  CHECK(timed1_at == -1);
  std::thread second([&] {  // full again: another correctness phase waits
    const auto l = pool.acquire(kH100, false);
    second_at = order++;
    pool.release(l);
  });
  std::this_thread::sleep_for(30ms);
  std::thread timed2(timed, std::ref(timed2_at));  // two timings wait, as many as phases fit: a drain
  std::this_thread::sleep_for(30ms);
  release_first = true;  // a slot frees, but the GPU drains: the second phase waits for both timings
  std::this_thread::sleep_for(30ms);
  CHECK(second_at == -1);
  pool.release(b);
  timed1.join();
  timed2.join();
  first.join();
  second.join();
  CHECK(second_at == 3);
  CHECK(timed1_at >= 1);
  CHECK(timed2_at >= 1);
}

TEST_CASE("a timing waits no longer than max_defer for correctness phases to make way", "[batch][gpus]") {
  GpuPool pool(fake_gpus({kH100}), 4, 100ms);
  std::vector<GpuPool::Lease> running;
  for (int i = 0; i < 4; ++i) running.push_back(pool.acquire(kH100, false));
  std::atomic<bool> stop{false};
  std::atomic<int> admitted{0};
  std::vector<std::thread> stream;  // a steady stream of correctness phases, many waiting always
  for (int i = 0; i < 24; ++i)
    stream.emplace_back([&] {
      while (!stop) {
        const auto l = pool.acquire(kH100, false);
        ++admitted;
        std::this_thread::sleep_for(5ms);
        pool.release(l);
      }
    });
  // Every thread of the stream waiting at the gate before the timing comes (a thread may take a
  // while to start on a loaded machine), 24 for 4 places, so that some wait at every moment.
  while (pool.waiting_shared() < 24) std::this_thread::sleep_for(1ms);
  const auto t0 = std::chrono::steady_clock::now();
  std::thread timed([&] {
    const auto l = pool.acquire(kH100, true);
    CHECK(l.waited_s >= 0.09);  // the GPU was never idle before the keeper left (below)
    pool.release(l);
  });
  std::this_thread::sleep_for(20ms);
  const int before = admitted;
  for (std::size_t i = 1; i < running.size(); ++i) pool.release(running[i]);  // the stream goes on
  // One phase keeps the GPU busy past max_defer, so that the timing cannot take it idle while
  // deferring: it gets it because the drain stopped the stream.
  std::this_thread::sleep_for(150ms);
  const int during_defer = admitted - before;
  pool.release(running[0]);
  timed.join();
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  CHECK(waited < 2.0);      // not starved: the defer ended, the GPU drained
  CHECK(during_defer > 3);  // correctness phases went on while the timing deferred
  stop = true;
  for (auto& t : stream) t.join();
}

namespace {

// The process's side of a gate, in a thread: asks at once, and says when the gate opened.
struct AskingProcess {
  explicit AskingProcess(int fd)
      : thread([this, fd] {
          why = wait_at_gate(fd);
          opened = true;
        }) {}
  bool opened_within(std::chrono::milliseconds limit) {
    for (auto waited = 0ms; !opened && waited < limit; waited += 5ms) std::this_thread::sleep_for(5ms);
    return opened;
  }
  std::atomic<bool> opened{false};
  std::string why = "not yet";
  std::thread thread;
};

}  // namespace

TEST_CASE("a gated phase sets up beside correctness phases and starts when its GPU is idle", "[batch][gpus]") {
  GpuPool pool(fake_gpus({kH100}), 2);
  const auto running = pool.acquire(kH100, false);
  GateKeeper gate(pool, pool.start_gated(kH100));
  AskingProcess process(gate.child_fd());
  CHECK_FALSE(process.opened_within(60ms));  // a correctness phase still runs on the GPU
  CHECK(gate.waited_s() > 0.0);
  pool.release(running);
  REQUIRE(process.opened_within(5000ms));
  process.thread.join();
  CHECK(process.why.empty());
  CHECK(gate.opened());
  CHECK(pool.busy() == std::vector<int>{1});  // the GPU is the process's alone
  const double waited = gate.waited_s();
  std::this_thread::sleep_for(20ms);
  CHECK(gate.waited_s() == waited);  // the wait ended when the gate opened
  gate.finish();                     // the process ended: the GPU is free
  CHECK(pool.busy() == std::vector<int>{0});
}

TEST_CASE("a gate opens only when no other gated process is still starting on the GPU", "[batch][gpus]") {
  GpuPool pool(fake_gpus({kH100}), 2);
  GateKeeper first(pool, pool.start_gated(kH100)), second(pool, pool.start_gated(kH100));
  std::optional<AskingProcess> ready, late;
  ready.emplace(first.child_fd());          // the first has made its contexts; the second has not
  CHECK_FALSE(ready->opened_within(60ms));  // the second's start-up may launch work: no timing beside it
  late.emplace(second.child_fd());
  for (int i = 0; i < 1000 && !ready->opened && !late->opened; ++i) std::this_thread::sleep_for(5ms);
  REQUIRE(ready->opened != late->opened);  // one at a time, either first
  auto [now, now_gate, next, next_gate] =
      ready->opened ? std::tie(*ready, first, *late, second) : std::tie(*late, second, *ready, first);
  CHECK_FALSE(next.opened_within(60ms));
  now.thread.join();
  now_gate.finish();
  REQUIRE(next.opened_within(5000ms));
  next.thread.join();
  next_gate.finish();
  CHECK(pool.busy() == std::vector<int>{0});
}

TEST_CASE("no gated process starts on a GPU another holds alone", "[batch][gpus]") {
  GpuPool pool(fake_gpus({kH100}), 2);
  const auto timing = pool.acquire(kH100, true);
  std::atomic<bool> started{false};
  std::thread starter([&] {
    GateKeeper gate(pool, pool.start_gated(kH100));
    started = true;
  });  // the keeper ends unasked: its start ends too
  std::this_thread::sleep_for(60ms);
  CHECK_FALSE(started);
  pool.release(timing);
  starter.join();
  CHECK(started);
}

TEST_CASE("no more gated programs start or wait on a GPU than correctness phases fit", "[batch][gpus]") {
  GpuPool pool(fake_gpus({kH100}), 2);
  std::optional<GateKeeper> first, second;
  first.emplace(pool, pool.start_gated(kH100));
  second.emplace(pool, pool.start_gated(kH100));
  std::atomic<bool> third_started{false};
  std::thread third([&] {
    GateKeeper gate(pool, pool.start_gated(kH100));
    third_started = true;
  });
  std::this_thread::sleep_for(60ms);
  CHECK_FALSE(third_started);
  first.reset();  // the first program ends without asking: its place frees
  third.join();
  CHECK(third_started);
}

TEST_CASE("a gated process that ends without asking gives its GPU back", "[batch][gpus]") {
  GpuPool pool(fake_gpus({kH100}), 2);
  {
    GateKeeper gate(pool, pool.start_gated(kH100));
    gate.child_started();  // the process has its end, and ends without asking
  }
  // A start left behind would keep the GPU from ever being idle for a timing.
  const auto timing = pool.acquire(kH100, true);
  CHECK(timing.waited_s < 1.0);
  pool.release(timing);
}

TEST_CASE("a gated process that ends while it waits holds nothing, and its wait stops", "[batch][gpus]") {
  GpuPool pool(fake_gpus({kH100}), 2);
  const auto running = pool.acquire(kH100, false);
  std::optional<GateKeeper> gate;
  gate.emplace(pool, pool.start_gated(kH100));
  int fd = ::dup(gate->child_fd());
  const char ask = kGateAsk;
  REQUIRE(::write(fd, &ask, 1) == 1);
  std::this_thread::sleep_for(50ms);
  ::close(fd);
  gate->child_started();  // the process is gone
  const auto t0 = std::chrono::steady_clock::now();
  gate->finish();  // does not wait for the correctness phase to end
  CHECK(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < 1.0);
  CHECK_FALSE(gate->opened());
  const double waited = gate->waited_s();
  CHECK(waited >= 0.04);
  std::this_thread::sleep_for(20ms);
  CHECK(gate->waited_s() == waited);
  pool.release(running);
  const auto timing = pool.acquire(kH100, true);  // nothing left reserved or held
  CHECK(timing.waited_s < 1.0);
  pool.release(timing);
}

TEST_CASE("a process waiting at a gate the grader closes hears why", "[batch][gpus]") {
  int sv[2];
  REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
  ::close(sv[0]);
  CHECK(wait_at_gate(sv[1]) != "");
  ::close(sv[1]);
  REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
  std::thread grader([&] {
    char ask = 0;
    CHECK(::read(sv[0], &ask, 1) == 1);
    CHECK(ask == kGateAsk);
    ::close(sv[0]);  // closed instead of opened
  });
  CHECK(wait_at_gate(sv[1]) == "the grader closed the gate");
  grader.join();
  ::close(sv[1]);
}

TEST_CASE("a node of two models grades each submission on one model, its phases on that model's GPUs",
          "[batch][gpus]") {
  GpuPool pool(fake_gpus({kH100, kH200, kH100}), 4);
  std::map<std::string, int> per_model;
  std::vector<std::string> models;
  for (int i = 0; i < 6; ++i) models.push_back(pool.assign_model());
  for (const auto& m : models) ++per_model[m];
  CHECK(per_model[kH100] == 4);  // two GPUs of it: twice the share
  CHECK(per_model[kH200] == 2);
  for (int i = 0; i < 5; ++i) {
    const auto l = pool.acquire(kH200, false);
    CHECK(pool.gpus()[l.gpu].model == kH200);
    pool.release(l);
    const auto t = pool.acquire(kH100, true);
    CHECK(pool.gpus()[t.gpu].model == kH100);
    pool.release(t);
  }
  for (const auto& m : models) pool.finish_model(m);
}

TEST_CASE("each model gets its own thresholds; a model without any is refused, saying what to do", "[batch][gpus]") {
  const std::filesystem::path h100_file = "/profiles/h100/matmul-tiled.toml",
                              h200_file = "/profiles/h200/matmul-tiled.toml";
  const std::vector<std::filesystem::path> base = {h100_file, "course.toml"};
  const auto both = [&](int ordinal) {
    return ordinal == 1 ? ModelThresholds{h200_file, "derived for h200"}
                        : ModelThresholds{h100_file, "derived for h100"};
  };
  const auto gpus = fake_gpus({kH100, kH200});
  const GpuSetup setup = plan_gpus(gpus, "matmul-tiled", base, h100_file, both);
  CHECK(setup.overrides.at(kH100) == std::vector<std::filesystem::path>{h100_file, "course.toml"});
  CHECK(setup.overrides.at(kH200) == std::vector<std::filesystem::path>{h200_file, "course.toml"});

  const auto h200_unmeasured = [&](int ordinal) {
    return ordinal == 1 ? ModelThresholds{std::nullopt, "as shipped in lab.toml (set on h100)"} : both(ordinal);
  };
  const std::string refusal = thrown([&] { plan_gpus(gpus, "matmul-tiled", base, h100_file, h200_unmeasured); });
  CHECK(refusal.find("--gpus 0") != std::string::npos);
  CHECK(refusal.find("CUDA_VISIBLE_DEVICES=1 grader calibrate matmul-tiled") != std::string::npos);
  // One model alone is never refused, and --gpus of the other model alone swaps the profile in.
  const GpuSetup h200_only = plan_gpus({gpus[1]}, "matmul-tiled", base, h100_file, both);
  CHECK(h200_only.overrides.at(kH200) == std::vector<std::filesystem::path>{h200_file, "course.toml"});
  // A lab whose thresholds do not follow the machine: two models share lab.toml's.
  const auto fixed = [](int) { return ModelThresholds{}; };
  CHECK(plan_gpus(gpus, "matmul-tiled", {"course.toml"}, std::nullopt, fixed).overrides.size() == 2);
}

TEST_CASE("out of memory is recognised in a case's detail or in how the program ended", "[batch][oom]") {
  CaseResult oom;
  oom.outcome = Outcome::Error;
  oom.detail =
      "cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) failed: out of memory (cudaErrorMemoryAllocation)";
  CaseResult fine;
  fine.outcome = Outcome::Passed;
  CHECK(phase_out_of_memory({fine, oom}, ""));
  CHECK_FALSE(phase_out_of_memory({fine}, "exited with 1"));
  CHECK(phase_out_of_memory({fine}, "runner: CUDA_ERROR_OUT_OF_MEMORY"));
  CaseResult wrong;
  wrong.outcome = Outcome::Incorrect;
  wrong.detail = "C[3] = 1 but should be 2";
  CHECK_FALSE(phase_out_of_memory({wrong}, ""));
}

TEST_CASE("a phase that crashed beside others runs again alone, a hang never does", "[batch][oom]") {
  CaseResult fine;
  fine.outcome = Outcome::Passed;
  CaseResult crashed;
  crashed.outcome = Outcome::Crashed;
  crashed.detail = "the program built from your code did not start: it exited with status 1";
  CaseResult hung;
  hung.outcome = Outcome::Crashed;
  hung.detail = "tiled did not finish within 10 s (a kernel or a loop that never ends?); the call was stopped";
  CaseResult wrong;
  wrong.outcome = Outcome::Incorrect;
  CHECK(reason_to_run_alone({fine, crashed}, "", false) == "crashed");
  CHECK(reason_to_run_alone({fine}, "killed by SIGSEGV", true) == "crashed");
  CHECK(reason_to_run_alone({fine}, "cudaErrorMemoryAllocation", false) == "out of GPU memory");
  CHECK(reason_to_run_alone({fine, wrong}, "", false).empty());
  CHECK(reason_to_run_alone({crashed, hung}, "", false).empty());
  CHECK(reason_to_run_alone({fine}, "no result after 120 s (lab.toml timeout_s)", true).empty());
}

TEST_CASE("crashes that the output explains by launch errors do not run again alone", "[batch][oom]") {
  CaseResult fine;
  fine.outcome = Outcome::Passed;
  CaseResult crashed;
  crashed.outcome = Outcome::Crashed;
  crashed.detail = "tiled: the program running your code exited with status 1 during this call";
  const std::string one = "CUDA error: invalid configuration argument at matmul.cu:88\n";
  CHECK(launch_errors_named(one + one + "cudaErrorLaunchOutOfResources") == 3);
  CHECK(reason_to_run_alone({fine, crashed}, one, true).empty());
  CHECK(reason_to_run_alone({crashed, crashed}, one + one, true).empty());
  // A crash the output does not explain may be a neighbour's doing: an unchecked allocation
  // that failed beside a hog, then an illegal address.
  CHECK(reason_to_run_alone({crashed, crashed}, one, true) == "crashed");
  CHECK(reason_to_run_alone({crashed}, "an illegal memory access was encountered", true) == "crashed");
  CHECK(reason_to_run_alone({crashed}, one + "out of memory", true) == "out of GPU memory");
  // The program itself ended abnormally with no case recorded as crashed: run again.
  CHECK(reason_to_run_alone({fine}, one + "killed by SIGSEGV", true) == "crashed");
}

TEST_CASE("\"invalid argument\" explains a crash only when no neighbour held the GPU's memory", "[batch][oom]") {
  CaseResult crashed;
  crashed.outcome = Outcome::Crashed;
  crashed.detail = "tiled: the program running your code exited with status 1 during this call";
  // What CUDA 13 printed for a 64 x 64 block (H200, 2026-11-28), and what a copy to the null
  // pointer an unchecked cudaMalloc left prints too.
  const std::string bad = "CUDA error: invalid argument at matmul.cu:126\n";
  CHECK(launch_errors_named(bad + "cudaErrorInvalidValue") == 0);
  CHECK(launch_errors_named(bad + "cudaErrorInvalidValue", true) == 2);
  CHECK(launch_errors_named("invalid configuration argument", true) == 1);  // one error, not two
  // A line is one error, whatever it names twice: one can never explain two crashes.
  CHECK(launch_errors_named("tiled: invalid argument (cudaErrorInvalidValue)\n", true) == 1);
  CHECK(reason_to_run_alone({crashed, crashed}, "invalid argument (cudaErrorInvalidValue)\n", true, false) ==
        "crashed");
  CHECK(reason_to_run_alone({crashed, crashed}, bad + bad, true, /*memory_held_beside=*/true) == "crashed");
  CHECK(reason_to_run_alone({crashed, crashed}, bad + bad, true, /*memory_held_beside=*/false).empty());
  CHECK(reason_to_run_alone({crashed, crashed}, bad, true, false) == "crashed");
  CHECK(reason_to_run_alone({crashed}, "an illegal memory access was encountered", true, false) == "crashed");
}

TEST_CASE("nvidia-smi's compute apps are read, odd rows skipped", "[batch][oom]") {
  const auto apps = parse_compute_apps("1234, 70000\n 99, GPU-abc, 512 MiB\n[N/A], 3\npid, used_gpu_memory [MiB]\n");
  REQUIRE(apps.size() == 2);
  CHECK(apps[0].pid == 1234);
  CHECK(apps[0].used_mib == 70000);
  CHECK(apps[1].pid == 99);
  CHECK(apps[1].used_mib == 512);
}

TEST_CASE("the memory watch names the submission whose process tree held the memory", "[batch][oom]") {
  // Two phases stand in: `sh` parents each; the stand-in nvidia-smi reports their children's pids.
  const std::string dir = std::filesystem::temp_directory_path() / ("watch-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::atomic<int> hog_root{0}, other_root{0};
  const auto start = [&](std::atomic<int>& root, const std::string& name) {
    return std::thread([&root, name, dir] {
      ProcessOptions p;
      p.argv = {"/bin/sh", "-c", "sleep 2 & echo $! > " + dir + "/" + name + ".pid; wait"};
      p.on_start = [&root](int pid) { root = pid; };
      run_process(p);
    });
  };
  std::thread hog = start(hog_root, "hog"), other = start(other_root, "other");
  for (int i = 0;
       i < 100 && !(std::filesystem::exists(dir + "/hog.pid") && std::filesystem::exists(dir + "/other.pid")); ++i)
    std::this_thread::sleep_for(20ms);
  std::this_thread::sleep_for(50ms);
  GpuMemoryWatch watch("printf '%s, 70000\\n%s, 1100\\n' $(cat " + dir + "/hog.pid) $(cat " + dir + "/other.pid)", 60);
  const auto t0 = std::chrono::steady_clock::now();
  watch.started(hog_root, "hog", 0);
  watch.started(other_root, "victim", 0);
  watch.sample();
  const auto t1 = std::chrono::steady_clock::now();
  const auto holder = watch.largest_beside("victim", 0, t0, t1);
  REQUIRE(holder);
  CHECK(holder->student == "hog");
  CHECK(holder->peak_mib == 70000);
  CHECK_FALSE(watch.largest_beside("victim", 1, t0, t1));  // another GPU: nobody
  // The victim's 1.1 GiB (a context and an honest program's buffers, as an H100 showed one) is
  // no hog: a crash beside it is not its doing.
  CHECK_FALSE(watch.largest_beside("hog", 0, t0, t1));
  // Whether the watch saw a submission's own processes: only then does its silence on
  // neighbours mean anything (run_checks' exemption for "invalid argument").
  CHECK(watch.saw("victim", 0, t0, t1));
  CHECK_FALSE(watch.saw("victim", 1, t0, t1));
  CHECK_FALSE(watch.saw("victim", 0, t1 + std::chrono::seconds(1), t1 + std::chrono::seconds(2)));  // later
  CHECK_FALSE(watch.saw("nobody", 0, t0, t1));
  hog.join();
  other.join();
  std::filesystem::remove_all(dir);
}

TEST_CASE("the build template's commands are a submission's own with its folders in", "[batch][build]") {
  const std::string compile =
      "/usr/local/cuda/bin/nvcc -O3 -MD -MT CMakeFiles/s.dir/t/src/matmul.cu.o -MF "
      "CMakeFiles/s.dir/t/src/matmul.cu.o.d -x cu -c /t/src/matmul.cu -o CMakeFiles/s.dir/t/src/matmul.cu.o";
  CHECK(compiled_source(compile) == "/t/src/matmul.cu");
  CHECK(command_object(compile) == "CMakeFiles/s.dir/t/src/matmul.cu.o");
  CHECK(command_outputs(compile) ==
        std::vector<std::string>{"CMakeFiles/s.dir/t/src/matmul.cu.o.d", "CMakeFiles/s.dir/t/src/matmul.cu.o"});
  const std::string mine = replace_paths(compile, {{"/t/src", "/w/alice/src"}, {"/t/build", "/w/alice/build"}});
  CHECK(mine.find("/t/") == std::string::npos);
  CHECK(compiled_source(mine) == "/w/alice/src/matmul.cu");
  // CMake 4 with GNU ld has the linker write its dependencies into a folder of their own.
  const std::string link =
      ": && /usr/bin/c++ -Wl,--dependency-file=CMakeFiles/runner.dir/link.d x.o -o runner libsubmission-code.a && :";
  CHECK(command_outputs(link) == std::vector<std::string>{"CMakeFiles/runner.dir/link.d", "runner"});
  const std::string script = build_script({link, compile});
  // Every compile before the link, which runs only if all compiled.
  CHECK(script.find("nvcc") < script.find("/usr/bin/c++"));
  CHECK(script.find("[ $failed = 0 ] || exit 1") < script.find("/usr/bin/c++"));
  CHECK(script.find("mkdir -p 'CMakeFiles/s.dir/t/src'") != std::string::npos);
  CHECK(script.find("mkdir -p 'CMakeFiles/runner.dir'") != std::string::npos);
}

TEST_CASE("/proc/stat's cpu line gives busy and total ticks", "[batch][time]") {
  const CpuTicks t = parse_cpu_ticks("cpu  100 5 20 800 30 1 2 3 7 0");
  CHECK(t.busy == 100 + 5 + 20 + 1 + 2 + 3);
  CHECK(t.total == t.busy + 800 + 30);
  CHECK(parse_cpu_ticks("cpu0 1 2 3 4").total == 0);  // one CPU's line, not the machine's
  CHECK(parse_cpu_ticks("").total == 0);
  CHECK(read_cpu_ticks().total > 0);  // this machine's
}

TEST_CASE("the time ledger adds up the stages and says them in one line", "[batch][time]") {
  TimeLedger ledger;
  StageTimes a;
  a.build_s = 2;
  a.correctness_s = 1;
  a.timed_s = 0.5;
  a.gpu_wait_s = 3;
  a.cases.kinds["correctness"] = {{"case", 0.9}, {"inputs", 0.2}, {"call", 0.5}};
  StageTimes b = a;
  b.rerun_s = 1;
  ledger.add(a);
  ledger.add(b);
  const std::string line = ledger.line(10, 4);
  CHECK(line.find("wall 10.0 s for 2 submissions (5.0 s each)") == 0);
  CHECK(line.find("build 4.0 s") != std::string::npos);
  CHECK(line.find("tests 4.0 s (correctness 2.0 s, timed 1.0 s, run again alone 1.0 s)") != std::string::npos);
  CHECK(line.find("waiting for the GPU 6.0 s") != std::string::npos);
  CHECK(line.find("correctness 1.8 s: inputs 0.4, calls 1.0") != std::string::npos);
  CHECK(line.find("calibration") == std::string::npos);  // none measured: not said
  ledger.set_calibration(2.5);
  CHECK(ledger.line(10, 4).find("wall 10.0 s for 2 submissions (5.0 s each), of it calibration 2.5 s: build") == 0);
  const auto j = ledger.to_json(10);
  CHECK(j["calibration_s"].get<double>() == 2.5);
  ledger.set_cpu_busy(0.934, 64);
  CHECK(ledger.line(10, 4).find("; the machine's 64 CPUs 93% busy") != std::string::npos);
  CHECK(j["submissions"] == 2);
  CHECK(j["gpu_wait_s"].get<double>() == 6);
  const StageTimes back = stage_times_from_json(to_json(b));
  CHECK(back.rerun_s == 1);
  CHECK(back.cases.kinds.at("correctness").at("call") == 0.5);
}

TEST_CASE("a crash after an unchecked allocation that failed runs again alone", "[batch][oom]") {
  // What the harness adds to a failed call when the runner's allocation watch counted failures
  // (grader/remote/src/allocation_watch.cpp).
  CHECK(remote::failed_allocations_note(0, 0).empty());
  const std::string one = remote::failed_allocations_note(1, std::uint64_t(1) << 50);
  CHECK(one.find("in this call, 1 device allocation in your code failed: out of memory") != std::string::npos);
  CHECK(one.find("1048576.0 GiB") != std::string::npos);
  const std::string two = remote::failed_allocations_note(2, 3u << 20);
  CHECK(two.find("2 device allocations") != std::string::npos);
  CHECK(two.find("3.0 MiB") != std::string::npos);
  CaseResult crashed;
  crashed.outcome = Outcome::Crashed;
  crashed.detail = "tiled: the program running your code exited with status 1 during this call\n" + one;
  // "invalid argument" alone would explain the crash where no neighbour held memory; the note says
  // the allocation failed, so the phase runs again alone, whatever the memory watch saw.
  const std::string log = "CUDA error: invalid argument at matmul.cu:126\n";
  CHECK(reason_to_run_alone({crashed}, log, true, /*memory_held_beside=*/false) == "out of GPU memory");
}
