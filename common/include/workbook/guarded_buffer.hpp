// GuardedBuffer<T>: an array in device memory with a guard zone on each side (an output, or an
// input through upload(), whose guards then read as NaN). The whole
// allocation is poisoned (all bits set: NaN for float and double) before each call, so that
//   - an element the kernel never wrote still holds NaN and fails the comparison, and
//   - a write just past either end (a missing boundary check) changes a guard, which
//     intact_guards() detects, instead of silently landing in someone else's memory.
#pragma once

#include "workbook/device_buffer.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

namespace workbook {

template <class T>
class GuardedBuffer {
public:
  // 4 KiB of guard on each side keeps data() as aligned as cudaMalloc's own pointer.
  static constexpr std::size_t kGuardBytes = 4096;
  static constexpr std::size_t kGuard = kGuardBytes / sizeof(T);

  explicit GuardedBuffer(std::size_t count) : count_(count), storage_(count + 2 * kGuard) {}
  // What one of `count` elements takes of the GPU's memory, guards included.
  static std::size_t allocated_bytes(std::size_t count) {
    return workbook::allocated_bytes((count + 2 * kGuard) * sizeof(T));
  }

  T* data() { return storage_.data() + kGuard; }
  std::size_t size() const { return count_; }

  void poison(cudaStream_t stream = nullptr) { storage_.poison(stream); }

  // As an input: the guards poisoned and the data copied in, so that a read past either end (a
  // tile load without its bounds check) reads NaN and shows in the result instead of adding a
  // harmless zero. Synchronizes `stream`.
  void upload(const std::vector<T>& host, cudaStream_t stream = nullptr) {
    storage_.poison(stream);
    if (!host.empty())
      CUDA_CHECK(cudaMemcpyAsync(data(), host.data(), std::min(host.size(), count_) * sizeof(T), cudaMemcpyHostToDevice,
                                 stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
  }

  std::vector<T> download() const {
    std::vector<T> host(count_);
    if (count_ > 0)
      CUDA_CHECK(cudaMemcpy(host.data(), storage_.data() + kGuard, count_ * sizeof(T), cudaMemcpyDeviceToHost));
    return host;
  }

  // True when no byte of either guard zone was written since the last poison().
  bool intact_guards() const {
    std::vector<unsigned char> guard(kGuardBytes);
    const auto* base = reinterpret_cast<const unsigned char*>(storage_.data());
    for (const unsigned char* zone : {base, base + kGuardBytes + count_ * sizeof(T)}) {
      CUDA_CHECK(cudaMemcpy(guard.data(), zone, kGuardBytes, cudaMemcpyDeviceToHost));
      for (unsigned char b : guard)
        if (b != 0xFF) return false;
    }
    return true;
  }

private:
  std::size_t count_;
  DeviceBuffer<T> storage_;
};

}  // namespace workbook
