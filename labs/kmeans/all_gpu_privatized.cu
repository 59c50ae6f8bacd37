// kmeans, exercise 5: all_gpu_privatized. YOUR CODE: fill in the TODO(all_gpu_privatized)s,
// then run
//     grader check kmeans --filter "[all_gpu_privatized]"
//
// all_gpu spends its time in atomics: millions of objects add into numClusters * numCoords
// addresses in global memory, and the atomics on one address are serialised. Privatization
// (PMPP, "Parallel histogram"): each block accumulates into its own private copy of the sums
// and sizes in shared memory, where atomics are much faster and only the block's own threads
// contend, and adds its copy into the global one once, at its end. Likewise each thread counts
// the memberships it changed in a register, and the block adds the counts up (a block
// reduction) before a single atomicAdd. The host code is that of all_gpu.cu.
//
// Shipped as is, this file builds and runs, but assigns nothing: every case is incorrect.
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
  // TODO(all_gpu_privatized): the same as in your transpose.cu.
}

__global__ void find_nearest_cluster(int numCoords, int numObjs, int numClusters, const double* dimObjects,
                                     const double* deviceClusters, int* deviceMembership, unsigned int* deviceChanged,
                                     double* newClusters, unsigned int* newClusterSize) {
  // Dynamic shared memory, one array carved into three (sized by privatized_shared_bytes):
  //   shmemClusters        [numCoords][numClusters] doubles   the centroids, as in shared
  //   shmemNewClusters     [numCoords][numClusters] doubles   this block's private sums
  //   shmemNewClusterSize  [numClusters] unsigned ints         this block's private sizes
  extern __shared__ double shmem[];

  // TODO(all_gpu_privatized):
  //   1. Point shmemClusters, shmemNewClusters and shmemNewClusterSize into shmem (the third
  //      starts after 2 * numClusters * numCoords doubles; reinterpret_cast it).
  //   2. Copy the centroids in and zero the private sums and sizes, every thread helping
  //      (strided loops, as in shared), then __syncthreads().
  //   3. For this thread's object (or objects: see the launcher's TODO): the nearest centroid
  //      as before; count a changed membership in a register (`unsigned int changed`), not
  //      with an atomic; store the membership; add the object into the PRIVATE sums and sizes
  //      with atomicAdd on shared memory. Still atomics: the block's threads share the copy.
  //   4. Add up the block's `changed` (a block reduction: shuffles within each warp, then one
  //      value per warp through shared memory) and let one thread atomicAdd it to
  //      *deviceChanged.
  //   5. __syncthreads(), then merge: the threads of the block add the private sums and sizes
  //      into newClusters and newClusterSize with atomicAdd, one element each (strided loop).
  //      That is numClusters * (numCoords + 1) global atomics per block, instead of
  //      numCoords + 1 per object.
  //   Every thread must reach every __syncthreads(): no early return before the last one.
}

// One thread per element of the centroids, [numCoords][numClusters].
__global__ void update_centroids(int numCoords, int numClusters, const double* newClusters,
                                 const unsigned int* newClusterSize, double* deviceClusters) {
  // TODO(all_gpu_privatized): the same as in your all_gpu.cu.
}

// The dynamic shared memory find_nearest_cluster needs, checked against what a block can have.
std::size_t privatized_shared_bytes(const Params& p) {
  const std::size_t clustersCount = static_cast<std::size_t>(p.numClusters) * p.numCoords;
  // TODO(all_gpu_privatized): the centroids AND the private sums and sizes (step 1 above).
  const std::size_t bytes = clustersCount * sizeof(double);
  int device = 0, optin = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  // 1 KiB left for the kernel's own __shared__ arrays (the reduction's, for instance).
  if (bytes + 1024 > static_cast<std::size_t>(optin))
    throw std::invalid_argument("all_gpu_privatized: the centroids and the private sums (" + std::to_string(bytes) +
                                " bytes) do not fit in the shared memory of a block (at most " +
                                std::to_string(optin) + " bytes on this GPU)");
  if (bytes + 1024 > 48 * 1024)
    CUDA_CHECK(cudaFuncSetAttribute(find_nearest_cluster, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(bytes)));
  return bytes;
}

}  // namespace

int all_gpu_privatized(const double* objects, const Params& p, int* membership, double* clusters,
                       Timeline& timeline) {
  const cudaStream_t stream = timeline.stream();
  const int numObjs = p.numObjs, numCoords = p.numCoords, numClusters = p.numClusters;
  const std::size_t objectsCount = static_cast<std::size_t>(numObjs) * numCoords;
  const std::size_t clustersCount = static_cast<std::size_t>(numClusters) * numCoords;
  const std::size_t sharedBytes = privatized_shared_bytes(p);

  const int numThreadsPerClusterBlock = p.blockSize;
  // TODO(all_gpu_privatized), once the rest works: thread coarsening. Every block pays for its
  //   merge (numClusters * (numCoords + 1) global atomics), so fewer, longer-lived blocks pay
  //   less: launch only as many blocks as fit on the GPU at once (the multiprocessor count,
  //   cudaDevAttrMultiProcessorCount, times cudaOccupancyMaxActiveBlocksPerMultiprocessor),
  //   and let each thread walk over objects objectId, objectId + blockDim.x * gridDim.x, ...
  //   (a grid-stride loop).
  const int numClusterBlocks = ceil_div(numObjs, numThreadsPerClusterBlock);
  const int transposeBlocks = ceil_div(numObjs, numThreadsPerClusterBlock);
  const int updateBlocks = ceil_div(numClusters * numCoords, numThreadsPerClusterBlock);

  std::vector<double> dimClusters(clustersCount);
  timeline.host([&] {
    for (int k = 0; k < numClusters; ++k)
      for (int j = 0; j < numCoords; ++j) dimClusters[j * numClusters + k] = objects[k * numCoords + j];
  });

  workbook::DeviceBuffer<double> deviceObjects(objectsCount), dimObjects(objectsCount);
  workbook::DeviceBuffer<double> deviceClusters(clustersCount), newClusters(clustersCount);
  workbook::DeviceBuffer<unsigned int> newClusterSize(numClusters);
  workbook::DeviceBuffer<int> deviceMembership(numObjs);
  workbook::DeviceBuffer<unsigned int> deviceChanged(1);

  timeline.to_device(deviceObjects.data(), objects, objectsCount * sizeof(double));
  timeline.to_device(deviceClusters.data(), dimClusters.data(), clustersCount * sizeof(double));
  timeline.kernels([&] {
    CUDA_CHECK_LAUNCH(transpose_objects<<<transposeBlocks, numThreadsPerClusterBlock, 0, stream>>>(
        numCoords, numObjs, deviceObjects.data(), dimObjects.data()));
    CUDA_CHECK(cudaMemsetAsync(deviceMembership.data(), 0xFF, numObjs * sizeof(int), stream));
  });

  int loops = 0;
  double delta = 0;
  do {
    timeline.begin_iteration();
    timeline.kernels([&] {
      CUDA_CHECK(cudaMemsetAsync(newClusters.data(), 0, clustersCount * sizeof(double), stream));
      CUDA_CHECK(cudaMemsetAsync(newClusterSize.data(), 0, numClusters * sizeof(unsigned int), stream));
      CUDA_CHECK(cudaMemsetAsync(deviceChanged.data(), 0, sizeof(unsigned int), stream));
      CUDA_CHECK_LAUNCH(find_nearest_cluster<<<numClusterBlocks, numThreadsPerClusterBlock, sharedBytes, stream>>>(
          numCoords, numObjs, numClusters, dimObjects.data(), deviceClusters.data(), deviceMembership.data(),
          deviceChanged.data(), newClusters.data(), newClusterSize.data()));
      CUDA_CHECK_LAUNCH(update_centroids<<<updateBlocks, numThreadsPerClusterBlock, 0, stream>>>(
          numCoords, numClusters, newClusters.data(), newClusterSize.data(), deviceClusters.data()));
    });
    unsigned int changed = 0;
    timeline.to_host(&changed, deviceChanged.data(), sizeof(unsigned int));
    delta = static_cast<double>(changed) / numObjs;
    ++loops;
    timeline.end_iteration();
  } while (delta > p.threshold && loops < p.maxLoops);

  timeline.to_host(membership, deviceMembership.data(), numObjs * sizeof(int));
  timeline.to_host(dimClusters.data(), deviceClusters.data(), clustersCount * sizeof(double));
  timeline.host([&] {
    for (int k = 0; k < numClusters; ++k)
      for (int j = 0; j < numCoords; ++j) clusters[k * numCoords + j] = dimClusters[j * numClusters + k];
  });
  return loops;
}

}  // namespace kmeans
