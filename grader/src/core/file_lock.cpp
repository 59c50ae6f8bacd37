#include "grader/file_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <stdexcept>

namespace grader {

namespace {
int open_lock_file(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error("cannot open the lock file " + path.string() + ": " + std::strerror(errno));
  return fd;
}
}  // namespace

FileLock::FileLock(const std::filesystem::path& path) : fd_(open_lock_file(path)) {
  while (::flock(fd_, LOCK_EX) != 0 && errno == EINTR) {
  }
}

std::optional<FileLock> FileLock::try_lock(const std::filesystem::path& path) {
  FileLock lock;
  lock.fd_ = open_lock_file(path);
  if (::flock(lock.fd_, LOCK_EX | LOCK_NB) != 0) return std::nullopt;  // closed by ~FileLock
  return lock;
}

FileLock::~FileLock() {
  if (fd_ >= 0) ::close(fd_);
}

FileLock lock_lab_runs(const std::filesystem::path& run_dir, const std::string& who) {
  const auto path = run_dir / "run.lock";
  if (auto lock = FileLock::try_lock(path)) return std::move(*lock);
  std::cerr << who << ": another grader check or calibrate of this lab is running in " << run_dir.parent_path().string()
            << " now; waiting for it to finish (Ctrl-C to stop) ..." << std::endl;
  return FileLock(path);
}

}  // namespace grader
