// BEGIN SOLUTION
// matmul-tiled: reference solution.
// STARTER
//| // matmul-tiled: YOUR CODE. Fill in the TODOs, then run
//| //     grader check matmul-tiled
//| // The handout (README.md beside this file) explains each exercise.
// END SOLUTION
//
// Names follow Programming Massively Parallel Processors (PMPP), chapters 3 and 5: the book
// multiplies M x N into P; here A x B into C, but the tiles keep the book's names, so Mds holds
// a tile of A (the book's M) and Nds a tile of B (the book's N), and Pvalue is the dot product
// one thread accumulates for its element of C (the book's P).
// BEGIN SOLUTION
// STARTER
//| //
//| // Shipped as is, this file builds and runs but computes nothing: the grader reports every
//| // case as incorrect (the output is filled with NaN before each call, and nothing overwrites it).
// END SOLUTION
#include "matmul.h"

#include "workbook/cuda_check.hpp"

#include <stdexcept>
#include <string>

namespace matmul {
namespace {

constexpr int BLOCK_WIDTH = 16;  // naive: 16 x 16 = 256 threads per block

// Blocks needed to cover `a` items, `b` per block: rounded up, so the edge is covered too.
// ([[maybe_unused]]: the starter leaves every call of it to you, and nvcc would warn.)
[[maybe_unused]] __host__ __device__ inline int ceil_div(int a, int b) { return (a + b - 1) / b; }

// BEGIN SOLUTION
// One thread per element of C. x runs along the columns: a warp of a 16 x 16 block is two rows
// of 16 threads with consecutive Col, so their reads of B[k * N + Col] fall in two runs of
// consecutive addresses (coalesced), and each row's threads read the same A[Row * K + k]
// (a broadcast).
// STARTER
//| // ---------------------------------------------------------------------------------------------
//| // Exercise 1: naive. One thread per element of C, everything read from global memory.
//| // ---------------------------------------------------------------------------------------------
// END SOLUTION
__global__ void naiveKernel(const float* A, const float* B, float* C, int M, int N, int K) {
  // BEGIN SOLUTION naive
  const int Row = blockIdx.y * blockDim.y + threadIdx.y;
  const int Col = blockIdx.x * blockDim.x + threadIdx.x;
  if (Row < M && Col < N) {  // the grid is rounded up: threads past the edge do nothing
    float Pvalue = 0.0f;
    for (int k = 0; k < K; ++k) Pvalue += A[Row * K + k] * B[k * N + Col];
    C[Row * N + Col] = Pvalue;
  }
  // STARTER
  //| // TODO(naive): compute one element of C.
  //| //   1. Row and Col of this thread's element, from blockIdx, blockDim and threadIdx. Let x run
  //| //      along the columns (Col), so that the threads of a warp read neighbouring elements of B.
  //| //   2. The grid is rounded up, so some threads fall past the edge of C: only threads with
  //| //      Row < M and Col < N may read or write.
  //| //   3. Pvalue = sum over k of A[Row][k] * B[k][Col]   (row-major: A[Row][k] is A[Row * K + k])
  //| //   4. Store Pvalue in C[Row][Col].
  // END SOLUTION
}

// BEGIN SOLUTION
// Tiled: each block computes a TILE_WIDTH x TILE_WIDTH tile of C. In each phase ph the block
// loads one tile of A and one of B into shared memory, each thread loading one element of each,
// then every thread reads TILE_WIDTH values of each tile from shared memory. Every element
// loaded from global memory is used TILE_WIDTH times: global traffic drops by TILE_WIDTH.
// STARTER
//| // ---------------------------------------------------------------------------------------------
//| // Exercise 2: tiled. The same product, staging TILE_WIDTH x TILE_WIDTH tiles in shared memory.
//| // ---------------------------------------------------------------------------------------------
// END SOLUTION
template <int TILE_WIDTH>
__global__ void tiledKernel(const float* A, const float* B, float* C, int M, int N, int K) {
  // BEGIN SOLUTION tiled
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
  // STARTER
  //| // TODO(tiled): declare the two tiles in shared memory, Mds (from A) and Nds (from B), each
  //| //   TILE_WIDTH x TILE_WIDTH floats.
  //| //
  //| // TODO(tiled): Row and Col as in naive, from by * TILE_WIDTH + ty and bx * TILE_WIDTH + tx.
  //| //
  //| // TODO(tiled): loop over the phases ph = 0 .. ceil_div(K, TILE_WIDTH) - 1. In each phase:
  //| //   1. each thread loads ONE element of the A tile into Mds[ty][tx] and ONE element of the B
  //| //      tile into Nds[ty][tx]. Boundary check: an element outside A or B (a tile hanging over
  //| //      the edge when M, N or K is not a multiple of TILE_WIDTH) is stored as 0.0f, which adds
  //| //      nothing to the sum. Do not skip the load or the barrier for such threads.
  //| //   2. __syncthreads(): nobody reads the tiles before everybody has written them.
  //| //   3. Pvalue += Mds[ty][k] * Nds[k][tx] for k = 0 .. TILE_WIDTH - 1.
  //| //   4. __syncthreads(): nobody overwrites the tiles while a slower thread still reads them.
  //| //
  //| // TODO(tiled): if (Row < M && Col < N), store Pvalue in C[Row][Col].
  // END SOLUTION
}

template <int TILE_WIDTH>
void launchTiled(const float* A, const float* B, float* C, int M, int N, int K, cudaStream_t stream) {
  const dim3 block(TILE_WIDTH, TILE_WIDTH);
  // BEGIN SOLUTION tiled
  const dim3 grid(ceil_div(N, TILE_WIDTH), ceil_div(M, TILE_WIDTH));
  // STARTER
  //| // TODO(tiled): one block per TILE_WIDTH x TILE_WIDTH tile of C, rounded up as in naive().
  //| const dim3 grid(1, 1);
  // END SOLUTION
  CUDA_CHECK_LAUNCH(tiledKernel<TILE_WIDTH><<<grid, block, 0, stream>>>(A, B, C, M, N, K));
}

}  // namespace

void naive(const float* A, const float* B, float* C, int M, int N, int K, cudaStream_t stream) {
  const dim3 block(BLOCK_WIDTH, BLOCK_WIDTH);
  // BEGIN SOLUTION naive
  const dim3 grid(ceil_div(N, BLOCK_WIDTH), ceil_div(M, BLOCK_WIDTH));
  // STARTER
  //| // TODO(naive): enough blocks to cover all of C: N columns and M rows, BLOCK_WIDTH per block
  //| //   in each direction, rounded UP (use ceil_div) so the last partial block is launched too.
  //| const dim3 grid(1, 1);
  // END SOLUTION
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
