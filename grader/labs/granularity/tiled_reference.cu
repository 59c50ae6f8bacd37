// The yardstick (tiled_reference.hpp): PMPP's tiled kernel with boundary checks, TILE_WIDTH 32,
// exactly as in solutions/matmul-tiled/matmul.cu.
#include "tiled_reference.hpp"

#include "workbook/cuda_check.hpp"

namespace granularity_grading {
namespace {

constexpr int TILE_WIDTH = 32;

__host__ __device__ inline int ceil_div(int a, int b) { return (a + b - 1) / b; }

__global__ void tiledKernel(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
  __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];

  const int bx = blockIdx.x, by = blockIdx.y;
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int Row = by * TILE_WIDTH + ty;
  const int Col = bx * TILE_WIDTH + tx;

  float Pvalue = 0.0f;
  const int numPhases = ceil_div(K, TILE_WIDTH);
  for (int ph = 0; ph < numPhases; ++ph) {
    const int aCol = ph * TILE_WIDTH + tx;
    const int bRow = ph * TILE_WIDTH + ty;
    Mds[ty][tx] = (Row < M && aCol < K) ? A[Row * K + aCol] : 0.0f;
    Nds[ty][tx] = (bRow < K && Col < N) ? B[bRow * N + Col] : 0.0f;
    __syncthreads();
    for (int k = 0; k < TILE_WIDTH; ++k) Pvalue += Mds[ty][k] * Nds[k][tx];
    __syncthreads();
  }
  if (Row < M && Col < N) C[Row * N + Col] = Pvalue;
}

}  // namespace

void tiled32(const float* A, const float* B, float* C, int M, int N, int K, cudaStream_t stream) {
  const dim3 block(TILE_WIDTH, TILE_WIDTH);
  const dim3 grid(ceil_div(N, TILE_WIDTH), ceil_div(M, TILE_WIDTH));
  CUDA_CHECK_LAUNCH(tiledKernel<<<grid, block, 0, stream>>>(A, B, C, M, N, K));
}

}  // namespace granularity_grading
