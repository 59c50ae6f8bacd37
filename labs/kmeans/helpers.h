// kmeans: small helpers for your five files. Provided; do not edit.
#pragma once

#include "kmeans.h"

#include <vector>

namespace kmeans {

// Blocks needed to cover `a` items, `b` per block: rounded up, so the edge is covered too.
__host__ __device__ inline int ceil_div(int a, int b) { return (a + b - 1) / b; }

// The host half of naive, transpose and shared. In those three versions the GPU finds every
// object's nearest centroid and the host computes the new centroids, exactly as the sequential
// program does: a sum and a count per cluster, then a division. This is that code, so that
// your three files need not repeat it.
//
// New centroids from the memberships: clusters[k] = mean of the objects whose membership is k;
// a cluster with no members keeps its centroid. Both arrays are row-major as in kmeans.h.
// A membership outside [0, numClusters) (an object the kernel never assigned, or garbage) is
// skipped instead of being used as an index: the grader then reports it as wrong, rather than
// the program writing outside newClusters.
inline void update_centroids_on_host(const double* objects, const int* membership, const Params& p,
                                     double* clusters) {
  const int numCoords = p.numCoords, numClusters = p.numClusters;
  std::vector<double> newClusters(static_cast<std::size_t>(numClusters) * numCoords, 0.0);
  std::vector<int> newClusterSize(numClusters, 0);
  for (int i = 0; i < p.numObjs; ++i) {
    const int index = membership[i];
    if (index < 0 || index >= numClusters) continue;
    ++newClusterSize[index];
    for (int j = 0; j < numCoords; ++j)
      newClusters[static_cast<std::size_t>(index) * numCoords + j] += objects[static_cast<std::size_t>(i) * numCoords + j];
  }
  for (int k = 0; k < numClusters; ++k) {
    if (newClusterSize[k] == 0) continue;  // an empty cluster keeps its centroid
    for (int j = 0; j < numCoords; ++j)
      clusters[static_cast<std::size_t>(k) * numCoords + j] =
          newClusters[static_cast<std::size_t>(k) * numCoords + j] / newClusterSize[k];
  }
}

}  // namespace kmeans
