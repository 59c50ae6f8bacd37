// The node's GPUs as `grader batch` shares them (instructor guide, "Every GPU of the node"): one
// gate per GPU, whose shared side admits up to `max_shared` correctness phases at once and whose
// exclusive side is a timed phase (or a phase run again alone) with the GPU to itself. A phase
// asks the pool for a GPU of one model; the pool gives the least busy one that admits it, so a
// class spreads over every GPU and a submission's thresholds (keyed by model) never change
// between its phases. Pure logic: no CUDA here, so the unit tests drive it with fake GPU lists.
//
// When a timed phase waits for a GPU, the GPU drains: it admits no new correctness phase and
// the timing starts when the last running one ends. A drain costs the GPU the phases it did not
// admit, so a GPU drains once for several timings, which then run one after the other: it keeps
// admitting correctness phases that wait to start until as many timings wait as correctness
// phases fit (`max_shared`), or the first has waited `max_defer`, or no correctness phase waits
// (a drain then costs nothing). Then it drains until no timing waits.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <vector>

namespace grader {

struct GpuSlot {
  int ordinal = 0;      // the CUDA ordinal in the grader's own view
  std::string visible;  // what a child's CUDA_VISIBLE_DEVICES names it by (its sole GPU)
  std::string model;    // "NVIDIA H100 80GB HBM3 (132 SMs)": what the machine profiles key on
  std::string name;     // "NVIDIA H100 80GB HBM3": what reports call it ("" : the model)
  const std::string& shown() const { return name.empty() ? model : name; }
};

// The GPUs `--gpus` names ("all", or ordinals as the grader sees them: "0,2", "1-3"), in order.
// Throws std::invalid_argument naming what is wrong (an ordinal that is not there ...).
std::vector<GpuSlot> choose_gpus(const std::vector<GpuSlot>& visible, const std::string& spec);

// What a child's CUDA_VISIBLE_DEVICES is for the grader's ordinal `ordinal`, given the grader's
// own CUDA_VISIBLE_DEVICES (`parent`, null when unset): the parent's entry at that position
// (an index, a UUID, a MIG name), else the ordinal itself.
std::string child_visible_devices(const char* parent, int ordinal);

// How many correctness phases share each of `gpus` GPUs by default (`--gpu-jobs` unset): 16 over
// the node, from 2 to 8 a GPU. A phase's allocations and CUDA contexts go through the driver's
// control path, which every process of the machine shares whatever its GPU (on a node of 4 H100s
// a 4 MiB allocation took 0.14 ms alone, 4.2 ms each with 16 processes, 9.4 ms with 32), so past
// about 16 at once more phases slow each other down: 40 matmul-tiled submissions took 95.5 s over
// four GPUs with 4 a GPU, 112.6 s with 8 (2026-11-27). On one GPU, 8 kept a 16-core node busier
// than 4 where the phases are mostly CPU work (particle-storm's class: 59.9 s against 67.4 s).
int shared_phases_per_gpu(int gpus);

// The models among `gpus`, in order of first appearance.
std::vector<std::string> gpu_models(const std::vector<GpuSlot>& gpus);

class GpuPool {
public:
  GpuPool(std::vector<GpuSlot> gpus, int max_shared,
          std::chrono::milliseconds max_defer = std::chrono::milliseconds(30000));

  // A phase's hold on one GPU. `shared_with_others`: another phase ran on the same GPU at some
  // moment while this one held it (what makes an out-of-memory failure someone else's doing).
  struct Lease {
    int gpu = -1;  // index into gpus()
    bool exclusive = false;
    double waited_s = 0;  // blocked in acquire()
    bool shared_with_others() const;
    int id = -1;
    const GpuPool* pool = nullptr;
  };

  // Blocks until a GPU of `model` ("" any) admits the phase. Waiting exclusive phases go first on
  // the GPU each has reserved, so a queue of correctness phases never starves a timing.
  Lease acquire(const std::string& model, bool exclusive);
  void release(const Lease& lease);

  // The exclusive side in two steps, for a process started before its GPU is its alone (a timed
  // phase makes its CUDA contexts beside the GPU's correctness phases, then asks at its gate:
  // grader/gpu_gate.hpp). start_gated() blocks until a GPU of `model` admits a start (not held
  // alone, not drained with timings waiting: a start then would leave it idle, and fewer than
  // max_shared programs starting or waiting there) and returns it; until the process asks, the GPU is not idle for anyone's timing. acquire_gated() is the
  // ask: the GPU is reserved and drains as for acquire(), and the call blocks until the GPU is
  // idle (on that GPU only: the process runs there), or until `*cancel` (the process ended
  // meanwhile: the returned lease's gpu is then -1 and nothing is held). end_gated_start() when
  // the process ends without asking.
  int start_gated(const std::string& model);
  Lease acquire_gated(int gpu, const std::atomic<bool>* cancel = nullptr);
  void end_gated_start(int gpu);
  void wake();  // waiters look again (after a cancel flag is set)

  // The model a new submission is graded on: of the models, the one with the least work per GPU
  // (phases held or waiting, plus submissions assigned and not yet finished). Counted until
  // finish_model(). "" when the pool is empty.
  std::string assign_model();
  void finish_model(const std::string& model);

  const std::vector<GpuSlot>& gpus() const { return gpus_; }
  bool empty() const { return gpus_.empty(); }

  // For tests and the progress line: phases running on each GPU now (exclusive counts as one).
  std::vector<int> busy() const;
  int waiting_shared() const;  // correctness phases blocked in acquire() now

private:
  using Clock = std::chrono::steady_clock;
  struct State {
    int shared = 0;
    bool exclusive = false;
    int reserved = 0;         // exclusive phases waiting for this GPU
    int starting = 0;         // gated processes started here that have not asked yet
    bool draining = false;    // no new shared phase until no exclusive one waits
    Clock::time_point since;  // when `reserved` last went from 0 to 1
  };
  void update_draining(int g);
  void reserve(int g);
  void unreserve(int g);
  bool admits_shared(int g, const std::string& model) const;
  bool idle(int g) const { return !states_[g].exclusive && states_[g].shared == 0 && states_[g].starting == 0; }
  bool admits_start(int g, const std::string& model) const;
  int pick_start(const std::string& model) const;        // -1: none admits
  int pick_shared(const std::string& model) const;       // -1: none admits
  int pick_reservation(const std::string& model) const;  // the GPU an exclusive phase waits for
  bool of_model(int g, const std::string& model) const { return model.empty() || gpus_[g].model == model; }
  void mark_overlaps(int g, int lease_id);
  Lease new_lease(bool exclusive);
  // Waits for the reserved GPU g to be idle, moving to another GPU of `model` that comes free when
  // `may_move`; then holds it alone. Returns the GPU, or -1 (reservation dropped) once `*cancel`.
  int wait_exclusive(std::unique_lock<std::mutex>& l, int g, const std::string& model, bool may_move,
                     const std::atomic<bool>* cancel = nullptr);

  std::vector<GpuSlot> gpus_;
  int max_shared_;
  std::chrono::milliseconds max_defer_;
  int waiting_shared_ = 0;  // shared phases blocked in acquire()
  mutable std::mutex m_;
  std::condition_variable cv_;
  std::vector<State> states_;
  std::vector<std::vector<int>> holders_;  // per GPU: the ids of the leases holding it
  std::vector<bool> overlapped_;           // per lease id
  std::vector<int> assigned_;              // per model index of gpu_models(): submissions assigned
  std::vector<std::string> models_;
  int next_id_ = 0;
};

}  // namespace grader
