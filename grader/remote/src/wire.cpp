#include "remote/wire.hpp"

#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstdio>

namespace remote {

bool send_message(int fd, Type type, const Writer& payload) {
  std::vector<unsigned char> message(sizeof(std::uint32_t) + payload.bytes().size());
  const auto t = static_cast<std::uint32_t>(type);
  std::memcpy(message.data(), &t, sizeof t);
  std::memcpy(message.data() + sizeof t, payload.bytes().data(), payload.bytes().size());
  if (message.size() > kMaxMessage) throw std::runtime_error("message too long");
  for (;;) {
    const ssize_t n = ::send(fd, message.data(), message.size(), MSG_NOSIGNAL);
    if (n == static_cast<ssize_t>(message.size())) return true;
    if (n < 0 && errno == EINTR) continue;
    return false;
  }
}

bool receive_message(int fd, Type& type, std::vector<unsigned char>& payload, int timeout_ms) {
  pollfd p{fd, POLLIN, 0};
  for (;;) {
    const int r = ::poll(&p, 1, timeout_ms);
    if (r == 0) return false;
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) throw std::runtime_error("poll failed");
    break;
  }
  std::vector<unsigned char> message(kMaxMessage);
  ssize_t n;
  do {
    n = ::recv(fd, message.data(), message.size(), MSG_TRUNC);
  } while (n < 0 && errno == EINTR);
  if (n == 0) throw std::runtime_error("the other process closed the connection");
  if (n < 0) throw std::runtime_error("the connection broke");
  if (static_cast<std::size_t>(n) > message.size() || static_cast<std::size_t>(n) < sizeof(std::uint32_t))
    throw std::runtime_error("malformed message (size)");
  std::uint32_t t;
  std::memcpy(&t, message.data(), sizeof t);
  type = static_cast<Type>(t);
  payload.assign(message.begin() + sizeof t, message.begin() + n);
  return true;
}

std::string failed_allocations_note(std::uint32_t count, std::uint64_t bytes) {
  if (count == 0) return "";
  char size[64];
  if (bytes >= (std::uint64_t(1) << 30))
    std::snprintf(size, sizeof size, "%.1f GiB", static_cast<double>(bytes) / (1u << 30));
  else
    std::snprintf(size, sizeof size, "%.1f MiB", static_cast<double>(bytes) / (1u << 20));
  return "in this call, " + std::to_string(count) + " device allocation" + (count == 1 ? "" : "s") +
         " in your code failed: out of memory (cudaErrorMemoryAllocation), the last of " + size +
         "; code that goes on with the pointer it did not get fails later: check what cudaMalloc returns";
}

}  // namespace remote
