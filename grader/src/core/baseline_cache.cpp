#include "grader/baseline_cache.hpp"
#include "grader/file_lock.hpp"
#include "grader/files.hpp"

#include <nlohmann/json.hpp>

#include <unistd.h>

#include <cstdlib>
#include <ctime>
#include <fstream>
#include <optional>

namespace grader {
namespace fs = std::filesystem;

fs::path cache_dir() {
  if (const char* dir = std::getenv("WORKBOOK_CACHE_DIR"); dir && *dir) return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return fs::path(xdg) / "cuda-workbook";
  if (const char* home = std::getenv("HOME"); home && *home) return fs::path(home) / ".cache" / "cuda-workbook";
  return fs::temp_directory_path() / "cuda-workbook";
}

std::string cpu_model() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);)
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "unknown CPU";
}

std::string machine_id() {
  char host[256] = "unknown-host";
  ::gethostname(host, sizeof host - 1);
  return std::string(host) + " / " + cpu_model();
}

namespace {

nlohmann::json load(const fs::path& file) {
  std::ifstream in(file);
  if (!in) return nlohmann::json::object();
  try {
    auto j = nlohmann::json::parse(in);
    return j.is_object() ? j : nlohmann::json::object();
  } catch (const std::exception&) {
    return nlohmann::json::object();  // a damaged cache is only a cache: measure again
  }
}

void save(const fs::path& file, const nlohmann::json& j) {
  const fs::path tmp = file.string() + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp);
    out << j.dump(2) << '\n';
  }
  fs::rename(tmp, file);
}

}  // namespace

std::map<std::string, double> cached_baselines(const std::string& prefix) {
  std::map<std::string, double> out;
  const nlohmann::json cache = load(cache_dir() / "baselines.json");
  const auto machine = cache.find(machine_id());
  if (machine == cache.end() || !machine->is_object()) return out;
  for (const auto& [key, entry] : machine->items())
    if (key.rfind(prefix, 0) == 0 && entry.is_object() && entry.value("median_ms", 0.0) > 0)
      out[key] = entry.value("median_ms", 0.0);
  return out;
}

BaselineTime cached_baseline(const std::string& key, const std::function<BaselineTime()>& measure,
                             const std::function<void(const std::string&)>& announce) {
  const fs::path dir = cache_dir();
  std::error_code ec;
  fs::create_directories(dir, ec);
  const fs::path file = dir / "baselines.json";
  const std::string machine = machine_id();

  // A cache folder that cannot be written has no lock either: measure anyway (saving then fails
  // and says so); the cache is only a cache.
  std::optional<FileLock> lock;
  try {
    lock.emplace(dir / "baselines.lock");
  } catch (const std::exception&) {
  }
  nlohmann::json cache = load(file);
  if (cache.contains(machine) && cache[machine].contains(key)) {
    const auto& e = cache[machine][key];
    BaselineTime t;
    t.median_ms = e.value("median_ms", 0.0);
    t.min_ms = e.value("min_ms", 0.0);
    t.cv = e.value("cv", 0.0);
    t.runs = e.value("runs", 0);
    t.from_cache = true;
    if (t.median_ms > 0) return t;
  }
  if (announce)
    announce("measuring the sequential baseline " + key + " once on this machine (cached in " + file.string() + ")");
  BaselineTime t = measure();
  cache = load(file);  // re-read under the lock, then add ours
  cache[machine][key] = {
      {"median_ms", t.median_ms}, {"min_ms", t.min_ms}, {"cv", t.cv}, {"runs", t.runs}, {"measured_at", now_iso()}};
  try {
    save(file, cache);
  } catch (const std::exception& e) {
    // A read-only cache (inside the batch sandbox, say) costs a measurement, never a result.
    if (announce) announce(std::string("could not cache the baseline: ") + e.what());
  }
  return t;
}

}  // namespace grader
