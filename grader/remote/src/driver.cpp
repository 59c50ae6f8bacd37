#include "remote/driver.hpp"

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace remote::driver {
namespace {

template <class F>
F entry(const char* symbol) {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult found{};
#if CUDART_VERSION >= 12050
  const cudaError_t e = cudaGetDriverEntryPointByVersion(symbol, &fn, 12000, cudaEnableDefault, &found);
#else
  const cudaError_t e = cudaGetDriverEntryPoint(symbol, &fn, cudaEnableDefault, &found);
#endif
  if (e != cudaSuccess || found != cudaDriverEntryPointSuccess || !fn)
    throw std::runtime_error(std::string("the CUDA driver has no ") + symbol + " (it is older than CUDA 12?)");
  return reinterpret_cast<F>(fn);
}

struct Table {
  decltype(&cuStreamWriteValue32) write = entry<decltype(&cuStreamWriteValue32)>("cuStreamWriteValue32");
  decltype(&cuMemGetAddressRange) range = entry<decltype(&cuMemGetAddressRange)>("cuMemGetAddressRange");
  decltype(&cuPointerGetAttribute) attribute = entry<decltype(&cuPointerGetAttribute)>("cuPointerGetAttribute");
  decltype(&cuGetErrorName) name = entry<decltype(&cuGetErrorName)>("cuGetErrorName");
};

const Table& table() {
  static const Table t;
  return t;
}

void check(CUresult r, const char* what) {
  if (r != CUDA_SUCCESS) throw std::runtime_error(std::string(what) + " failed: " + error_name(r));
}

}  // namespace

CUresult try_write_value(CUstream stream, CUdeviceptr address, cuuint32_t value) {
  return table().write(stream, address, value, CU_STREAM_WRITE_VALUE_DEFAULT);
}
bool address_range(CUdeviceptr pointer, CUdeviceptr& base, size_t& size) {
  return table().range(&base, &size, pointer) == CUDA_SUCCESS;
}
unsigned long long buffer_id(CUdeviceptr pointer) {
  unsigned long long id = 0;
  check(table().attribute(&id, CU_POINTER_ATTRIBUTE_BUFFER_ID, pointer), "cuPointerGetAttribute(BUFFER_ID)");
  return id;
}
const char* error_name(CUresult result) {
  const char* name = nullptr;
  if (table().name(result, &name) != CUDA_SUCCESS || !name) return "an unknown CUDA driver error";
  return name;
}

}  // namespace remote::driver
