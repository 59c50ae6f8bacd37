// Host data of a remote call: shared memory that both processes map.
//
// Some lab functions take host arrays (kmeans' objects, memberships and centroids; particle-
// storm's storms and results). The harness copies a call's host inputs into the arena before
// the clock starts, the runner passes pointers into the arena to the student's function, and
// the harness copies the outputs back after the reply. The arena is a memfd: the runner
// inherits it as descriptor WORKBOOK_RUNNER_ARENA_FD and maps it again (before the clock, in
// Prepare) whenever the harness has grown it.
//
// Each block lies between two guard zones filled with a pattern. A write past a block's ends
// changes a guard, and the harness reports it by the block's name ("wrote outside membership"),
// as the tests' own guarded host arrays do in one process.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace remote {

struct HostBlock {
  std::uint64_t offset = 0;  // from the start of the arena
  std::uint64_t bytes = 0;
};

// ---- harness -------------------------------------------------------------------------------

// Starts a call's host data: forgets the blocks of the previous call.
void arena_begin();
// A block of `bytes` for this call, between guards. `name` is how reports call it.
HostBlock arena_alloc(std::size_t bytes, const char* name);
// A block holding a copy of `bytes` bytes from `source`.
HostBlock arena_put(const void* source, std::size_t bytes, const char* name);
// Where a block lies in the harness's mapping (valid until the next arena_alloc).
void* arena_data(const HostBlock& block);
// After the call: "" when every guard is intact, else "wrote outside <name> (...)".
std::string arena_check_guards();
// The arena's size and descriptor, for the runner (harness.cpp).
std::uint64_t arena_size();
int arena_fd();

// ---- runner --------------------------------------------------------------------------------

// Maps the arena at (at least) `size` bytes: called with the size the harness sends.
void arena_map(std::uint64_t size);
// The block in the runner's mapping; throws std::runtime_error if it lies outside the arena.
void* arena_open(const HostBlock& block);

}  // namespace remote
