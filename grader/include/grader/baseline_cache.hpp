// The sequential baselines' times, measured once per machine and size and kept in a JSON file,
// so that grading does not re-run a multi-second CPU loop for every student.
//
// The file is $WORKBOOK_CACHE_DIR/baselines.json (default: $XDG_CACHE_HOME/cuda-workbook or
// ~/.cache/cuda-workbook). Entries are keyed by machine (host name and CPU model) and by what
// was measured ("matmul-tiled/sequential/1024x1024x1024"). The file is locked while a baseline
// is measured, so two grading processes never measure the same thing at once, and it is
// replaced atomically, so a crash never leaves half a file.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <string>

namespace grader {

struct BaselineTime {
  double median_ms = 0;
  double min_ms = 0;
  double cv = 0;
  int runs = 0;
  bool from_cache = false;
};

std::filesystem::path cache_dir();
std::string machine_id();  // "hostname / CPU model name"
std::string cpu_model();   // /proc/cpuinfo's model name ("unknown CPU" where it has none)

// Returns the cached time for `key` on this machine, or runs `measure` (with the file locked),
// stores its result and returns it. `announce` is printed before a measurement starts (and if
// the result cannot be stored, e.g. in a read-only folder: the measured time is still returned).
BaselineTime cached_baseline(const std::string& key, const std::function<BaselineTime()>& measure,
                             const std::function<void(const std::string&)>& announce = {});

// This machine's cached medians (ms) whose keys start with `prefix` ("matmul-tiled/").
std::map<std::string, double> cached_baselines(const std::string& prefix);

}  // namespace grader
