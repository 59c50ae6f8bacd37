// The few CUDA driver functions the two processes need (a stream memory operation, the base and
// identity of an allocation), looked up through the runtime at first use instead of linking libcuda: a program
// linked against libcuda cannot even start on a machine without the driver, and the test
// programs must start there to say "SKIPPED: no CUDA GPU".
#pragma once

#include <cuda.h>

namespace remote::driver {

// Writes `value` to `address` on the stream, after the work before it (the runner's `done`);
// returns the driver's result (the runner reports a failure).
CUresult try_write_value(CUstream stream, CUdeviceptr address, cuuint32_t value);
// The allocation that holds `pointer`; false when it is not device memory.
bool address_range(CUdeviceptr pointer, CUdeviceptr& base, size_t& size);
// A number that identifies the allocation holding `pointer` for the process's whole life
// (CU_POINTER_ATTRIBUTE_BUFFER_ID): unlike its address, never reused after a free.
unsigned long long buffer_id(CUdeviceptr pointer);
const char* error_name(CUresult result);

}  // namespace remote::driver
