// The batch's side of a GPU gate (grader/gpu_gate.hpp): a GPU where one process may start
// (GpuPool::start_gated), which asks at the gate when its CUDA context is made; a thread of this
// keeper then waits for the GPU to be idle (GpuPool::acquire_gated) and opens the gate. A process
// that ends without asking, or while it waits, holds nothing after finish().
//
//   GateKeeper gate(pool, pool.start_gated(model));
//   options.pass_fds[gate.child_fd()] = gate.child_fd();     // and WORKBOOK_GATE_FD = child_fd()
//   options.on_start = [&](int) { gate.child_started(); };
//   options.paused_s = [&] { return gate.waited_s(); };      // the wait is not the process's time
//   run_process(options);
//   gate.finish();                                           // the GPU is free again
#pragma once

#include "batch/gpu_pool.hpp"

#include <atomic>
#include <chrono>
#include <mutex>
#include <optional>
#include <thread>

namespace grader {

class GateKeeper {
public:
  // For `gpu`, where the caller started a gated process's turn (GpuPool::start_gated); the keeper
  // owns it from here on. Throws std::runtime_error (the start ended) when no socket pair or
  // thread can be made.
  GateKeeper(GpuPool& pool, int gpu);
  ~GateKeeper();
  GateKeeper(const GateKeeper&) = delete;
  GateKeeper& operator=(const GateKeeper&) = delete;

  int gpu() const { return gpu_; }
  // The process's end (close-on-exec here): pass it to the process under the same number.
  int child_fd() const { return child_fd_; }
  // The process has its end now: this process's copy is closed, so that the gate sees the end of
  // the process as the end of the socket.
  void child_started();
  // How long the process has waited at the gate so far, a wait in progress included, up to
  // finish().
  double waited_s() const;
  // Whether the gate opened: the process had the GPU alone.
  bool opened() const;
  // Whether the process asked at the gate (before it could have run any test).
  bool asked() const;
  // After the process ended: a wait in progress cancelled, the keeper's thread joined, and the
  // GPU released (or its start ended). Called by the destructor too.
  void finish();

private:
  void keep();                          // the thread: waits for the ask, then for the GPU, then opens the gate
  void stop_clock(bool process_ended);  // ends a wait's time; with process_ended, any later one's

  GpuPool& pool_;
  int gpu_;
  int fd_ = -1, child_fd_ = -1;
  std::thread keeper_;
  mutable std::mutex m_;
  std::optional<std::chrono::steady_clock::time_point> asked_at_;  // while it waits
  double waited_s_ = 0;                                            // waits ended
  std::optional<GpuPool::Lease> lease_;
  bool asked_ = false, opened_ = false;
  std::atomic<bool> ended_{false};  // the process ended: a wait for the GPU is for no one
};

}  // namespace grader
