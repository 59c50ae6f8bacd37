// Kernels the coalescing benchmark measures beside the reference solution's: variants that
// isolate one effect (bench_kernels.cu). Not part of the lab: students never see or write them.
#pragma once

#include <cuda_runtime.h>

namespace coalescing_bench {

// One thread per row / per column, as in the reference, but every load bypasses the L1 cache
// (__ldcg: cached in L2 only). The difference from the reference is what L1 contributes.
void add_per_row_no_l1(const float* A, const float* B, float* C, int M, int N, cudaStream_t stream);
void add_per_column_no_l1(const float* A, const float* B, float* C, int M, int N, cudaStream_t stream);

// The other naive transpose: x along the columns of OUT, so the stores are coalesced and the
// loads are strided (and neighbouring warps of a block reuse the loaded lines through L1).
void transpose_naive_strided_reads(const float* in, float* out, int M, int N, cudaStream_t stream);

// ---- exploration (first H100 run only: picks the reference's design) -------------------------
void add_x_cols_1(const float* A, const float* B, float* C, int M, int N, cudaStream_t stream);   // 1 element per thread
void add_x_cols_8(const float* A, const float* B, float* C, int M, int N, cudaStream_t stream);   // 8 per thread, strided
void add_x_cols_vec4(const float* A, const float* B, float* C, int M, int N, cudaStream_t stream);  // float4 when N % 4 == 0
void copy_vec4(const float* A, const float* B, float* C, int M, int N, cudaStream_t stream);       // C = A, float4 kernel
void add_per_row_block(const float* A, const float* B, float* C, int M, int N, int block, cudaStream_t stream);
void add_per_column_block(const float* A, const float* B, float* C, int M, int N, int block, cudaStream_t stream);
void transpose_padded_rows(const float* in, float* out, int M, int N, int block_rows, cudaStream_t stream);

}  // namespace coalescing_bench
