// The batch's side of a GPU gate (grader/gpu_gate.hpp): a GPU reserved in the pool for one
// process, which starts on it at once and asks at the gate when its CUDA contexts are made; a
// thread of this keeper then waits for the GPU to be idle (GpuPool::acquire_reserved) and opens
// the gate. A process that ends without asking gives the reservation back.
//
//   GateKeeper gate(pool, pool.reserve_gpu(model));
//   options.pass_fds[gate.child_fd()] = gate.child_fd();     // and WORKBOOK_GATE_FD = child_fd()
//   options.on_start = [&](int) { gate.child_started(); };
//   options.paused_s = [&] { return gate.waited_s(); };      // the wait is not the process's time
//   run_process(options);
//   gate.finish();                                           // the GPU is free again
#pragma once

#include "batch/gpu_pool.hpp"

#include <chrono>
#include <mutex>
#include <optional>
#include <thread>

namespace grader {

class GateKeeper {
public:
  // For `gpu`, reserved in `pool` by the caller (GpuPool::reserve_gpu); the keeper owns the
  // reservation from here on. Throws std::runtime_error when no socket pair can be made.
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
  // How long the process has waited at the gate so far, a wait in progress included.
  double waited_s() const;
  // After the process ended: the keeper's thread joined, and the GPU released (or its
  // reservation given back). Called by the destructor too.
  void finish();

private:
  void keep();  // the thread: waits for the ask, then for the GPU, then opens the gate

  GpuPool& pool_;
  int gpu_;
  int fd_ = -1, child_fd_ = -1;
  std::thread keeper_;
  mutable std::mutex m_;
  std::optional<std::chrono::steady_clock::time_point> asked_at_;  // while it waits
  double waited_s_ = 0;                                            // waits ended
  std::optional<GpuPool::Lease> lease_;
};

}  // namespace grader
