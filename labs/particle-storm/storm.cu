// particle-storm: YOUR CODE. Fill in the TODOs, then run
//     grader check particle-storm
// The handout (README.md beside this file) explains each exercise; storm.h states exactly what
// each function must compute.
//
// Names follow Programming Massively Parallel Processors (PMPP): one thread per output element
// (chapter 3), tiles of input staged in shared memory (chapter 5), a reduction tree (chapter 10).
//
// Shipped as is, this file builds and runs but computes nothing: the grader reports every
// correctness case as incorrect. Work in this order: update, relax, maximum, resident.
#include "storm.h"

#include "workbook/cuda_check.hpp"
#include "workbook/device_buffer.hpp"
#include "workbook/stream.hpp"

#include <algorithm>
#include <cmath>

namespace storm {

// Does (v1, p1) beat (v2, p2)? TODO(maximum): the larger value; between equal values, the
// lower position (the sequential scan meets it first, and replaces only on a greater value).
__device__ inline bool beats(float v1, int p1, float v2, int p2) { return false; }

namespace {

constexpr int BLOCK_SIZE = 256;   // threads per block, every kernel
constexpr int MAX_BLOCKS = 1024;  // blocks of the first pass of maximum

// Blocks needed to cover `a` items, `b` per block: rounded up, so the edge is covered too.
__host__ __device__ inline int ceil_div(int a, int b) { return (a + b - 1) / b; }

// ---------------------------------------------------------------------------------------------
// Exercise 1: update. One thread per cell adds every particle's energy to its cell.
// ---------------------------------------------------------------------------------------------
__global__ void updateKernel(float* layer, int layer_size, const int* posval, int num_particles) {
  // TODO(update): one thread per cell.
  //   1. k = this thread's cell, from blockIdx, blockDim and threadIdx. The grid is rounded up:
  //      a thread with k >= layer_size must not read or write the layer.
  //   2. Start from the value the cell holds (the layer is not reset between storms).
  //   3. For every particle j = 0 .. num_particles-1, in order, add its term exactly as storm.h
  //      step 1 says (energy = (float)value * 1000, distance = |position - k| + 1, ...).
  //      Keep the running value in a register; store it once at the end.
  //   Then make it fast (README.md, "Making update fast"): stage the particles in shared memory
  //   a tile at a time, and replace the two divisions and sqrtf by a reciprocal and rsqrtf.
}

// ---------------------------------------------------------------------------------------------
// Exercise 2: relax. The three-point average, with no race between blocks.
// ---------------------------------------------------------------------------------------------
__global__ void copyKernel(float* layer_copy, const float* layer, int layer_size) {
  // TODO(relax): copy every cell of the layer into layer_copy.
}

__global__ void relaxKernel(float* layer, const float* layer_copy, int layer_size) {
  // TODO(relax): for k = 1 .. layer_size-2 only (the ends are untouched):
  //   layer[k] = (layer_copy[k-1] + layer_copy[k] + layer_copy[k+1]) / 3
  // Read only the copy. Why it must be a separate kernel from the copy: README.md.
}

// ---------------------------------------------------------------------------------------------
// Exercise 3: maximum. Strict local maxima, then a reduction of (value, position) pairs.
// ---------------------------------------------------------------------------------------------

__global__ void localMaximaKernel(const float* layer, int layer_size, float* candidate_values,
                                  int* candidate_positions) {
  // TODO(maximum), pass 1:
  //   1. Each thread starts from (0.0f, 0), the sequential program's starting maximum, and walks
  //      its cells k = 1 .. layer_size-2 with a grid-stride loop, keeping the best cell that is a
  //      strict local maximum (layer[k] > layer[k-1] && layer[k] > layer[k+1]).
  //   2. The block reduces its threads' (value, position) pairs in shared memory with beats()
  //      (a reduction tree: halve the stride each step, __syncthreads() between steps).
  //   3. Thread 0 writes the block's winner to candidate_values[blockIdx.x] and
  //      candidate_positions[blockIdx.x].
}

__global__ void reduceCandidatesKernel(const float* candidate_values, const int* candidate_positions, int count,
                                       float* max_value, int* max_position) {
  // TODO(maximum), pass 2 (one block): reduce the `count` candidates the same way and write the
  //   winner to *max_value and *max_position.
}

}  // namespace

void update(float* layer, int layer_size, const int* posval, int num_particles, cudaStream_t stream) {
  if (num_particles == 0) return;  // nothing to add
  // TODO(update): enough blocks of BLOCK_SIZE threads to cover every cell (use ceil_div).
  const int grid = 1;
  CUDA_CHECK_LAUNCH(updateKernel<<<grid, BLOCK_SIZE, 0, stream>>>(layer, layer_size, posval, num_particles));
}

void relax(float* layer, float* layer_copy, int layer_size, cudaStream_t stream) {
  // TODO(relax): enough blocks to cover every cell.
  const int grid = 1;
  CUDA_CHECK_LAUNCH(copyKernel<<<grid, BLOCK_SIZE, 0, stream>>>(layer_copy, layer, layer_size));
  CUDA_CHECK_LAUNCH(relaxKernel<<<grid, BLOCK_SIZE, 0, stream>>>(layer, layer_copy, layer_size));
}

void maximum(const float* layer, int layer_size, float* candidate_values, int* candidate_positions,
             float* max_value, int* max_position, cudaStream_t stream) {
  // At most MAX_BLOCKS blocks (the grid-stride loop covers the rest), and never more than there
  // are candidate slots (layer_size).
  const int grid = std::max(1, std::min(MAX_BLOCKS, ceil_div(layer_size, BLOCK_SIZE)));
  CUDA_CHECK_LAUNCH(localMaximaKernel<<<grid, BLOCK_SIZE, 0, stream>>>(layer, layer_size, candidate_values,
                                                                        candidate_positions));
  CUDA_CHECK_LAUNCH(reduceCandidatesKernel<<<1, BLOCK_SIZE, 0, stream>>>(candidate_values, candidate_positions,
                                                                          grid, max_value, max_position));
}

// ---------------------------------------------------------------------------------------------
// Exercise 4: resident. The whole simulation, with the layer on the device from start to end.
// ---------------------------------------------------------------------------------------------
std::vector<Result> simulate(int layer_size, const std::vector<Storm>& storms, const Steps& steps) {
  const int num_storms = static_cast<int>(storms.size());
  // Position -1 means "not computed": a storm your code skips shows as wrong, never as right.
  std::vector<Result> results(num_storms, Result{-1, NAN});

  // TODO(resident):
  //   1. One stream for everything (workbook::Stream), and on the device (workbook::DeviceBuffer
  //      frees itself): the layer, its copy, the two candidate arrays (2 * layer_size elements
  //      each, as storm.h promises maximum()), one float and one int per storm for the results,
  //      and the particles. workbook::Stream is non-blocking: copy with cudaMemcpyAsync on it.
  //   2. Zero the layer ON THE DEVICE (cudaMemsetAsync: all bits 0 is 0.0f). No host array of
  //      layer_size, no copy of the layer in either direction, ever.
  //   3. Upload the particles: all storms' posval in one array and one cudaMemcpyAsync is best.
  //   4. For each storm i: steps.update(...), steps.relax(...), steps.maximum(...) writing to
  //      element i of the two result arrays. Call them through `steps`, not directly: the
  //      grader grades this function with its own steps too.
  //   5. Download the results (2 copies for all storms), synchronise the stream, and fill
  //      `results` (position, value) in storm order.
  (void)layer_size;
  (void)steps;
  return results;
}

}  // namespace storm
