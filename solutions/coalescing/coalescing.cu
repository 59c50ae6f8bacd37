// BEGIN SOLUTION
// coalescing: reference solution.
// STARTER
//| // coalescing: YOUR CODE. Fill in the TODOs, then run
//| //     grader check coalescing
//| // The handout (README.md beside this file) explains each exercise.
// END SOLUTION
//
// Part 1 adds two matrices with four thread mappings, the course notes' experiment; part 2 is the
// transpose ladder of Harris, "An Efficient Matrix Transpose in CUDA C/C++" (TILE_DIM,
// BLOCK_ROWS), and PMPP's chapter on memory coalescing. Every matrix is row-major: element
// [row][col] of an M x N matrix is at [row * N + col].
//
// The pointers are __restrict__: A, B and C never overlap, and saying so lets the compiler issue
// a thread's loads before its earlier stores, so several loads are in flight at once.
// BEGIN SOLUTION
// STARTER
//| //
//| // Shipped as is, this file builds and runs but computes nothing: the grader reports every
//| // case as incorrect (the output is filled with NaN before each call, and nothing overwrites it).
// END SOLUTION
#include "coalescing.h"

#include "workbook/cuda_check.hpp"

#include <cstddef>

namespace coalescing {
namespace {

// Blocks needed to cover `a` items, `b` per block: rounded up, so the edge is covered too.
// ([[maybe_unused]]: the starter leaves every call of it to you, and nvcc would warn.)
[[maybe_unused]] __host__ __device__ inline int ceil_div(int a, int b) { return (a + b - 1) / b; }

// =============================================================================================
// Part 1: matrix add, C = A + B
// =============================================================================================

// 2D blocks of 32 x 8 threads: threadIdx.x runs 0..31, so a warp is one "row" of the block
// (a fixed threadIdx.y, all 32 values of threadIdx.x). Which matrix direction x runs along
// decides whether a warp's 32 accesses are neighbours in memory.
constexpr int BLOCK_X = 32;
constexpr int BLOCK_Y = 8;

// add_per_row / add_per_column: 1D blocks. With only M (or N) threads in all, small blocks
// spread them over more SMs: 16384 threads make 256 blocks of 64, two per SM on an H100.
constexpr int LINE_BLOCK = 64;

// BEGIN SOLUTION
// x on the columns: the 32 threads of a warp have consecutive col and the same row, so each of
// their loads and stores covers 32 consecutive floats of one row, 128 bytes: one coalesced access.
// STARTER
//| // Use std::size_t for an element's index, row * N + col: a 16384 x 16384 matrix is still
//| // within int, but a larger one is not.
//|
//| // ---------------------------------------------------------------------------------------------
//| // Exercise add_x_cols: one thread per element, x on the columns.
//| // ---------------------------------------------------------------------------------------------
// END SOLUTION
__global__ void addXColsKernel(const float* __restrict__ A, const float* __restrict__ B,
                               float* __restrict__ C, int M, int N) {
  // BEGIN SOLUTION add_x_cols
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < M && col < N) {
    const std::size_t i = static_cast<std::size_t>(row) * N + col;
    C[i] = A[i] + B[i];
  }
  // STARTER
  //| // TODO(add_x_cols):
  //| //   1. col = blockIdx.x * blockDim.x + threadIdx.x   (x runs along the columns)
  //| //      row = blockIdx.y * blockDim.y + threadIdx.y
  //| //   2. The grid is rounded up, so some threads fall past the edge: only threads with
  //| //      row < M and col < N may read or write.
  //| //   3. C[row][col] = A[row][col] + B[row][col]   (row-major: [row][col] is [row * N + col]).
  // END SOLUTION
}

// BEGIN SOLUTION
// x on the rows: the same kernel with the roles of x and y swapped. The 32 threads of a warp
// have consecutive row and the same col, so their addresses are N floats apart: each load or
// store of the warp touches 32 different 32-byte sectors and uses 4 bytes of each.
// STARTER
//| // ---------------------------------------------------------------------------------------------
//| // Exercise add_x_rows: x on the rows, one element per thread.
//| // ---------------------------------------------------------------------------------------------
// END SOLUTION
__global__ void addXRowsKernel(const float* __restrict__ A, const float* __restrict__ B,
                               float* __restrict__ C, int M, int N) {
  // BEGIN SOLUTION add_x_rows
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  const int col = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < M && col < N) {
    const std::size_t i = static_cast<std::size_t>(row) * N + col;
    C[i] = A[i] + B[i];
  }
  // STARTER
  //| // TODO(add_x_rows): addXColsKernel with the roles of x and y swapped, on purpose:
  //| //   row = blockIdx.x * blockDim.x + threadIdx.x,  col = blockIdx.y * blockDim.y + threadIdx.y;
  //| //   if row < M and col < N: C[row][col] = A[row][col] + B[row][col].
  // END SOLUTION
}

// BEGIN SOLUTION
// One thread per row: at every step of the loop the warp's 32 threads read column col of 32
// different rows, N floats apart (uncoalesced). But the next steps read the rest of the same
// 128-byte lines: while those lines stay in the L1 cache, only the first step goes further.
// The stores get no such help: L1 does not gather written data, so every store of the warp
// sends 32 separate 4-byte pieces to L2.
// STARTER
//| // ---------------------------------------------------------------------------------------------
//| // Exercise add_per_row: one thread per row.
//| // ---------------------------------------------------------------------------------------------
// END SOLUTION
__global__ void addPerRowKernel(const float* __restrict__ A, const float* __restrict__ B,
                                float* __restrict__ C, int M, int N) {
  // BEGIN SOLUTION add_per_row
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= M) return;
  const std::size_t rowStart = static_cast<std::size_t>(row) * N;
  for (int col = 0; col < N; ++col) C[rowStart + col] = A[rowStart + col] + B[rowStart + col];
  // STARTER
  //| // TODO(add_per_row): row = blockIdx.x * blockDim.x + threadIdx.x; if row < M, loop
  //| //   col = 0 .. N - 1 and add the whole row.
  // END SOLUTION
}

// BEGIN SOLUTION
// One thread per column: at every step the warp's 32 threads read 32 consecutive columns of
// one row (coalesced), then move down a row. Few threads, but every access is a full line.
// STARTER
//| // ---------------------------------------------------------------------------------------------
//| // Exercise add_per_column: one thread per column.
//| // ---------------------------------------------------------------------------------------------
// END SOLUTION
__global__ void addPerColumnKernel(const float* __restrict__ A, const float* __restrict__ B,
                                   float* __restrict__ C, int M, int N) {
  // BEGIN SOLUTION add_per_column
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (col >= N) return;
  for (int row = 0; row < M; ++row) {
    const std::size_t i = static_cast<std::size_t>(row) * N + col;
    C[i] = A[i] + B[i];
  }
  // STARTER
  //| // TODO(add_per_column): col = blockIdx.x * blockDim.x + threadIdx.x; if col < N, loop
  //| //   row = 0 .. M - 1 and add the whole column.
  // END SOLUTION
}

// =============================================================================================
// BEGIN SOLUTION
// Part 2: transpose, out (N x M) = in (M x N) transposed
// STARTER
//| // Part 2: transpose, out (N x M) = in (M x N) transposed: out[col][row] = in[row][col]
// END SOLUTION
// =============================================================================================

// A block of TILE_DIM x BLOCK_ROWS threads moves one TILE_DIM x TILE_DIM tile: each thread
// handles TILE_DIM / BLOCK_ROWS = 4 elements, BLOCK_ROWS rows apart.
constexpr int TILE_DIM = 32;
constexpr int BLOCK_ROWS = 8;

// BEGIN SOLUTION
// Naive: read in[row][col] with x along the columns of in (coalesced), write out[col][row]
// directly. Neighbouring threads write addresses M floats apart: every store is scattered.
// STARTER
//| // ---------------------------------------------------------------------------------------------
//| // Exercise transpose_naive
//| // ---------------------------------------------------------------------------------------------
// END SOLUTION
__global__ void transposeNaiveKernel(const float* __restrict__ in, float* __restrict__ out, int M, int N) {
  // BEGIN SOLUTION transpose_naive
  const int col = blockIdx.x * TILE_DIM + threadIdx.x;
  const int row = blockIdx.y * TILE_DIM + threadIdx.y;
  if (col >= N) return;  // no barrier in this kernel: threads past the edge may leave
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (row + j < M) out[static_cast<std::size_t>(col) * M + row + j] = in[static_cast<std::size_t>(row + j) * N + col];
  // STARTER
  //| // TODO(transpose_naive): this block's tile of in starts at row blockIdx.y * TILE_DIM and
  //| //   column blockIdx.x * TILE_DIM.
  //| //   1. col = blockIdx.x * TILE_DIM + threadIdx.x (x along the columns of in: coalesced reads);
  //| //      row = blockIdx.y * TILE_DIM + threadIdx.y.
  //| //   2. For j = 0, BLOCK_ROWS, 2 * BLOCK_ROWS, ... < TILE_DIM: if row + j < M and col < N,
  //| //      out[col][row + j] = in[row + j][col]. Remember out is N x M: out[c][r] is out[c * M + r].
  // END SOLUTION
}

// BEGIN SOLUTION
// Tiled: the block reads a tile of in row by row (coalesced) into shared memory, then writes
// the transposed tile to out row by row (coalesced). The transposition itself happens in shared
// memory: threads read the tile down its columns, tile[threadIdx.x][...].
// STARTER
//| // ---------------------------------------------------------------------------------------------
//| // Exercise transpose_tiled (keep the kernel's name: the static check looks for it)
//| // ---------------------------------------------------------------------------------------------
// END SOLUTION
__global__ void transposeTiledKernel(const float* __restrict__ in, float* __restrict__ out, int M, int N) {
  // BEGIN SOLUTION transpose_tiled
  __shared__ float tile[TILE_DIM][TILE_DIM];

  // This block's tile of in: rows blockIdx.y * TILE_DIM .., columns blockIdx.x * TILE_DIM ..
  int x = blockIdx.x * TILE_DIM + threadIdx.x;  // column of in
  int y = blockIdx.y * TILE_DIM + threadIdx.y;  // row of in
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (y + j < M && x < N) tile[threadIdx.y + j][threadIdx.x] = in[static_cast<std::size_t>(y + j) * N + x];

  __syncthreads();  // the whole tile is in shared memory before anyone reads it transposed

  // The same tile in out sits at the mirrored place: its rows are in's columns. Swap the
  // block indices, keep x on the fast (column) index of out, so the stores are coalesced too.
  x = blockIdx.y * TILE_DIM + threadIdx.x;  // column of out = row of in
  y = blockIdx.x * TILE_DIM + threadIdx.y;  // row of out = column of in
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (y + j < N && x < M) out[static_cast<std::size_t>(y + j) * M + x] = tile[threadIdx.x][threadIdx.y + j];
  // STARTER
  //| // TODO(transpose_tiled):
  //| //   1. Declare the tile: TILE_DIM x TILE_DIM floats in shared memory.
  //| //   2. Load: x = blockIdx.x * TILE_DIM + threadIdx.x (column of in),
  //| //      y = blockIdx.y * TILE_DIM + threadIdx.y (row of in); for each j as in naive,
  //| //      tile[threadIdx.y + j][threadIdx.x] = in[y + j][x] when y + j < M and x < N.
  //| //   3. __syncthreads(): the whole tile is loaded before anyone reads it. Every thread of the
  //| //      block must reach it: no early return above it.
  //| //   4. Store the transposed tile: swap the BLOCK indices, keep threadIdx.x on the columns of
  //| //      out so the stores are coalesced too:
  //| //      x = blockIdx.y * TILE_DIM + threadIdx.x (column of out = row of in),
  //| //      y = blockIdx.x * TILE_DIM + threadIdx.y (row of out = column of in);
  //| //      out[y + j][x] = tile[threadIdx.x][threadIdx.y + j] when y + j < N and x < M.
  // END SOLUTION
}

// BEGIN SOLUTION
// Padded: the same kernel with one extra column in the tile. Shared memory has 32 banks of
// 4 bytes; element [r][c] of a TILE_DIM-wide float tile lives in bank (r * 32 + c) % 32 = c, so
// the 32 threads of a warp reading tile[threadIdx.x][k] (one column) all hit bank k: a 32-way
// conflict, served one thread at a time. With rows of 33 floats, [r][c] lives in bank
// (r * 33 + c) % 32 = (r + c) % 32: a column spreads over all 32 banks, one access.
// STARTER
//| // ---------------------------------------------------------------------------------------------
//| // Exercise transpose_padded (keep the kernel's name: the static check looks for it)
//| // ---------------------------------------------------------------------------------------------
// END SOLUTION
__global__ void transposePaddedKernel(const float* __restrict__ in, float* __restrict__ out, int M, int N) {
  // BEGIN SOLUTION transpose_padded
  __shared__ float tile[TILE_DIM][TILE_DIM + 1];

  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (y + j < M && x < N) tile[threadIdx.y + j][threadIdx.x] = in[static_cast<std::size_t>(y + j) * N + x];

  __syncthreads();

  x = blockIdx.y * TILE_DIM + threadIdx.x;
  y = blockIdx.x * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (y + j < N && x < M) out[static_cast<std::size_t>(y + j) * M + x] = tile[threadIdx.x][threadIdx.y + j];
  // STARTER
  //| // TODO(transpose_padded): transposeTiledKernel again, with the tile declared
  //| //   TILE_DIM x (TILE_DIM + 1). The extra column is never used: it shifts each row of the
  //| //   tile by one bank, so the column read tile[threadIdx.x][...] hits 32 different banks.
  // END SOLUTION
}

// All three transposes use the same grid: one block per tile of in, x over its columns.
// BEGIN SOLUTION transpose_naive
dim3 transposeGrid(int M, int N) { return dim3(ceil_div(N, TILE_DIM), ceil_div(M, TILE_DIM)); }
// STARTER
//| dim3 transposeGrid(int M, int N) {
//|   // TODO(transpose_naive): one block per TILE_DIM x TILE_DIM tile of in, rounded up (the tiled
//|   //   and padded transposes use this grid too):
//|   //   ceil_div(N, TILE_DIM) blocks in x (the columns of in), ceil_div(M, TILE_DIM) in y.
//|   return dim3(1, 1);
//| }
// END SOLUTION

}  // namespace

void add_x_cols(const float* A, const float* B, float* C, int M, int N, cudaStream_t stream) {
  const dim3 block(BLOCK_X, BLOCK_Y);
  // BEGIN SOLUTION add_x_cols
  const dim3 grid(ceil_div(N, BLOCK_X), ceil_div(M, BLOCK_Y));  // x covers the columns
  // STARTER
  //| // TODO(add_x_cols): enough blocks to cover all of C: x covers the N columns, BLOCK_X per
  //| //   block; y covers the M rows, BLOCK_Y per block. Round both up with ceil_div.
  //| const dim3 grid(1, 1);
  // END SOLUTION
  CUDA_CHECK_LAUNCH(addXColsKernel<<<grid, block, 0, stream>>>(A, B, C, M, N));
}

void add_x_rows(const float* A, const float* B, float* C, int M, int N, cudaStream_t stream) {
  const dim3 block(BLOCK_X, BLOCK_Y);
  // BEGIN SOLUTION add_x_rows
  const dim3 grid(ceil_div(M, BLOCK_X), ceil_div(N, BLOCK_Y));  // x covers the rows now
  // STARTER
  //| // TODO(add_x_rows): x covers the M rows now, y the N columns.
  //| const dim3 grid(1, 1);
  // END SOLUTION
  CUDA_CHECK_LAUNCH(addXRowsKernel<<<grid, block, 0, stream>>>(A, B, C, M, N));
}

void add_per_row(const float* A, const float* B, float* C, int M, int N, cudaStream_t stream) {
  // BEGIN SOLUTION add_per_row
  CUDA_CHECK_LAUNCH(addPerRowKernel<<<ceil_div(M, LINE_BLOCK), LINE_BLOCK, 0, stream>>>(A, B, C, M, N));
  // STARTER
  //| // TODO(add_per_row): M threads in all, LINE_BLOCK per block.
  //| const int blocks = 1;
  //| CUDA_CHECK_LAUNCH(addPerRowKernel<<<blocks, LINE_BLOCK, 0, stream>>>(A, B, C, M, N));
  // END SOLUTION
}

void add_per_column(const float* A, const float* B, float* C, int M, int N, cudaStream_t stream) {
  // BEGIN SOLUTION add_per_column
  CUDA_CHECK_LAUNCH(addPerColumnKernel<<<ceil_div(N, LINE_BLOCK), LINE_BLOCK, 0, stream>>>(A, B, C, M, N));
  // STARTER
  //| // TODO(add_per_column): N threads in all, LINE_BLOCK per block.
  //| const int blocks = 1;
  //| CUDA_CHECK_LAUNCH(addPerColumnKernel<<<blocks, LINE_BLOCK, 0, stream>>>(A, B, C, M, N));
  // END SOLUTION
}

void transpose_naive(const float* in, float* out, int M, int N, cudaStream_t stream) {
  CUDA_CHECK_LAUNCH(transposeNaiveKernel<<<transposeGrid(M, N), dim3(TILE_DIM, BLOCK_ROWS), 0, stream>>>(in, out, M, N));
}

void transpose_tiled(const float* in, float* out, int M, int N, cudaStream_t stream) {
  CUDA_CHECK_LAUNCH(transposeTiledKernel<<<transposeGrid(M, N), dim3(TILE_DIM, BLOCK_ROWS), 0, stream>>>(in, out, M, N));
}

void transpose_padded(const float* in, float* out, int M, int N, cudaStream_t stream) {
  CUDA_CHECK_LAUNCH(transposePaddedKernel<<<transposeGrid(M, N), dim3(TILE_DIM, BLOCK_ROWS), 0, stream>>>(in, out, M, N));
}

}  // namespace coalescing
