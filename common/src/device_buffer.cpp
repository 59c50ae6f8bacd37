#include "workbook/device_buffer.hpp"

#include <atomic>

namespace workbook {
namespace {
std::atomic<bool> g_whole_blocks{false};
std::atomic<void (*)(void*) noexcept> g_before_free{nullptr};
constexpr std::size_t kBlock = 2u << 20;
}  // namespace

void use_whole_blocks(bool on) { g_whole_blocks = on; }

std::size_t allocated_bytes(std::size_t bytes) {
  return g_whole_blocks ? (bytes + kBlock - 1) / kBlock * kBlock : bytes;
}

void* device_allocate(std::size_t bytes) {
  bytes = allocated_bytes(bytes);
  void* p = nullptr;
  CUDA_CHECK(cudaMalloc(&p, bytes));
  return p;
}

void device_free(void* pointer) noexcept {
  if (const auto hook = g_before_free.load()) hook(pointer);
  cudaFree(pointer);
}

void set_before_free(void (*hook)(void* pointer) noexcept) { g_before_free = hook; }

}  // namespace workbook
