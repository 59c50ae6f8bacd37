// matmul-tiled's functions, called in the harness and run in the runner (remote/call.hpp).
#include "matmul.h"
#include "remote/call.hpp"

WORKBOOK_REMOTE(matmul::naive, (const float* A, const float* B, float* C, int M, int N, int K, cudaStream_t stream),
                (A, B, C, M, N, K, stream))
WORKBOOK_REMOTE(matmul::tiled,
                (const float* A, const float* B, float* C, int M, int N, int K, int tile_width, cudaStream_t stream),
                (A, B, C, M, N, K, tile_width, stream))
