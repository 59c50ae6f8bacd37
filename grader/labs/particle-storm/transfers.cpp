#include "transfers.hpp"
#include "remote/allocation_watch.hpp"

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstdio>
#include <mutex>

namespace storm_grading {
namespace {

std::mutex g_mutex;
std::atomic<bool> g_counting{false};
Transfers g_transfers;

bool on_device(const void* ptr) {
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, ptr) != cudaSuccess) {
    cudaGetLastError();  // an unknown pointer is host memory; clear the error
    return false;
  }
  return a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged;
}

void record(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind) {
  if (!g_counting.load()) return;
  if (kind == cudaMemcpyDefault) {  // unified addressing: the pointers say where they live
    const bool d = on_device(dst), s = on_device(src);
    kind = s ? (d ? cudaMemcpyDeviceToDevice : cudaMemcpyDeviceToHost)
             : (d ? cudaMemcpyHostToDevice : cudaMemcpyHostToHost);
  }
  std::lock_guard<std::mutex> lock(g_mutex);
  switch (kind) {
    case cudaMemcpyHostToDevice:
      g_transfers.h2d_bytes += bytes;
      ++g_transfers.h2d_calls;
      break;
    case cudaMemcpyDeviceToHost:
      g_transfers.d2h_bytes += bytes;
      ++g_transfers.d2h_calls;
      break;
    case cudaMemcpyDeviceToDevice:
      g_transfers.d2d_bytes += bytes;
      ++g_transfers.d2d_calls;
      break;
    default:
      break;  // host to host
  }
}

// The kind of a copy to or from a symbol (device memory) given as cudaMemcpyDefault.
cudaMemcpyKind symbol_kind(const void* other, cudaMemcpyKind kind, bool to_symbol) {
  if (kind != cudaMemcpyDefault || !g_counting.load()) return kind;
  if (on_device(other)) return cudaMemcpyDeviceToDevice;
  return to_symbol ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost;
}

std::string amount(std::size_t calls, std::size_t bytes, const char* what) {
  char buf[128];
  if (bytes >= (1u << 20))
    std::snprintf(buf, sizeof buf, "%zu %s (%.1f MiB)", calls, what, bytes / 1048576.0);
  else if (bytes >= 1024)
    std::snprintf(buf, sizeof buf, "%zu %s (%.1f KiB)", calls, what, bytes / 1024.0);
  else
    std::snprintf(buf, sizeof buf, "%zu %s (%zu bytes)", calls, what, bytes);
  return buf;
}

}  // namespace

std::string Transfers::describe() const {
  std::string text = amount(h2d_calls, h2d_bytes, "copies host-to-device") + ", " +
                     amount(d2h_calls, d2h_bytes, "device-to-host") + ", " +
                     amount(d2d_calls, d2d_bytes, "device-to-device");
  if (uncounted_allocations > 0)
    text += ", and " + std::to_string(uncounted_allocations) +
            " allocation(s) of managed or host-mapped memory, through which transfers cannot be counted";
  return text;
}

TransferCount::TransferCount() {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_transfers = {};
  g_counting = true;
}

TransferCount::~TransferCount() {
  if (counting_) stop();
}

Transfers TransferCount::stop() {
  g_counting = false;
  counting_ = false;
  std::lock_guard<std::mutex> lock(g_mutex);
  return g_transfers;
}

void count_foreign(const Transfers& t) {
  if (!g_counting.load()) return;
  std::lock_guard<std::mutex> lock(g_mutex);
  g_transfers.h2d_bytes += t.h2d_bytes;
  g_transfers.h2d_calls += t.h2d_calls;
  g_transfers.d2h_bytes += t.d2h_bytes;
  g_transfers.d2h_calls += t.d2h_calls;
  g_transfers.d2d_bytes += t.d2d_bytes;
  g_transfers.d2d_calls += t.d2d_calls;
  g_transfers.uncounted_allocations += t.uncounted_allocations;
}

void record_uncounted() {
  if (!g_counting.load()) return;
  std::lock_guard<std::mutex> lock(g_mutex);
  ++g_transfers.uncounted_allocations;
}

}  // namespace storm_grading

// The wrappers the linker substitutes for the CUDA runtime's copy calls (--wrap=<name>), and
// the real calls they forward to (__real_<name>, provided by the linker).
extern "C" {
cudaError_t __real_cudaMemcpy(void*, const void*, size_t, cudaMemcpyKind);
cudaError_t __real_cudaMemcpyAsync(void*, const void*, size_t, cudaMemcpyKind, cudaStream_t);
cudaError_t __real_cudaMemcpy2D(void*, size_t, const void*, size_t, size_t, size_t, cudaMemcpyKind);
cudaError_t __real_cudaMemcpy2DAsync(void*, size_t, const void*, size_t, size_t, size_t, cudaMemcpyKind, cudaStream_t);
cudaError_t __real_cudaMemcpyToSymbol(const void*, const void*, size_t, size_t, cudaMemcpyKind);
cudaError_t __real_cudaMemcpyToSymbolAsync(const void*, const void*, size_t, size_t, cudaMemcpyKind, cudaStream_t);
cudaError_t __real_cudaMemcpyFromSymbol(void*, const void*, size_t, size_t, cudaMemcpyKind);
cudaError_t __real_cudaMemcpyFromSymbolAsync(void*, const void*, size_t, size_t, cudaMemcpyKind, cudaStream_t);

cudaError_t __wrap_cudaMemcpy(void* dst, const void* src, size_t count, cudaMemcpyKind kind) {
  storm_grading::record(dst, src, count, kind);
  return __real_cudaMemcpy(dst, src, count, kind);
}
cudaError_t __wrap_cudaMemcpyAsync(void* dst, const void* src, size_t count, cudaMemcpyKind kind, cudaStream_t s) {
  storm_grading::record(dst, src, count, kind);
  return __real_cudaMemcpyAsync(dst, src, count, kind, s);
}
cudaError_t __wrap_cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                                cudaMemcpyKind kind) {
  storm_grading::record(dst, src, width * height, kind);
  return __real_cudaMemcpy2D(dst, dpitch, src, spitch, width, height, kind);
}
cudaError_t __wrap_cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                                     size_t height, cudaMemcpyKind kind, cudaStream_t s) {
  storm_grading::record(dst, src, width * height, kind);
  return __real_cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, height, kind, s);
}
// A symbol is device memory: the other side decides the direction.
cudaError_t __wrap_cudaMemcpyToSymbol(const void* symbol, const void* src, size_t count, size_t offset,
                                      cudaMemcpyKind kind) {
  storm_grading::record(nullptr, src, count, storm_grading::symbol_kind(src, kind, true));
  return __real_cudaMemcpyToSymbol(symbol, src, count, offset, kind);
}
cudaError_t __wrap_cudaMemcpyToSymbolAsync(const void* symbol, const void* src, size_t count, size_t offset,
                                           cudaMemcpyKind kind, cudaStream_t s) {
  storm_grading::record(nullptr, src, count, storm_grading::symbol_kind(src, kind, true));
  return __real_cudaMemcpyToSymbolAsync(symbol, src, count, offset, kind, s);
}
cudaError_t __wrap_cudaMemcpyFromSymbol(void* dst, const void* symbol, size_t count, size_t offset,
                                        cudaMemcpyKind kind) {
  storm_grading::record(dst, nullptr, count, storm_grading::symbol_kind(dst, kind, false));
  return __real_cudaMemcpyFromSymbol(dst, symbol, count, offset, kind);
}
cudaError_t __wrap_cudaMemcpyFromSymbolAsync(void* dst, const void* symbol, size_t count, size_t offset,
                                             cudaMemcpyKind kind, cudaStream_t s) {
  storm_grading::record(dst, nullptr, count, storm_grading::symbol_kind(dst, kind, false));
  return __real_cudaMemcpyFromSymbolAsync(dst, symbol, count, offset, kind, s);
}
}

// Memory both sides reach without a copy call: allocated as usual, and noted (the transfers check
// cannot pass with it: what crosses through it is not counted).
extern "C" {
cudaError_t __real_cudaMallocManaged(void**, size_t, unsigned int);
cudaError_t __real_cudaHostAlloc(void**, size_t, unsigned int);
cudaError_t __real_cudaHostRegister(void*, size_t, unsigned int);

cudaError_t __wrap_cudaMallocManaged(void** ptr, size_t size, unsigned int flags) {
  storm_grading::record_uncounted();
  const cudaError_t error = __real_cudaMallocManaged(ptr, size, flags);
  remote::note_allocation(error, size);  // the runner's watch on failed allocations
  return error;
}
cudaError_t __wrap_cudaHostAlloc(void** ptr, size_t size, unsigned int flags) {
  if (flags & cudaHostAllocMapped) storm_grading::record_uncounted();
  return __real_cudaHostAlloc(ptr, size, flags);
}
cudaError_t __wrap_cudaHostRegister(void* ptr, size_t size, unsigned int flags) {
  if (flags & cudaHostRegisterMapped) storm_grading::record_uncounted();
  return __real_cudaHostRegister(ptr, size, flags);
}
}
