#include "batch/gpu_gate_keeper.hpp"

#include "grader/gpu_gate.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace grader {

GateKeeper::GateKeeper(GpuPool& pool, int gpu) : pool_(pool), gpu_(gpu) {
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
    pool_.end_gated_start(gpu_);
    throw std::runtime_error(std::string("socketpair (a GPU gate): ") + std::strerror(errno));
  }
  fd_ = sv[0];
  child_fd_ = sv[1];
  try {
    keeper_ = std::thread([this] { keep(); });
  } catch (...) {
    ::close(fd_);
    ::close(child_fd_);
    pool_.end_gated_start(gpu_);
    throw std::runtime_error("a GPU gate's thread could not start");
  }
}

GateKeeper::~GateKeeper() { finish(); }

void GateKeeper::child_started() {
  std::lock_guard<std::mutex> l(m_);
  if (child_fd_ >= 0) ::close(child_fd_);
  child_fd_ = -1;
}

double GateKeeper::waited_s() const {
  std::lock_guard<std::mutex> l(m_);
  const double now =
      asked_at_ ? std::chrono::duration<double>(std::chrono::steady_clock::now() - *asked_at_).count() : 0;
  return waited_s_ + now;
}

bool GateKeeper::opened() const {
  std::lock_guard<std::mutex> l(m_);
  return opened_;
}

bool GateKeeper::asked() const {
  std::lock_guard<std::mutex> l(m_);
  return asked_;
}

void GateKeeper::stop_clock(bool process_ended) {
  std::lock_guard<std::mutex> l(m_);
  if (process_ended) ended_ = true;
  if (asked_at_) waited_s_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - *asked_at_).count();
  asked_at_.reset();
}

void GateKeeper::keep() {
  char ask = 0;
  ssize_t n;
  do n = ::read(fd_, &ask, 1);
  while (n < 0 && errno == EINTR);
  if (n != 1 || ask != kGateAsk) {  // ended (or spoke out of turn) without asking: nothing to open
    pool_.end_gated_start(gpu_);
    return;
  }
  {
    std::lock_guard<std::mutex> l(m_);
    asked_ = true;
    if (!ended_) asked_at_ = std::chrono::steady_clock::now();
  }
  const GpuPool::Lease lease = pool_.acquire_gated(gpu_, &ended_);
  stop_clock(false);
  {
    std::lock_guard<std::mutex> l(m_);
    lease_ = lease;
    opened_ = lease.gpu >= 0;
  }
  if (lease.gpu < 0) return;  // the process ended while it waited
  const char open = kGateOpen;
  (void)!::send(fd_, &open, 1, MSG_NOSIGNAL);  // a process gone meanwhile: finish() releases the GPU
}

void GateKeeper::finish() {
  child_started();   // a process that never started holds no end either
  stop_clock(true);  // the wait, if any, ends with the process
  pool_.wake();
  // A copy of the process's end that outlived it (a descendant that left its group) must not keep
  // the keeper reading: the process is over.
  if (fd_ >= 0) ::shutdown(fd_, SHUT_RDWR);
  if (keeper_.joinable()) keeper_.join();
  if (lease_ && lease_->gpu >= 0) pool_.release(*lease_);
  lease_.reset();
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

}  // namespace grader
