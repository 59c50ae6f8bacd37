// kmeans, exercise 2: transpose. Reference solution.
//
// The same program as naive, with the device's arrays transposed: the objects as
// [numCoords][numObjs] and the centroids as [numCoords][numClusters]. Coordinate j of
// consecutive objects is now at consecutive addresses, so when the 32 threads of a warp read
// coordinate j of their 32 objects, they read one contiguous run of 256 bytes: a coalesced
// access, instead of 32 loads numCoords doubles apart.
#include "helpers.h"
#include "kmeans.h"

#include "workbook/cuda_check.hpp"
#include "workbook/device_buffer.hpp"

#include <algorithm>
#include <vector>

namespace kmeans {
namespace {

// objects [numObjs][numCoords] -> dimObjects [numCoords][numObjs], one thread per object.
// Done once, on the device: the copy to the GPU stays one contiguous transfer, and the device
// rewrites the array at hundreds of GB/s, far faster than a host loop would (the notes
// transposed on the host and found that loop among their bottlenecks).
__global__ void transpose_objects(int numCoords, int numObjs, const double* objects, double* dimObjects) {
  const int objectId = blockIdx.x * blockDim.x + threadIdx.x;
  if (objectId >= numObjs) return;
  for (int j = 0; j < numCoords; ++j) dimObjects[j * numObjs + objectId] = objects[objectId * numCoords + j];
}

// Squared distance between object objectId of dimObjects [numCoords][numObjs] and centroid
// clusterId of dimClusters [numCoords][numClusters].
__device__ double euclid_dist_2(int numCoords, int numObjs, int numClusters, const double* dimObjects,
                                const double* dimClusters, int objectId, int clusterId) {
  double ans = 0.0;
  for (int j = 0; j < numCoords; ++j) {
    const double d = dimObjects[j * numObjs + objectId] - dimClusters[j * numClusters + clusterId];
    ans += d * d;
  }
  return ans;
}

__global__ void find_nearest_cluster(int numCoords, int numObjs, int numClusters, const double* dimObjects,
                                     const double* dimClusters, int* deviceMembership, unsigned int* deviceChanged) {
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
    timeline.host([&] {  // clusters [numClusters][numCoords] -> dimClusters [numCoords][numClusters]
      for (int k = 0; k < numClusters; ++k)
        for (int j = 0; j < numCoords; ++j) dimClusters[j * numClusters + k] = clusters[k * numCoords + j];
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
