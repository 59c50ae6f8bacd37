#include "workbook/device_query.hpp"

#include "workbook/cuda_check.hpp"

#include <cuda_runtime.h>

#include <filesystem>
#include <sstream>

namespace workbook {

int device_count(std::string* why_none) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    if (why_none) *why_none = std::string(cudaGetErrorName(status)) + ": " + cudaGetErrorString(status);
    // With no NVIDIA driver at all the runtime says the driver is too old, which sends a student
    // to update a driver that is not there.
    if (why_none && (status == cudaErrorInsufficientDriver || status == cudaErrorNoDevice) &&
        !std::filesystem::exists("/proc/driver/nvidia/version"))
      *why_none =
          "no NVIDIA driver is loaded on this machine (no /proc/driver/nvidia), so it has no usable NVIDIA GPU (" +
          *why_none + ")";
    cudaGetLastError();  // clear it: not having a GPU is not an error worth keeping
    return 0;
  }
  if (count == 0 && why_none) *why_none = "the CUDA runtime sees no device";
  return count;
}

DeviceInfo query_device(int index) {
  DeviceInfo d;
  d.index = index;
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, index));
  d.name = prop.name;
  d.cc_major = prop.major;
  d.cc_minor = prop.minor;
  d.global_memory_bytes = prop.totalGlobalMem;
  d.multiprocessors = prop.multiProcessorCount;
  d.warp_size = prop.warpSize;
  d.max_threads_per_block = prop.maxThreadsPerBlock;
  d.max_threads_per_sm = prop.maxThreadsPerMultiProcessor;
  d.registers_per_block = prop.regsPerBlock;
  d.shared_per_block = static_cast<int>(prop.sharedMemPerBlock);
  d.shared_per_block_optin = static_cast<int>(prop.sharedMemPerBlockOptin);
  d.shared_per_sm = static_cast<int>(prop.sharedMemPerMultiprocessor);
  d.l2_bytes = prop.l2CacheSize;
  d.async_engines = prop.asyncEngineCount;
  d.ecc = prop.ECCEnabled != 0;
  for (int i = 0; i < 3; ++i) {
    d.max_block_dim[i] = prop.maxThreadsDim[i];
    d.max_grid_dim[i] = prop.maxGridSize[i];
  }
  // Clock fields left cudaDeviceProp in CUDA 13; the attributes exist in 12.x and 13.x alike.
  CUDA_CHECK(cudaDeviceGetAttribute(&d.sm_clock_khz, cudaDevAttrClockRate, index));
  CUDA_CHECK(cudaDeviceGetAttribute(&d.memory_clock_khz, cudaDevAttrMemoryClockRate, index));
  CUDA_CHECK(cudaDeviceGetAttribute(&d.memory_bus_bits, cudaDevAttrGlobalMemoryBusWidth, index));
  CUDA_CHECK(cudaDriverGetVersion(&d.driver_version));
  CUDA_CHECK(cudaRuntimeGetVersion(&d.runtime_version));
  return d;
}

std::vector<DeviceInfo> query_all_devices() {
  std::vector<DeviceInfo> all;
  const int count = device_count();
  for (int i = 0; i < count; ++i) all.push_back(query_device(i));
  return all;
}

namespace {
std::string version(int v) { return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10); }
}  // namespace

std::string format_device(const DeviceInfo& d) {
  std::ostringstream o;
  const auto row = [&o](const char* label) -> std::ostream& {
    o << "  ";
    o.width(48);
    o << std::left << label;
    return o;
  };
  o << "Device " << d.index << ": \"" << d.name << "\"\n";
  row("CUDA Driver Version / Runtime Version")
      << version(d.driver_version) << " / " << version(d.runtime_version) << '\n';
  row("CUDA Capability Major/Minor version number:") << d.cc_major << '.' << d.cc_minor << '\n';
  row("Total amount of global memory:") << (d.global_memory_bytes >> 20) << " MBytes (" << d.global_memory_bytes
                                        << " bytes)\n";
  row("Multiprocessors:") << d.multiprocessors << '\n';
  row("GPU Max Clock rate:") << d.sm_clock_khz / 1000 << " MHz\n";
  row("Memory Clock rate:") << d.memory_clock_khz / 1000 << " MHz\n";
  row("Memory Bus Width:") << d.memory_bus_bits << "-bit\n";
  o.precision(0);
  row("Peak memory bandwidth (theoretical):") << std::fixed << d.peak_bandwidth_gbs() << " GB/s\n";
  row("L2 Cache Size:") << d.l2_bytes << " bytes\n";
  row("Shared memory per block / opt-in / per SM:")
      << d.shared_per_block << " / " << d.shared_per_block_optin << " / " << d.shared_per_sm << " bytes\n";
  row("Registers available per block:") << d.registers_per_block << '\n';
  row("Warp size:") << d.warp_size << '\n';
  row("Maximum number of threads per multiprocessor:") << d.max_threads_per_sm << '\n';
  row("Maximum number of threads per block:") << d.max_threads_per_block << '\n';
  row("Max dimension size of a thread block (x,y,z):")
      << '(' << d.max_block_dim[0] << ", " << d.max_block_dim[1] << ", " << d.max_block_dim[2] << ")\n";
  row("Max dimension size of a grid size (x,y,z):")
      << '(' << d.max_grid_dim[0] << ", " << d.max_grid_dim[1] << ", " << d.max_grid_dim[2] << ")\n";
  row("Concurrent copy and kernel execution:")
      << (d.async_engines > 0 ? "Yes" : "No") << " with " << d.async_engines << " copy engine(s)\n";
  row("Device has ECC support:") << (d.ecc ? "Enabled" : "Disabled") << '\n';
  return o.str();
}

}  // namespace workbook
