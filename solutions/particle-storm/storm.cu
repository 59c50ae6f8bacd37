// BEGIN SOLUTION
// particle-storm: reference solution.
// STARTER
//| // particle-storm: YOUR CODE. Fill in the TODOs, then run
//| //     grader check particle-storm
//| // The handout (README.md beside this file) explains each exercise; storm.h states exactly what
//| // each function must compute.
// END SOLUTION
//
// Names follow Programming Massively Parallel Processors (PMPP): one thread per output element
// (chapter 3), tiles of input staged in shared memory (chapter 5), a reduction tree (chapter 10).
// BEGIN SOLUTION
// STARTER
//| //
//| // Shipped as is, this file builds and runs but computes nothing: the grader reports every
//| // correctness case as incorrect. Work in this order: update, relax, maximum, resident.
// END SOLUTION
#include "storm.h"

#include "workbook/cuda_check.hpp"
#include "workbook/device_buffer.hpp"
#include "workbook/stream.hpp"

#include <algorithm>
// BEGIN SOLUTION
// STARTER
//| #include <cmath>
// END SOLUTION

namespace storm {

// BEGIN SOLUTION maximum
// Does (v1, p1) beat (v2, p2)? The larger value; between equal values, the lower position (the
// sequential scan meets it first, and replaces only on a greater value).
__device__ inline bool beats(float v1, int p1, float v2, int p2) { return v1 > v2 || (v1 == v2 && p1 < p2); }
// STARTER
//| // Does (v1, p1) beat (v2, p2)? TODO(maximum): the larger value; between equal values, the
//| // lower position (the sequential scan meets it first, and replaces only on a greater value).
//| __device__ inline bool beats(float v1, int p1, float v2, int p2) { return false; }
// END SOLUTION

namespace {

// BEGIN SOLUTION
constexpr int BLOCK_SIZE = 256;        // threads per block, every kernel
constexpr int TILE_SIZE = BLOCK_SIZE;  // particles staged per phase of update: one per thread
constexpr int MAX_BLOCKS = 1024;       // blocks of the first pass of maximum
// STARTER
//| constexpr int BLOCK_SIZE = 256;   // threads per block, every kernel
//| constexpr int MAX_BLOCKS = 1024;  // blocks of the first pass of maximum
// END SOLUTION

// Blocks needed to cover `a` items, `b` per block: rounded up, so the edge is covered too.
__host__ __device__ inline int ceil_div(int a, int b) { return (a + b - 1) / b; }

// ---------------------------------------------------------------------------------------------
// BEGIN SOLUTION
// Exercise 1: update. One thread per cell; the particles go through shared memory a tile at a
// time, each one read from global memory once per block instead of once per thread.
// STARTER
//| // Exercise 1: update. One thread per cell adds every particle's energy to its cell.
// END SOLUTION
// ---------------------------------------------------------------------------------------------
__global__ void updateKernel(float* layer, int layer_size, const int* posval, int num_particles) {
  // BEGIN SOLUTION update
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
  // STARTER
  //| // TODO(update): one thread per cell.
  //| //   1. k = this thread's cell, from blockIdx, blockDim and threadIdx. The grid is rounded up:
  //| //      a thread with k >= layer_size must not read or write the layer.
  //| //   2. Start from the value the cell holds (the layer is not reset between storms).
  //| //   3. For every particle j = 0 .. num_particles-1, in order, add its term exactly as storm.h
  //| //      step 1 says (energy = (float)value * 1000, distance = |position - k| + 1, ...).
  //| //      Keep the running value in a register; store it once at the end.
  //| //   Then make it fast (README.md, "Making update fast"): stage the particles in shared memory
  //| //   a tile at a time, and replace the two divisions and sqrtf by a reciprocal and rsqrtf.
  // END SOLUTION
}

// ---------------------------------------------------------------------------------------------
// BEGIN SOLUTION
// Exercise 2: relax. Two kernels: the end of the first is a barrier for the whole grid, so no
// block can read a neighbour's copy before it is written.
// STARTER
//| // Exercise 2: relax. The three-point average, with no race between blocks.
// END SOLUTION
// ---------------------------------------------------------------------------------------------
__global__ void copyKernel(float* layer_copy, const float* layer, int layer_size) {
  // BEGIN SOLUTION relax
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < layer_size) layer_copy[k] = layer[k];
  // STARTER
  //| // TODO(relax): copy every cell of the layer into layer_copy.
  // END SOLUTION
}

__global__ void relaxKernel(float* layer, const float* layer_copy, int layer_size) {
  // BEGIN SOLUTION relax
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= 1 && k < layer_size - 1)  // the two end cells are left untouched
    layer[k] = (layer_copy[k - 1] + layer_copy[k] + layer_copy[k + 1]) / 3;
  // STARTER
  //| // TODO(relax): for k = 1 .. layer_size-2 only (the ends are untouched):
  //| //   layer[k] = (layer_copy[k-1] + layer_copy[k] + layer_copy[k+1]) / 3
  //| // Read only the copy. Why it must be a separate kernel from the copy: README.md.
  // END SOLUTION
}

// ---------------------------------------------------------------------------------------------
// BEGIN SOLUTION
// Exercise 3: maximum. Candidates (strict local maxima) reduced as (value, position) pairs.
// STARTER
//| // Exercise 3: maximum. Strict local maxima, then a reduction of (value, position) pairs.
// END SOLUTION
// ---------------------------------------------------------------------------------------------

// BEGIN SOLUTION maximum
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
// STARTER
//| __global__ void localMaximaKernel(const float* layer, int layer_size, float* candidate_values,
//|                                   int* candidate_positions) {
//|   // TODO(maximum), pass 1:
//|   //   1. Each thread starts from (0.0f, 0), the sequential program's starting maximum, and walks
//|   //      its cells k = 1 .. layer_size-2 with a grid-stride loop, keeping the best cell that is a
//|   //      strict local maximum (layer[k] > layer[k-1] && layer[k] > layer[k+1]).
//|   //   2. The block reduces its threads' (value, position) pairs in shared memory with beats()
//|   //      (a reduction tree: halve the stride each step, __syncthreads() between steps).
//|   //   3. Thread 0 writes the block's winner to candidate_values[blockIdx.x] and
//|   //      candidate_positions[blockIdx.x].
// END SOLUTION
}

// BEGIN SOLUTION
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
// END SOLUTION
__global__ void reduceCandidatesKernel(const float* candidate_values, const int* candidate_positions, int count,
                                       float* max_value, int* max_position) {
  // BEGIN SOLUTION maximum
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
  // STARTER
  //| // TODO(maximum), pass 2 (one block): reduce the `count` candidates the same way and write the
  //| //   winner to *max_value and *max_position.
  // END SOLUTION
}

}  // namespace

void update(float* layer, int layer_size, const int* posval, int num_particles, cudaStream_t stream) {
  // BEGIN SOLUTION update
  if (num_particles == 0) return;  // nothing to add (and no empty grid to launch)
  const int grid = ceil_div(layer_size, BLOCK_SIZE);
  // STARTER
  //| if (num_particles == 0) return;  // nothing to add
  //| // TODO(update): enough blocks of BLOCK_SIZE threads to cover every cell (use ceil_div).
  //| const int grid = 1;
  // END SOLUTION
  CUDA_CHECK_LAUNCH(updateKernel<<<grid, BLOCK_SIZE, 0, stream>>>(layer, layer_size, posval, num_particles));
}

void relax(float* layer, float* layer_copy, int layer_size, cudaStream_t stream) {
  // BEGIN SOLUTION relax
  const int grid = ceil_div(layer_size, BLOCK_SIZE);
  // STARTER
  //| // TODO(relax): enough blocks to cover every cell.
  //| const int grid = 1;
  // END SOLUTION
  CUDA_CHECK_LAUNCH(copyKernel<<<grid, BLOCK_SIZE, 0, stream>>>(layer_copy, layer, layer_size));
  CUDA_CHECK_LAUNCH(relaxKernel<<<grid, BLOCK_SIZE, 0, stream>>>(layer, layer_copy, layer_size));
}

void maximum(const float* layer, int layer_size, float* candidate_values, int* candidate_positions,
             float* max_value, int* max_position, cudaStream_t stream) {
  // BEGIN SOLUTION
  // At most MAX_BLOCKS blocks (the grid-stride loop covers the rest), and never more than
  // there are candidate slots (layer_size).
  // STARTER
  //| // At most MAX_BLOCKS blocks (the grid-stride loop covers the rest), and never more than there
  //| // are candidate slots (layer_size).
  // END SOLUTION
  const int grid = std::max(1, std::min(MAX_BLOCKS, ceil_div(layer_size, BLOCK_SIZE)));
  CUDA_CHECK_LAUNCH(localMaximaKernel<<<grid, BLOCK_SIZE, 0, stream>>>(layer, layer_size, candidate_values,
                                                                        candidate_positions));
  CUDA_CHECK_LAUNCH(reduceCandidatesKernel<<<1, BLOCK_SIZE, 0, stream>>>(candidate_values, candidate_positions,
                                                                          grid, max_value, max_position));
}

// ---------------------------------------------------------------------------------------------
// BEGIN SOLUTION
// Exercise 4: resident. The layer is created and zeroed on the device and stays there; the
// particles go in once, the results come out once.
// STARTER
//| // Exercise 4: resident. The whole simulation, with the layer on the device from start to end.
// END SOLUTION
// ---------------------------------------------------------------------------------------------
std::vector<Result> simulate(int layer_size, const std::vector<Storm>& storms, const Steps& steps) {
  const int num_storms = static_cast<int>(storms.size());
  // BEGIN SOLUTION
  workbook::Stream stream;  // every copy and kernel in order on one stream (non-blocking: so
                            // every copy is a cudaMemcpyAsync on it, never a plain cudaMemcpy)
  // STARTER
  //| // Position -1 means "not computed": a storm your code skips shows as wrong, never as right.
  //| std::vector<Result> results(num_storms, Result{-1, NAN});
  // END SOLUTION

  // BEGIN SOLUTION resident
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
  // STARTER
  //| // TODO(resident):
  //| //   1. One stream for everything (workbook::Stream), and on the device (workbook::DeviceBuffer
  //| //      frees itself): the layer, its copy, the two candidate arrays (2 * layer_size elements
  //| //      each, as storm.h promises maximum()), one float and one int per storm for the results,
  //| //      and the particles. workbook::Stream is non-blocking: copy with cudaMemcpyAsync on it.
  //| //   2. Zero the layer ON THE DEVICE (cudaMemsetAsync: all bits 0 is 0.0f). No host array of
  //| //      layer_size, no copy of the layer in either direction, ever.
  //| //   3. Upload the particles: all storms' posval in one array and one cudaMemcpyAsync is best.
  //| //   4. For each storm i: steps.update(...), steps.relax(...), steps.maximum(...) writing to
  //| //      element i of the two result arrays. Call them through `steps`, not directly: the
  //| //      grader grades this function with its own steps too.
  //| //   5. Download the results (2 copies for all storms), synchronise the stream, and fill
  //| //      `results` (position, value) in storm order.
  //| (void)layer_size;
  //| (void)steps;
  // END SOLUTION
  return results;
}

}  // namespace storm
