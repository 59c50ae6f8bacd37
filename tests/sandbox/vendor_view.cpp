// CTest sandbox/no-vendor-math: the view a submission's test program and runner get in `grader
// batch` and `grader leaderboard` (sandboxed_process, as grading_stages.cpp and leaderboard_run.cpp
// build it) holds no vendor math library, while the CUDA runtime still loads. On the CPU: it runs
// this program again inside the sandbox as the probe, which
//   - walks the machine as vendor_library_files() does: it must find no readable one;
//   - opens and dlopens every vendor library the host has, by path: each must fail;
//   - dlopens the CUDA runtime (libcudart) the host has: it must load.
// Exit 77 (skipped) where bubblewrap does not work; 1 with what was visible on failure.
#include "grader/process.hpp"
#include "grader/sandbox.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

namespace fs = std::filesystem;

namespace {

// Inside the sandbox: one line per finding, "visible", "opened", "loaded" or "runtime-missing".
int probe(int argc, char** argv) {
  int bad = 0;
  for (const auto& f : grader::vendor_library_files()) {
    std::cout << "visible " << f.string() << "\n";
    ++bad;
  }
  for (int i = 3; i < argc; ++i) {
    const std::string path = argv[i];
    if (const int fd = ::open(path.c_str(), O_RDONLY); fd >= 0) {
      char magic[4] = {};
      if (::read(fd, magic, 4) == 4 && magic[1] == 'E' && magic[2] == 'L' && magic[3] == 'F') {
        std::cout << "opened " << path << "\n";
        ++bad;
      }
      ::close(fd);
    }
    if (void* h = ::dlopen(path.c_str(), RTLD_LAZY | RTLD_LOCAL)) {
      std::cout << "loaded " << path << "\n";
      ++bad;
      ::dlclose(h);
    }
  }
  const std::string runtime = argv[2];
  if (!runtime.empty() && !::dlopen(runtime.c_str(), RTLD_LAZY | RTLD_LOCAL)) {
    std::cout << "runtime-missing " << runtime << ": " << ::dlerror() << "\n";
    ++bad;
  }
  std::cout << "probe done\n";
  return bad == 0 ? 0 : 1;
}

// The host's CUDA runtime library, which must stay loadable: "" when none is found.
std::string cuda_runtime() {
  for (const char* dir : {"/usr/local/cuda/lib64", "/usr/local/cuda/targets/x86_64-linux/lib",
                          "/usr/lib/x86_64-linux-gnu", "/usr/lib64"}) {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec))
      if (e.path().filename().string().rfind("libcudart.so.", 0) == 0) return e.path().string();
  }
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 3 && std::string(argv[1]) == "--probe") return probe(argc, argv);
  const grader::Sandbox sandbox = grader::Sandbox::detect();
  if (sandbox.kind() != grader::Sandbox::Kind::Bubblewrap) {
    std::cout << "SKIPPED: bubblewrap does not work here (" << sandbox.describe() << ")\n";
    return 77;
  }
  const auto vendor = sandbox.vendor_libraries();
  std::cout << "the host has " << vendor.size() << " vendor math library files\n";
  for (const auto& f : vendor) std::cout << "  " << f.string() << "\n";
  const fs::path self = fs::canonical("/proc/self/exe");
  const fs::path dir = fs::temp_directory_path() / ("vendor-view-" + std::to_string(::getpid()));
  fs::create_directories(dir / "run");
  grader::SandboxedRun run;  // as the batch's run_phase builds it
  run.argv = {self.string(), "--probe", cuda_runtime()};
  for (const auto& f : vendor) run.argv.push_back(f.string());
  run.run_dir = dir / "run";
  run.base = {self.parent_path().parent_path()};
  run.log = dir / "probe.log";
  run.timeout_s = 120;
  run.limits.output_bytes = 1 << 20;
  const grader::ProcessResult r = grader::run_process(grader::sandboxed_process(sandbox, run));
  std::ifstream in(run.log);
  std::stringstream log;
  log << in.rdbuf();
  std::cout << "in the sandbox (" << r.describe() << "):\n" << log.str();
  fs::remove_all(dir);
  const bool ok = r.ok() && log.str().find("probe done") != std::string::npos;
  std::cout << (ok ? "PASSED: no vendor math library in the sandbox's view; the CUDA runtime loads\n"
                   : "FAILED: see above\n");
  return ok ? 0 : 1;
}
