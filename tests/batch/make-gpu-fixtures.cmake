# The buggy submissions of the GPU batch test (gpu-batch.sh), each the reference solution of
# matmul-tiled with one deliberate bug:
#   cmake -DSOLUTION=solutions/matmul-tiled/matmul.cu -DOUT=<folder> -P make-gpu-fixtures.cmake
# writes <folder>/<kind>/matmul.cu for wrong, slow, illegal-address, endless-kernel and racy.
cmake_minimum_required(VERSION 3.25)
include(${CMAKE_CURRENT_LIST_DIR}/../../cmake/WorkbookSolutionText.cmake)
workbook_solution_text(${SOLUTION} solution)  # without its starter markers

function(fixture kind note old new)
  string(FIND "${solution}" "${old}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${kind}: the reference no longer contains:\n${old}")
  endif()
  string(REPLACE "${old}" "${new}" text "${solution}")
  string(REPLACE "// matmul-tiled: reference solution."
                 "// matmul-tiled: FIXTURE for the GPU batch test (tests/batch/gpu-batch.sh): ${note}" text "${text}")
  file(WRITE ${OUT}/${kind}/matmul.cu "${text}")
endfunction()

fixture(wrong "naive drops the last product of every dot product (incorrect)."
  "    for (int k = 0; k < K; ++k) Pvalue += A[Row * K + k] * B[k * N + Col];"
  "    for (int k = 0; k < K - 1; ++k) Pvalue += A[Row * K + k] * B[k * N + Col];  // BUG: drops the last product")
fixture(slow "naive is right but launches one thread per block (too slow)."
  "  const dim3 block(BLOCK_WIDTH, BLOCK_WIDTH);\n  const dim3 grid(ceil_div(N, BLOCK_WIDTH), ceil_div(M, BLOCK_WIDTH));\n  CUDA_CHECK_LAUNCH(naiveKernel"
  "  const dim3 block(1, 1);  // SLOW: one thread per block, 31 of 32 lanes of every warp idle\n  const dim3 grid(N, M);\n  CUDA_CHECK_LAUNCH(naiveKernel")
fixture(illegal-address "tiled writes far outside C (an illegal address)."
  "  if (Row < M && Col < N) C[Row * N + Col] = Pvalue;\n}"
  "  if (Row < M && Col < N) C[Row * N + Col + (1 << 28)] = Pvalue;  // BUG: a gigabyte past the end\n}")
fixture(endless-kernel "naive's first thread never finishes (a kernel that never ends)."
  "  if (Row < M && Col < N) {  // the grid is rounded up: threads past the edge do nothing\n"
  "  if (Row < M && Col < N) {  // the grid is rounded up: threads past the edge do nothing\n    if (Row == 0 && Col == 0) {\n      // BUG: never ends: clock64() reads a hardware counter (a side effect the compiler keeps)\n      // that is never negative. (Not \"until the counter passes its start\": a block preempted\n      // and resumed on another SM reads that SM's counter, which can be behind, and such a loop\n      // ends. Nor a volatile local flag: that version finished on an H100.)\n      while (clock64() >= 0) {\n      }\n    }\n")
fixture(racy "tiled reads the tiles without waiting for them to be loaded (a race)."
  "    __syncthreads();  // the whole tile is loaded before anyone reads it\n"
  "    // BUG (race): no __syncthreads() here, threads read tiles that others have not written yet\n")
