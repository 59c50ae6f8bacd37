// BEGIN SOLUTION naive
// kmeans, exercise 1: naive. Reference solution.
// STARTER
//| // kmeans, exercise 1: naive. YOUR CODE: fill in the TODO(naive)s, then run
//| //     grader check kmeans --filter "[naive]"
//| // The handout (README.md beside this file) explains each version.
// END SOLUTION
//
// BEGIN SOLUTION
// One thread per object finds the nearest centroid; the host computes the new centroids. The
// objects stay as the program received them, [numObjs][numCoords], and so do the centroids.
// STARTER
//| // One thread per object finds the nearest centroid on the GPU; the host computes the new
//| // centroids (update_centroids_on_host, provided in helpers.h). The objects stay as the
//| // program received them, [numObjs][numCoords], and so do the centroids.
// END SOLUTION
// Names follow the course notes (after Northwestern's parallel k-means): find_nearest_cluster,
// euclid_dist_2, deviceObjects, deviceClusters, deviceMembership.
// BEGIN SOLUTION
// STARTER
//| //
//| // Shipped as is, this file builds and runs, but the kernel assigns nothing: every membership
//| // stays -1 and the grader reports every case as incorrect.
// END SOLUTION
#include "helpers.h"
#include "kmeans.h"

#include "workbook/cuda_check.hpp"
#include "workbook/device_buffer.hpp"

#include <algorithm>

namespace kmeans {
namespace {

// BEGIN SOLUTION
// Squared distance between object objectId and centroid clusterId, both [n][numCoords].
// Thread t reads objects[t * numCoords + j]: neighbouring threads are numCoords doubles apart,
// so a warp's loads of one coordinate are strided, not coalesced (transpose fixes that).
__device__ double euclid_dist_2(int numCoords, const double* objects, const double* clusters, int objectId,
// STARTER
//| // Squared distance between object objectId and centroid clusterId, both arrays [n][numCoords].
//| // ([[maybe_unused]] only keeps the shipped starter free of warnings while nothing calls it.)
//| [[maybe_unused]] __device__ double euclid_dist_2(int numCoords, const double* objects, const double* clusters, int objectId,
// END SOLUTION
                                int clusterId) {
  double ans = 0.0;
  // BEGIN SOLUTION naive
  for (int j = 0; j < numCoords; ++j) {
    const double d = objects[objectId * numCoords + j] - clusters[clusterId * numCoords + j];
    ans += d * d;
  }
  // STARTER
  //| // TODO(naive): ans = sum over j < numCoords of (objects[objectId][j] - clusters[clusterId][j])^2,
  //| //   where element [i][j] of an [n][numCoords] array is at [i * numCoords + j].
  // END SOLUTION
  return ans;
}

__global__ void find_nearest_cluster(int numCoords, int numObjs, int numClusters, const double* objects,
                                     const double* deviceClusters, int* deviceMembership,
                                     unsigned int* deviceChanged) {
  // BEGIN SOLUTION naive
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
  // STARTER
  //| // TODO(naive): one thread per object.
  //| //   1. objectId from blockIdx.x, blockDim.x and threadIdx.x. The grid is rounded up, so
  //| //      threads with objectId >= numObjs must do nothing.
  //| //   2. index = the k in [0, numClusters) with the smallest euclid_dist_2(..., objectId, k).
  //| //      Ties go to the LOWEST k: start from k = 0 and replace only when strictly smaller.
  //| //   3. If deviceMembership[objectId] != index, the object changed cluster: add 1 to
  //| //      *deviceChanged (the host turns it into delta).
  //| //      Is this write safe? Every thread that changed adds into the same counter at the same
  //| //      time. `(*deviceChanged)++` is a read, an add and a write: two threads that read the
  //| //      same old value both write old + 1, and one change is lost. Use atomicAdd.
  //| //   4. deviceMembership[objectId] = index. (Safe without an atomic: why?)
  // END SOLUTION
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
  // BEGIN SOLUTION naive
  const int numClusterBlocks = ceil_div(numObjs, numThreadsPerClusterBlock);
  // STARTER
  //| // TODO(naive): enough blocks of numThreadsPerClusterBlock threads for one thread per object,
  //| //   rounded UP (ceil_div), so that the last, partial block is launched too.
  //| const int numClusterBlocks = 1;
  // END SOLUTION

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
