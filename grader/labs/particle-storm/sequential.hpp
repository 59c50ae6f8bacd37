// The sequential program of particle-storm: the original single-threaded code (version 2.0)
// that defines every result and every speedup of the lab. Built -O2 (CMakeLists.txt).
#pragma once

#include "storm.h"

#include <vector>

namespace storm_grading {

// Where the sequential program spends its time, summed over the storms (seconds).
struct SequentialBreakdown {
  double update_s = 0, relax_s = 0, maximum_s = 0;
};

// The original main loop: allocate and zero the layer, then update, relax and locate the maximum
// for each storm. `breakdown`, if given, receives the time of each phase; `final_layer`, if
// given, the layer after the last storm.
std::vector<storm::Result> sequential_simulate(int layer_size, const std::vector<storm::Storm>& storms,
                                               SequentialBreakdown* breakdown = nullptr,
                                               std::vector<float>* final_layer = nullptr);

}  // namespace storm_grading
