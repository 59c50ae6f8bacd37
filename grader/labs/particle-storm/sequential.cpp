// The sequential program of particle-storm: the original Energy Storms code (EduHPC 2018 peachy
// assignment, version 2.0), its main loop unchanged. Every result the lab grades is defined by
// what this code computes, float operation by float operation, and every speedup is measured
// against it. Built -O2 whatever the build type (see CMakeLists.txt), as the course built it.
#include "sequential.hpp"

#include <chrono>
#include <cmath>

namespace storm_grading {
namespace {

#define THRESHOLD 0.001f

/* Function to update a single position of the layer */
void update(float* layer, int layer_size, int k, int pos, float energy) {
  /* 1. Compute the absolute value of the distance between the
        impact position and the k-th position of the layer */
  int distance = pos - k;
  if (distance < 0) distance = -distance;

  /* 2. Impact cell has a distance value of 1 */
  distance = distance + 1;

  /* 3. Square root of the distance */
  /* NOTE: Real world atenuation typically depends on the square of the distance.
     We use here a tailored equation that affects a much wider range of cells */
  float atenuacion = sqrtf((float)distance);

  /* 4. Compute attenuated energy */
  float energy_k = energy / layer_size / atenuacion;

  /* 5. Do not add if its absolute value is lower than the threshold */
  if (energy_k >= THRESHOLD / layer_size || energy_k <= -THRESHOLD / layer_size) layer[k] = layer[k] + energy_k;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

std::vector<storm::Result> sequential_simulate(int layer_size, const std::vector<storm::Storm>& storms,
                                               SequentialBreakdown* breakdown, std::vector<float>* final_layer) {
  using clock = std::chrono::steady_clock;
  const int num_storms = static_cast<int>(storms.size());
  std::vector<float> maximum(num_storms, 0.0f);
  std::vector<int> positions(num_storms, 0);
  int i, j, k;

  /* 3. Allocate memory for the layer and initialize to zero */
  std::vector<float> layer(layer_size), layer_copy(layer_size);
  for (k = 0; k < layer_size; k++) layer[k] = 0.0f;
  for (k = 0; k < layer_size; k++) layer_copy[k] = 0.0f;

  /* 4. Storms simulation */
  for (i = 0; i < num_storms; i++) {
    const auto t_update = clock::now();
    /* 4.1. Add impacts energies to layer cells */
    /* For each particle */
    for (j = 0; j < storms[i].size(); j++) {
      /* Get impact energy (expressed in thousandths) */
      float energy = (float)storms[i].posval[j * 2 + 1] * 1000;
      /* Get impact position */
      int position = storms[i].posval[j * 2];

      /* For each cell in the layer */
      for (k = 0; k < layer_size; k++) {
        /* Update the energy value for the cell */
        update(layer.data(), layer_size, k, position, energy);
      }
    }

    const auto t_relax = clock::now();
    /* 4.2. Energy relaxation between storms */
    /* 4.2.1. Copy values to the ancillary array */
    for (k = 0; k < layer_size; k++) layer_copy[k] = layer[k];

    /* 4.2.2. Update layer using the ancillary values.
              Skip updating the first and last positions */
    for (k = 1; k < layer_size - 1; k++) layer[k] = (layer_copy[k - 1] + layer_copy[k] + layer_copy[k + 1]) / 3;

    const auto t_maximum = clock::now();
    /* 4.3. Locate the maximum value in the layer, and its position */
    for (k = 1; k < layer_size - 1; k++) {
      /* Check it only if it is a local maximum */
      if (layer[k] > layer[k - 1] && layer[k] > layer[k + 1]) {
        if (layer[k] > maximum[i]) {
          maximum[i] = layer[k];
          positions[i] = k;
        }
      }
    }
    if (breakdown) {
      breakdown->update_s += std::chrono::duration<double>(t_relax - t_update).count();
      breakdown->relax_s += std::chrono::duration<double>(t_maximum - t_relax).count();
      breakdown->maximum_s += seconds_since(t_maximum);
    }
  }

  if (final_layer) *final_layer = layer;
  std::vector<storm::Result> results(num_storms);
  for (i = 0; i < num_storms; i++) results[i] = {positions[i], maximum[i]};
  return results;
}

}  // namespace storm_grading
