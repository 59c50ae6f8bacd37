// coalescing's functions, called in the harness and run in the runner (remote/call.hpp).
#include "coalescing.h"
#include "remote/call.hpp"

#define WORKBOOK_REMOTE_ADD(fn)                                                                      \
  WORKBOOK_REMOTE(fn, (const float* A, const float* B, float* C, int M, int N, cudaStream_t stream), \
                  (A, B, C, M, N, stream))
#define WORKBOOK_REMOTE_TRANSPOSE(fn) \
  WORKBOOK_REMOTE(fn, (const float* in, float* out, int M, int N, cudaStream_t stream), (in, out, M, N, stream))

WORKBOOK_REMOTE_ADD(coalescing::add_x_cols)
WORKBOOK_REMOTE_ADD(coalescing::add_x_rows)
WORKBOOK_REMOTE_ADD(coalescing::add_per_row)
WORKBOOK_REMOTE_ADD(coalescing::add_per_column)
WORKBOOK_REMOTE_TRANSPOSE(coalescing::transpose_naive)
WORKBOOK_REMOTE_TRANSPOSE(coalescing::transpose_tiled)
WORKBOOK_REMOTE_TRANSPOSE(coalescing::transpose_padded)
