// granularity's functions, called in the harness and run in the runner (remote/call.hpp).
#include "granularity.h"
#include "remote/call.hpp"

WORKBOOK_REMOTE(granularity::coarsened,
                (const float* A, const float* B, float* C, int M, int N, int K, int coarse_factor, cudaStream_t stream),
                (A, B, C, M, N, K, coarse_factor, stream))
WORKBOOK_REMOTE(granularity::register_1d,
                (const float* A, const float* B, float* C, int M, int N, int K, cudaStream_t stream),
                (A, B, C, M, N, K, stream))
WORKBOOK_REMOTE(granularity::register_2d,
                (const float* A, const float* B, float* C, int M, int N, int K, cudaStream_t stream),
                (A, B, C, M, N, K, stream))
