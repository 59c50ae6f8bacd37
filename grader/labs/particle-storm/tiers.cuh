// The two reference tiers of particle-storm, as the course's leaderboard had them: Ref1 and
// Ref2 are complete programs the grader times beside yours on the same workload, so that your
// report shows where your program stands between them. They live here, lab-side: nothing a
// student edits changes them.
//
//   Ref1: the straightforward port. One thread per cell, particles read from global memory,
//         the sequential program's arithmetic (sqrtf and two IEEE divisions per term): its
//         results are bit for bit the sequential program's.
//   Ref2: the optimised reference. One thread per cell, particles staged in shared memory a
//         tile at a time, with the energy divided by the layer size once per particle (through a
//         precomputed reciprocal) and the attenuation through rsqrtf: no division left per term.
//
// Both share the resident host program (layer initialised and kept on the device, particles
// uploaded once, results downloaded once) and the relax and maximum kernels.
#pragma once

#include "storm.h"

#include <vector>

namespace storm_tiers {

storm::Steps ref1_steps();
storm::Steps ref2_steps();

// The tiers' host program: the resident simulation with the given steps.
std::vector<storm::Result> simulate(int layer_size, const std::vector<storm::Storm>& storms, const storm::Steps& steps);
std::vector<storm::Result> ref1_program(int layer_size, const std::vector<storm::Storm>& storms);
std::vector<storm::Result> ref2_program(int layer_size, const std::vector<storm::Storm>& storms);

// The benchmark's ladder of update kernels, from Ref1 to Ref2 one idea at a time.
enum class Update {
  Ref1,        // global memory, sqrtf and divisions
  StagedIeee,  // particles staged in shared memory, still sqrtf and divisions
  Ref2,        // staged, rsqrtf and a precomputed reciprocal
};
void update(Update which, float* layer, int layer_size, const int* posval, int num_particles, cudaStream_t stream);

}  // namespace storm_tiers
