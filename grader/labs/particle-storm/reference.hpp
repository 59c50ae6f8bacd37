// The grader's reference for particle-storm: the sequential program's arithmetic, exactly, but
// fast enough to check every call the grader times (all cores, vector instructions), plus what
// the verdicts need: how much rounding each cell may carry, and the rule for positions.
//
// Why not double precision, as the other labs' references are? Because the results of this
// lab are defined by the float program: which cell is the maximum depends on float comparisons.
// So the reference reproduces the sequential program bit for bit (the cells are independent,
// so they can be computed in any order and in parallel, each with its particles in file order;
// vector sqrtps and divps round exactly like the scalar ones), and the tolerance admits the
// rounding differences of a correct GPU program instead.
//
// The timed rounds' large workloads take the same computation on the GPU (device_reference.hpp:
// the same operations, correctly rounded in the same order, hence the same bits).
#pragma once

#include "storm.h"

#include <string>
#include <vector>

namespace storm_grading {

// The layer as the sequential program holds it, and beside it the rounding budget of each cell.
struct RefLayer {
  std::vector<float> value;      // bit for bit the sequential program's layer
  std::vector<float> magnitude;  // per cell, the sum of |every term| that went into it; empty
                                 // while no term was negative (it would equal `value`)
  long long particles = 0;       // particles added so far (all storms), for the tolerance
  int storms = 0;                // relaxations so far

  RefLayer() = default;
  explicit RefLayer(int layer_size) : value(layer_size, 0.0f) {}
  explicit RefLayer(std::vector<float> initial);  // a layer that already holds energy
  int size() const { return static_cast<int>(value.size()); }
  float magnitude_at(int k) const { return magnitude.empty() ? value[k] : magnitude[k]; }
};

// Step 1, exactly as the sequential program computes it.
void ref_update(RefLayer& layer, const int* posval, int num_particles);
// Step 2.
void ref_relax(RefLayer& layer);
// Step 3 on any layer.
storm::Result ref_maximum(const std::vector<float>& layer);

// The whole program: the results, and (if `layers` is given) the layer after each storm.
std::vector<storm::Result> ref_simulate(int layer_size, const std::vector<storm::Storm>& storms,
                                        std::vector<RefLayer>* layers = nullptr);

// How far a correct float program may be from the sequential one at cell k: other summation
// orders and rsqrtf round differently, by a few units in the last place per term, which adds
// up to a fraction of the cell's magnitude that grows with the number of terms.
double tolerance(const RefLayer& layer, int k);

// The verdict on one storm's result, given the reference layer after that storm:
//  - the value must be within tolerance of the expected value;
//  - the position must be the expected one, unless the cell it names is, within tolerance,
//    a strict local maximum as large as the expected maximum (two candidates that close can
//    swap places with rounding; either is accepted).
struct Verdict {
  bool ok = true;
  std::string why;  // when not ok
};
Verdict judge(const RefLayer& after, const storm::Result& expected, const storm::Result& got);

}  // namespace storm_grading
