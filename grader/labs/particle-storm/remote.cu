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
// The grader's steps must run in the runner (they work on the student's device memory, inside
// the student's simulate()), so the runner has its own copy of tiers.cu, compiled into this
// file's anonymous namespace: its names cannot clash with a submission's, and a submission
// that declares `storm_tiers::ref1_steps()` finds nothing to link. (nvcc gives the namespace
// a unique name rather than internal linkage, so this is hygiene, not secrecy: tiers.cu's
// source is part of the grader anyway.)
#include "remote/arena.hpp"
#include "remote/call.hpp"
#include "storm.h"
#include "transfers.hpp"
#include "workbook/cuda_check.hpp"
#include "workbook/device_buffer.hpp"
#include "workbook/stream.hpp"

#include <algorithm>
#include <cstring>
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
};

struct SimulateReply {
  std::uint64_t returned = 0;  // the size of the vector simulate() returned
  storm_grading::Transfers transfers;
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
  const storm::Steps steps = a.steps == StepsChoice::GradersRef1
                                 ? storm_tiers::ref1_steps()
                                 : storm::Steps{storm::update, storm::relax, storm::maximum};
  auto* results = static_cast<storm::Result*>(remote::arena_open(a.results));
  return [=](remote::Writer& out) {
    storm_grading::TransferCount count;
    const std::vector<storm::Result> got = storm::simulate(a.layer_size, *storms, steps);
    SimulateReply reply;
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
  // A result vector of the wrong size is reported as such; its first storms.size() entries
  // are the ones that came back.
  std::vector<Result> results(std::min<std::uint64_t>(reply.returned, storms.size() + 1000));
  const auto* got = static_cast<const Result*>(remote::arena_data(a.results));
  std::copy_n(got, std::min(results.size(), storms.size()), results.begin());
  return results;
}

#endif
