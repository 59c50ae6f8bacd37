// An exclusive advisory lock (flock) on a side file, released when the holder is destroyed or its
// process dies (the kernel drops it with the file descriptor): no stale lock survives a crash or
// a Ctrl-C. Two graders on one folder take turns instead of mixing their files.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace grader {

class FileLock {
public:
  // Waits until the lock is free.
  explicit FileLock(const std::filesystem::path& path);
  // The lock if it is free now, nothing if another holder has it. Throws if the file cannot be
  // opened.
  static std::optional<FileLock> try_lock(const std::filesystem::path& path);

  FileLock(FileLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  FileLock& operator=(FileLock&&) = delete;
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  ~FileLock();

private:
  FileLock() = default;
  int fd_ = -1;
};

// The lock of one lab's run folder (<build>/grader-runs/<lab>/run.lock), shared by check and
// calibrate: taken at once if free, else after saying on stderr who waits for what.
FileLock lock_lab_runs(const std::filesystem::path& run_dir, const std::string& who);

}  // namespace grader
