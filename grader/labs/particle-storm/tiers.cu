#include "tiers.cuh"

#include "workbook/cuda_check.hpp"
#include "workbook/device_buffer.hpp"
#include "workbook/stream.hpp"

#include <algorithm>

namespace storm_tiers {
namespace {

using storm::THRESHOLD;

constexpr int BLOCK_SIZE = 256;
constexpr int TILE = BLOCK_SIZE;  // particles staged per phase: one per thread of the block

int ceil_div(int a, int b) { return (a + b - 1) / b; }

// ---- update ---------------------------------------------------------------------------------

// The sequential program's term, operation for operation (sequential.cpp, update()).
__device__ __forceinline__ float sequential_term(int position, float energy, int k, int layer_size) {
  int distance = position - k;
  if (distance < 0) distance = -distance;
  distance = distance + 1;
  const float atenuacion = sqrtf((float)distance);
  const float energy_k = energy / layer_size / atenuacion;
  return (energy_k >= THRESHOLD / layer_size || energy_k <= -THRESHOLD / layer_size) ? energy_k : 0.0f;
}

// Ref1: one thread per cell, every particle read from global memory (all threads of a warp
// read the same particle: one broadcast load, served by L1 after the first block).
__global__ void ref1UpdateKernel(float* layer, int layer_size, const int* posval, int num_particles) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= layer_size) return;
  float value = layer[k];
  for (int j = 0; j < num_particles; ++j) {
    const float energy = (float)posval[2 * j + 1] * 1000;
    const float term = sequential_term(posval[2 * j], energy, k, layer_size);
    if (term != 0.0f) value = value + term;
  }
  layer[k] = value;
}

// The ladder's middle rung: the same arithmetic, particles staged in shared memory.
__global__ void stagedIeeeUpdateKernel(float* layer, int layer_size, const int* posval, int num_particles) {
  __shared__ int tile_position[TILE];
  __shared__ float tile_energy[TILE];
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  float value = k < layer_size ? layer[k] : 0.0f;
  for (int base = 0; base < num_particles; base += TILE) {
    const int j = base + threadIdx.x;
    if (j < num_particles) {
      const int2 pv = reinterpret_cast<const int2*>(posval)[j];
      tile_position[threadIdx.x] = pv.x;
      tile_energy[threadIdx.x] = (float)pv.y * 1000;
    }
    __syncthreads();
    const int count = min(TILE, num_particles - base);
    for (int t = 0; t < count; ++t) {
      const float term = sequential_term(tile_position[t], tile_energy[t], k, layer_size);
      if (term != 0.0f) value = value + term;
    }
    __syncthreads();
  }
  if (k < layer_size) layer[k] = value;
}

// Ref2's inner loop over a staged tile. Distances are taken from the block's first cell so that
// they stay exact in float on any layer (a float holds integers exactly only up to 2^24).
template <int COUNT>
__device__ __forceinline__ float add_tile(const float2* tile, int count, float local, float threshold, float value) {
#pragma unroll 16
  for (int t = 0; t < (COUNT > 0 ? COUNT : count); ++t) {
    const float2 p = tile[t];                          // (position - first cell, energy / layer_size)
    const float distance = fabsf(p.x - local) + 1.0f;  // |position - k| + 1
    const float energy_k = p.y * rsqrtf(distance);
    if (fabsf(energy_k) >= threshold) value += energy_k;
  }
  return value;
}

__global__ void __launch_bounds__(BLOCK_SIZE)
    ref2UpdateKernel(float* layer, int layer_size, const int* posval, int num_particles) {
  __shared__ float2 tile[TILE];
  const int first = blockIdx.x * BLOCK_SIZE;
  const int k = first + threadIdx.x;
  const float local = (float)threadIdx.x;
  const float reciprocal = 1.0f / layer_size;      // once, instead of a division per term
  const float threshold = THRESHOLD / layer_size;  // the sequential program's threshold
  float value = k < layer_size ? layer[k] : 0.0f;
  for (int base = 0; base < num_particles; base += TILE) {
    const int j = base + threadIdx.x;
    if (j < num_particles) {
      const int2 pv = reinterpret_cast<const int2*>(posval)[j];
      tile[threadIdx.x] = make_float2((float)(pv.x - first), (float)pv.y * 1000.0f * reciprocal);
    }
    __syncthreads();
    const int count = min(TILE, num_particles - base);
    value = count == TILE ? add_tile<TILE>(tile, count, local, threshold, value)
                          : add_tile<0>(tile, count, local, threshold, value);
    __syncthreads();
  }
  if (k < layer_size) layer[k] = value;
}

void launch_update(Update which, float* layer, int layer_size, const int* posval, int num_particles,
                   cudaStream_t stream) {
  if (num_particles == 0) return;
  const int grid = ceil_div(layer_size, BLOCK_SIZE);
  switch (which) {
    case Update::Ref1:
      CUDA_CHECK_LAUNCH(ref1UpdateKernel<<<grid, BLOCK_SIZE, 0, stream>>>(layer, layer_size, posval, num_particles));
      break;
    case Update::StagedIeee:
      CUDA_CHECK_LAUNCH(
          stagedIeeeUpdateKernel<<<grid, BLOCK_SIZE, 0, stream>>>(layer, layer_size, posval, num_particles));
      break;
    case Update::Ref2:
      CUDA_CHECK_LAUNCH(ref2UpdateKernel<<<grid, BLOCK_SIZE, 0, stream>>>(layer, layer_size, posval, num_particles));
      break;
  }
}

void ref1_update(float* layer, int layer_size, const int* posval, int num_particles, cudaStream_t stream) {
  launch_update(Update::Ref1, layer, layer_size, posval, num_particles, stream);
}
void ref2_update(float* layer, int layer_size, const int* posval, int num_particles, cudaStream_t stream) {
  launch_update(Update::Ref2, layer, layer_size, posval, num_particles, stream);
}

// ---- relax ----------------------------------------------------------------------------------

__global__ void copyKernel(float* copy, const float* layer, int layer_size) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < layer_size) copy[k] = layer[k];
}

// Reads only the copy, writes only the layer: no thread reads what another one writes, so the
// order in which blocks run does not matter. The kernel boundary is the grid-wide barrier.
__global__ void relaxKernel(float* layer, const float* copy, int layer_size) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= 1 && k < layer_size - 1) layer[k] = (copy[k - 1] + copy[k] + copy[k + 1]) / 3;
}

void relax(float* layer, float* layer_copy, int layer_size, cudaStream_t stream) {
  const int grid = ceil_div(layer_size, BLOCK_SIZE);
  CUDA_CHECK_LAUNCH(copyKernel<<<grid, BLOCK_SIZE, 0, stream>>>(layer_copy, layer, layer_size));
  CUDA_CHECK_LAUNCH(relaxKernel<<<grid, BLOCK_SIZE, 0, stream>>>(layer, layer_copy, layer_size));
}

// ---- maximum --------------------------------------------------------------------------------

constexpr int MAX_GRID = 1024;  // blocks of the first pass; the second pass is one block

// (v1, p1) beats (v2, p2): larger value, or the same value at a lower position.
__device__ __forceinline__ bool beats(float v1, int p1, float v2, int p2) { return v1 > v2 || (v1 == v2 && p1 < p2); }

// Tree reduction of the block's (value, position) pairs in shared memory; thread 0 gets the best.
__device__ void reduce_block(float* s_value, int* s_position, float& value, int& position) {
  s_value[threadIdx.x] = value;
  s_position[threadIdx.x] = position;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride && beats(s_value[threadIdx.x + stride], s_position[threadIdx.x + stride],
                                      s_value[threadIdx.x], s_position[threadIdx.x])) {
      s_value[threadIdx.x] = s_value[threadIdx.x + stride];
      s_position[threadIdx.x] = s_position[threadIdx.x + stride];
    }
    __syncthreads();
  }
  value = s_value[0];
  position = s_position[0];
}

// Pass 1: each thread walks its cells (grid-stride), keeps its best strict local maximum; the
// block reduces its threads' bests into one candidate per block.
__global__ void localMaximaKernel(const float* layer, int layer_size, float* candidate_values,
                                  int* candidate_positions) {
  __shared__ float s_value[BLOCK_SIZE];
  __shared__ int s_position[BLOCK_SIZE];
  float value = 0.0f;  // the sequential program's start: only values > 0 can win
  int position = 0;
  for (int k = blockIdx.x * blockDim.x + threadIdx.x + 1; k < layer_size - 1; k += gridDim.x * blockDim.x) {
    const float v = layer[k];
    if (v > layer[k - 1] && v > layer[k + 1] && beats(v, k, value, position)) {
      value = v;
      position = k;
    }
  }
  reduce_block(s_value, s_position, value, position);
  if (threadIdx.x == 0) {
    candidate_values[blockIdx.x] = value;
    candidate_positions[blockIdx.x] = position;
  }
}

// Pass 2: one block reduces the candidates.
__global__ void reduceCandidatesKernel(const float* candidate_values, const int* candidate_positions, int count,
                                       float* max_value, int* max_position) {
  __shared__ float s_value[BLOCK_SIZE];
  __shared__ int s_position[BLOCK_SIZE];
  float value = 0.0f;
  int position = 0;
  for (int i = threadIdx.x; i < count; i += blockDim.x)
    if (beats(candidate_values[i], candidate_positions[i], value, position)) {
      value = candidate_values[i];
      position = candidate_positions[i];
    }
  reduce_block(s_value, s_position, value, position);
  if (threadIdx.x == 0) {
    *max_value = value;
    *max_position = position;
  }
}

void maximum(const float* layer, int layer_size, float* candidate_values, int* candidate_positions, float* max_value,
             int* max_position, cudaStream_t stream) {
  const int grid = std::max(1, std::min(MAX_GRID, ceil_div(layer_size, BLOCK_SIZE)));
  CUDA_CHECK_LAUNCH(
      localMaximaKernel<<<grid, BLOCK_SIZE, 0, stream>>>(layer, layer_size, candidate_values, candidate_positions));
  CUDA_CHECK_LAUNCH(reduceCandidatesKernel<<<1, BLOCK_SIZE, 0, stream>>>(candidate_values, candidate_positions, grid,
                                                                         max_value, max_position));
}

}  // namespace

storm::Steps ref1_steps() { return {ref1_update, relax, maximum}; }
storm::Steps ref2_steps() { return {ref2_update, relax, maximum}; }

void update(Update which, float* layer, int layer_size, const int* posval, int num_particles, cudaStream_t stream) {
  launch_update(which, layer, layer_size, posval, num_particles, stream);
}

std::vector<storm::Result> simulate(int layer_size, const std::vector<storm::Storm>& storms,
                                    const storm::Steps& steps) {
  const int num_storms = static_cast<int>(storms.size());
  workbook::Stream stream;

  // Every storm's particles in one array, uploaded once.
  std::vector<int> posval;
  std::vector<std::size_t> first(num_storms);
  for (int i = 0; i < num_storms; ++i) {
    first[i] = posval.size();
    posval.insert(posval.end(), storms[i].posval.begin(), storms[i].posval.end());
  }
  workbook::DeviceBuffer<int> d_posval(std::max<std::size_t>(posval.size(), 2));
  if (!posval.empty())
    CUDA_CHECK(
        cudaMemcpyAsync(d_posval.data(), posval.data(), posval.size() * sizeof(int), cudaMemcpyHostToDevice, stream));

  // The layer lives on the device from start to end; it is zeroed there.
  workbook::DeviceBuffer<float> layer(layer_size), layer_copy(layer_size), candidate_values(layer_size);
  workbook::DeviceBuffer<int> candidate_positions(layer_size);
  workbook::DeviceBuffer<float> max_values(std::max(num_storms, 1));
  workbook::DeviceBuffer<int> max_positions(std::max(num_storms, 1));
  CUDA_CHECK(cudaMemsetAsync(layer.data(), 0, layer.bytes(), stream));

  for (int i = 0; i < num_storms; ++i) {
    steps.update(layer.data(), layer_size, d_posval.data() + first[i], storms[i].size(), stream);
    steps.relax(layer.data(), layer_copy.data(), layer_size, stream);
    steps.maximum(layer.data(), layer_size, candidate_values.data(), candidate_positions.data(), max_values.data() + i,
                  max_positions.data() + i, stream);
  }

  // The results, and nothing else, come back.
  std::vector<float> values(num_storms);
  std::vector<int> positions(num_storms);
  CUDA_CHECK(
      cudaMemcpyAsync(values.data(), max_values.data(), num_storms * sizeof(float), cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaMemcpyAsync(positions.data(), max_positions.data(), num_storms * sizeof(int), cudaMemcpyDeviceToHost,
                             stream));
  stream.synchronize();
  std::vector<storm::Result> results(num_storms);
  for (int i = 0; i < num_storms; ++i) results[i] = {positions[i], values[i]};
  return results;
}

std::vector<storm::Result> ref1_program(int layer_size, const std::vector<storm::Storm>& storms) {
  return storm_tiers::simulate(layer_size, storms, ref1_steps());
}
std::vector<storm::Result> ref2_program(int layer_size, const std::vector<storm::Storm>& storms) {
  return storm_tiers::simulate(layer_size, storms, ref2_steps());
}

}  // namespace storm_tiers
