// particle-storm's functions, called in the harness and run in the runner (grader/remote/).
//
// update, relax and maximum take device pointers and plain values: one WORKBOOK_REMOTE line
// each. simulate() is a whole program on host data with a choice of steps, written by hand:
//
//   harness  packs the storms' particles into the arena (remote/arena.hpp) with each storm's
//            size, says which steps (the student's own, or the grader's Ref1 for grading
//            `resident` on its own), and after the reply copies the results out of the arena
//            and adds the runner's count of host-device copies to the count in progress;
//   runner   rebuilds the storms before the clock starts, calls the student's simulate() with
//            the chosen steps, counts its copies (transfers.hpp), writes the results into the
//            arena.
//
// The steps' maximum is wrapped (layer_samples.hpp): before it runs, a small kernel samples the
// layer it is handed (cells drawn at random then, and around each particle's impact) into the
// harness's device memory, and the reply says how many times simulate() called it, so that the
// harness checks the layer after every storm and not only its maximum.
//
// The grader's steps must run in the runner (they work on the student's device memory, inside
// the student's simulate()), so the runner has its own copy of tiers.cu, compiled into this
// file's anonymous namespace: its names cannot clash with a submission's, and a submission
// that declares `storm_tiers::ref1_steps()` finds nothing to link. (nvcc gives the namespace
// a unique name rather than internal linkage, so this is hygiene, not secrecy: tiers.cu's
// source is part of the grader anyway.)
#include "layer_samples.hpp"
#include "remote/arena.hpp"
#include "remote/call.hpp"
#include "storm.h"
#include "transfers.hpp"
#include "workbook/cuda_check.hpp"
#include "workbook/device_buffer.hpp"
#include "workbook/stream.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <random>
#include <stdexcept>
#include <vector>

WORKBOOK_REMOTE(storm::update,
                (float* layer, int layer_size, const int* posval, int num_particles, cudaStream_t stream),
                (layer, layer_size, posval, num_particles, stream))
WORKBOOK_REMOTE(storm::relax, (float* layer, float* layer_copy, int layer_size, cudaStream_t stream),
                (layer, layer_copy, layer_size, stream))
WORKBOOK_REMOTE(storm::maximum,
                (const float* layer, int layer_size, float* candidate_values, int* candidate_positions,
                 float* max_value, int* max_position, cudaStream_t stream),
                (layer, layer_size, candidate_values, candidate_positions, max_value, max_position, stream))

namespace {

enum class StepsChoice : std::uint32_t { Yours = 0, GradersRef1 = 1 };

struct SimulateArguments {
  int layer_size = 0;
  StepsChoice steps = StepsChoice::Yours;
  std::uint32_t num_storms = 0;
  remote::HostBlock posval;   // every storm's posval, one after the other
  remote::HostBlock lengths;  // num_storms uint64: each storm's posval.size()
  remote::HostBlock results;  // num_storms storm::Result, written by the runner
  // The layer samples (layer_samples.hpp): null when the call was not staged.
  remote::PointerRef sample_fixed, sample_positions, sample_values;
};

struct SimulateReply {
  std::uint64_t returned = 0;  // the size of the vector simulate() returned
  storm_grading::Transfers transfers;
  std::uint32_t maximum_calls = 0;  // how many times simulate() called steps.maximum
};

}  // namespace

#ifdef WORKBOOK_RUNNER

// The runner's private copy of the grader's steps (see the top of this file). Every header
// tiers.cu includes is included above, so that only tiers.cuh and tiers.cu's own code land in
// the anonymous namespace.
namespace {
#include "tiers.cu"
}  // namespace

namespace {

// The layer check (layer_samples.hpp): the state of the call in progress, and the wrapper that
// simulate() gets as steps.maximum.
struct LayerCheck {
  bool active = false;
  std::uint32_t calls = 0;  // steps.maximum calls so far in this call
  int layer_size = 0;
  std::shared_ptr<const storm_grading::SampleLayout> layout;  // null: not sampled
  const int* fixed = nullptr;
  int* positions = nullptr;
  float* values = nullptr;
  decltype(storm::Steps::maximum) inner = nullptr;  // the maximum it wraps
};
LayerCheck g_check;

// A seed nobody can know before the call: the operating system's randomness (std::random_device,
// opened once before any call's clock starts) and the clock, mixed. Where the sandbox leaves no
// source of randomness, the clock and a counter alone (still unknown before the call).
std::uint64_t fresh_seed() {
  static std::unique_ptr<std::random_device> device = []() -> std::unique_ptr<std::random_device> {
    try {
      return std::make_unique<std::random_device>();
    } catch (...) {
      return nullptr;
    }
  }();
  static std::uint64_t counter = 0;
  std::uint64_t r = ++counter * 0xD1B54A32D192ED03ull;
  if (device) {
    try {
      r ^= (std::uint64_t((*device)()) << 32) ^ (*device)();
    } catch (...) {
    }
  }
  return r ^ (std::uint64_t(std::chrono::steady_clock::now().time_since_epoch().count()) * 0x9E3779B97F4A7C15ull);
}

// Slot t of a storm's sample: its cell (the whole layer: cell t; else a fixed cell, then random
// ones) and that cell's value.
__global__ void sampleLayerKernel(const float* layer, int layer_size, const int* fixed, unsigned fixed_count,
                                  bool whole, std::uint64_t seed, int* positions, float* values, unsigned count) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= count) return;
  const int k = whole ? int(t) : t < fixed_count ? fixed[t] : storm_grading::random_cell(seed, t, layer_size);
  positions[t] = k;
  values[t] = layer[k];
}

void sample_then(const float* layer, int layer_size, float* candidate_values, int* candidate_positions,
                 float* max_value, int* max_position, cudaStream_t stream) {
  if (g_check.active) {
    const std::uint32_t i = g_check.calls++;
    const auto* l = g_check.layout.get();
    if (l && i < l->particles.size() && l->slot_count(i) > 0) {
      const auto count = static_cast<unsigned>(l->slot_count(i));
      sampleLayerKernel<<<(count + 255) / 256, 256, 0, stream>>>(
          layer, g_check.layer_size, g_check.fixed + l->fixed_offset[i], static_cast<unsigned>(l->fixed_count(i)),
          l->whole(i), fresh_seed(), g_check.positions + l->slot_offset[i], g_check.values + l->slot_offset[i], count);
    }
  }
  g_check.inner(layer, layer_size, candidate_values, candidate_positions, max_value, max_position, stream);
}

// Active for the call of simulate() only: a thread of the submission's that calls the wrapper
// later samples nothing.
struct LayerCheckScope {
  explicit LayerCheckScope(const LayerCheck& c) {
    g_check = c;
    g_check.active = true;
  }
  ~LayerCheckScope() {  // the wrapped maximum stays: a later call of the wrapper still computes
    const auto inner = g_check.inner;
    g_check = LayerCheck{};
    g_check.inner = inner;
  }
};

remote::Bound bind_simulate(remote::Reader& in) {
  const auto a = in.get<SimulateArguments>();
  if (!in.done()) throw std::runtime_error("malformed call (arguments left over)");
  if (a.lengths.bytes != a.num_storms * sizeof(std::uint64_t) ||
      a.results.bytes != a.num_storms * sizeof(storm::Result))
    throw std::runtime_error("malformed call (array sizes do not match the number of storms)");
  const auto* lengths = static_cast<const std::uint64_t*>(remote::arena_open(a.lengths));
  const auto* posval = static_cast<const int*>(remote::arena_open(a.posval));
  auto storms = std::make_shared<std::vector<storm::Storm>>(a.num_storms);
  std::uint64_t at = 0;
  for (std::uint32_t i = 0; i < a.num_storms; ++i) {
    if (lengths[i] > a.posval.bytes / sizeof(int) - at) throw std::runtime_error("malformed call (storm lengths)");
    (*storms)[i].posval.assign(posval + at, posval + at + lengths[i]);
    at += lengths[i];
  }
  storm::Steps steps = a.steps == StepsChoice::GradersRef1 ? storm_tiers::ref1_steps()
                                                           : storm::Steps{storm::update, storm::relax, storm::maximum};
  // steps.maximum samples the layer, then runs the chosen maximum: the same wrapper whether or not
  // this call is sampled, so that nothing in simulate() can tell a checked call from another.
  LayerCheck check;
  check.inner = steps.maximum;
  check.layer_size = a.layer_size;
  steps.maximum = sample_then;
  if (a.sample_positions.kind != 0) {
    check.layout = std::make_shared<const storm_grading::SampleLayout>(
        storm_grading::sample_layout(a.layer_size, storm_grading::particle_counts(*storms)));
    check.fixed = static_cast<const int*>(remote::open_pointer(a.sample_fixed));
    check.positions = static_cast<int*>(remote::open_pointer(a.sample_positions));
    check.values = static_cast<float*>(remote::open_pointer(a.sample_values));
    if (!check.positions || !check.values || (!check.fixed && check.layout->fixed_total() > 0))
      throw std::runtime_error("malformed call (layer sample buffers)");
  }
  (void)fresh_seed();  // the random device opened now, before the clock
  auto* results = static_cast<storm::Result*>(remote::arena_open(a.results));
  return [=](remote::Writer& out) {
    storm_grading::TransferCount count;
    SimulateReply reply;
    std::vector<storm::Result> got;
    {
      LayerCheckScope scope(check);
      got = storm::simulate(a.layer_size, *storms, steps);
      reply.maximum_calls = g_check.calls;
    }
    reply.transfers = count.stop();
    reply.returned = got.size();
    std::copy_n(got.begin(), std::min<std::size_t>(got.size(), a.num_storms), results);
    out.put(reply);
  };
}

const remote::Registration simulate_registration("storm::simulate", &bind_simulate);

}  // namespace

#else

#include "tiers.cuh"

std::vector<storm::Result> storm::simulate(int layer_size, const std::vector<Storm>& storms, const Steps& steps) {
  SimulateArguments a;
  a.layer_size = layer_size;
  const Steps ref1 = storm_tiers::ref1_steps();
  if (steps.update == storm::update && steps.relax == storm::relax && steps.maximum == storm::maximum)
    a.steps = StepsChoice::Yours;
  else if (steps.update == ref1.update && steps.relax == ref1.relax && steps.maximum == ref1.maximum)
    a.steps = StepsChoice::GradersRef1;
  else
    throw std::logic_error("internal: simulate() called with steps the runner does not have");
  a.num_storms = static_cast<std::uint32_t>(storms.size());
  // The layer samples, where the caller staged this call (layer_samples.hpp): only pointers here,
  // the fixed cells went up before the clock.
  auto& stage = storm_grading::sample_stage();
  const bool sampled = stage.matches(layer_size, storms);
  if (sampled) {
    a.sample_fixed = remote::share_pointer(stage.fixed.data());
    a.sample_positions = remote::share_pointer(stage.positions.data());
    a.sample_values = remote::share_pointer(stage.values.data());
  }
  storm_grading::last_layer_samples().reset();

  remote::arena_begin();
  std::vector<std::uint64_t> lengths(storms.size());
  std::size_t total = 0;
  for (std::size_t i = 0; i < storms.size(); ++i) total += lengths[i] = storms[i].posval.size();
  a.posval = remote::arena_alloc(total * sizeof(int), "the storms' particles");
  a.lengths = remote::arena_put(lengths.data(), lengths.size() * sizeof(std::uint64_t), "the storms' sizes");
  a.results = remote::arena_alloc(storms.size() * sizeof(Result), "the results");
  auto* posval = static_cast<int*>(remote::arena_data(a.posval));
  for (const Storm& s : storms) posval = std::copy(s.posval.begin(), s.posval.end(), posval);

  remote::Writer w;
  w.put(a);
  const std::vector<unsigned char> value = remote::invoke("storm::simulate", w);
  remote::Reader r(value);
  const auto reply = r.get<SimulateReply>();
  storm_grading::count_foreign(reply.transfers);
  storm_grading::last_layer_samples() =
      storm_grading::LayerSampleRecord{sampled, static_cast<std::uint32_t>(a.steps), reply.maximum_calls};
  // A result vector of the wrong size is reported as such; its first storms.size() entries
  // are the ones that came back.
  std::vector<Result> results(std::min<std::uint64_t>(reply.returned, storms.size() + 1000));
  const auto* got = static_cast<const Result*>(remote::arena_data(a.results));
  std::copy_n(got, std::min(results.size(), storms.size()), results.begin());
  return results;
}

#endif
