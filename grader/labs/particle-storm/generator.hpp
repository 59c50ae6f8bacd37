// Storm workloads of any size, from a seed: the same seed gives the same files on every
// machine (workbook::SplitMix64). Used by particle-storm-gen and by the grader's tests.
#pragma once

#include "storm.h"

#include <cstdint>
#include <vector>

namespace storm_grading {

struct StormShape {
  int layer_size = 1000;
  int particles = 100;  // per storm
  int storms = 1;
  long long min_position = 0, max_position = -1;  // default: the layer, [0, layer_size - 1]
  int min_energy = 1, max_energy = 1000;          // energy values, both ends included
};

// A shape from its numbers, in the order the tables of workloads write them.
StormShape storm_shape(int layer_size, int storms, int particles, long long min_position, long long max_position,
                       int min_energy, int max_energy);

// Storm `index` of a workload: particles with uniform positions and energy values in the
// shape's ranges, from (seed, index) alone.
storm::Storm generate_storm(const StormShape& shape, std::uint64_t seed, int index);
std::vector<storm::Storm> generate_storms(const StormShape& shape, std::uint64_t seed);

}  // namespace storm_grading
