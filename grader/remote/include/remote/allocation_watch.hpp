// The watch on a submission's device allocations: failures for want of memory are counted on the
// control page (wire.hpp), which the harness reads when a call fails.
#pragma once

#include "remote/wire.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>

namespace remote {

// Counts `error` when it says the GPU's memory ran out, for an allocation of `bytes`, on the page
// count_allocations_on() named; nothing before that, or in a process that never names one (a
// test program). What the runner's wrappers call, and a lab's own wrapper of another allocation
// call (particle-storm's cudaMallocManaged, transfers.cpp, linked in both processes).
void note_allocation(cudaError_t error, std::size_t bytes);
void count_allocations_on(Control* control);

// The runner (allocation_wrappers.cpp, in grader_runner only): its wrappers of cudaMalloc,
// cudaMallocPitch and cudaMallocAsync count on `control` from now on.
void wrap_allocations(Control* control);

}  // namespace remote
