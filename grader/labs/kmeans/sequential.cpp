// The sequential baseline of kmeans: the plain single-threaded program of the course notes
// (after Northwestern's seq_kmeans), built with -O2 (see CMakeLists.txt). Speedups are measured
// against it, as the notes measured theirs.
#include "sequential.hpp"

#include <vector>

namespace kmeans_grading {
namespace {

double euclid_dist_2(int numCoords, const double* coord1, const double* coord2) {
  double ans = 0.0;
  for (int i = 0; i < numCoords; i++) ans += (coord1[i] - coord2[i]) * (coord1[i] - coord2[i]);
  return ans;
}

int find_nearest_cluster(int numClusters, int numCoords, const double* object, const double* clusters) {
  int index = 0;
  double min_dist = euclid_dist_2(numCoords, object, clusters);
  for (int i = 1; i < numClusters; i++) {
    const double dist = euclid_dist_2(numCoords, object, clusters + i * numCoords);
    if (dist < min_dist) {  // a tie keeps the lower index
      min_dist = dist;
      index = i;
    }
  }
  return index;
}

}  // namespace

int sequential(const double* objects, int numObjs, int numCoords, int numClusters, double threshold, int maxLoops,
               int* membership, double* clusters) {
  // The first numClusters objects are the initial centroids; no object has a cluster yet.
  for (int i = 0; i < numClusters * numCoords; i++) clusters[i] = objects[i];
  for (int i = 0; i < numObjs; i++) membership[i] = -1;

  std::vector<double> newClusters(numClusters * numCoords, 0.0);
  std::vector<int> newClusterSize(numClusters, 0);
  int loops = 0;
  double delta;
  do {
    delta = 0.0;
    for (int i = 0; i < numObjs; i++) {
      const int index =
          find_nearest_cluster(numClusters, numCoords, objects + static_cast<long>(i) * numCoords, clusters);
      if (membership[i] != index) delta += 1.0;
      membership[i] = index;
      newClusterSize[index]++;
      for (int j = 0; j < numCoords; j++)
        newClusters[index * numCoords + j] += objects[static_cast<long>(i) * numCoords + j];
    }
    for (int i = 0; i < numClusters; i++) {
      for (int j = 0; j < numCoords; j++) {
        if (newClusterSize[i] > 0) clusters[i * numCoords + j] = newClusters[i * numCoords + j] / newClusterSize[i];
        newClusters[i * numCoords + j] = 0.0;  // an empty cluster keeps its centroid
      }
      newClusterSize[i] = 0;
    }
    delta /= numObjs;
    loops++;
  } while (delta > threshold && loops < maxLoops);
  return loops;
}

}  // namespace kmeans_grading
