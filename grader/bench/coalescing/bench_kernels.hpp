// Kernels the coalescing benchmark measures beside the reference solution's: variants that
// change one thing, to isolate one effect (bench_kernels.cu). Not part of the lab: students
// never see or write them.
#pragma once

#include <cuda_runtime.h>

namespace coalescing_bench {

// add_x_cols with more work per thread: COLS_PER_THREAD = 4 elements, 32 columns apart
// (several loads in flight per thread), and 16-byte accesses (one float4 per thread; needs
// N % 4 == 0 and 16-byte aligned pointers, and throws otherwise).
void add_x_cols_4_per_thread(const float* A, const float* B, float* C, int M, int N, cudaStream_t stream);
void add_x_cols_float4(const float* A, const float* B, float* C, int M, int N, cudaStream_t stream);

// One thread per row / per column, the reference's kernels with one change: every load
// bypasses the L1 cache (ld.global.nc.L1::no_allocate). The difference is what L1 contributes.
void add_per_row_no_l1(const float* A, const float* B, float* C, int M, int N, cudaStream_t stream);
void add_per_column_no_l1(const float* A, const float* B, float* C, int M, int N, cudaStream_t stream);

// The other naive transpose: x along the columns of OUT, so the stores are coalesced and the
// loads are strided (the 8 warps of a block read the 8 floats of each 32-byte sector).
void transpose_naive_strided_reads(const float* in, float* out, int M, int N, cudaStream_t stream);

}  // namespace coalescing_bench
