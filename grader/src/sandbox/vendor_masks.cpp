// The vendor math libraries on this machine (vendor_libraries.hpp), for the sandbox to cover:
// every place a CUDA toolkit, a distribution, pip or conda puts them, and where the loader looks.
// The sandbox shows the machine read-only, so a submission could dlopen any copy by its path:
// each one found is covered by an empty file in the test program's view (sandbox.cpp).
#include "grader/sandbox.hpp"

#include "remote/vendor_libraries.hpp"

#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

namespace grader {
namespace fs = std::filesystem;

namespace {

// Where to look, and how deep: the toolkits and library folders the loader knows, whole; the
// trees where pip, conda and site installs keep theirs (nvidia/cublas/lib, torch/lib, envs/*/lib).
std::vector<std::pair<fs::path, int>> search_roots() {
  std::vector<std::pair<fs::path, int>> roots;
  std::error_code ec;
  for (const char* parent : {"/usr/local", "/opt", "/usr/lib"})
    for (const auto& e : fs::directory_iterator(parent, ec))
      if (e.path().filename().string().rfind("cuda", 0) == 0) roots.push_back({e.path(), 6});
  for (const char* dir : {"/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/lib64",
                          "/usr/local/lib64", "/usr/lib/wsl/lib"})
    roots.push_back({dir, 2});
  for (const char* tree : {"/usr/lib/python3", "/usr/local/lib", "/opt", "/root/.local/lib"})
    roots.push_back({tree, 7});
  for (const auto& home : fs::directory_iterator("/home", ec)) {
    roots.push_back({home.path() / ".local" / "lib", 6});
    for (const char* conda : {"miniconda3", "anaconda3", "miniforge3", "mambaforge", ".conda"})
      roots.push_back({home.path() / conda, 7});
  }
  // Where the loader looks: ld.so.conf's folders and the grader's LD_LIBRARY_PATH (passed on).
  for (const auto& conf : fs::directory_iterator("/etc/ld.so.conf.d", ec)) {
    std::ifstream in(conf.path());
    for (std::string line; std::getline(in, line);)
      if (!line.empty() && line[0] == '/') roots.push_back({line.substr(0, line.find_first_of(" \t#")), 2});
  }
  if (const char* path = std::getenv("LD_LIBRARY_PATH")) {
    std::stringstream dirs(path);
    for (std::string dir; std::getline(dirs, dir, ':');)
      if (!dir.empty()) roots.push_back({dir, 2});
  }
  return roots;
}

// The vendor libraries under `root`, at most `depth` folders down, as real files (a symlink's
// target: covering it covers every name that leads to it). Symlinked folders are not followed;
// the walk stops after `budget` entries in all, so that a huge tree costs a bounded time.
void collect(const fs::path& root, int depth, std::set<fs::path>& found, long& budget) {
  std::error_code ec;
  fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec), end;
  for (; !ec && it != end && budget > 0; it.increment(ec), --budget) {
    if (it.depth() >= depth) it.disable_recursion_pending();
    const std::string name = it->path().filename().string();
    if (!remote::is_vendor_math_library(name)) continue;
    std::error_code e2;
    const fs::path real = fs::canonical(it->path(), e2);
    if (!e2 && fs::is_regular_file(real, e2)) found.insert(real);
  }
}

}  // namespace

std::vector<fs::path> vendor_library_files() {
  std::set<fs::path> found;
  long budget = 2'000'000;
  for (const auto& [root, depth] : search_roots()) collect(root, depth, found, budget);
  return {found.begin(), found.end()};
}

}  // namespace grader
