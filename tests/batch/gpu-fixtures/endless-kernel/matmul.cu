// matmul-tiled: FIXTURE for the GPU batch test (tests/batch/gpu-batch.sh): naive's first thread never finishes (a kernel that never ends).
//
// Names follow Programming Massively Parallel Processors (PMPP), chapters 3 and 5: the book
// multiplies M x N into P; here A x B into C, but the tiles keep the book's names, so Mds holds
// a tile of A (the book's M) and Nds a tile of B (the book's N), and Pvalue is the dot product
// one thread accumulates for its element of C (the book's P).
#include "matmul.h"

#include "workbook/cuda_check.hpp"

#include <stdexcept>
#include <string>

namespace matmul {
namespace {

constexpr int BLOCK_WIDTH = 16;  // naive: 16 x 16 = 256 threads per block

// Blocks needed to cover `a` items, `b` per block: rounded up, so the edge is covered too.
__host__ __device__ inline int ceil_div(int a, int b) { return (a + b - 1) / b; }

// One thread per element of C. x runs along the columns: a warp of a 16 x 16 block is two rows
// of 16 threads with consecutive Col, so their reads of B[k * N + Col] fall in two runs of
// consecutive addresses (coalesced), and each row's threads read the same A[Row * K + k]
// (a broadcast).
__global__ void naiveKernel(const float* A, const float* B, float* C, int M, int N, int K) {
  const int Row = blockIdx.y * blockDim.y + threadIdx.y;
  const int Col = blockIdx.x * blockDim.x + threadIdx.x;
  if (Row < M && Col < N) {  // the grid is rounded up: threads past the edge do nothing
    if (Row == 0 && Col == 0) {
      // BUG: never ends. clock64() reads a hardware counter (a side effect the compiler keeps),
      // and the counter never runs backwards.
      const long long start = clock64();
      while (clock64() >= start) {
      }
    }
    float Pvalue = 0.0f;
    for (int k = 0; k < K; ++k) Pvalue += A[Row * K + k] * B[k * N + Col];
    C[Row * N + Col] = Pvalue;
  }
}

// Tiled: each block computes a TILE_WIDTH x TILE_WIDTH tile of C. In each phase ph the block
// loads one tile of A and one of B into shared memory, each thread loading one element of each,
// then every thread reads TILE_WIDTH values of each tile from shared memory. Every element
// loaded from global memory is used TILE_WIDTH times: global traffic drops by TILE_WIDTH.
template <int TILE_WIDTH>
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
    // Boundary checks: a tile that hangs over the edge of A or B is padded with zeros, which
    // add nothing to the dot product. Every thread still loads and reaches both barriers.
    const int aCol = ph * TILE_WIDTH + tx;
    const int bRow = ph * TILE_WIDTH + ty;
    Mds[ty][tx] = (Row < M && aCol < K) ? A[Row * K + aCol] : 0.0f;
    Nds[ty][tx] = (bRow < K && Col < N) ? B[bRow * N + Col] : 0.0f;
    __syncthreads();  // the whole tile is loaded before anyone reads it

    for (int k = 0; k < TILE_WIDTH; ++k) Pvalue += Mds[ty][k] * Nds[k][tx];
    __syncthreads();  // everyone is done with this tile before the next phase overwrites it
  }
  if (Row < M && Col < N) C[Row * N + Col] = Pvalue;
}

template <int TILE_WIDTH>
void launchTiled(const float* A, const float* B, float* C, int M, int N, int K, cudaStream_t stream) {
  const dim3 block(TILE_WIDTH, TILE_WIDTH);
  const dim3 grid(ceil_div(N, TILE_WIDTH), ceil_div(M, TILE_WIDTH));
  CUDA_CHECK_LAUNCH(tiledKernel<TILE_WIDTH><<<grid, block, 0, stream>>>(A, B, C, M, N, K));
}

}  // namespace

void naive(const float* A, const float* B, float* C, int M, int N, int K, cudaStream_t stream) {
  const dim3 block(BLOCK_WIDTH, BLOCK_WIDTH);
  const dim3 grid(ceil_div(N, BLOCK_WIDTH), ceil_div(M, BLOCK_WIDTH));
  CUDA_CHECK_LAUNCH(naiveKernel<<<grid, block, 0, stream>>>(A, B, C, M, N, K));
}

void tiled(const float* A, const float* B, float* C, int M, int N, int K, int tile_width,
           cudaStream_t stream) {
  switch (tile_width) {
    case 16: launchTiled<16>(A, B, C, M, N, K, stream); break;
    case 32: launchTiled<32>(A, B, C, M, N, K, stream); break;
    default: throw std::invalid_argument("tile_width must be 16 or 32, not " + std::to_string(tile_width));
  }
}

}  // namespace matmul
