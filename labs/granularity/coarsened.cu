// granularity, exercise 1: YOUR CODE. Thread coarsening of the tiled kernel.
// Fill in the TODOs, then run
//     grader check granularity --filter "[coarsened]"
// The handout (README.md beside this file) explains the exercise.
//
// Names follow PMPP (4th edition, section 6.3 "Thread coarsening"; the course notes' chapter 4 of
// the 3rd edition): Mds is the shared tile of A (the book's M), Nds the tiles of B (the book's N),
// Pvalue what a thread accumulates for an element of C (the book's P).
//
// Shipped as is, this file builds and runs but computes nothing: the grader reports every
// case as incorrect (the output is filled with NaN before each call, and nothing overwrites it).
#include "granularity.h"

#include "workbook/cuda_check.hpp"

#include <stdexcept>
#include <string>

namespace granularity {
namespace {

constexpr int TILE_WIDTH = 32;  // as the tiled kernel the grader compares against

// Blocks needed to cover `a` items, `b` per block: rounded up, so the edge is covered too.
// ([[maybe_unused]]: the starter leaves every call of it to you, and nvcc would warn.)
[[maybe_unused]] __host__ __device__ inline int ceil_div(int a, int b) { return (a + b - 1) / b; }

// One block computes COARSE_FACTOR adjacent TILE_WIDTH x TILE_WIDTH tiles of C in the same row of
// tiles; thread (ty, tx) computes COARSE_FACTOR elements of C, all in row Row, in columns
//
//     Col(c) = (COARSE_FACTOR * bx + c) * TILE_WIDTH + tx,   c = 0 .. COARSE_FACTOR - 1
//
// (for COARSE_FACTOR 2, the notes' Col1 and Col2). They all need the same row of A, so the block
// loads each tile of A once and uses it for all of them.
template <int COARSE_FACTOR>
__global__ void coarsenedKernel(const float* A, const float* B, float* C, int M, int N, int K) {
  // TODO(coarsened): declare the tiles in shared memory:
  //   Mds: TILE_WIDTH x TILE_WIDTH floats, one tile of A;
  //   Nds: COARSE_FACTOR tiles of B, TILE_WIDTH x TILE_WIDTH each (Nds[c][ty][tx]), like the
  //        notes' N1ds and N2ds, so that one pair of barriers serves all of them.
  //
  // TODO(coarsened): Row = by * TILE_WIDTH + ty, and the first column
  //   colStart = COARSE_FACTOR * bx * TILE_WIDTH + tx; Col(c) = colStart + c * TILE_WIDTH.
  //
  // TODO(coarsened): float Pvalue[COARSE_FACTOR], all 0. (A small array indexed only by
  //   loop counters of unrolled loops stays in registers; `#pragma unroll` before each loop
  //   over c makes sure.)
  //
  // TODO(coarsened): loop over the phases ph = 0 .. ceil_div(K, TILE_WIDTH) - 1:
  //   1. load ONE element of the A tile into Mds[ty][tx] (0.0f past the edges of A), and for
  //      each c, ONE element of the c-th B tile into Nds[c][ty][tx] (0.0f past the edges of B:
  //      check the row against K and Col(c) against N);
  //   2. __syncthreads();
  //   3. for k = 0 .. TILE_WIDTH - 1: read Mds[ty][k] once into a register, then for each c
  //      add it times Nds[c][k][tx] to Pvalue[c];
  //   4. __syncthreads().
  //
  // TODO(coarsened): for each c, if (Row < M && Col(c) < N), store Pvalue[c] in C[Row][Col(c)].
}

template <int COARSE_FACTOR>
void launchCoarsened(const float* A, const float* B, float* C, int M, int N, int K, cudaStream_t stream) {
  const dim3 block(TILE_WIDTH, TILE_WIDTH);
  // TODO(coarsened): a block covers TILE_WIDTH rows and COARSE_FACTOR * TILE_WIDTH columns of
  //   C: enough blocks for all of C, rounded up with ceil_div.
  const dim3 grid(1, 1);
  CUDA_CHECK_LAUNCH(coarsenedKernel<COARSE_FACTOR><<<grid, block, 0, stream>>>(A, B, C, M, N, K));
}

}  // namespace

void coarsened(const float* A, const float* B, float* C, int M, int N, int K, int coarse_factor,
               cudaStream_t stream) {
  switch (coarse_factor) {
    case 2: launchCoarsened<2>(A, B, C, M, N, K, stream); break;
    case 4: launchCoarsened<4>(A, B, C, M, N, K, stream); break;
    default: throw std::invalid_argument("coarse_factor must be 2 or 4, not " + std::to_string(coarse_factor));
  }
}

}  // namespace granularity
