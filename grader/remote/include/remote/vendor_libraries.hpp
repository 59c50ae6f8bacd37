// The vendor libraries a submission may not run: they compute a lab's result (a GEMM, a
// convolution, a transform, a sort) with someone else's kernels. `grader batch` and `grader
// leaderboard` cover every such file on the machine with an empty one in the sandbox's view
// (grader/src/sandbox/vendor_masks.cpp), so that no path, dlopen or hand-made loader finds one; the
// runner also looks for one in its own memory map after each call (runner.cpp), to name it in
// the report where the view was not enough (no bubblewrap, a copy the masks missed).
// libcudart, libcuda, the driver's own libraries, NVRTC and nvJitLink stay: they compile and run
// the student's own kernels.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace remote {

// The names' stems, after "lib": cuBLAS and cuBLASLt, cuDNN, cuFFT (and cuFFTW), cuSPARSE (and
// cuSPARSELt), cuSOLVER (and cuSOLVERMg), cuRAND, NPP (libnppc, libnppial ...), nvJPEG, CUTLASS
// builds, cuTENSOR, NVBLAS, cuDSS, TensorRT, MAGMA, and PyTorch's CUDA library (its GEMMs).
inline const std::vector<std::string_view>& vendor_library_stems() {
  static const std::vector<std::string_view> stems = {"cublas", "cudnn", "cufft",   "cusparse", "cusolver",
                                                      "curand", "npp",   "nvjpeg",  "cutlass",  "cutensor",
                                                      "nvblas", "cudss", "nvinfer", "magma",    "torch_cuda"};
  return stems;
}

// A shared object of a vendor math library, by its file name ("libcublas.so.13",
// "libcublasLt.so.13.0.0.19", "libnppig.so"): "lib", a stem, then ".so" somewhere after.
inline bool is_vendor_math_library(std::string_view file_name) {
  if (file_name.substr(0, 3) != "lib" || file_name.find(".so") == std::string_view::npos) return false;
  for (const auto stem : vendor_library_stems())
    if (file_name.substr(3, stem.size()) == stem) return true;
  return false;
}

// Whether a text (a loader's error: "libcublas.so.13: cannot open shared object file") names a
// vendor math library anywhere: each run of name characters, paths split at their slashes.
inline bool mentions_vendor_math_library(std::string_view text) {
  const auto name_char = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
           c == '-' || c == '+';
  };
  std::size_t begin = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    if (i < text.size() && name_char(text[i])) continue;
    if (i > begin && is_vendor_math_library(text.substr(begin, i - begin))) return true;
    begin = i + 1;
  }
  return false;
}

// The vendor math libraries in a memory map (the text of /proc/<pid>/maps): each path once, in
// the order first mapped.
inline std::vector<std::string> vendor_libraries_mapped(std::string_view maps) {
  std::vector<std::string> found;
  while (!maps.empty()) {
    const auto end = maps.find('\n');
    std::string_view line = maps.substr(0, end);
    maps = end == std::string_view::npos ? std::string_view() : maps.substr(end + 1);
    const auto path = line.find('/');  // the path is the last field, the only one with a slash
    if (path == std::string_view::npos) continue;
    std::string_view file = line.substr(path);
    if (const auto deleted = file.rfind(" (deleted)"); deleted != std::string_view::npos)
      file = file.substr(0, deleted);
    const auto slash = file.rfind('/');
    if (!is_vendor_math_library(file.substr(slash + 1))) continue;
    bool seen = false;
    for (const auto& f : found) seen = seen || f == file;
    if (!seen) found.emplace_back(file);
  }
  return found;
}

}  // namespace remote
