#include "grader/sandbox.hpp"

#include "grader/process.hpp"

#include <cstdlib>
#include <sstream>

#include <unistd.h>

namespace grader {
namespace fs = std::filesystem;

namespace {

bool runs(const std::vector<std::string>& argv) {
  ProcessOptions o;
  o.argv = argv;
  o.output_file = "/dev/null";
  o.timeout_s = 20;
  return run_process(o).ok();
}

// The device files a CUDA program needs: /dev/nvidia0.., nvidiactl, nvidia-uvm, nvidia-caps/.
std::vector<fs::path> gpu_device_files() {
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/dev", ec))
    if (e.path().filename().string().rfind("nvidia", 0) == 0) files.push_back(e.path());
  if (fs::exists("/dev/dri")) files.push_back("/dev/dri");
  return files;
}

std::vector<std::string> bwrap_prefix(const std::string& bwrap, const std::vector<fs::path>& writable,
                                      const std::vector<fs::path>& hidden, const std::vector<fs::path>& readable,
                                      const std::vector<fs::path>& base, const std::vector<fs::path>& masked) {
  std::vector<std::string> a = {bwrap, "--ro-bind", "/", "/", "--dev", "/dev"};
  for (const auto& dev : gpu_device_files()) {
    a.insert(a.end(), {"--dev-bind", dev.string(), dev.string()});
  }
  a.insert(a.end(), {"--proc", "/proc", "--tmpfs", "/tmp"});
  for (const auto& b : base) a.insert(a.end(), {"--ro-bind", b.string(), b.string()});
  // Someone else's kernels: each vendor library covered by /dev/null, which the sandbox's mounts
  // (nodev) do not even let open; a dlopen by any name or path fails. /tmp is the sandbox's own.
  for (const auto& m : masked)
    if (m.string().rfind("/tmp/", 0) != 0) a.insert(a.end(), {"--ro-bind", "/dev/null", m.string()});
  for (const auto& h : hidden) a.insert(a.end(), {"--tmpfs", h.string()});
  for (const auto& r : readable) a.insert(a.end(), {"--ro-bind", r.string(), r.string()});
  for (const auto& w : writable) a.insert(a.end(), {"--bind", w.string(), w.string()});
  // No capabilities, even when the grader runs as root: without CAP_SYS_PTRACE a process cannot
  // trace or read the memory of the test program that keeps the verdict (it makes itself
  // undumpable), nor remount what is hidden here.
  a.insert(a.end(), {"--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--die-with-parent",
                     "--new-session", "--cap-drop", "ALL"});
  if (!writable.empty()) a.insert(a.end(), {"--chdir", writable.front().string()});
  a.push_back("--");
  return a;
}

}  // namespace

Sandbox Sandbox::detect(bool allow) {
  Sandbox s;
  if (!allow) {
    s.disabled_ = true;
    return s;
  }
  const char* forced = std::getenv("WORKBOOK_BWRAP");
  const std::string bwrap = forced && *forced ? forced : find_in_path("bwrap");
  if (!bwrap.empty()) {
    const fs::path tmp = fs::temp_directory_path();
    auto probe = bwrap_prefix(bwrap, {tmp}, {}, {}, {}, {});
    probe.push_back("true");
    if (runs(probe)) {
      s.kind_ = Kind::Bubblewrap;
      s.tool_ = bwrap;
      s.vendor_libraries_ = vendor_library_files();
      return s;
    }
  }
  const std::string unshare = find_in_path("unshare");
  if (!unshare.empty()) {
    // As root a network namespace needs nothing more; otherwise map ourselves to root in a user
    // namespace first (-r), where the kernel allows it.
    const bool root = ::geteuid() == 0;
    std::vector<std::string> probe = {unshare, root ? "--net" : "-rn", "--", "true"};
    if (runs(probe)) {
      s.kind_ = Kind::Unshare;
      s.tool_ = unshare;
    }
  }
  return s;
}

std::vector<std::string> Sandbox::wrap(const std::vector<std::string>& argv, const std::vector<fs::path>& writable,
                                       const std::vector<fs::path>& hidden, const std::vector<fs::path>& readable,
                                       const std::vector<fs::path>& base, const std::vector<fs::path>& masked) const {
  std::vector<std::string> full;
  switch (kind_) {
    case Kind::Bubblewrap:
      full = bwrap_prefix(tool_, writable, hidden, readable, base, masked);
      break;
    case Kind::Unshare:
      full = {tool_, ::geteuid() == 0 ? "--net" : "-rn", "--"};
      break;
    case Kind::None:
      break;
  }
  full.insert(full.end(), argv.begin(), argv.end());
  return full;
}

std::string Sandbox::describe() const {
  const std::string cap = kernel_process_cap_available()
                              ? "a kernel cap on processes (pids cgroup or RLIMIT_NPROC)"
                              : "NO kernel cap on processes (root without a pids cgroup: only the watch)";
  const std::string always =
      "own process group killed on timeout; memory and process-count watch over the whole process tree; " + cap +
      "; CPU-time, file-size and core-dump limits; cleared environment; output truncated at a limit";
  switch (kind_) {
    case Kind::Bubblewrap:
      return "bubblewrap (" + tool_ +
             "): read-only view of the machine except the submission's scratch folder, "
             "other submissions hidden, private /tmp, no network, own PID namespace, only the GPU's device files, " +
             std::to_string(vendor_libraries_.size()) +
             " vendor math library files (cuBLAS, cuDNN, cuFFT ...) covered "
             "while its code runs; " +
             always;
    case Kind::Unshare:
      return "unshare (" + tool_ +
             "): no network (private network namespace); NOT read-only, and the vendor math "
             "libraries are NOT hidden (a call that loads one is still named): bubblewrap is not installed or cannot "
             "run here; " +
             always;
    case Kind::None:
      return std::string(disabled_ ? "sandbox switched off (--no-sandbox)"
                                   : "no namespace isolation (neither bubblewrap nor unshare works here)") +
             ": the filesystem and the network are NOT protected; " + always;
  }
  return always;
}

ProcessOptions sandboxed_process(const Sandbox& sandbox, const SandboxedRun& run) {
  ProcessOptions p;
  p.argv = sandbox.wrap(run.argv, {run.run_dir}, run.hidden, run.readable, run.base,
                        run.own_code_only ? sandbox.vendor_libraries() : std::vector<fs::path>{});
  p.clear_env = true;
  p.set_env = {{"PATH", "/usr/local/bin:/usr/bin:/bin"},
               {"HOME", run.run_dir.string()},
               {"TMPDIR", "/tmp"},
               {"LANG", "C.UTF-8"}};
  for (const auto& [name, value] : run.env) p.set_env[name] = value;
  for (const char* keep : {"CUDA_VISIBLE_DEVICES", "LD_LIBRARY_PATH", "NVIDIA_TF32_OVERRIDE"})
    if (const char* v = std::getenv(keep)) p.set_env[keep] = v;
  p.cwd = run.run_dir;
  p.output_file = run.log;
  p.timeout_s = run.timeout_s;
  p.limits = run.limits;
  if (p.limits.cpu_seconds == 0) p.limits.cpu_seconds = run.timeout_s;
  return p;
}

}  // namespace grader
