#include "tree/build_tree.hpp"

#include "grader/file_lock.hpp"
#include "grader/process.hpp"

#include <iostream>

namespace grader {
namespace fs = std::filesystem;

bool build_in_tree(const Paths& paths, const std::vector<std::string>& targets, const fs::path& log,
                   const std::atomic<bool>* cancel) {
  const fs::path lock_path = paths.build_root / "grader-build.lock";
  auto lock = FileLock::try_lock(lock_path);
  if (!lock) {
    std::cerr << "another grader is building in " << paths.build_root.string()
              << " now; waiting for it to finish (Ctrl-C to stop) ..." << std::endl;
    lock.emplace(lock_path);
  }
  ProcessOptions build;
  build.argv = {paths.cmake.string(), "--build", paths.build_root.string(), "--target"};
  build.argv.insert(build.argv.end(), targets.begin(), targets.end());
  build.output_file = log;
  build.cancel = cancel;
  return run_process(build).ok();
}

}  // namespace grader
