// Counting the copies between host and device that a piece of code makes, to grade `resident`
// ("no needless transfers").
//
// The student's code runs in the runner (grader/remote/), which counts its copies there and
// sends the counts with its reply. The runner is the submission's own process, so these counts
// are the one measurement a determined submission could alter (or escape, by copying through
// the driver API): it would gain at most the transfers check's points, and
// docs/instructor-guide.md's threat model says so.
//
// The programs are linked with -Wl,--wrap=cudaMemcpy (and the other copy calls, and the
// allocations of memory both sides reach without a copy: see CMakeLists.txt), so every call to cudaMemcpy in any object of the program, storm.cu
// included, lands in __wrap_cudaMemcpy (transfers.cpp), which counts it while a
// TransferCount is alive and then calls the real cudaMemcpy. The CUDA runtime is linked
// statically, so the student's calls are ordinary symbol references the linker can redirect.
#pragma once

#include <cstddef>
#include <string>

namespace storm_grading {

struct Transfers {
  std::size_t h2d_bytes = 0, h2d_calls = 0;  // host to device
  std::size_t d2h_bytes = 0, d2h_calls = 0;  // device to host
  std::size_t d2d_bytes = 0, d2d_calls = 0;  // device to device (on the device: not a transfer)
  // Memory both sides reach without a copy call (cudaMallocManaged, cudaHostAlloc with
  // cudaHostAllocMapped, cudaHostRegister with cudaHostRegisterMapped): what crosses through it
  // cannot be counted, so the check cannot pass with it.
  std::size_t uncounted_allocations = 0;
  std::string describe() const;  // "2 copies host-to-device (16.0 KiB), ..."
};

// Adds the copies another process counted (the runner, which ran the code: grader/remote/) to
// the count in progress, if any.
void count_foreign(const Transfers& transfers);
// Notes an allocation of managed or host-mapped memory while a count is alive (transfers.cpp's
// wrappers call it).
void record_uncounted();

// Counts the copies made between its construction and its destruction (or stop()).
class TransferCount {
public:
  TransferCount();
  ~TransferCount();
  TransferCount(const TransferCount&) = delete;
  TransferCount& operator=(const TransferCount&) = delete;
  Transfers stop();  // the counts so far; counting ends

private:
  bool counting_ = true;
};

}  // namespace storm_grading
