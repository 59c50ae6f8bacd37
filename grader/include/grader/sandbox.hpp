// The sandbox a submission's code runs in during `grader batch`: what a student's program can
// touch. With bubblewrap (bwrap) installed and working, the program sees the machine read-only,
// except its own scratch folder; it gets a private /tmp, no network, its own PID namespace, only
// the GPU's device files, and the other students' folders hidden. Without bubblewrap, it gets
// what the kernel allows an ordinary process: a private network namespace where `unshare`
// works, and always the process runner's limits (process group, timeout, memory and process
// watch, CPU and file-size limits, cleared environment). describe() says which were in force.
#pragma once

#include "grader/process.hpp"

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace grader {

class Sandbox {
public:
  enum class Kind { Bubblewrap, Unshare, None };

  // Probes what works here, by running `true` under each candidate (so a bwrap that exists but
  // cannot create namespaces, as in some containers, is not used). `allow` false: Kind::None.
  static Sandbox detect(bool allow = true);

  // The command line that runs `argv` inside the sandbox. The machine is shown read-only with a
  // private, empty /tmp; `base` folders are shown read-only again on top of that (the
  // repository and its build, which may live under /tmp); then `hidden` folders are covered by
  // an empty tmpfs (the submissions, the results: other students' work); inside them,
  // `readable` folders are shown again read-only (this submission's sources and program) and
  // `writable` ones read-write (its scratch folder, listed first: the working directory).
  // `masked` files are covered by an empty one that cannot be opened (the vendor libraries).
  std::vector<std::string> wrap(const std::vector<std::string>& argv,
                                const std::vector<std::filesystem::path>& writable,
                                const std::vector<std::filesystem::path>& hidden = {},
                                const std::vector<std::filesystem::path>& readable = {},
                                const std::vector<std::filesystem::path>& base = {},
                                const std::vector<std::filesystem::path>& masked = {}) const;

  Kind kind() const { return kind_; }
  std::string describe() const;  // for reports: which protections were in force
  // The vendor math libraries found on this machine (vendor_library_files), found once by
  // detect() where bubblewrap works: what a submission's run may not see.
  const std::vector<std::filesystem::path>& vendor_libraries() const { return vendor_libraries_; }

private:
  Kind kind_ = Kind::None;
  std::vector<std::filesystem::path> vendor_libraries_;
  bool disabled_ = false;  // switched off by the caller (--no-sandbox), not missing
  std::string tool_;       // path of bwrap or unshare
};

// A submission's test program, run in the sandbox (grader batch, grader leaderboard).
struct SandboxedRun {
  std::vector<std::string> argv;                // the program and its arguments
  std::filesystem::path run_dir;                // scratch folder: writable, working directory, HOME
  std::vector<std::filesystem::path> readable;  // this submission's sources and program
  std::vector<std::filesystem::path> hidden;    // the other students' work, the results
  std::vector<std::filesystem::path> base;      // the repository and the build
  std::map<std::string, std::string> env;       // WORKBOOK_* settings of the test program
  std::filesystem::path log;                    // its stdout and stderr
  Limits limits;                                // cpu_seconds defaults to timeout_s
  double timeout_s = 600;
  bool own_code_only = true;  // the vendor math libraries covered (bubblewrap)
};

// Every vendor math library on this machine (remote/vendor_libraries.hpp: cuBLAS, cuDNN, cuFFT,
// cuSPARSE, cuSOLVER, cuRAND, NPP, nvJPEG, CUTLASS builds ...), as real files, symlinks resolved:
// in the CUDA toolkits, the system's library folders, the loader's (ld.so.conf, LD_LIBRARY_PATH),
// pip's and conda's trees (src/sandbox/vendor_masks.cpp).
std::vector<std::filesystem::path> vendor_library_files();

// The process to run: wrapped in `sandbox`, a cleared environment with only a plain PATH, HOME,
// TMPDIR and LANG, the run's own settings and the CUDA variables of the grader's environment
// (CUDA_VISIBLE_DEVICES, LD_LIBRARY_PATH, NVIDIA_TF32_OVERRIDE), its limits and timeout; with
// `own_code_only`, the sandbox's vendor libraries masked.
ProcessOptions sandboxed_process(const Sandbox& sandbox, const SandboxedRun& run);

}  // namespace grader
