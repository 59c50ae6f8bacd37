// The names of the vendor math libraries a submission may not run, and the runner's look for one
// in its memory map (remote/vendor_libraries.hpp).
#include "grader/catch.hpp"
#include "remote/vendor_libraries.hpp"

using remote::is_vendor_math_library;
using remote::mentions_vendor_math_library;
using remote::vendor_libraries_mapped;

TEST_CASE("vendor libraries: the math libraries by name, the runtime and driver not", "[vendor]") {
  for (const char* name :
       {"libcublas.so", "libcublas.so.13", "libcublasLt.so.13.0.0.19", "libcudnn.so.9",
        "libcudnn_engines_precompiled.so.9", "libcufft.so.12", "libcufftw.so", "libcusparse.so.12",
        "libcusparseLt.so.0", "libcusolver.so.12", "libcusolverMg.so", "libcurand.so.10", "libnppc.so.13",
        "libnppial.so", "libnvjpeg.so.13", "libcutlass.so", "libcutensor.so.2", "libnvblas.so.13", "libtorch_cuda.so"})
    CHECK(is_vendor_math_library(name));
  for (const char* name : {"libcudart.so.13", "libcuda.so.1", "libnvidia-ptxjitcompiler.so.1", "libnvrtc.so.13",
                           "libnvJitLink.so.13", "libcupti.so", "libstdc++.so.6", "libcublas_static.a", "cublas.so",
                           "libc.so.6", "libnccl.so.2", "libnvidia-ml.so.1"})
    CHECK_FALSE(is_vendor_math_library(name));
}

TEST_CASE("vendor libraries: found in a memory map, each once", "[vendor]") {
  const std::string maps =
      "55d0c0a00000-55d0c0a3c000 r--p 00000000 08:01 123 /work/build/bin/runner-matmul-tiled\n"
      "7f2a10000000-7f2a10200000 rw-p 00000000 00:00 0 \n"
      "7f2a20000000-7f2a24000000 r--p 00000000 08:01 77 /usr/local/cuda-13.0/lib/libcublasLt.so.13\n"
      "7f2a24000000-7f2a28000000 r-xp 04000000 08:01 77 /usr/local/cuda-13.0/lib/libcublasLt.so.13\n"
      "7f2a30000000-7f2a30100000 r-xp 00000000 08:01 78 /usr/local/cuda-13.0/lib/libcublas.so.13 (deleted)\n"
      "7f2a40000000-7f2a40100000 r-xp 00000000 08:01 79 /usr/local/cuda-13.0/lib/libcudart.so.13\n"
      "7f2a50000000-7f2a50100000 r-xp 00000000 08:01 80 /usr/lib/x86_64-linux-gnu/libcuda.so.575.57.08\n"
      "7ffd5a000000-7ffd5a021000 rw-p 00000000 00:00 0 [stack]\n"
      "7f2a60000000-7f2a60001000 r--p 00000000 08:01 81 /home/me/.local/lib/python3.12/site-packages/nvidia/"
      "cufft/lib/libcufft.so.11";  // no final newline
  const auto found = vendor_libraries_mapped(maps);
  REQUIRE(found.size() == 3);
  CHECK(found[0] == "/usr/local/cuda-13.0/lib/libcublasLt.so.13");
  CHECK(found[1] == "/usr/local/cuda-13.0/lib/libcublas.so.13");
  CHECK(found[2] == "/home/me/.local/lib/python3.12/site-packages/nvidia/cufft/lib/libcufft.so.11");
  CHECK(vendor_libraries_mapped("").empty());
  CHECK(vendor_libraries_mapped("7f2a40000000-7f2a40100000 r-xp 00000000 08:01 79 /usr/lib/libcudart.so.13\n").empty());
}

TEST_CASE("vendor libraries: named in a loader's error", "[vendor]") {
  CHECK(mentions_vendor_math_library("libcublas.so.13: cannot open shared object file: No such file or directory"));
  CHECK(
      mentions_vendor_math_library("/usr/local/cuda/lib64/libcublasLt.so: cannot open shared object file: "
                                   "Permission denied"));
  CHECK_FALSE(mentions_vendor_math_library("libcuda.so.1: cannot open shared object file"));
  CHECK_FALSE(mentions_vendor_math_library(""));
}
