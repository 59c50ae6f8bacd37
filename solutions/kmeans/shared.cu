// BEGIN SOLUTION shared
// kmeans, exercise 3: shared. Reference solution.
// STARTER
//| // kmeans, exercise 3: shared. YOUR CODE: fill in the TODO(shared)s, then run
//| //     grader check kmeans --filter "[shared]"
// END SOLUTION
//
// BEGIN SOLUTION
// As transpose, but each block first copies the centroids into shared memory. Every thread
// reads every centroid (numClusters * numCoords doubles) once per object; from global memory
// that is numClusters * numCoords loads per thread through the caches, from shared memory it is
// one load of each value per block from global memory and the rest at shared-memory speed.
// All threads of a warp read the same centroid at the same time: one address, a broadcast, no
// bank conflict.
// STARTER
//| // As transpose, but each block first copies the centroids into shared memory, and every
//| // thread then reads them from there. Every thread reads every centroid once per object: from
//| // global memory that is numClusters * numCoords loads per thread through the caches; from
//| // shared memory, each value is loaded from global memory once per block.
//| //
//| // Shipped as is, this file builds and runs, but assigns nothing: every case is incorrect.
// END SOLUTION
#include "helpers.h"
#include "kmeans.h"

#include "workbook/cuda_check.hpp"
#include "workbook/device_buffer.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

namespace kmeans {
namespace {

__global__ void transpose_objects(int numCoords, int numObjs, const double* objects, double* dimObjects) {
  // BEGIN SOLUTION shared
  const int objectId = blockIdx.x * blockDim.x + threadIdx.x;
  if (objectId >= numObjs) return;
  for (int j = 0; j < numCoords; ++j) dimObjects[j * numObjs + objectId] = objects[objectId * numCoords + j];
  // STARTER
  //| // TODO(shared): the same as in your transpose.cu.
  // END SOLUTION
}

// BEGIN SOLUTION
__device__ double euclid_dist_2(int numCoords, int numObjs, int numClusters, const double* dimObjects,
                                const double* clusters, int objectId, int clusterId) {
// STARTER
//| // ([[maybe_unused]] only keeps the shipped starter free of warnings while nothing calls it.)
//| [[maybe_unused]] __device__ double euclid_dist_2(int numCoords, int numObjs, int numClusters, const double* dimObjects,
//|                                                  const double* clusters, int objectId, int clusterId) {
// END SOLUTION
  double ans = 0.0;
  // BEGIN SOLUTION shared
  for (int j = 0; j < numCoords; ++j) {
    const double d = dimObjects[j * numObjs + objectId] - clusters[j * numClusters + clusterId];
    ans += d * d;
  }
  // STARTER
  //| // TODO(shared): the same as in your transpose.cu (here `clusters` will be the shared copy).
  // END SOLUTION
  return ans;
}

__global__ void find_nearest_cluster(int numCoords, int numObjs, int numClusters, const double* dimObjects,
                                     const double* deviceClusters, int* deviceMembership, unsigned int* deviceChanged) {
  // The centroids, [numCoords][numClusters], sized at launch (the third <<< >>> argument).
  extern __shared__ double shmemClusters[];

  // BEGIN SOLUTION shared
  // Every thread of the block helps to copy, blockDim.x values at a time: there may be more
  // values than threads (numClusters larger than the block, or many coordinates).
  for (int i = threadIdx.x; i < numClusters * numCoords; i += blockDim.x) shmemClusters[i] = deviceClusters[i];
  __syncthreads();  // nobody reads a centroid before all of them are in shared memory

  // Only now may the threads past the last object leave: before the barrier they had a share
  // of the copy to do, and a barrier that some threads of the block never reach is undefined.
  const int objectId = blockIdx.x * blockDim.x + threadIdx.x;
  if (objectId >= numObjs) return;

  int index = 0;
  double min_dist = euclid_dist_2(numCoords, numObjs, numClusters, dimObjects, shmemClusters, objectId, 0);
  for (int k = 1; k < numClusters; ++k) {
    const double dist = euclid_dist_2(numCoords, numObjs, numClusters, dimObjects, shmemClusters, objectId, k);
    if (dist < min_dist) {
      min_dist = dist;
      index = k;
    }
  }
  if (deviceMembership[objectId] != index) atomicAdd(deviceChanged, 1u);
  deviceMembership[objectId] = index;
  // STARTER
  //| // TODO(shared):
  //| //   1. Copy deviceClusters into shmemClusters, every thread of the block helping:
  //| //        for (int i = threadIdx.x; i < numClusters * numCoords; i += blockDim.x) ...
  //| //      There may be more values than threads (numClusters larger than the block, or many
  //| //      coordinates): a single `if (threadIdx.x < numClusters * numCoords)` copies too few.
  //| //   2. __syncthreads(): nobody reads a centroid before all of them are in shared memory.
  //| //   3. Only now may the threads with objectId >= numObjs return: before the barrier they had
  //| //      a share of the copy, and a barrier that some threads of a block never reach is
  //| //      undefined behaviour.
  //| //   4. transpose's kernel, reading the centroids from shmemClusters.
  // END SOLUTION
}

// The shared memory the centroids need, checked against what one block can have on this GPU.
// BEGIN SOLUTION
// Above 48 KiB a kernel must ask for more explicitly (cudaFuncSetAttribute), up to the
// device's opt-in maximum (227 KiB on an H100). Beyond that, fail clearly instead of launching.
// END SOLUTION
std::size_t centroids_shared_bytes(const Params& p) {
  const std::size_t bytes = static_cast<std::size_t>(p.numClusters) * p.numCoords * sizeof(double);
  // BEGIN SOLUTION shared
  int device = 0, optin = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  if (bytes > static_cast<std::size_t>(optin))
    throw std::invalid_argument("shared: the centroids (" + std::to_string(p.numClusters) + " x " +
                                std::to_string(p.numCoords) + " doubles = " + std::to_string(bytes) +
                                " bytes) do not fit in the shared memory of a block (at most " +
                                std::to_string(optin) + " bytes on this GPU)");
  if (bytes > 48 * 1024)
    CUDA_CHECK(cudaFuncSetAttribute(find_nearest_cluster, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(bytes)));
  // STARTER
  //| // TODO(shared): fail clearly when the centroids do not fit. Read the most a block may have,
  //| //   cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device) (227 KiB
  //| //   on an H100), and when bytes is larger, throw std::invalid_argument with a message that
  //| //   says so (the sizes in it help). A kernel launched with too much shared memory fails with
  //| //   a CUDA error, a kernel launched with too little reads past its array: the grader wants
  //| //   neither, it checks for std::invalid_argument.
  //| //   Above 48 KiB a kernel must also ask for more explicitly, before its launch:
  //| //     cudaFuncSetAttribute(find_nearest_cluster, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes)
  // END SOLUTION
  return bytes;
}

}  // namespace

int shared(const double* objects, const Params& p, int* membership, double* clusters, Timeline& timeline) {
  const cudaStream_t stream = timeline.stream();
  const int numObjs = p.numObjs, numCoords = p.numCoords, numClusters = p.numClusters;
  const std::size_t objectsCount = static_cast<std::size_t>(numObjs) * numCoords;
  const std::size_t clustersCount = static_cast<std::size_t>(numClusters) * numCoords;
  // BEGIN SOLUTION
  const std::size_t clusterBlockSharedDataSize = centroids_shared_bytes(p);  // throws first
  // STARTER
  //| const std::size_t clusterBlockSharedDataSize = centroids_shared_bytes(p);  // throws before anything else
  // END SOLUTION

  std::copy(objects, objects + clustersCount, clusters);
  std::fill(membership, membership + numObjs, -1);
  std::vector<double> dimClusters(clustersCount);

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
    // BEGIN SOLUTION
    timeline.host([&] {
    // STARTER
    //| timeline.host([&] {  // clusters [numClusters][numCoords] -> dimClusters [numCoords][numClusters]
    // END SOLUTION
      for (int k = 0; k < numClusters; ++k)
        for (int j = 0; j < numCoords; ++j) dimClusters[j * numClusters + k] = clusters[k * numCoords + j];
    });
    timeline.to_device(deviceClusters.data(), dimClusters.data(), clustersCount * sizeof(double));
    timeline.kernels([&] {
      CUDA_CHECK(cudaMemsetAsync(deviceChanged.data(), 0, sizeof(unsigned int), stream));
      CUDA_CHECK_LAUNCH(find_nearest_cluster<<<numClusterBlocks, numThreadsPerClusterBlock,
                                               clusterBlockSharedDataSize, stream>>>(
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
