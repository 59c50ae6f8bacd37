// DeviceBuffer<T>: an array in device memory that frees itself (RAII), so an exception thrown
// half-way through a test leaks nothing. Copies in and out are checked.
#pragma once

#include "workbook/cuda_check.hpp"

#include <cstddef>
#include <utility>
#include <vector>

namespace workbook {

// Every DeviceBuffer's memory comes from here. A process that shares its buffers with another
// process through CUDA IPC (the grader's harness: grader/remote/) switches on whole blocks:
// small cudaMalloc allocations share a 2 MiB block, IPC exports the block, and the other
// process cannot open two allocations of one block (cudaErrorAlreadyMapped). Rounding each
// allocation up to whole blocks gives each one a block of its own.
void use_whole_blocks(bool on);
void* device_allocate(std::size_t bytes);  // throws CudaError
// Frees what device_allocate returned (a failed free has nothing to undo: never throws). The hook,
// when one is set, sees the allocation first: the grader's harness has the other process close
// its IPC mapping of it, since freeing memory another process still has open is undefined.
void device_free(void* pointer) noexcept;
void set_before_free(void (*hook)(void* pointer) noexcept);
// What device_allocate(bytes) takes of the GPU's memory (rounded to whole blocks when they are on).
std::size_t allocated_bytes(std::size_t bytes);

template <class T>
class DeviceBuffer {
public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count) : count_(count) {
    if (count_ > 0) ptr_ = static_cast<T*>(device_allocate(bytes()));
  }
  explicit DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(host.size()) { upload(host); }
  ~DeviceBuffer() {
    if (ptr_) device_free(ptr_);
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& other) noexcept
      : ptr_(std::exchange(other.ptr_, nullptr)), count_(std::exchange(other.count_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    std::swap(ptr_, other.ptr_);
    std::swap(count_, other.count_);
    return *this;
  }

  T* data() noexcept { return ptr_; }
  const T* data() const noexcept { return ptr_; }
  std::size_t size() const noexcept { return count_; }
  std::size_t bytes() const noexcept { return count_ * sizeof(T); }

  // Complete when it returns, for work on any stream. cudaMemcpy from pageable host memory may
  // return before its DMA has landed (CUDA's "API synchronization behavior"), and the grader's
  // streams are non-blocking, so they do not wait for the legacy stream that copy runs on: a
  // kernel launched right after could read the buffer half-written. (Seen once in 100 batch
  // submissions on a busy H100: a correct kernel read zeros.) Hence the synchronization.
  void upload(const std::vector<T>& host) {
    if (host.size() != count_) throw std::invalid_argument("DeviceBuffer::upload: size mismatch");
    if (count_ == 0) return;
    CUDA_CHECK(cudaMemcpy(ptr_, host.data(), bytes(), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));
  }
  std::vector<T> download() const {
    std::vector<T> host(count_);
    if (count_ > 0) CUDA_CHECK(cudaMemcpy(host.data(), ptr_, bytes(), cudaMemcpyDeviceToHost));
    return host;
  }
  // Fill every byte with 0xFF: for float and double that is a NaN, so an element the kernel
  // never wrote cannot pass a comparison by holding a stale right answer or a zero.
  void poison(cudaStream_t stream = nullptr) {
    if (count_ > 0) CUDA_CHECK(cudaMemsetAsync(ptr_, 0xFF, bytes(), stream));
  }

private:
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace workbook
