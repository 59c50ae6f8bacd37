// granularity, exercise 2: YOUR CODE. 1D register blocking.
// Fill in the TODOs, then run
//     grader check granularity --filter "[register_1d]"
// The handout (README.md beside this file) explains the exercise.
//
// Each block computes a BM x BN tile of C; each thread computes a column of TM elements of it.
// Names follow PMPP where it has them (Mds, Nds, Pvalue); BM, BN, BK, TM are those of siboehm's
// SGEMM worklog ("1D blocktiling").
//
// Shipped as is, this file builds and runs but computes nothing: the grader reports every
// case as incorrect.
#include "granularity.h"

#include "workbook/cuda_check.hpp"

namespace granularity {
namespace {

constexpr int BM = 64;  // rows of C per block
constexpr int BN = 64;  // columns of C per block
constexpr int BK = 8;   // width of the slice of K staged per phase
constexpr int TM = 8;   // rows of C per thread
constexpr int THREADS = BM * BN / TM;  // 512 threads, each a column of TM outputs

// Each phase stages BM x BK floats of A and BK x BN of B: how many of each a thread loads.
constexpr int A_LOADS = BM * BK / THREADS;
constexpr int B_LOADS = BK * BN / THREADS;
static_assert(A_LOADS * THREADS == BM * BK && B_LOADS * THREADS == BK * BN, "the tiles must split evenly");

// ([[maybe_unused]]: the starter leaves every call of it to you, and nvcc would warn.)
[[maybe_unused]] __host__ __device__ inline int ceil_div(int a, int b) { return (a + b - 1) / b; }

__global__ void __launch_bounds__(THREADS) register1dKernel(const float* __restrict__ A, const float* __restrict__ B,
                                                            float* __restrict__ C, int M, int N, int K) {
  // TODO(register_1d): declare the shared tiles Mds[BM][BK] (a slice of A) and Nds[BK][BN]
  //   (a slice of B).
  //
  // TODO(register_1d): the thread's place in the block tile, from tid = threadIdx.x:
  //   threadCol = tid % BN, threadRow = tid / BN. The thread computes rows
  //   threadRow * TM + i (i = 0 .. TM - 1) of column threadCol. Let threadCol run fastest, so
  //   that a warp's 32 threads share threadRow and have consecutive columns.
  //   The block's corner in C: blockRow = blockIdx.y * BM, blockCol = blockIdx.x * BN.
  //
  // TODO(register_1d): float Pvalue[TM], all 0.
  //
  // TODO(register_1d): loop over the phases ph = 0 .. ceil_div(K, BK) - 1:
  //   1. load the slices: A's rows blockRow .. blockRow + BM - 1, columns ph * BK .. + BK - 1,
  //      into Mds; B's rows ph * BK .. + BK - 1, columns blockCol .. + BN - 1, into Nds; 0.0f
  //      past the edges. There are more elements than threads: thread tid loads elements
  //      idx = tid + l * THREADS for l = 0 .. A_LOADS - 1 (B_LOADS for B), element idx being
  //      Mds[idx / BK][idx % BK] (Nds[idx / BN][idx % BN]). Use the compile-time count in the
  //      loop, so that the compiler unrolls it.
  //   2. __syncthreads();
  //   3. for k = 0 .. BK - 1: read Nvalue = Nds[k][threadCol] ONCE into a register, then for
  //      i = 0 .. TM - 1: Pvalue[i] += Mds[threadRow * TM + i][k] * Nvalue;
  //   4. __syncthreads().
  //
  // TODO(register_1d): store each Pvalue[i] in C[blockRow + threadRow * TM + i][blockCol + threadCol]
  //   if that element is inside C.
}

}  // namespace

void register_1d(const float* A, const float* B, float* C, int M, int N, int K, cudaStream_t stream) {
  const dim3 block(THREADS);
  // TODO(register_1d): one block per BM x BN tile of C, rounded up (x over columns, y over rows).
  const dim3 grid(1, 1);
  CUDA_CHECK_LAUNCH(register1dKernel<<<grid, block, 0, stream>>>(A, B, C, M, N, K));
}

}  // namespace granularity
