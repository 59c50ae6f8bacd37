#include "grader/gpu_gate.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace grader {

std::string wait_at_gate(int fd) {
  const char ask = kGateAsk;
  ssize_t n;
  do n = ::send(fd, &ask, 1, MSG_NOSIGNAL);
  while (n < 0 && errno == EINTR);
  if (n != 1) return std::string("cannot ask at the gate: ") + std::strerror(errno);
  char answer = 0;
  do n = ::read(fd, &answer, 1);
  while (n < 0 && errno == EINTR);
  if (n < 0) return std::string("the gate failed: ") + std::strerror(errno);
  if (n == 0) return "the grader closed the gate";
  if (answer != kGateOpen) return "the gate gave an unexpected answer";
  return "";
}

}  // namespace grader
