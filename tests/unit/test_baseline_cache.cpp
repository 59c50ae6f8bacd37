#include "grader/baseline_cache.hpp"
#include "grader/catch.hpp"

#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

using namespace grader;

namespace {
// Points WORKBOOK_CACHE_DIR at a fresh folder for the test's duration.
struct TempCache {
  std::filesystem::path dir = std::filesystem::temp_directory_path() / ("workbook-cache-" + std::to_string(::getpid()));
  TempCache() {
    std::filesystem::remove_all(dir);
    ::setenv("WORKBOOK_CACHE_DIR", dir.c_str(), 1);
  }
  ~TempCache() {
    ::unsetenv("WORKBOOK_CACHE_DIR");
    std::filesystem::remove_all(dir);
  }
};
}  // namespace

TEST_CASE("a baseline is measured once per key, then read from the cache", "[baseline]") {
  TempCache cache;
  int measured = 0;
  const auto measure = [&] {
    ++measured;
    return BaselineTime{123.5, 120.0, 0.01, 3, false};
  };
  std::string announced;
  const auto first = cached_baseline("lab/sequential/64", measure, [&](const std::string& m) { announced = m; });
  CHECK(measured == 1);
  CHECK_FALSE(first.from_cache);
  CHECK(announced.find("lab/sequential/64") != std::string::npos);
  const auto second = cached_baseline("lab/sequential/64", measure);
  CHECK(measured == 1);
  CHECK(second.from_cache);
  CHECK(second.median_ms == 123.5);
  CHECK(second.runs == 3);
  cached_baseline("lab/sequential/128", measure);  // another size: measured
  CHECK(measured == 2);
  CHECK(std::filesystem::exists(cache.dir / "baselines.json"));
}

TEST_CASE("a damaged cache file is measured again, not trusted", "[baseline]") {
  TempCache cache;
  std::filesystem::create_directories(cache.dir);
  std::ofstream(cache.dir / "baselines.json") << "{ this is not json";
  int measured = 0;
  const auto t = cached_baseline("k", [&] {
    ++measured;
    return BaselineTime{5, 5, 0, 1, false};
  });
  CHECK(measured == 1);
  CHECK(t.median_ms == 5);
  CHECK(cached_baseline("k", [] { return BaselineTime{}; }).from_cache);
}

TEST_CASE("machines are told apart by host name and CPU model", "[baseline]") {
  const auto id = machine_id();
  CHECK(id.find(" / ") != std::string::npos);
}

TEST_CASE("a cache folder that cannot be written costs a measurement, not the result", "[baseline]") {
  // Nothing can be created under /proc, not even by root.
  ::setenv("WORKBOOK_CACHE_DIR", "/proc/workbook-cache-cannot-exist", 1);
  std::string said;
  const auto t = cached_baseline(
      "k",
      [] {
        return BaselineTime{7, 7, 0, 1, false};
      },
      [&](const std::string& m) { said += m + "\n"; });
  ::unsetenv("WORKBOOK_CACHE_DIR");
  CHECK(t.median_ms == 7);
  CHECK_FALSE(t.from_cache);
  CHECK(said.find("could not cache the baseline") != std::string::npos);
}
