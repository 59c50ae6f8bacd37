// BEGIN SOLUTION transpose
// kmeans, exercise 2: transpose. Reference solution.
// STARTER
//| // kmeans, exercise 2: transpose. YOUR CODE: fill in the TODO(transpose)s, then run
//| //     grader check kmeans --filter "[transpose]"
// END SOLUTION
//
// The same program as naive, with the device's arrays transposed: the objects as
// BEGIN SOLUTION
// [numCoords][numObjs] and the centroids as [numCoords][numClusters]. Coordinate j of
// consecutive objects is now at consecutive addresses, so when the 32 threads of a warp read
// coordinate j of their 32 objects, they read one contiguous run of 256 bytes: a coalesced
// access, instead of 32 loads numCoords doubles apart.
// STARTER
//| // [numCoords][numObjs] (dimObjects) and the centroids as [numCoords][numClusters]
//| // (dimClusters). Coordinate j of consecutive objects is then at consecutive addresses, so when
//| // the 32 threads of a warp read coordinate j of their 32 objects, they read one contiguous run
//| // of 256 bytes: a coalesced access, instead of 32 loads numCoords doubles apart.
//| //
//| // Shipped as is, this file builds and runs, but assigns nothing: every case is incorrect.
// END SOLUTION
#include "helpers.h"
#include "kmeans.h"

#include "workbook/cuda_check.hpp"
#include "workbook/device_buffer.hpp"

#include <algorithm>
#include <vector>

namespace kmeans {
namespace {

// BEGIN SOLUTION
// objects [numObjs][numCoords] -> dimObjects [numCoords][numObjs], one thread per object.
// Done once, on the device: the copy to the GPU stays one contiguous transfer, and the device
// rewrites the array at hundreds of GB/s, far faster than a host loop would (the notes
// transposed on the host and found that loop among their bottlenecks).
// STARTER
//| // objects [numObjs][numCoords] -> dimObjects [numCoords][numObjs], once, on the device.
// END SOLUTION
__global__ void transpose_objects(int numCoords, int numObjs, const double* objects, double* dimObjects) {
  // BEGIN SOLUTION transpose
  const int objectId = blockIdx.x * blockDim.x + threadIdx.x;
  if (objectId >= numObjs) return;
  for (int j = 0; j < numCoords; ++j) dimObjects[j * numObjs + objectId] = objects[objectId * numCoords + j];
  // STARTER
  //| // TODO(transpose): one thread per object (objectId < numObjs) copies its numCoords values:
  //| //   dimObjects[j][objectId] = objects[objectId][j], i.e.
  //| //   dimObjects[j * numObjs + objectId] = objects[objectId * numCoords + j].
  //| //   (The notes transposed on the host. Why is the device the better place? The handout's
  //| //   bottleneck section has the numbers.)
  // END SOLUTION
}

// Squared distance between object objectId of dimObjects [numCoords][numObjs] and centroid
// clusterId of dimClusters [numCoords][numClusters].
// BEGIN SOLUTION
__device__ double euclid_dist_2(int numCoords, int numObjs, int numClusters, const double* dimObjects,
                                const double* dimClusters, int objectId, int clusterId) {
// STARTER
//| // ([[maybe_unused]] only keeps the shipped starter free of warnings while nothing calls it.)
//| [[maybe_unused]] __device__ double euclid_dist_2(int numCoords, int numObjs, int numClusters, const double* dimObjects,
//|                                                  const double* dimClusters, int objectId, int clusterId) {
// END SOLUTION
  double ans = 0.0;
  // BEGIN SOLUTION transpose
  for (int j = 0; j < numCoords; ++j) {
    const double d = dimObjects[j * numObjs + objectId] - dimClusters[j * numClusters + clusterId];
    ans += d * d;
  }
  // STARTER
  //| // TODO(transpose): naive's sum, with the transposed indexing: element [j][i] of a
  //| //   [numCoords][n] array is at [j * n + i].
  // END SOLUTION
  return ans;
}

__global__ void find_nearest_cluster(int numCoords, int numObjs, int numClusters, const double* dimObjects,
                                     const double* dimClusters, int* deviceMembership, unsigned int* deviceChanged) {
  // BEGIN SOLUTION transpose
  const int objectId = blockIdx.x * blockDim.x + threadIdx.x;
  if (objectId >= numObjs) return;

  int index = 0;
  double min_dist = euclid_dist_2(numCoords, numObjs, numClusters, dimObjects, dimClusters, objectId, 0);
  for (int k = 1; k < numClusters; ++k) {
    const double dist = euclid_dist_2(numCoords, numObjs, numClusters, dimObjects, dimClusters, objectId, k);
    if (dist < min_dist) {
      min_dist = dist;
      index = k;
    }
  }
  if (deviceMembership[objectId] != index) atomicAdd(deviceChanged, 1u);  // many writers: atomic
  deviceMembership[objectId] = index;
  // STARTER
  //| // TODO(transpose): naive's kernel (one thread per object, nearest centroid with ties to the
  //| //   lowest index, atomicAdd on *deviceChanged when the membership changes, store the
  //| //   membership), calling the transposed euclid_dist_2.
  // END SOLUTION
}

}  // namespace

int transpose(const double* objects, const Params& p, int* membership, double* clusters, Timeline& timeline) {
  const cudaStream_t stream = timeline.stream();
  const int numObjs = p.numObjs, numCoords = p.numCoords, numClusters = p.numClusters;
  const std::size_t objectsCount = static_cast<std::size_t>(numObjs) * numCoords;
  const std::size_t clustersCount = static_cast<std::size_t>(numClusters) * numCoords;

  std::copy(objects, objects + clustersCount, clusters);
  std::fill(membership, membership + numObjs, -1);
  std::vector<double> dimClusters(clustersCount);  // [numCoords][numClusters], the host's copy

  workbook::DeviceBuffer<double> deviceObjects(objectsCount), dimObjects(objectsCount);
  workbook::DeviceBuffer<double> deviceClusters(clustersCount);
  workbook::DeviceBuffer<int> deviceMembership(numObjs);
  workbook::DeviceBuffer<unsigned int> deviceChanged(1);

  const int numThreadsPerClusterBlock = p.blockSize;
  const int numClusterBlocks = ceil_div(numObjs, numThreadsPerClusterBlock);

  // BEGIN SOLUTION
  // STARTER
  //| // The objects cross as they are, in one contiguous copy, and are transposed on the device.
  // END SOLUTION
  timeline.to_device(deviceObjects.data(), objects, objectsCount * sizeof(double));
  timeline.kernels([&] {
    CUDA_CHECK_LAUNCH(transpose_objects<<<numClusterBlocks, numThreadsPerClusterBlock, 0, stream>>>(
        numCoords, numObjs, deviceObjects.data(), dimObjects.data()));
    CUDA_CHECK(cudaMemsetAsync(deviceMembership.data(), 0xFF, numObjs * sizeof(int), stream));
  });

  int loops = 0;
  double delta = 0;
  do {
    timeline.begin_iteration();
    // BEGIN SOLUTION transpose
    timeline.host([&] {  // clusters [numClusters][numCoords] -> dimClusters [numCoords][numClusters]
      for (int k = 0; k < numClusters; ++k)
        for (int j = 0; j < numCoords; ++j) dimClusters[j * numClusters + k] = clusters[k * numCoords + j];
    // STARTER
    //| timeline.host([&] {
    //|   // TODO(transpose): clusters [numClusters][numCoords] -> dimClusters [numCoords][numClusters]:
    //|   //   dimClusters[j * numClusters + k] = clusters[k * numCoords + j] for every k and j.
    // END SOLUTION
    });
    timeline.to_device(deviceClusters.data(), dimClusters.data(), clustersCount * sizeof(double));
    timeline.kernels([&] {
      CUDA_CHECK(cudaMemsetAsync(deviceChanged.data(), 0, sizeof(unsigned int), stream));
      CUDA_CHECK_LAUNCH(find_nearest_cluster<<<numClusterBlocks, numThreadsPerClusterBlock, 0, stream>>>(
          numCoords, numObjs, numClusters, dimObjects.data(), deviceClusters.data(), deviceMembership.data(),
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
