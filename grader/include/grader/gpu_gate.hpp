// The gate between `grader batch` and a test program that needs its GPU alone (a timed phase, or
// checks run again alone). The program is started on its GPU while other submissions' phases
// still use it; it makes its own CUDA context (slow, and serialized by the driver across the
// node's GPUs) and then asks at the gate; the batch opens it once the GPU is the program's alone
// (batch/gpu_gate_keeper.hpp). Only then does it start the runner with the submission's code, so
// that no submission's code is on the GPU during another's timing.
//
// The gate is a socket pair; the program's end is the descriptor WORKBOOK_GATE_FD names. The
// program writes kGateAsk and waits; the batch answers kGateOpen.
#pragma once

#include <string>

namespace grader {

constexpr char kGateAsk = 'r';
constexpr char kGateOpen = 'g';
// The program's exit status when it could not make its CUDA context beside the GPU's other work
// (a neighbour holding the GPU's memory, say): it asks nothing, runs no test, and the batch runs
// the phase again with the GPU its alone from the start.
constexpr int kGateSetupFailed = 75;

// The program's side: asks at the gate on `fd` and waits, as long as it takes (the batch bounds
// the program's run). "" once the gate opened, else why it did not ("the grader closed the gate").
std::string wait_at_gate(int fd);

}  // namespace grader
