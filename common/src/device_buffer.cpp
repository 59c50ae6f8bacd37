#include "workbook/device_buffer.hpp"

#include <atomic>

namespace workbook {
namespace {
std::atomic<bool> g_whole_blocks{false};
constexpr std::size_t kBlock = 2u << 20;
}  // namespace

void use_whole_blocks(bool on) { g_whole_blocks = on; }

void* device_allocate(std::size_t bytes) {
  if (g_whole_blocks) bytes = (bytes + kBlock - 1) / kBlock * kBlock;
  void* p = nullptr;
  CUDA_CHECK(cudaMalloc(&p, bytes));
  return p;
}

}  // namespace workbook
