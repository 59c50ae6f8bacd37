// Forbidden APIs in a leaderboard submission: what would let an entry win without a kernel of the
// student's own, or escape the timed window or the sandbox. A static scan of the source, cheap
// and run before anything is built; the timing harness catches what a scan cannot
// (workbook/contest.hpp).
//
// Forbidden:
//   - libraries that compute a lab's result: cuBLAS and cuBLASLt, CUTLASS and CuTe, cuDNN,
//     cuSPARSE, cuFFT, cuSOLVER, Thrust and CUB (their headers, their names, their namespaces).
//     cuRAND stays allowed: random numbers compute no lab's result.
//   - work outside the call that is timed: threads (std::thread, std::jthread, std::async,
//     pthread_create, <thread>, <future>, <pthread.h>, OpenMP), streams other than the one given
//     (any cudaStreamCreate*, cudaStreamPerThread, cudaStreamLegacy), host callbacks
//     (cudaLaunchHostFunc, cudaStreamAddCallback). Using the given cudaStream_t is fine.
//   - escapes from the sandbox: other processes (fork, vfork, exec*, posix_spawn, popen,
//     system, syscall), code loaded at run time (dlopen, dlsym, <dlfcn.h>), the environment
//     (getenv, secure_getenv, environ, setenv, putenv, unsetenv).
//   - what would hide code from this scan: raw string literals, an #include through a macro,
//     token pasting (##).
// Comments and the contents of string literals never count (strip_comments_and_strings); lines
// spliced with a backslash and digit separators (1'000) are read the way the compiler reads them.
// Not seen: inline assembly (device PTX is fair game, and host assembly is left to the sandbox),
// and code the preprocessor leaves out (#if 0) is scanned as if it were in.
#pragma once

#include <string>
#include <vector>

namespace grader {

struct ApiFinding {
  std::string file;  // as given to find_forbidden_apis
  int line = 0;      // 1-based
  std::string what;  // what was found, as written: "cublasSgemm", "#include <thrust/sort.h>"
  std::string why;   // one sentence for the student
};

// Every forbidden thing in `source` (the text of `file_name`), in line order; one finding per
// line and reason (the first thing found on the line for it). Empty when the source is clean.
std::vector<ApiFinding> find_forbidden_apis(const std::string& file_name, const std::string& source);

// "file:line: what: why", the way compilers print a diagnostic.
std::string to_string(const ApiFinding& finding);

// For `grader batch`'s feedback: one note per finding in the lab's `files` under `src`, saying
// that the leaderboard refuses it (batch grades the code all the same: its own tests and the
// sandbox decide the points; a vendor library is not in the sandbox's view). Empty when clean.
std::vector<std::string> forbidden_api_notes(const std::string& src, const std::vector<std::string>& files);

}  // namespace grader
