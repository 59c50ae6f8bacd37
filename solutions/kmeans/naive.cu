// kmeans, exercise 1: naive. Reference solution.
//
// One thread per object finds the nearest centroid; the host computes the new centroids. The
// objects stay as the program received them, [numObjs][numCoords], and so do the centroids.
// Names follow the course notes (after Northwestern's parallel k-means): find_nearest_cluster,
// euclid_dist_2, deviceObjects, deviceClusters, deviceMembership.
#include "helpers.h"
#include "kmeans.h"

#include "workbook/cuda_check.hpp"
#include "workbook/device_buffer.hpp"

#include <algorithm>

namespace kmeans {
namespace {

// Squared distance between object objectId and centroid clusterId, both [n][numCoords].
// Thread t reads objects[t * numCoords + j]: neighbouring threads are numCoords doubles apart,
// so a warp's loads of one coordinate are strided, not coalesced (transpose fixes that).
__device__ double euclid_dist_2(int numCoords, const double* objects, const double* clusters, int objectId,
                                int clusterId) {
  double ans = 0.0;
  for (int j = 0; j < numCoords; ++j) {
    const double d = objects[objectId * numCoords + j] - clusters[clusterId * numCoords + j];
    ans += d * d;
  }
  return ans;
}

__global__ void find_nearest_cluster(int numCoords, int numObjs, int numClusters, const double* objects,
                                     const double* deviceClusters, int* deviceMembership,
                                     unsigned int* deviceChanged) {
  const int objectId = blockIdx.x * blockDim.x + threadIdx.x;
  if (objectId >= numObjs) return;  // the grid is rounded up

  int index = 0;
  double min_dist = euclid_dist_2(numCoords, objects, deviceClusters, objectId, 0);
  for (int k = 1; k < numClusters; ++k) {
    const double dist = euclid_dist_2(numCoords, objects, deviceClusters, objectId, k);
    if (dist < min_dist) {  // strictly less: a tie keeps the lower index
      min_dist = dist;
      index = k;
    }
  }
  // Is this write safe? Many threads increment the same counter at once: a plain
  // (*deviceChanged)++ is a read, an add and a write, and two threads that read the same old
  // value lose one increment. atomicAdd makes the three one indivisible operation.
  if (deviceMembership[objectId] != index) atomicAdd(deviceChanged, 1u);
  deviceMembership[objectId] = index;  // safe: each thread owns its object's element
}

}  // namespace

int naive(const double* objects, const Params& p, int* membership, double* clusters, Timeline& timeline) {
  const cudaStream_t stream = timeline.stream();
  const int numObjs = p.numObjs, numCoords = p.numCoords, numClusters = p.numClusters;
  const std::size_t objectsCount = static_cast<std::size_t>(numObjs) * numCoords;
  const std::size_t clustersCount = static_cast<std::size_t>(numClusters) * numCoords;

  // The first numClusters objects are the initial centroids; no object has a cluster yet.
  std::copy(objects, objects + clustersCount, clusters);
  std::fill(membership, membership + numObjs, -1);

  workbook::DeviceBuffer<double> deviceObjects(objectsCount), deviceClusters(clustersCount);
  workbook::DeviceBuffer<int> deviceMembership(numObjs);
  workbook::DeviceBuffer<unsigned int> deviceChanged(1);
  timeline.to_device(deviceObjects.data(), objects, objectsCount * sizeof(double));
  timeline.kernels([&] {  // every byte 0xFF: every membership -1
    CUDA_CHECK(cudaMemsetAsync(deviceMembership.data(), 0xFF, numObjs * sizeof(int), stream));
  });

  const int numThreadsPerClusterBlock = p.blockSize;
  const int numClusterBlocks = ceil_div(numObjs, numThreadsPerClusterBlock);

  int loops = 0;
  double delta = 0;
  do {
    timeline.begin_iteration();
    timeline.to_device(deviceClusters.data(), clusters, clustersCount * sizeof(double));
    timeline.kernels([&] {
      CUDA_CHECK(cudaMemsetAsync(deviceChanged.data(), 0, sizeof(unsigned int), stream));
      CUDA_CHECK_LAUNCH(find_nearest_cluster<<<numClusterBlocks, numThreadsPerClusterBlock, 0, stream>>>(
          numCoords, numObjs, numClusters, deviceObjects.data(), deviceClusters.data(), deviceMembership.data(),
          deviceChanged.data()));
    });
    unsigned int changed = 0;
    timeline.to_host(&changed, deviceChanged.data(), sizeof(unsigned int));
    timeline.to_host(membership, deviceMembership.data(), numObjs * sizeof(int));
    timeline.host([&] { update_centroids_on_host(objects, membership, p, clusters); });
    delta = static_cast<double>(changed) / numObjs;
    ++loops;
    timeline.end_iteration();
  } while (delta > p.threshold && loops < p.maxLoops);
  return loops;
}

}  // namespace kmeans
