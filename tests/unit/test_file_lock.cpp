// grader/include/grader/file_lock.hpp: one holder at a time, released with its holder, and a
// waiter that says it waits.
#include "grader/file_lock.hpp"

#include "grader/catch.hpp"

#include <chrono>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <thread>

#include <unistd.h>

namespace fs = std::filesystem;
using grader::FileLock;

TEST_CASE("a file lock has one holder at a time and is free again when its holder goes", "[lock]") {
  const fs::path dir = fs::temp_directory_path() / ("workbook-lock-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path path = dir / "run.lock";
  {
    auto first = FileLock::try_lock(path);
    REQUIRE(first.has_value());
    CHECK_FALSE(FileLock::try_lock(path).has_value());  // held: a second open file is refused
    FileLock moved = std::move(*first);                 // moving keeps it held
    CHECK_FALSE(FileLock::try_lock(path).has_value());
  }
  CHECK(FileLock::try_lock(path).has_value());  // released with its holder
  fs::remove_all(dir);
}

TEST_CASE("a second check of a lab waits for the first, saying so", "[lock]") {
  const fs::path dir = fs::temp_directory_path() / ("workbook-lock-wait-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ostringstream said;
  auto* old = std::cerr.rdbuf(said.rdbuf());
  { const FileLock free_now = grader::lock_lab_runs(dir, "grader check demo"); }
  CHECK(said.str().empty());  // free: taken at once, nothing said
  const auto t0 = std::chrono::steady_clock::now();
  {
    auto held = FileLock::try_lock(dir / "run.lock");
    REQUIRE(held.has_value());
    std::thread first([lock = std::move(*held)]() mutable {
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      FileLock gone = std::move(lock);  // released at the end of this scope
    });
    held.reset();
    const FileLock second = grader::lock_lab_runs(dir, "grader check demo");
    first.join();
  }
  const auto waited = std::chrono::steady_clock::now() - t0;
  std::cerr.rdbuf(old);
  CHECK(waited >= std::chrono::milliseconds(250));
  CHECK(said.str().find("grader check demo: another grader check or calibrate of this lab is running in") == 0);
  CHECK(said.str().find("waiting for it to finish") != std::string::npos);
  fs::remove_all(dir);
}
