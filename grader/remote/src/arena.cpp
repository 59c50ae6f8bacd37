// The arena of host data shared by the harness and the runner (arena.hpp).
#include "remote/arena.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <vector>

namespace remote {
namespace {

constexpr std::uint64_t kGuard = 4096;          // bytes of pattern on each side of a block
constexpr std::uint64_t kAlign = 256;           // a block's start, as cudaMalloc aligns
constexpr std::uint64_t kGrowth = 64ull << 20;  // the arena grows in steps of 64 MiB
constexpr unsigned char kPattern = 0xA5;

std::uint64_t round_up(std::uint64_t v, std::uint64_t to) { return (v + to - 1) / to * to; }

std::runtime_error system_error(const char* what) {
  return std::runtime_error(std::string("host data of a remote call: ") + what + ": " + std::strerror(errno));
}

// The harness's side.
struct Arena {
  int fd = -1;
  unsigned char* map = nullptr;
  std::uint64_t size = 0;    // of the file and of this mapping
  std::uint64_t cursor = 0;  // the end of the last block's trailing guard
  struct Block {
    HostBlock where;
    std::string name;
  };
  std::vector<Block> blocks;

  void open() {
    if (fd >= 0) return;
    fd = ::memfd_create("workbook-arena", MFD_CLOEXEC);
    if (fd < 0) throw system_error("memfd_create");
  }
  void grow(std::uint64_t need) {
    if (need <= size) return;
    open();
    const std::uint64_t grown = round_up(need + need / 4, kGrowth);
    if (::ftruncate(fd, static_cast<off_t>(grown)) != 0) throw system_error("ftruncate");
    void* m = map ? ::mremap(map, size, grown, MREMAP_MAYMOVE)
                  : ::mmap(nullptr, grown, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (m == MAP_FAILED) throw system_error("mmap");
    map = static_cast<unsigned char*>(m);
    size = grown;
  }
};
Arena& harness_arena() {
  static Arena a;
  return a;
}

// The runner's mapping of the same file.
struct Mapping {
  unsigned char* map = nullptr;
  std::uint64_t size = 0;
};
Mapping& runner_mapping() {
  static Mapping m;
  return m;
}

}  // namespace

void arena_begin() {
  Arena& a = harness_arena();
  a.blocks.clear();
  a.cursor = 0;
}

HostBlock arena_alloc(std::size_t bytes, const char* name) {
  Arena& a = harness_arena();
  HostBlock b;
  b.offset = round_up(a.cursor + kGuard, kAlign);
  b.bytes = bytes;
  a.cursor = b.offset + bytes + kGuard;
  a.grow(a.cursor);
  std::memset(a.map + b.offset - kGuard, kPattern, kGuard);
  std::memset(a.map + b.offset + bytes, kPattern, kGuard);
  a.blocks.push_back({b, name});
  return b;
}

HostBlock arena_put(const void* source, std::size_t bytes, const char* name) {
  const HostBlock b = arena_alloc(bytes, name);
  if (bytes) std::memcpy(arena_data(b), source, bytes);
  return b;
}

void* arena_data(const HostBlock& block) { return harness_arena().map + block.offset; }

std::string arena_check_guards() {
  const Arena& a = harness_arena();
  const auto intact = [&](std::uint64_t from) {
    for (std::uint64_t i = 0; i < kGuard; ++i)
      if (a.map[from + i] != kPattern) return false;
    return true;
  };
  for (const auto& b : a.blocks) {
    if (!intact(b.where.offset - kGuard)) return "wrote outside " + b.name + " (memory just before it changed)";
    if (!intact(b.where.offset + b.where.bytes)) return "wrote outside " + b.name + " (memory just after it changed)";
  }
  return "";
}

std::uint64_t arena_size() { return harness_arena().size; }

int arena_fd() {
  harness_arena().open();
  return harness_arena().fd;
}

void arena_map(std::uint64_t size) {
  Mapping& m = runner_mapping();
  if (size <= m.size) return;
  const char* fd_text = std::getenv("WORKBOOK_RUNNER_ARENA_FD");
  if (!fd_text) throw std::runtime_error("host data of a remote call: WORKBOOK_RUNNER_ARENA_FD is not set");
  if (m.map) ::munmap(m.map, m.size);
  m.map = nullptr;
  m.size = 0;
  // Populated now (in Prepare, before the harness starts its clock): the student's first copy
  // from these pages then costs what it costs in one process, with no page faults timed.
  void* p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, std::atoi(fd_text), 0);
  if (p == MAP_FAILED) throw system_error("mmap");
  m.map = static_cast<unsigned char*>(p);
  m.size = size;
}

void* arena_open(const HostBlock& block) {
  const Mapping& m = runner_mapping();
  if (block.offset > m.size || block.bytes > m.size - block.offset)
    throw std::runtime_error("malformed call (host data outside the arena)");
  return m.map + block.offset;
}

}  // namespace remote
