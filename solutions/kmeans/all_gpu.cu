// BEGIN SOLUTION all_gpu
// kmeans, exercise 4: all_gpu. Reference solution.
// STARTER
//| // kmeans, exercise 4: all_gpu. YOUR CODE: fill in the TODO(all_gpu)s, then run
//| //     grader check kmeans --filter "[all_gpu]"
// END SOLUTION
//
// The whole loop on the device (the notes' "full GPU offload"). find_nearest_cluster also adds
// BEGIN SOLUTION
// each object into the new centroids' sums and sizes, with atomics in global memory, and an
// STARTER
//| // each object into the new centroids' sums and sizes, in global memory, and an
// END SOLUTION
// update_centroids kernel divides. Per iteration only the count of changed memberships (4
// bytes) crosses to the host, which needs it to decide whether to loop again; the memberships
// BEGIN SOLUTION
// and the centroids come back once, at the end.
// STARTER
//| // and the centroids come back once, at the end. The host code below is complete: read it and
//| // compare it with shared.cu's. The kernels are yours.
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
  // BEGIN SOLUTION all_gpu
  const int objectId = blockIdx.x * blockDim.x + threadIdx.x;
  if (objectId >= numObjs) return;
  for (int j = 0; j < numCoords; ++j) dimObjects[j * numObjs + objectId] = objects[objectId * numCoords + j];
  // STARTER
  //| // TODO(all_gpu): the same as in your transpose.cu.
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
  // BEGIN SOLUTION all_gpu
  for (int j = 0; j < numCoords; ++j) {
    const double d = dimObjects[j * numObjs + objectId] - clusters[j * numClusters + clusterId];
    ans += d * d;
  }
  // STARTER
  //| // TODO(all_gpu): the same as in your shared.cu.
  // END SOLUTION
  return ans;
}

// shared's kernel, plus the accumulation of the new centroids:
//   newClusters    [numCoords][numClusters]  sum of the coordinates of each cluster's members
//   newClusterSize [numClusters]             number of members
// BEGIN SOLUTION
// both zeroed before the launch. Any object may belong to any cluster, so threads all over the
// GPU add into the same few addresses at once: each += must be an atomicAdd, and the atomics
// on one address are serialised. With 16 clusters and millions of objects, that serialisation
// is what this version's time is made of.
// STARTER
//| // both zeroed (cudaMemsetAsync) before every launch.
// END SOLUTION
__global__ void find_nearest_cluster(int numCoords, int numObjs, int numClusters, const double* dimObjects,
                                     const double* deviceClusters, int* deviceMembership, unsigned int* deviceChanged,
                                     double* newClusters, unsigned int* newClusterSize) {
  extern __shared__ double shmemClusters[];
  // BEGIN SOLUTION all_gpu
  for (int i = threadIdx.x; i < numClusters * numCoords; i += blockDim.x) shmemClusters[i] = deviceClusters[i];
  __syncthreads();

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

  atomicAdd(&newClusterSize[index], 1u);
  for (int j = 0; j < numCoords; ++j)
    atomicAdd(&newClusters[j * numClusters + index], dimObjects[j * numObjs + objectId]);
  // STARTER
  //| // TODO(all_gpu): your shared.cu kernel, then, for this object and its cluster `index`:
  //| //   newClusterSize[index] += 1 and newClusters[j][index] += dimObjects[j][objectId] for
  //| //   every coordinate j.
  //| //   Is this write safe? Any object may belong to any cluster: thousands of threads add into
  //| //   the same numClusters * (numCoords + 1) addresses at the same time. Each += must be an
  //| //   atomicAdd (there is one for double, and one for unsigned int).
  // END SOLUTION
}

// BEGIN SOLUTION
// One thread per (coordinate, cluster) of the centroids, [numCoords][numClusters].
// It only reads the sums and sizes: they are zeroed by cudaMemsetAsync before the next
// find_nearest_cluster. (The notes' version zeroed newClusterSize at the end of this kernel,
// after a __syncthreads(). That barrier waits for the threads of one block only: a thread of
// another block could still be about to read a size this block has just zeroed. Is this write
// safe? No. Across blocks, the only safe order is between kernels.)
// STARTER
//| // One thread per element i of the centroids, [numCoords][numClusters].
// END SOLUTION
__global__ void update_centroids(int numCoords, int numClusters, const double* newClusters,
                                 const unsigned int* newClusterSize, double* deviceClusters) {
  // BEGIN SOLUTION all_gpu
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= numCoords * numClusters) return;
  const int clusterId = i % numClusters;  // consecutive threads, consecutive clusters: coalesced
  if (newClusterSize[clusterId] > 0) deviceClusters[i] = newClusters[i] / newClusterSize[clusterId];
  // an empty cluster keeps its centroid
  // STARTER
  //| // TODO(all_gpu): for i < numCoords * numClusters, with clusterId = i % numClusters:
  //| //   if newClusterSize[clusterId] > 0, deviceClusters[i] = newClusters[i] / newClusterSize[clusterId];
  //| //   otherwise leave it: an empty cluster keeps its centroid (and 0 / 0 would be NaN).
  //| //   Only read newClusters and newClusterSize here; the host zeroes them (cudaMemsetAsync)
  //| //   before the next find_nearest_cluster. The notes zeroed newClusterSize at the end of this
  //| //   kernel, after a __syncthreads(). Is that write safe? Think about which threads a
  //| //   __syncthreads() waits for.
  // END SOLUTION
}

std::size_t centroids_shared_bytes(const Params& p) {
  const std::size_t bytes = static_cast<std::size_t>(p.numClusters) * p.numCoords * sizeof(double);
  int device = 0, optin = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  if (bytes > static_cast<std::size_t>(optin))
    throw std::invalid_argument("all_gpu: the centroids (" + std::to_string(bytes) +
                                " bytes) do not fit in the shared memory of a block (at most " +
                                std::to_string(optin) + " bytes on this GPU)");
  if (bytes > 48 * 1024)
    CUDA_CHECK(cudaFuncSetAttribute(find_nearest_cluster, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(bytes)));
  return bytes;
}

}  // namespace

int all_gpu(const double* objects, const Params& p, int* membership, double* clusters, Timeline& timeline) {
  const cudaStream_t stream = timeline.stream();
  const int numObjs = p.numObjs, numCoords = p.numCoords, numClusters = p.numClusters;
  const std::size_t objectsCount = static_cast<std::size_t>(numObjs) * numCoords;
  const std::size_t clustersCount = static_cast<std::size_t>(numClusters) * numCoords;
  const std::size_t clusterBlockSharedDataSize = centroids_shared_bytes(p);

  std::vector<double> dimClusters(clustersCount);  // [numCoords][numClusters]
  timeline.host([&] {  // the initial centroids, the first numClusters objects, transposed
    for (int k = 0; k < numClusters; ++k)
      for (int j = 0; j < numCoords; ++j) dimClusters[j * numClusters + k] = objects[k * numCoords + j];
  });

  workbook::DeviceBuffer<double> deviceObjects(objectsCount), dimObjects(objectsCount);
  workbook::DeviceBuffer<double> deviceClusters(clustersCount), newClusters(clustersCount);
  workbook::DeviceBuffer<unsigned int> newClusterSize(numClusters);
  workbook::DeviceBuffer<int> deviceMembership(numObjs);
  workbook::DeviceBuffer<unsigned int> deviceChanged(1);

  const int numThreadsPerClusterBlock = p.blockSize;
  const int numClusterBlocks = ceil_div(numObjs, numThreadsPerClusterBlock);
  const int updateBlocks = ceil_div(numClusters * numCoords, numThreadsPerClusterBlock);

  timeline.to_device(deviceObjects.data(), objects, objectsCount * sizeof(double));
  timeline.to_device(deviceClusters.data(), dimClusters.data(), clustersCount * sizeof(double));
  timeline.kernels([&] {
    CUDA_CHECK_LAUNCH(transpose_objects<<<numClusterBlocks, numThreadsPerClusterBlock, 0, stream>>>(
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
      CUDA_CHECK_LAUNCH(find_nearest_cluster<<<numClusterBlocks, numThreadsPerClusterBlock,
                                               clusterBlockSharedDataSize, stream>>>(
          numCoords, numObjs, numClusters, dimObjects.data(), deviceClusters.data(), deviceMembership.data(),
          deviceChanged.data(), newClusters.data(), newClusterSize.data()));
      CUDA_CHECK_LAUNCH(update_centroids<<<updateBlocks, numThreadsPerClusterBlock, 0, stream>>>(
          numCoords, numClusters, newClusters.data(), newClusterSize.data(), deviceClusters.data()));
    });
    unsigned int changed = 0;
    timeline.to_host(&changed, deviceChanged.data(), sizeof(unsigned int));  // the only transfer
    delta = static_cast<double>(changed) / numObjs;
    ++loops;
    timeline.end_iteration();
  } while (delta > p.threshold && loops < p.maxLoops);

  // The results, once.
  timeline.to_host(membership, deviceMembership.data(), numObjs * sizeof(int));
  timeline.to_host(dimClusters.data(), deviceClusters.data(), clustersCount * sizeof(double));
  timeline.host([&] {
    for (int k = 0; k < numClusters; ++k)
      for (int j = 0; j < numCoords; ++j) clusters[k * numCoords + j] = dimClusters[j * numClusters + k];
  });
  return loops;
}

}  // namespace kmeans
