// BEGIN SOLUTION all_gpu_privatized
// kmeans, exercise 5: all_gpu_privatized. Reference solution.
// STARTER
//| // kmeans, exercise 5: all_gpu_privatized. YOUR CODE: fill in the TODO(all_gpu_privatized)s,
//| // then run
//| //     grader check kmeans --filter "[all_gpu_privatized]"
// END SOLUTION
//
// all_gpu spends its time in atomics: millions of objects add into numClusters * numCoords
// BEGIN SOLUTION
// addresses in global memory, and the atomics on one address are serialised at the L2 cache.
// Privatization (PMPP, "Parallel histogram"): accumulate into private copies of the sums and
// sizes in shared memory, and add the copies into global memory once, at the end of the block.
// Likewise, each thread counts the memberships it changed in a register, and the block adds
// the counts up (a block reduction) before a single atomicAdd. Thread coarsening makes the
// merge rare: the grid has only as many blocks as fit on the GPU at once, and each thread
// walks over many objects (a grid-stride loop).
// STARTER
//| // addresses in global memory, and the atomics on one address are serialised. Privatization
//| // (PMPP, "Parallel histogram"): each block accumulates into its own private copy of the sums
//| // and sizes in shared memory, where atomics are much faster and only the block's own threads
//| // contend, and adds its copy into the global one once, at its end. Likewise each thread counts
//| // the memberships it changed in a register, and the block adds the counts up (a block
//| // reduction) before a single atomicAdd. The host code is that of all_gpu.cu.
// END SOLUTION
//
// BEGIN SOLUTION
// This file has two levels of privatization:
//   - find_nearest_cluster: one private copy per BLOCK (the exercise). The block's threads
//     still contend for its copy, with shared-memory atomics; for double, those are
//     compare-and-swap loops (ATOMS.CAST.SPIN.64 in the machine code), retried while another
//     thread of the warp updates the same cluster. Far faster than all_gpu's global atomics,
//     but still far slower than reading the objects (the handout has the numbers).
//   - find_nearest_cluster_per_thread: one private copy per THREAD, laid out so that the
//     threads of a warp touch consecutive addresses. Nobody shares anything until the end of
//     the block, so the main loop has no atomics at all. It needs numClusters *
//     (numCoords * 8 + 2) bytes of shared memory per thread (16-bit sizes), so it is used only
//     for up to 4 coordinates and when the copies of a block fit in half of an SM's shared
//     memory (with 16 clusters and 2 coordinates: blocks of up to 256 threads). It keeps the
//     memberships in one byte each when there are fewer than 256 clusters (less to read).
//
// Both keep each object's coordinates in registers, loaded once (numCoords is a compile-time
// constant for the sizes compiled below), instead of reading them again for every centroid.
// STARTER
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
  // BEGIN SOLUTION all_gpu_privatized
  const int objectId = blockIdx.x * blockDim.x + threadIdx.x;
  if (objectId >= numObjs) return;
  for (int j = 0; j < numCoords; ++j) dimObjects[j * numObjs + objectId] = objects[objectId * numCoords + j];
  // STARTER
  //| // TODO(all_gpu_privatized): the same as in your transpose.cu.
  // END SOLUTION
}

// BEGIN SOLUTION all_gpu_privatized
// The sum of `value` over the threads of the block, returned to thread 0 (PMPP, "Reduction"):
// each warp adds its 32 values with shuffles, then the first warp adds the warps' sums.
// Every thread of the block must call it (it has a barrier).
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
// STARTER
//| __global__ void find_nearest_cluster(int numCoords, int numObjs, int numClusters, const double* dimObjects,
//|                                      const double* deviceClusters, int* deviceMembership, unsigned int* deviceChanged,
//|                                      double* newClusters, unsigned int* newClusterSize) {
//|   // Dynamic shared memory, one array carved into three (sized by privatized_shared_bytes):
//|   //   shmemClusters        [numCoords][numClusters] doubles   the centroids, as in shared
//|   //   shmemNewClusters     [numCoords][numClusters] doubles   this block's private sums
//|   //   shmemNewClusterSize  [numClusters] unsigned ints         this block's private sizes
//|   extern __shared__ double shmem[];
//|
//|   // TODO(all_gpu_privatized):
//|   //   1. Point shmemClusters, shmemNewClusters and shmemNewClusterSize into shmem (the third
//|   //      starts after 2 * numClusters * numCoords doubles; reinterpret_cast it).
//|   //   2. Copy the centroids in and zero the private sums and sizes, every thread helping
//|   //      (strided loops, as in shared), then __syncthreads().
//|   //   3. For this thread's object (or objects: see the launcher's TODO): the nearest centroid
//|   //      as before; count a changed membership in a register (`unsigned int changed`), not
//|   //      with an atomic; store the membership; add the object into the PRIVATE sums and sizes
//|   //      with atomicAdd on shared memory. Still atomics: the block's threads share the copy.
//|   //   4. Add up the block's `changed` (a block reduction: shuffles within each warp, then one
//|   //      value per warp through shared memory) and let one thread atomicAdd it to
//|   //      *deviceChanged.
//|   //   5. __syncthreads(), then merge: the threads of the block add the private sums and sizes
//|   //      into newClusters and newClusterSize with atomicAdd, one element each (strided loop).
//|   //      That is numClusters * (numCoords + 1) global atomics per block, instead of
//|   //      numCoords + 1 per object.
//|   //   Every thread must reach every __syncthreads(): no early return before the last one.
// END SOLUTION
}

// BEGIN SOLUTION all_gpu_privatized
// The nearest centroid of `object` (numCoords = COORDS, or any when COORDS is 0: then the
// coordinates are read from dimObjects), ties to the lowest index.
template <int COORDS>
__device__ __forceinline__ int nearest_cluster(const double* object, int numCoords, int numClusters, const double* shmemClusters,
                               const double* dimObjects, int numObjs, int objectId) {
  int index = 0;
  double min_dist = 0;
  for (int k = 0; k < numClusters; ++k) {
    double dist = 0.0;
#pragma unroll
    for (int j = 0; j < (COORDS > 0 ? COORDS : numCoords); ++j) {
      const double x = COORDS > 0 ? object[j] : dimObjects[j * numObjs + objectId];
      const double d = x - shmemClusters[j * numClusters + k];
      dist += d * d;
    }
    if (k == 0 || dist < min_dist) {  // strictly less: a tie keeps the lower index
      min_dist = dist;
      index = k;
    }
  }
  return index;
// STARTER
//| // One thread per element of the centroids, [numCoords][numClusters].
//| __global__ void update_centroids(int numCoords, int numClusters, const double* newClusters,
//|                                  const unsigned int* newClusterSize, double* deviceClusters) {
//|   // TODO(all_gpu_privatized): the same as in your all_gpu.cu.
// END SOLUTION
}

// BEGIN SOLUTION all_gpu_privatized
// One iteration's global accumulators, zero when it starts: the blocks add their private copies
// and change counts into them, and the last block to finish turns them into the new centroids
// and zeroes them again for the next iteration. So one launch does a whole iteration: no kernel
// to update the centroids, no memsets between iterations (each launch and memset costs a few
// microseconds of an iteration that takes about 0.2 ms).
struct Iteration {
  double* newClusters;           // [numCoords][numClusters]: the sums of each cluster's objects
  unsigned int* newClusterSize;  // [numClusters]
  unsigned int* changed;         // memberships changed, over all blocks
  unsigned int* changedOut;      // the iteration's count of changes, for the host to read
  unsigned int* blocksDone;      // how many blocks have finished
};

// Called by every thread of every block at its very end, after its atomics. The last block to
// arrive (cuda-samples' threadFenceReduction uses the same pattern) divides the sums by the
// sizes into the centroids (an empty cluster keeps its centroid), and resets the accumulators.
// The centroids may be overwritten here: every other block has finished reading them.
__device__ void last_block_updates_centroids(int numCoords, int numClusters, double* deviceClusters, const Iteration& it) {
  __shared__ bool isLast;
  __threadfence();  // this thread's atomics are visible to every block before the block counts as done
  __syncthreads();
  if (threadIdx.x == 0) isLast = atomicAdd(it.blocksDone, 1u) == gridDim.x - 1;
  __syncthreads();
  if (!isLast) return;
  __threadfence();
  const int clustersCount = numCoords * numClusters;
  // __ldcg: read from L2, where the other blocks' atomics are, never a stale line of this SM's L1.
  for (int i = threadIdx.x; i < clustersCount; i += blockDim.x) {
    const unsigned int size = __ldcg(&it.newClusterSize[i % numClusters]);
    if (size > 0) deviceClusters[i] = __ldcg(&it.newClusters[i]) / size;
  }
  __syncthreads();  // every size was read before any is zeroed
  for (int i = threadIdx.x; i < clustersCount; i += blockDim.x) it.newClusters[i] = 0.0;
  for (int i = threadIdx.x; i < numClusters; i += blockDim.x) it.newClusterSize[i] = 0;
  if (threadIdx.x == 0) {
    *it.changedOut = __ldcg(it.changed);
    *it.changed = 0;
    *it.blocksDone = 0;
  }
}

// One private copy per block. COORDS is numCoords when the launcher knows it at compile time
// (the object then lives in registers), or 0 for any numCoords.
// __launch_bounds__(1024): compiled so that blocks of up to 1024 threads fit in the registers.
template <int COORDS>
__global__ void __launch_bounds__(1024)
    find_nearest_cluster(int numCoords, int numObjs, int numClusters, const double* __restrict__ dimObjects,
                         double* deviceClusters, int* __restrict__ deviceMembership, Iteration it) {
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
#pragma unroll
    for (int j = 0; j < COORDS; ++j) object[j] = dimObjects[j * numObjs + objectId];

    const int index =
        nearest_cluster<COORDS>(object, numCoords, numClusters, shmemClusters, dimObjects, numObjs, objectId);
    if (deviceMembership[objectId] != index) ++changed;
    deviceMembership[objectId] = index;

    // Shared-memory atomics: only this block's threads contend for these addresses.
    atomicAdd(&shmemNewClusterSize[index], 1u);
#pragma unroll
    for (int j = 0; j < (COORDS > 0 ? COORDS : numCoords); ++j)
      atomicAdd(&shmemNewClusters[j * numClusters + index],
                COORDS > 0 ? object[j] : dimObjects[j * numObjs + objectId]);
  }

  // The block's count of changes: one atomic per block instead of one per changed object.
  changed = block_sum(changed);
  if (threadIdx.x == 0 && changed > 0) atomicAdd(it.changed, changed);

  // Merge the private copy into the global one: numClusters * (numCoords + 1) atomics per
  // block. The barrier makes sure every thread of the block has finished adding.
  __syncthreads();
  for (int i = threadIdx.x; i < clustersCount; i += blockDim.x) {
    const int clusterId = i % numClusters;
    if (shmemNewClusterSize[clusterId] > 0) atomicAdd(&it.newClusters[i], shmemNewClusters[i]);
  }
  for (int i = threadIdx.x; i < numClusters; i += blockDim.x)
    if (shmemNewClusterSize[i] > 0) atomicAdd(&it.newClusterSize[i], shmemNewClusterSize[i]);
  last_block_updates_centroids(numCoords, numClusters, deviceClusters, it);
}

// One private copy per thread (COORDS from 1 to 4). Shared memory:
//   centroids      [numClusters][COORDS]                 a centroid's coordinates side by side
//   threadSums     [numCoords][numClusters][blockDim.x]   thread t's sums in column t
//   threadSizes    [numClusters][blockDim.x]              thread t's sizes in column t, 16 bits each
// (the launcher makes sure no thread sees more than 65535 objects): a smaller footprint lets
// more blocks share an SM (3 instead of 2 with 16 clusters, 2 coordinates and 256 threads).
// Thread t adds into threadSums[(j * numClusters + index) * blockDim.x + t]: the 32 threads of a
// warp, whatever their clusters, touch 32 consecutive columns of the array, hence 32 different
// banks, and no other thread ever touches a thread's column until the end. No atomics.
//
// Each loop trip takes OBJECTS_PER_TRIP objects (thread coarsening again, for two reasons):
// their loads are all issued before any is needed, so more bytes are on their way from memory
// at once; and each centroid read from shared memory serves all of them, while their searches
// for the nearest centroid are independent, so the arithmetic of one hides the latency of the
// others. (docs/measurements/kmeans-per-thread-experiment.cu on an H100: 0.29 ms with one object
// per trip, 0.18 ms with four.)
//
// Label is the type of the memberships on the device: one byte when there are fewer than 256
// clusters (0xFF, never a cluster then, marks "no cluster yet"), else int. Each iteration reads
// every object's old membership to count the changes; with 2 coordinates an object is 16 bytes,
// so 4-byte memberships add a quarter to the bytes read, one-byte memberships a sixteenth. The
// launcher widens them to int once, after the last iteration.
constexpr int OBJECTS_PER_TRIP = 4;

template <int COORDS, class Label>
__global__ void __launch_bounds__(1024)
    find_nearest_cluster_per_thread(int numObjs, int numClusters, const double* __restrict__ dimObjects,
                                    double* deviceClusters, Label* __restrict__ deviceMembership, Iteration it) {
  constexpr int OBJS = OBJECTS_PER_TRIP;
  const int clustersCount = numClusters * COORDS;
  const int t = threadIdx.x, T = blockDim.x;

  extern __shared__ double shmem[];
  double* centroids = shmem;
  double* threadSums = shmem + clustersCount;
  unsigned short* threadSizes = reinterpret_cast<unsigned short*>(threadSums + clustersCount * T);

  for (int i = t; i < clustersCount; i += T) {
    const int j = i / numClusters, k = i % numClusters;  // deviceClusters is [numCoords][numClusters]
    centroids[k * COORDS + j] = deviceClusters[i];
  }
  for (int e = 0; e < clustersCount; ++e) threadSums[e * T + t] = 0.0;  // each thread zeroes its column
  for (int k = 0; k < numClusters; ++k) threadSizes[k * T + t] = 0;
  __syncthreads();  // the centroids are in

  unsigned int changed = 0;
  // Trip objects: first, first + T, first + 2T, ...: consecutive threads, consecutive objects.
  for (int first = blockIdx.x * T * OBJS + t; first < numObjs; first += T * gridDim.x * OBJS) {
    double object[OBJS][COORDS];
    int oldIndex[OBJS];
#pragma unroll
    for (int o = 0; o < OBJS; ++o) {
      const int objectId = first + o * T;
      const bool valid = objectId < numObjs;
#pragma unroll
      for (int j = 0; j < COORDS; ++j) object[o][j] = valid ? dimObjects[j * numObjs + objectId] : 0.0;
      oldIndex[o] = valid ? static_cast<int>(deviceMembership[objectId]) : 0;
    }

    int index[OBJS];
    double minDist[OBJS];
    for (int k = 0; k < numClusters; ++k) {
      double centroid[COORDS];
#pragma unroll
      for (int j = 0; j < COORDS; ++j) centroid[j] = centroids[k * COORDS + j];
#pragma unroll
      for (int o = 0; o < OBJS; ++o) {
        double dist = 0.0;
#pragma unroll
        for (int j = 0; j < COORDS; ++j) {
          const double d = object[o][j] - centroid[j];
          dist += d * d;
        }
        if (k == 0 || dist < minDist[o]) {  // strictly less: a tie keeps the lower index
          minDist[o] = dist;
          index[o] = k;
        }
      }
    }

#pragma unroll
    for (int o = 0; o < OBJS; ++o) {
      const int objectId = first + o * T;
      if (objectId >= numObjs) break;
      if (oldIndex[o] != index[o]) {  // store only a change: after the first loops, few objects move
        ++changed;
        deviceMembership[objectId] = static_cast<Label>(index[o]);
      }
      threadSizes[index[o] * T + t] += 1;  // this thread's own column: a plain add
#pragma unroll
      for (int j = 0; j < COORDS; ++j) threadSums[(j * numClusters + index[o]) * T + t] += object[o][j];
    }
  }

  changed = block_sum(changed);
  if (t == 0 && changed > 0) atomicAdd(it.changed, changed);
  __syncthreads();  // every thread's column is complete

  // Merge: warp w adds up entries w, w + numWarps, ... Its lanes read the entry's row (T
  // consecutive values, one per thread), add them pairwise with shuffles, and lane 0 makes the
  // one global atomicAdd of the block for that entry.
  const int lane = t % 32, warp = t / 32, numWarps = T / 32;
  for (int e = warp; e < clustersCount + numClusters; e += numWarps) {
    if (e < clustersCount) {
      double sum = 0.0;
      for (int i = lane; i < T; i += 32) sum += threadSums[e * T + i];
      for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
      if (lane == 0 && sum != 0.0) atomicAdd(&it.newClusters[e], sum);
    } else {
      const int k = e - clustersCount;
      unsigned int size = 0;
      for (int i = lane; i < T; i += 32) size += threadSizes[k * T + i];
      for (int offset = 16; offset > 0; offset /= 2) size += __shfl_down_sync(0xffffffffu, size, offset);
      if (lane == 0 && size > 0) atomicAdd(&it.newClusterSize[k], size);
    }
  }
  last_block_updates_centroids(COORDS, numClusters, deviceClusters, it);
}

// Widens the one-byte memberships to the int the caller gets.
__global__ void widen_memberships(int numObjs, const unsigned char* labels, int* membership) {
  const int objectId = blockIdx.x * blockDim.x + threadIdx.x;
  if (objectId < numObjs) membership[objectId] = labels[objectId];
}

using Kernel = void (*)(int, int, int, const double*, double*, int*, Iteration);
template <class Label>
using PerThreadKernel = void (*)(int, int, const double*, double*, Label*, Iteration);

// The kernels for this numCoords: per block, compiled for 1, 2, 3, 4, 8 and 16 coordinates
// (generic otherwise); per thread, for 1 to 4 (with more, a thread's copy takes too much
// shared memory, and its object and the next one too many registers).
Kernel per_block_kernel(int numCoords) {
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
template <class Label>
PerThreadKernel<Label> per_thread_kernel(int numCoords) {
  switch (numCoords) {
    case 1: return find_nearest_cluster_per_thread<1, Label>;
    case 2: return find_nearest_cluster_per_thread<2, Label>;
    case 3: return find_nearest_cluster_per_thread<3, Label>;
    case 4: return find_nearest_cluster_per_thread<4, Label>;
    default: return nullptr;
  }
}

int shared_memory_optin() {
// STARTER
//| // The dynamic shared memory find_nearest_cluster needs, checked against what a block can have.
//| std::size_t privatized_shared_bytes(const Params& p) {
//|   const std::size_t clustersCount = static_cast<std::size_t>(p.numClusters) * p.numCoords;
//|   // TODO(all_gpu_privatized): the centroids AND the private sums and sizes (step 1 above).
//|   const std::size_t bytes = clustersCount * sizeof(double);
// END SOLUTION
  int device = 0, optin = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  // BEGIN SOLUTION
  return optin;
}

// Lets `kernel` have `bytes` of dynamic shared memory (above 48 KiB it must ask), leaving 1 KiB
// for its own __shared__ arrays (block_sum's warpSums).
template <class K>
void allow_shared(K kernel, std::size_t bytes) {
  // STARTER
  //| // 1 KiB left for the kernel's own __shared__ arrays (the reduction's, for instance).
  //| if (bytes + 1024 > static_cast<std::size_t>(optin))
  //|   throw std::invalid_argument("all_gpu_privatized: the centroids and the private sums (" + std::to_string(bytes) +
  //|                               " bytes) do not fit in the shared memory of a block (at most " +
  //|                               std::to_string(optin) + " bytes on this GPU)");
  // END SOLUTION
  if (bytes + 1024 > 48 * 1024)
    // BEGIN SOLUTION
    CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
    // STARTER
    //| CUDA_CHECK(cudaFuncSetAttribute(find_nearest_cluster, cudaFuncAttributeMaxDynamicSharedMemorySize,
    //|                                 static_cast<int>(bytes)));
  //| return bytes;
    // END SOLUTION
}

}  // namespace

int all_gpu_privatized(const double* objects, const Params& p, int* membership, double* clusters,
                       Timeline& timeline) {
  const cudaStream_t stream = timeline.stream();
  const int numObjs = p.numObjs, numCoords = p.numCoords, numClusters = p.numClusters;
  const std::size_t objectsCount = static_cast<std::size_t>(numObjs) * numCoords;
  const std::size_t clustersCount = static_cast<std::size_t>(numClusters) * numCoords;
  // BEGIN SOLUTION
  // STARTER
  //| const std::size_t sharedBytes = privatized_shared_bytes(p);
  //|
  // END SOLUTION
  const int numThreadsPerClusterBlock = p.blockSize;
  // BEGIN SOLUTION all_gpu_privatized

  // Which kernel, and how much shared memory. Per block: the centroids, the private sums and
  // the private sizes. Per thread: the centroids, and sums and sizes for every thread.
  const int optin = shared_memory_optin();
  const std::size_t perBlockBytes = 2 * clustersCount * sizeof(double) + numClusters * sizeof(unsigned int);
  const std::size_t perThreadBytes =
      clustersCount * sizeof(double) +
      static_cast<std::size_t>(numThreadsPerClusterBlock) * (clustersCount * sizeof(double) + numClusters * sizeof(unsigned short));
  int device = 0, numSMs = 0, blocksPerSM = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&numSMs, cudaDevAttrMultiProcessorCount, device));
  if (perBlockBytes + 1024 > static_cast<std::size_t>(optin))
    throw std::invalid_argument("all_gpu_privatized: the centroids and the private sums (" + std::to_string(perBlockBytes) +
                                " bytes) do not fit in the shared memory of a block (at most " + std::to_string(optin) +
                                " bytes on this GPU)");
  // One-byte memberships on the device when every cluster index and the "none yet" mark fit.
  const bool byteLabels = numClusters < 256;
  const PerThreadKernel<unsigned char> perThreadByte = per_thread_kernel<unsigned char>(numCoords);
  const PerThreadKernel<int> perThreadInt = per_thread_kernel<int>(numCoords);
  const void* perThread = byteLabels ? reinterpret_cast<const void*>(perThreadByte) : reinterpret_cast<const void*>(perThreadInt);
  // The grid has at least one block per SM, so no thread sees more objects than this (16-bit sizes).
  const bool sizesFit = static_cast<long long>(numObjs) <= 65535LL * numSMs * numThreadsPerClusterBlock;
  const bool usePerThread =
      perThread != nullptr && sizesFit && perThreadBytes + 1024 <= static_cast<std::size_t>(optin) / 2;
  const Kernel perBlock = per_block_kernel(numCoords);
  const std::size_t sharedBytes = usePerThread ? perThreadBytes : perBlockBytes;
  if (usePerThread) allow_shared(perThread, sharedBytes);
  else allow_shared(perBlock, sharedBytes);

  // Coarsening: as many blocks as can be resident at once, no more (and no more than needed).
  if (usePerThread)
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocksPerSM, perThread, numThreadsPerClusterBlock, sharedBytes));
  else
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocksPerSM, perBlock, numThreadsPerClusterBlock, sharedBytes));
  const int objectsPerBlock = numThreadsPerClusterBlock * (usePerThread ? OBJECTS_PER_TRIP : 1);
  const int numClusterBlocks =
      std::max(1, std::min(ceil_div(numObjs, objectsPerBlock), numSMs * std::max(1, blocksPerSM)));
  // STARTER
  //| // TODO(all_gpu_privatized), once the rest works: thread coarsening. Every block pays for its
  //| //   merge (numClusters * (numCoords + 1) global atomics), so fewer, longer-lived blocks pay
  //| //   less: launch only as many blocks as fit on the GPU at once (the multiprocessor count,
  //| //   cudaDevAttrMultiProcessorCount, times cudaOccupancyMaxActiveBlocksPerMultiprocessor),
  //| //   and let each thread walk over objects objectId, objectId + blockDim.x * gridDim.x, ...
  //| //   (a grid-stride loop).
  //| const int numClusterBlocks = ceil_div(numObjs, numThreadsPerClusterBlock);
  // END SOLUTION
  const int transposeBlocks = ceil_div(numObjs, numThreadsPerClusterBlock);
  // BEGIN SOLUTION
  // STARTER
  //| const int updateBlocks = ceil_div(numClusters * numCoords, numThreadsPerClusterBlock);
  // END SOLUTION

  std::vector<double> dimClusters(clustersCount);
  timeline.host([&] {
    for (int k = 0; k < numClusters; ++k)
      for (int j = 0; j < numCoords; ++j) dimClusters[j * numClusters + k] = objects[k * numCoords + j];
  });

  workbook::DeviceBuffer<double> deviceObjects(objectsCount), dimObjects(objectsCount);
  workbook::DeviceBuffer<double> deviceClusters(clustersCount), newClusters(clustersCount);
  workbook::DeviceBuffer<unsigned int> newClusterSize(numClusters);
  workbook::DeviceBuffer<int> deviceMembership(numObjs);
  // BEGIN SOLUTION
  const bool useByteLabels = usePerThread && byteLabels;
  workbook::DeviceBuffer<unsigned char> labels(useByteLabels ? numObjs : 0);
  workbook::DeviceBuffer<unsigned int> counters(3);  // changed, changedOut, blocksDone
  const Iteration it{newClusters.data(), newClusterSize.data(), counters.data(), counters.data() + 1, counters.data() + 2};
  // STARTER
  //| workbook::DeviceBuffer<unsigned int> deviceChanged(1);
  // END SOLUTION

  timeline.to_device(deviceObjects.data(), objects, objectsCount * sizeof(double));
  timeline.to_device(deviceClusters.data(), dimClusters.data(), clustersCount * sizeof(double));
  timeline.kernels([&] {
    CUDA_CHECK_LAUNCH(transpose_objects<<<transposeBlocks, numThreadsPerClusterBlock, 0, stream>>>(
        numCoords, numObjs, deviceObjects.data(), dimObjects.data()));
    // BEGIN SOLUTION
    // No object has a cluster yet: -1, or 0xFF in one byte.
    if (useByteLabels) CUDA_CHECK(cudaMemsetAsync(labels.data(), 0xFF, labels.bytes(), stream));
    else CUDA_CHECK(cudaMemsetAsync(deviceMembership.data(), 0xFF, numObjs * sizeof(int), stream));
    // Zero once: from then on, the last block of each iteration zeroes them for the next.
    CUDA_CHECK(cudaMemsetAsync(newClusters.data(), 0, clustersCount * sizeof(double), stream));
    CUDA_CHECK(cudaMemsetAsync(newClusterSize.data(), 0, numClusters * sizeof(unsigned int), stream));
    CUDA_CHECK(cudaMemsetAsync(counters.data(), 0, counters.bytes(), stream));
    // STARTER
    //| CUDA_CHECK(cudaMemsetAsync(deviceMembership.data(), 0xFF, numObjs * sizeof(int), stream));
    // END SOLUTION
  });

  int loops = 0;
  double delta = 0;
  do {
    timeline.begin_iteration();
    timeline.kernels([&] {
      // BEGIN SOLUTION
      if (useByteLabels)
        CUDA_CHECK_LAUNCH(perThreadByte<<<numClusterBlocks, numThreadsPerClusterBlock, sharedBytes, stream>>>(
            numObjs, numClusters, dimObjects.data(), deviceClusters.data(), labels.data(), it));
      else if (usePerThread)
        CUDA_CHECK_LAUNCH(perThreadInt<<<numClusterBlocks, numThreadsPerClusterBlock, sharedBytes, stream>>>(
            numObjs, numClusters, dimObjects.data(), deviceClusters.data(), deviceMembership.data(), it));
      else
        CUDA_CHECK_LAUNCH(perBlock<<<numClusterBlocks, numThreadsPerClusterBlock, sharedBytes, stream>>>(
            numCoords, numObjs, numClusters, dimObjects.data(), deviceClusters.data(), deviceMembership.data(), it));
      // STARTER
      //| CUDA_CHECK(cudaMemsetAsync(newClusters.data(), 0, clustersCount * sizeof(double), stream));
      //| CUDA_CHECK(cudaMemsetAsync(newClusterSize.data(), 0, numClusters * sizeof(unsigned int), stream));
      //| CUDA_CHECK(cudaMemsetAsync(deviceChanged.data(), 0, sizeof(unsigned int), stream));
      //| CUDA_CHECK_LAUNCH(find_nearest_cluster<<<numClusterBlocks, numThreadsPerClusterBlock, sharedBytes, stream>>>(
      //|     numCoords, numObjs, numClusters, dimObjects.data(), deviceClusters.data(), deviceMembership.data(),
      //|     deviceChanged.data(), newClusters.data(), newClusterSize.data()));
      //| CUDA_CHECK_LAUNCH(update_centroids<<<updateBlocks, numThreadsPerClusterBlock, 0, stream>>>(
      //|     numCoords, numClusters, newClusters.data(), newClusterSize.data(), deviceClusters.data()));
      // END SOLUTION
    });
    unsigned int changed = 0;
    // BEGIN SOLUTION
    timeline.to_host(&changed, it.changedOut, sizeof(unsigned int));
    // STARTER
    //| timeline.to_host(&changed, deviceChanged.data(), sizeof(unsigned int));
    // END SOLUTION
    delta = static_cast<double>(changed) / numObjs;
    ++loops;
    timeline.end_iteration();
  } while (delta > p.threshold && loops < p.maxLoops);

  // BEGIN SOLUTION
  if (useByteLabels)
    timeline.kernels([&] {
      CUDA_CHECK_LAUNCH(widen_memberships<<<transposeBlocks, numThreadsPerClusterBlock, 0, stream>>>(
          numObjs, labels.data(), deviceMembership.data()));
    });
  // END SOLUTION
  timeline.to_host(membership, deviceMembership.data(), numObjs * sizeof(int));
  timeline.to_host(dimClusters.data(), deviceClusters.data(), clustersCount * sizeof(double));
  timeline.host([&] {
    for (int k = 0; k < numClusters; ++k)
      for (int j = 0; j < numCoords; ++j) clusters[k * numCoords + j] = dimClusters[j * numClusters + k];
  });
  return loops;
}

}  // namespace kmeans
