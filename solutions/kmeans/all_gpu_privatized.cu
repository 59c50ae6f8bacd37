// kmeans, exercise 5: all_gpu_privatized. Reference solution.
//
// all_gpu spends its time in atomics: millions of objects add into numClusters * numCoords
// addresses in global memory, and the atomics on one address are serialised at the L2 cache.
// Privatization (PMPP, "Parallel histogram"): each block accumulates into its own private copy
// of the sums and sizes in shared memory, where atomics are far faster and only the block's
// own threads contend, and adds its copy into global memory once, at its end. Likewise, each
// thread counts the memberships it changed in a register, and the block adds the counts up
// (a block reduction) before a single atomicAdd. Thread coarsening makes the merge rare: the
// grid has only as many blocks as fit on the GPU at once, and each thread walks over many
// objects (a grid-stride loop), so the number of merges does not grow with numObjs.
//
// One more change, for speed and not for correctness: each thread loads its object's
// coordinates into registers once (when numCoords is one of the sizes compiled below), instead
// of reading them from memory again for every centroid.
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
  const int objectId = blockIdx.x * blockDim.x + threadIdx.x;
  if (objectId >= numObjs) return;
  for (int j = 0; j < numCoords; ++j) dimObjects[j * numObjs + objectId] = objects[objectId * numCoords + j];
}

// The sum of `value` over the threads of the block, returned to thread 0 (PMPP, "Reduction"):
// each warp adds its 32 values with shuffles, then the first warp adds the warps' sums.
__device__ unsigned int block_sum(unsigned int value) {
  __shared__ unsigned int warpSums[32];  // at most 1024 / 32 warps
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  for (int offset = 16; offset > 0; offset /= 2) value += __shfl_down_sync(0xffffffffu, value, offset);
  if (lane == 0) warpSums[warp] = value;
  __syncthreads();
  if (warp == 0) {
    value = lane < ceil_div(blockDim.x, 32) ? warpSums[lane] : 0u;
    for (int offset = 16; offset > 0; offset /= 2) value += __shfl_down_sync(0xffffffffu, value, offset);
  }
  return value;
}

// COORDS is numCoords when the launcher knows it at compile time (the object then lives in
// registers: object[] is indexed by constants only, in fully unrolled loops), or 0 for any
// numCoords (coordinates read from memory, as in all_gpu).
// __launch_bounds__(1024): compiled to fit blocks of up to 1024 threads, at most 64 registers
// each. Without it, the 16-coordinate kernel took more registers than a block of 1024 threads
// can have, and its launch failed ("too many resources requested for launch").
template <int COORDS>
__global__ void __launch_bounds__(1024) find_nearest_cluster(int numCoords, int numObjs, int numClusters,
                                     const double* __restrict__ dimObjects, const double* __restrict__ deviceClusters,
                                     int* __restrict__ deviceMembership, unsigned int* deviceChanged,
                                     double* newClusters, unsigned int* newClusterSize) {
  if (COORDS > 0) numCoords = COORDS;
  const int clustersCount = numClusters * numCoords;

  // Shared memory: the centroids, then the block's private sums (both [numCoords][numClusters]),
  // then its private sizes [numClusters].
  extern __shared__ double shmem[];
  double* shmemClusters = shmem;
  double* shmemNewClusters = shmem + clustersCount;
  unsigned int* shmemNewClusterSize = reinterpret_cast<unsigned int*>(shmem + 2 * clustersCount);

  for (int i = threadIdx.x; i < clustersCount; i += blockDim.x) {
    shmemClusters[i] = deviceClusters[i];
    shmemNewClusters[i] = 0.0;
  }
  for (int i = threadIdx.x; i < numClusters; i += blockDim.x) shmemNewClusterSize[i] = 0;
  __syncthreads();

  unsigned int changed = 0;  // this thread's count, in a register: no atomic needed
  for (int objectId = blockIdx.x * blockDim.x + threadIdx.x; objectId < numObjs;
       objectId += blockDim.x * gridDim.x) {
    double object[COORDS > 0 ? COORDS : 1];
    if (COORDS > 0) {
#pragma unroll
      for (int j = 0; j < COORDS; ++j) object[j] = dimObjects[j * numObjs + objectId];
    }
    auto coord = [&](int j) { return COORDS > 0 ? object[j] : dimObjects[j * numObjs + objectId]; };

    int index = 0;
    double min_dist = 0;
    for (int k = 0; k < numClusters; ++k) {
      double dist = 0.0;
#pragma unroll
      for (int j = 0; j < (COORDS > 0 ? COORDS : numCoords); ++j) {
        const double d = coord(j) - shmemClusters[j * numClusters + k];
        dist += d * d;
      }
      if (k == 0 || dist < min_dist) {  // strictly less: a tie keeps the lower index
        min_dist = dist;
        index = k;
      }
    }
    if (deviceMembership[objectId] != index) ++changed;
    deviceMembership[objectId] = index;

    // Shared-memory atomics: only this block's threads contend for these addresses.
    atomicAdd(&shmemNewClusterSize[index], 1u);
#pragma unroll
    for (int j = 0; j < (COORDS > 0 ? COORDS : numCoords); ++j)
      atomicAdd(&shmemNewClusters[j * numClusters + index], coord(j));
  }

  // The block's count of changes: one atomic per block instead of one per changed object.
  changed = block_sum(changed);
  if (threadIdx.x == 0 && changed > 0) atomicAdd(deviceChanged, changed);

  // Merge the private copy into the global one: numClusters * (numCoords + 1) atomics per
  // block. The barrier makes sure every thread of the block has finished adding.
  __syncthreads();
  for (int i = threadIdx.x; i < clustersCount; i += blockDim.x) {
    const int clusterId = i % numClusters;
    if (shmemNewClusterSize[clusterId] > 0) atomicAdd(&newClusters[i], shmemNewClusters[i]);
  }
  for (int i = threadIdx.x; i < numClusters; i += blockDim.x)
    if (shmemNewClusterSize[i] > 0) atomicAdd(&newClusterSize[i], shmemNewClusterSize[i]);
}

__global__ void update_centroids(int numCoords, int numClusters, const double* newClusters,
                                 const unsigned int* newClusterSize, double* deviceClusters) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= numCoords * numClusters) return;
  const int clusterId = i % numClusters;
  if (newClusterSize[clusterId] > 0) deviceClusters[i] = newClusters[i] / newClusterSize[clusterId];
}

using Kernel = void (*)(int, int, int, const double*, const double*, int*, unsigned int*, double*, unsigned int*);

// The kernel for this numCoords: compiled for 1, 2, 3, 4, 8 and 16 coordinates, generic otherwise.
Kernel kernel_for(int numCoords) {
  switch (numCoords) {
    case 1: return find_nearest_cluster<1>;
    case 2: return find_nearest_cluster<2>;
    case 3: return find_nearest_cluster<3>;
    case 4: return find_nearest_cluster<4>;
    case 8: return find_nearest_cluster<8>;
    case 16: return find_nearest_cluster<16>;
    default: return find_nearest_cluster<0>;
  }
}

// The dynamic shared memory find_nearest_cluster needs (centroids, private sums, private
// sizes), checked against what a block can have on this GPU.
std::size_t privatized_shared_bytes(const Params& p, Kernel kernel) {
  const std::size_t clustersCount = static_cast<std::size_t>(p.numClusters) * p.numCoords;
  const std::size_t bytes = 2 * clustersCount * sizeof(double) + p.numClusters * sizeof(unsigned int);
  int device = 0, optin = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  // 1 KiB left for the kernel's own __shared__ arrays (block_sum's warpSums).
  if (bytes + 1024 > static_cast<std::size_t>(optin))
    throw std::invalid_argument("all_gpu_privatized: the centroids and the private sums (" + std::to_string(bytes) +
                                " bytes) do not fit in the shared memory of a block (at most " +
                                std::to_string(optin) + " bytes on this GPU)");
  if (bytes + 1024 > 48 * 1024)
    CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
  return bytes;
}

}  // namespace

int all_gpu_privatized(const double* objects, const Params& p, int* membership, double* clusters,
                       Timeline& timeline) {
  const cudaStream_t stream = timeline.stream();
  const int numObjs = p.numObjs, numCoords = p.numCoords, numClusters = p.numClusters;
  const std::size_t objectsCount = static_cast<std::size_t>(numObjs) * numCoords;
  const std::size_t clustersCount = static_cast<std::size_t>(numClusters) * numCoords;
  const Kernel find_nearest = kernel_for(numCoords);
  const std::size_t sharedBytes = privatized_shared_bytes(p, find_nearest);

  // Coarsening: as many blocks as can be resident at once, no more (and no more than needed).
  int device = 0, numSMs = 0, blocksPerSM = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&numSMs, cudaDevAttrMultiProcessorCount, device));
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocksPerSM, find_nearest, p.blockSize, sharedBytes));
  const int numThreadsPerClusterBlock = p.blockSize;
  const int numClusterBlocks =
      std::max(1, std::min(ceil_div(numObjs, numThreadsPerClusterBlock), numSMs * std::max(1, blocksPerSM)));
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
      CUDA_CHECK_LAUNCH(find_nearest<<<numClusterBlocks, numThreadsPerClusterBlock, sharedBytes, stream>>>(
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
