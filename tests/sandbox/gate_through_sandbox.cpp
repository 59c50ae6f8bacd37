// CTest sandbox/gpu-gate: a phase that needs its GPU alone (grader/gpu_gate.hpp) asks for it
// from inside the sandbox, as `grader batch` runs its timed phases (grading_stages.cpp,
// run_gated). On the CPU, with a pool of one stand-in GPU that a correctness phase holds: this
// program runs itself inside the sandbox as the probe, which asks at the gate with the descriptor
// WORKBOOK_GATE_FD names; the gate must open only once the correctness phase has released the
// GPU, the probe's wait must not count against its timeout, and the GPU must be free after.
// Exit 77 (skipped) where bubblewrap does not work; 1 with what went wrong on failure.
#include "batch/gpu_gate_keeper.hpp"
#include "batch/gpu_pool.hpp"
#include "grader/gpu_gate.hpp"
#include "grader/process.hpp"
#include "grader/sandbox.hpp"
#include "grader/test_program_env.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

namespace fs = std::filesystem;

namespace {

// Inside the sandbox: asks at the gate and says how it went.
int probe() {
  const char* fd = std::getenv("WORKBOOK_GATE_FD");
  if (!fd) {
    std::cout << "no WORKBOOK_GATE_FD in the sandbox\n";
    return 1;
  }
  const std::string why = grader::wait_at_gate(std::atoi(fd));
  std::cout << (why.empty() ? "gate opened" : "gate failed: " + why) << "\n";
  return why.empty() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace std::chrono_literals;
  if (argc >= 2 && std::string(argv[1]) == "--probe") return probe();
  const grader::Sandbox sandbox = grader::Sandbox::detect();
  if (sandbox.kind() != grader::Sandbox::Kind::Bubblewrap) {
    std::cout << "SKIPPED: bubblewrap does not work here (" << sandbox.describe() << ")\n";
    return 77;
  }
  const std::string model = "stand-in GPU";
  grader::GpuSlot slot;
  slot.model = model;
  grader::GpuPool pool({slot}, 2);
  const auto correctness = pool.acquire(model, false);  // a neighbour's phase holds the GPU
  grader::GateKeeper gate(pool, pool.start_gated(model));

  const fs::path self = fs::canonical("/proc/self/exe");
  const fs::path dir = fs::temp_directory_path() / ("gpu-gate-" + std::to_string(::getpid()));
  fs::create_directories(dir / "run");
  grader::SandboxedRun run;  // as the batch's run_phase builds it
  run.argv = {self.string(), "--probe"};
  run.run_dir = dir / "run";
  run.base = {self.parent_path().parent_path()};
  run.log = dir / "probe.log";
  run.timeout_s = 1;  // shorter than the wait below: the wait must not count
  grader::TestProgramEnv env;
  env.gate_fd = gate.child_fd();
  run.env = grader::test_program_env(env);
  grader::ProcessOptions p = grader::sandboxed_process(sandbox, run);
  p.pass_fds[gate.child_fd()] = gate.child_fd();
  p.on_start = [&gate](int) { gate.child_started(); };
  p.paused_s = [&gate] { return gate.waited_s(); };

  std::thread neighbour([&] {  // ends its phase after 1.5 s, while the probe waits at the gate
    std::this_thread::sleep_for(1500ms);
    pool.release(correctness);
  });
  const grader::ProcessResult r = grader::run_process(p);
  neighbour.join();
  const double waited = gate.waited_s();
  const bool held_alone = pool.busy() == std::vector<int>{1};
  gate.finish();
  const bool freed = pool.busy() == std::vector<int>{0};

  std::ifstream in(run.log);
  std::stringstream log;
  log << in.rdbuf();
  fs::remove_all(dir);
  std::cout << "in the sandbox (" << r.describe() << "), waited at the gate " << waited << " s:\n" << log.str();
  const bool ok = r.ok() && log.str().find("gate opened") != std::string::npos && waited >= 1.0 && held_alone && freed;
  if (!held_alone) std::cout << "the GPU was not the probe's alone when the gate opened\n";
  if (!freed) std::cout << "the GPU was not free after the probe ended\n";
  std::cout << (ok ? "PASSED: the gate opened inside the sandbox once the GPU was free\n" : "FAILED: see above\n");
  return ok ? 0 : 1;
}
