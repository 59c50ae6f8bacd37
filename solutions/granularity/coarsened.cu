// BEGIN SOLUTION
// granularity, exercise 1 (reference solution): thread coarsening of the tiled kernel.
// STARTER
//| // granularity, exercise 1: YOUR CODE. Thread coarsening of the tiled kernel.
//| // Fill in the TODOs, then run
//| //     grader check granularity --filter "[coarsened]"
//| // The handout (README.md beside this file) explains the exercise.
// END SOLUTION
//
// Names follow PMPP (4th edition, section 6.3 "Thread coarsening"; the course notes' chapter 4 of
// the 3rd edition): Mds is the shared tile of A (the book's M), Nds the tiles of B (the book's N),
// Pvalue what a thread accumulates for an element of C (the book's P).
// BEGIN SOLUTION
// STARTER
//| //
//| // Shipped as is, this file builds and runs but computes nothing: the grader reports every
//| // case as incorrect (the output is filled with NaN before each call, and nothing overwrites it).
// END SOLUTION
#include "granularity.h"

#include "workbook/cuda_check.hpp"

#include <stdexcept>
#include <string>

namespace granularity {
namespace {

constexpr int TILE_WIDTH = 32;  // as the tiled kernel the grader compares against

// BEGIN SOLUTION
// STARTER
//| // Blocks needed to cover `a` items, `b` per block: rounded up, so the edge is covered too.
// END SOLUTION
// ([[maybe_unused]]: the starter leaves every call of it to you, and nvcc would warn.)
[[maybe_unused]] __host__ __device__ inline int ceil_div(int a, int b) { return (a + b - 1) / b; }

// BEGIN SOLUTION
// The tiled kernel computes one element of C per thread, and the blocks that compute the tiles
// of C to the right of each other each load the SAME tile of A: the notes' "d_P(5, 5) and
// d_P(5, 5 + TILE_WIDTH) use the tiles of M twice". Here one block computes COARSE_FACTOR
// adjacent tiles of C in the same row of tiles: it loads the tile of A once per phase, and
// COARSE_FACTOR tiles of B, and each thread accumulates COARSE_FACTOR elements of C:
// STARTER
//| // One block computes COARSE_FACTOR adjacent TILE_WIDTH x TILE_WIDTH tiles of C in the same row of
//| // tiles; thread (ty, tx) computes COARSE_FACTOR elements of C, all in row Row, in columns
// END SOLUTION
//
//     Col(c) = (COARSE_FACTOR * bx + c) * TILE_WIDTH + tx,   c = 0 .. COARSE_FACTOR - 1
//
// BEGIN SOLUTION
// which for COARSE_FACTOR 2 is the notes' Col1 = (2*bx)*TILE_WIDTH + tx and
// Col2 = (2*bx + 1)*TILE_WIDTH + tx. The notes kept one tile of B per output (N1ds, N2ds), so
// that one pair of barriers serves all of them; so does this kernel, with Nds[c].
//
// What is saved: per FMA, the tiled kernel reads Mds[ty][k] and Nds[k][tx] from shared memory.
// Here Mds[ty][k] is read once into a register and used for COARSE_FACTOR FMAs, but every FMA
// still reads its own Nds[c][k][tx]. Shared-memory reads per FMA fall from 2 to
// 1 + 1/COARSE_FACTOR (1.5 for 2, 1.25 for 4), no lower: that is why coarsening alone gains
// little (see the handout's measurements).
// STARTER
//| // (for COARSE_FACTOR 2, the notes' Col1 and Col2). They all need the same row of A, so the block
//| // loads each tile of A once and uses it for all of them.
// END SOLUTION
template <int COARSE_FACTOR>
__global__ void coarsenedKernel(const float* A, const float* B, float* C, int M, int N, int K) {
  // BEGIN SOLUTION coarsened
  __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
  __shared__ float Nds[COARSE_FACTOR][TILE_WIDTH][TILE_WIDTH];

  const int bx = blockIdx.x, by = blockIdx.y;
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int Row = by * TILE_WIDTH + ty;
  const int colStart = COARSE_FACTOR * bx * TILE_WIDTH + tx;  // Col(0); Col(c) adds c * TILE_WIDTH

  float Pvalue[COARSE_FACTOR];
#pragma unroll
  for (int c = 0; c < COARSE_FACTOR; ++c) Pvalue[c] = 0.0f;

  const int numPhases = ceil_div(K, TILE_WIDTH);
  for (int ph = 0; ph < numPhases; ++ph) {
    // One tile of A, loaded once for all COARSE_FACTOR outputs; zero-padded past the edges.
    const int aCol = ph * TILE_WIDTH + tx;
    Mds[ty][tx] = (Row < M && aCol < K) ? A[Row * K + aCol] : 0.0f;
    // COARSE_FACTOR tiles of B, side by side.
    const int bRow = ph * TILE_WIDTH + ty;
#pragma unroll
    for (int c = 0; c < COARSE_FACTOR; ++c) {
      const int Col = colStart + c * TILE_WIDTH;
      Nds[c][ty][tx] = (bRow < K && Col < N) ? B[bRow * N + Col] : 0.0f;
    }
    __syncthreads();  // all tiles loaded before anyone reads them

#pragma unroll
    for (int k = 0; k < TILE_WIDTH; ++k) {
      const float Mvalue = Mds[ty][k];  // read once, used COARSE_FACTOR times
#pragma unroll
      for (int c = 0; c < COARSE_FACTOR; ++c) Pvalue[c] += Mvalue * Nds[c][k][tx];
    }
    __syncthreads();  // everyone done with the tiles before the next phase overwrites them
  }

#pragma unroll
  for (int c = 0; c < COARSE_FACTOR; ++c) {
    const int Col = colStart + c * TILE_WIDTH;
    if (Row < M && Col < N) C[Row * N + Col] = Pvalue[c];
  }
  // STARTER
  //| // TODO(coarsened): declare the tiles in shared memory:
  //| //   Mds: TILE_WIDTH x TILE_WIDTH floats, one tile of A;
  //| //   Nds: COARSE_FACTOR tiles of B, TILE_WIDTH x TILE_WIDTH each (Nds[c][ty][tx]), like the
  //| //        notes' N1ds and N2ds, so that one pair of barriers serves all of them.
  //| //
  //| // TODO(coarsened): Row = by * TILE_WIDTH + ty, and the first column
  //| //   colStart = COARSE_FACTOR * bx * TILE_WIDTH + tx; Col(c) = colStart + c * TILE_WIDTH.
  //| //
  //| // TODO(coarsened): float Pvalue[COARSE_FACTOR], all 0. (A small array indexed only by
  //| //   loop counters of unrolled loops stays in registers; `#pragma unroll` before each loop
  //| //   over c makes sure.)
  //| //
  //| // TODO(coarsened): loop over the phases ph = 0 .. ceil_div(K, TILE_WIDTH) - 1:
  //| //   1. load ONE element of the A tile into Mds[ty][tx] (0.0f past the edges of A), and for
  //| //      each c, ONE element of the c-th B tile into Nds[c][ty][tx] (0.0f past the edges of B:
  //| //      check the row against K and Col(c) against N);
  //| //   2. __syncthreads();
  //| //   3. for k = 0 .. TILE_WIDTH - 1: read Mds[ty][k] once into a register, then for each c
  //| //      add it times Nds[c][k][tx] to Pvalue[c];
  //| //   4. __syncthreads().
  //| //
  //| // TODO(coarsened): for each c, if (Row < M && Col(c) < N), store Pvalue[c] in C[Row][Col(c)].
  // END SOLUTION
}

template <int COARSE_FACTOR>
void launchCoarsened(const float* A, const float* B, float* C, int M, int N, int K, cudaStream_t stream) {
  const dim3 block(TILE_WIDTH, TILE_WIDTH);
  // BEGIN SOLUTION coarsened
  // A block covers TILE_WIDTH rows and COARSE_FACTOR * TILE_WIDTH columns of C: the grid has
  // COARSE_FACTOR times fewer blocks along x than the tiled kernel's (rounded up).
  const dim3 grid(ceil_div(N, COARSE_FACTOR * TILE_WIDTH), ceil_div(M, TILE_WIDTH));
  // STARTER
  //| // TODO(coarsened): a block covers TILE_WIDTH rows and COARSE_FACTOR * TILE_WIDTH columns of
  //| //   C: enough blocks for all of C, rounded up with ceil_div.
  //| const dim3 grid(1, 1);
  // END SOLUTION
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
