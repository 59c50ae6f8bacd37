// The messages between the harness (the grader's tests: inputs, checks, timing, results) and the
// runner (the submission's code and a small dispatcher), over a Unix socket pair of type
// SOCK_SEQPACKET, which keeps message boundaries. docs/architecture.md ("Two processes") says
// why grading is split this way.
//
// Every message is a Header followed by its payload, read and written with Writer and Reader.
// The runner is not trusted: the harness reads what it sends with the same bounds checks as any
// other input, and nothing in a reply can change a verdict except by making it worse.
#pragma once

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace remote {

enum class Type : std::uint32_t {
  Hello = 1,    // harness -> runner: the control block (IPC handle); runner -> harness: ready, its pid
  Call = 2,     // harness -> runner: seq: run the call prepared (the clock is running)
  Reply = 3,    // runner -> harness: seq, status, message, return value
  Bye = 4,      // harness -> runner: exit
  Started = 5,  // runner -> harness: main() was reached (the submission's start-up code ran)
  Prepare = 6,  // harness -> runner: seq, the arena's size (arena.hpp), function name, arguments:
                // decode them, write ready = seq on your stream (before the clock starts)
  Release = 7,  // harness -> runner: an IPC handle the harness is about to free: close it if open;
                // runner -> harness: "" when it is closed (or was never open), else why not
};

// How a call ended, in the runner's words (the harness trusts only what makes a verdict worse).
enum class Status : std::uint32_t {
  Ok = 0,
  Error = 1,            // the call threw or a launch failed; the runner is still usable
  Crashed = 2,          // a CUDA error that loses the context (illegal address, ...): the runner exits
  InvalidArgument = 3,  // the call threw std::invalid_argument (an interface's way to refuse input)
};

constexpr std::size_t kMaxMessage = 1 << 16;

// Bytes appended in order; strings are length-prefixed.
class Writer {
public:
  template <class T>
  void put(const T& value) {
    static_assert(std::is_trivially_copyable_v<T>, "only plain values go on the wire");
    // resize and copy, not insert(end, p, p + n): GCC 12 takes the inlined insert of a value
    // for an overflow (-Wstringop-overflow, a known false positive).
    const std::size_t at = bytes_.size();
    bytes_.resize(at + sizeof(T));
    std::memcpy(bytes_.data() + at, &value, sizeof(T));
  }
  void put_string(const std::string& s) {
    put<std::uint32_t>(static_cast<std::uint32_t>(s.size()));
    bytes_.insert(bytes_.end(), s.begin(), s.end());
  }
  void put_bytes(const std::vector<unsigned char>& b) {
    put<std::uint32_t>(static_cast<std::uint32_t>(b.size()));
    bytes_.insert(bytes_.end(), b.begin(), b.end());
  }
  const std::vector<unsigned char>& bytes() const { return bytes_; }

private:
  std::vector<unsigned char> bytes_;
};

// Reads what a Writer wrote; throws std::runtime_error on a short or malformed message.
class Reader {
public:
  Reader(const unsigned char* data, std::size_t size) : p_(data), end_(data + size) {}
  explicit Reader(const std::vector<unsigned char>& b) : Reader(b.data(), b.size()) {}
  template <class T>
  T get() {
    static_assert(std::is_trivially_copyable_v<T>, "only plain values come off the wire");
    need(sizeof(T));
    T value;
    std::memcpy(&value, p_, sizeof(T));
    p_ += sizeof(T);
    return value;
  }
  std::string get_string() {
    const auto n = get<std::uint32_t>();
    need(n);
    std::string s(reinterpret_cast<const char*>(p_), n);
    p_ += n;
    return s;
  }
  std::vector<unsigned char> get_bytes() {
    const auto n = get<std::uint32_t>();
    need(n);
    std::vector<unsigned char> b(p_, p_ + n);
    p_ += n;
    return b;
  }
  bool done() const { return p_ == end_; }

private:
  void need(std::size_t n) const {
    if (static_cast<std::size_t>(end_ - p_) < n) throw std::runtime_error("malformed message (too short)");
  }
  const unsigned char* p_;
  const unsigned char* end_;
};

// One message: its type, then the payload. send() returns false when the peer is gone.
bool send_message(int fd, Type type, const Writer& payload);
// Waits up to timeout_ms (-1: for ever) for a message. Returns false on timeout; throws
// std::runtime_error when the peer closed the socket or sent something unreadable.
bool receive_message(int fd, Type& type, std::vector<unsigned char>& payload, int timeout_ms);

// The control block: one page of shared host memory (a memfd the harness creates and the runner
// inherits as descriptor WORKBOOK_RUNNER_CONTROL_FD). The runner's stream writes `done` = the
// call's number when the call's work is finished (a stream memory operation on the page, which
// the runner registers with CUDA); the harness watches the word from the CPU and stops its clock
// when it changes. Nothing on the GPU waits for the other process, so the two CUDA contexts
// never compete for a time slice during a call.
struct Control {
  std::uint32_t done;
  std::uint32_t pad0[15];
  std::uint32_t ready;  // Prepare's answer: the runner's context holds the GPU
  std::uint32_t pad1[15];
  // The code's device allocations that failed for want of memory since the runner started
  // (allocation_watch.hpp), and the last one's size: the harness names those of a failed call.
  std::uint32_t failed_allocations;
  std::uint32_t pad2;
  std::uint64_t failed_allocation_bytes;
};

// What the harness adds to a failed call's message when the code had `count` device allocations
// fail for want of memory during the call, the last of `bytes`; "" when none did.
std::string failed_allocations_note(std::uint32_t count, std::uint64_t bytes);

}  // namespace remote
