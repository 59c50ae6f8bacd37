// The runner's look for a vendor math library in its own process (vendor_libraries.hpp): the
// sandbox's view holds none, so this only names what got through (no bubblewrap, a copy the
// masks missed) or was tried. A submission can hide from in-process checks; they are a courtesy
// to the report, the view is the defence.
#include "remote/vendor_libraries.hpp"

#include <dlfcn.h>
#include <link.h>

#include <fstream>
#include <sstream>
#include <string>

namespace remote {
namespace {

const char* const kWhy =
    ", a vendor math library: only your own kernels are graded, and the grader provides none of "
    "these libraries (docs: what a submission may use)";

// The loader's count of objects ever loaded, from its first entry (dl_iterate_phdr's dlpi_adds):
// no system call, a few instructions.
unsigned long long loads_so_far() {
  unsigned long long adds = 0;
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t size, void* out) {
        if (size >= offsetof(dl_phdr_info, dlpi_adds) + sizeof info->dlpi_adds)
          *static_cast<unsigned long long*>(out) = info->dlpi_adds;
        return 1;  // the first entry holds the count
      },
      &adds);
  return adds;
}

// The first vendor library among the objects the loader holds now.
std::string loaded_vendor_library() {
  std::string found;
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* out) {
        const std::string path = info->dlpi_name ? info->dlpi_name : "";
        if (!is_vendor_math_library(path.substr(path.rfind('/') + 1))) return 0;
        *static_cast<std::string*>(out) = path;
        return 1;
      },
      &found);
  return found;
}

unsigned long long g_seen = 0;  // loads_so_far() at the last look

}  // namespace

// Before the first call: what the loader holds now is the runner's own (and the start-up code's,
// which vendor_library_mapped() sees at the first Prepare).
void vendor_check_start() {
  g_seen = loads_so_far();
  (void)::dlerror();  // a failed load of the CUDA runtime's own is not the call's
}

// After a call, before its reply (inside the tail the harness measures, so it costs next to
// nothing when nothing was loaded): a vendor library the call loaded, or the last load on this
// thread that failed and named one. "" when neither.
std::string vendor_library_after_call() {
  if (const char* failed = ::dlerror(); failed && mentions_vendor_math_library(failed))
    return std::string("the call tried to load a library that is not there (") + failed + ")" + kWhy;
  const unsigned long long now = loads_so_far();
  if (now == g_seen) return "";
  g_seen = now;
  if (const std::string path = loaded_vendor_library(); !path.empty()) return "the call loaded " + path + kWhy;
  return "";
}

// Before a call's clock starts (Prepare): a vendor library mapped into this process by any
// means, loader or not, read from /proc/self/maps. "" when none.
std::string vendor_library_mapped() {
  std::ifstream in("/proc/self/maps");
  std::stringstream text;
  text << in.rdbuf();
  const auto found = vendor_libraries_mapped(text.str());
  return found.empty() ? "" : "this process holds " + found.front() + kWhy;
}

}  // namespace remote
