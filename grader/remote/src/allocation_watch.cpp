// The count of a submission's failed device allocations (allocation_watch.hpp): on the control
// page in the runner, nowhere in a test program.
#include "remote/allocation_watch.hpp"

namespace remote {
namespace {

Control* g_control = nullptr;

}  // namespace

void count_allocations_on(Control* control) { g_control = control; }

void note_allocation(cudaError_t error, std::size_t bytes) {
  if (error != cudaErrorMemoryAllocation || g_control == nullptr) return;
  __atomic_store_n(&g_control->failed_allocation_bytes, static_cast<std::uint64_t>(bytes), __ATOMIC_RELAXED);
  __atomic_add_fetch(&g_control->failed_allocations, 1u, __ATOMIC_RELEASE);
}

}  // namespace remote
