// particle-storm: reference solution.
//
// Names follow Programming Massively Parallel Processors (PMPP): one thread per output element
// (chapter 3), tiles of input staged in shared memory (chapter 5), a reduction tree (chapter 10).
#include "storm.h"

#include "workbook/cuda_check.hpp"
#include "workbook/device_buffer.hpp"
#include "workbook/stream.hpp"

#include <algorithm>

namespace storm {

// Does (v1, p1) beat (v2, p2)? The larger value; between equal values, the lower position (the
// sequential scan meets it first, and replaces only on a greater value).
__device__ inline bool beats(float v1, int p1, float v2, int p2) { return v1 > v2 || (v1 == v2 && p1 < p2); }

namespace {

constexpr int BLOCK_SIZE = 256;        // threads per block, every kernel
constexpr int TILE_SIZE = BLOCK_SIZE;  // particles staged per phase of update: one per thread
constexpr int MAX_BLOCKS = 1024;       // blocks of the first pass of maximum

// Blocks needed to cover `a` items, `b` per block: rounded up, so the edge is covered too.
__host__ __device__ inline int ceil_div(int a, int b) { return (a + b - 1) / b; }

// ---------------------------------------------------------------------------------------------
// Exercise 1: update. One thread per cell; the particles go through shared memory a tile at a
// time, each one read from global memory once per block instead of once per thread.
// ---------------------------------------------------------------------------------------------
__global__ void updateKernel(float* layer, int layer_size, const int* posval, int num_particles) {
  // One tile of particles, each as (position relative to the block's first cell, energy /
  // layer_size): a float2, so that one 8-byte shared-memory load brings both.
  __shared__ float2 tile[TILE_SIZE];

  const int first = blockIdx.x * blockDim.x;  // the block's first cell
  const int k = first + threadIdx.x;          // this thread's cell
  // Distances from the block's first cell are small integers, exact in float on any layer
  // (a float holds every integer only up to 2^24: cell 16777217 has no float of its own).
  const float local = (float)threadIdx.x;
  const float reciprocal = 1.0f / layer_size;       // one division, not one per term
  const float threshold = THRESHOLD / layer_size;  // as the sequential program computes it

  float value = (k < layer_size) ? layer[k] : 0.0f;  // add to what the layer holds
  for (int ph = 0; ph < ceil_div(num_particles, TILE_SIZE); ++ph) {
    // 1. Each thread stages one particle (all threads do, even past the end of the layer). The
    //    block's threads read consecutive particles: one coalesced load of int2 pairs.
    const int j = ph * TILE_SIZE + threadIdx.x;
    if (j < num_particles) {
      const int2 particle = reinterpret_cast<const int2*>(posval)[j];  // (position, value)
      tile[threadIdx.x] = make_float2((float)(particle.x - first), (float)particle.y * 1000.0f * reciprocal);
    }
    __syncthreads();  // the tile is complete before anyone reads it

    // 2. Each thread adds the tile's particles to its cell, in file order.
    const int count = min(TILE_SIZE, num_particles - ph * TILE_SIZE);
    for (int t = 0; t < count; ++t) {
      const float2 p = tile[t];                            // the same for every thread: a broadcast
      const float distance = fabsf(p.x - local) + 1.0f;    // |position - k| + 1
      const float energy_k = p.y * rsqrtf(distance);      // energy / layer_size / sqrtf(distance)
      if (fabsf(energy_k) >= threshold) value += energy_k;
    }
    __syncthreads();  // everyone is done with the tile before the next phase overwrites it
  }
  if (k < layer_size) layer[k] = value;
}

// ---------------------------------------------------------------------------------------------
// Exercise 2: relax. Two kernels: the end of the first is a barrier for the whole grid, so no
// block can read a neighbour's copy before it is written.
// ---------------------------------------------------------------------------------------------
__global__ void copyKernel(float* layer_copy, const float* layer, int layer_size) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < layer_size) layer_copy[k] = layer[k];
}

__global__ void relaxKernel(float* layer, const float* layer_copy, int layer_size) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= 1 && k < layer_size - 1)  // the two end cells are left untouched
    layer[k] = (layer_copy[k - 1] + layer_copy[k] + layer_copy[k + 1]) / 3;
}

// ---------------------------------------------------------------------------------------------
// Exercise 3: maximum. Candidates (strict local maxima) reduced as (value, position) pairs.
// ---------------------------------------------------------------------------------------------

// Reduction tree in shared memory (PMPP chapter 10): halve the active threads each step; each
// keeps the better of its pair and the one `stride` away. Thread 0 ends with the block's best.
__device__ void blockReduce(float& value, int& position) {
  __shared__ float s_value[BLOCK_SIZE];
  __shared__ int s_position[BLOCK_SIZE];
  s_value[threadIdx.x] = value;
  s_position[threadIdx.x] = position;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride >= 1; stride /= 2) {
    if (threadIdx.x < stride) {
      const float v = s_value[threadIdx.x + stride];
      const int p = s_position[threadIdx.x + stride];
      if (beats(v, p, s_value[threadIdx.x], s_position[threadIdx.x])) {
        s_value[threadIdx.x] = v;
        s_position[threadIdx.x] = p;
      }
    }
    __syncthreads();
  }
  value = s_value[0];
  position = s_position[0];
}

// Pass 1: every thread scans its cells (a grid-stride loop), keeping its best strict local
// maximum; the block reduces them to one candidate per block.
__global__ void localMaximaKernel(const float* layer, int layer_size, float* candidate_values,
                                  int* candidate_positions) {
  float value = 0.0f;  // the sequential program's starting maximum: only values > 0 can win
  int position = 0;
  for (int k = 1 + blockIdx.x * blockDim.x + threadIdx.x; k < layer_size - 1; k += gridDim.x * blockDim.x) {
    const float v = layer[k];
    if (v > layer[k - 1] && v > layer[k + 1] && beats(v, k, value, position)) {
      value = v;
      position = k;
    }
  }
  blockReduce(value, position);
  if (threadIdx.x == 0) {
    candidate_values[blockIdx.x] = value;
    candidate_positions[blockIdx.x] = position;
  }
}

// Pass 2: one block reduces the per-block candidates and writes the result.
__global__ void reduceCandidatesKernel(const float* candidate_values, const int* candidate_positions, int count,
                                       float* max_value, int* max_position) {
  float value = 0.0f;
  int position = 0;
  for (int i = threadIdx.x; i < count; i += blockDim.x)
    if (beats(candidate_values[i], candidate_positions[i], value, position)) {
      value = candidate_values[i];
      position = candidate_positions[i];
    }
  blockReduce(value, position);
  if (threadIdx.x == 0) {
    *max_value = value;
    *max_position = position;
  }
}

}  // namespace

void update(float* layer, int layer_size, const int* posval, int num_particles, cudaStream_t stream) {
  if (num_particles == 0) return;  // nothing to add (and no empty grid to launch)
  const int grid = ceil_div(layer_size, BLOCK_SIZE);
  CUDA_CHECK_LAUNCH(updateKernel<<<grid, BLOCK_SIZE, 0, stream>>>(layer, layer_size, posval, num_particles));
}

void relax(float* layer, float* layer_copy, int layer_size, cudaStream_t stream) {
  const int grid = ceil_div(layer_size, BLOCK_SIZE);
  CUDA_CHECK_LAUNCH(copyKernel<<<grid, BLOCK_SIZE, 0, stream>>>(layer_copy, layer, layer_size));
  CUDA_CHECK_LAUNCH(relaxKernel<<<grid, BLOCK_SIZE, 0, stream>>>(layer, layer_copy, layer_size));
}

void maximum(const float* layer, int layer_size, float* candidate_values, int* candidate_positions,
             float* max_value, int* max_position, cudaStream_t stream) {
  // At most MAX_BLOCKS blocks (the grid-stride loop covers the rest), and never more than
  // there are candidate slots (layer_size).
  const int grid = std::max(1, std::min(MAX_BLOCKS, ceil_div(layer_size, BLOCK_SIZE)));
  CUDA_CHECK_LAUNCH(localMaximaKernel<<<grid, BLOCK_SIZE, 0, stream>>>(layer, layer_size, candidate_values,
                                                                        candidate_positions));
  CUDA_CHECK_LAUNCH(reduceCandidatesKernel<<<1, BLOCK_SIZE, 0, stream>>>(candidate_values, candidate_positions,
                                                                          grid, max_value, max_position));
}

// ---------------------------------------------------------------------------------------------
// Exercise 4: resident. The layer is created and zeroed on the device and stays there; the
// particles go in once, the results come out once.
// ---------------------------------------------------------------------------------------------
std::vector<Result> simulate(int layer_size, const std::vector<Storm>& storms, const Steps& steps) {
  const int num_storms = static_cast<int>(storms.size());
  workbook::Stream stream;  // every copy and kernel in order on one stream (non-blocking: so
                            // every copy is a cudaMemcpyAsync on it, never a plain cudaMemcpy)

  // All the storms' particles in one host array, so one copy uploads them.
  std::vector<int> posval;
  std::vector<std::size_t> first(num_storms);
  for (int i = 0; i < num_storms; ++i) {
    first[i] = posval.size();
    posval.insert(posval.end(), storms[i].posval.begin(), storms[i].posval.end());
  }

  workbook::DeviceBuffer<int> d_posval(std::max<std::size_t>(posval.size(), 1));
  workbook::DeviceBuffer<float> layer(layer_size), layer_copy(layer_size);
  // The candidate arrays hold 2 * layer_size elements each, as storm.h promises maximum() (room
  // for one 8-byte pair per cell): the grader's steps use fewer, a student's own may use all.
  workbook::DeviceBuffer<float> candidate_values(2 * std::size_t(layer_size));
  workbook::DeviceBuffer<int> candidate_positions(2 * std::size_t(layer_size));
  workbook::DeviceBuffer<float> max_values(std::max(num_storms, 1));
  workbook::DeviceBuffer<int> max_positions(std::max(num_storms, 1));

  if (!posval.empty())
    CUDA_CHECK(cudaMemcpyAsync(d_posval.data(), posval.data(), posval.size() * sizeof(int), cudaMemcpyHostToDevice,
                               stream));
  CUDA_CHECK(cudaMemsetAsync(layer.data(), 0, layer.bytes(), stream));  // all bits 0 is 0.0f

  for (int i = 0; i < num_storms; ++i) {
    steps.update(layer.data(), layer_size, d_posval.data() + first[i], storms[i].size(), stream);
    steps.relax(layer.data(), layer_copy.data(), layer_size, stream);
    steps.maximum(layer.data(), layer_size, candidate_values.data(), candidate_positions.data(),
                  max_values.data() + i, max_positions.data() + i, stream);
  }

  std::vector<float> values(num_storms);
  std::vector<int> positions(num_storms);
  CUDA_CHECK(cudaMemcpyAsync(values.data(), max_values.data(), num_storms * sizeof(float), cudaMemcpyDeviceToHost,
                             stream));
  CUDA_CHECK(cudaMemcpyAsync(positions.data(), max_positions.data(), num_storms * sizeof(int),
                             cudaMemcpyDeviceToHost, stream));
  stream.synchronize();  // the results are on the host only once the stream has finished

  std::vector<Result> results(num_storms);
  for (int i = 0; i < num_storms; ++i) results[i] = {positions[i], values[i]};
  return results;
}

}  // namespace storm
