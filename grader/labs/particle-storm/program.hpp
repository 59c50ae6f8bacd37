// The particle-storm program, as the course ran it on its leaderboard:
//
//   <program> <layer_size> <storm_file> [<storm_file> ...]
//
// reads the storms (one per file, files may repeat), runs the simulation, and prints the
// original output: a blank line, "Time: <seconds>" (the simulation only, not the reading of
// the files), then "Result:" followed by " <position> <value>" for each storm (%d %f).
// A malformed file or argument is reported on stderr, naming the file and line, with exit
// status 1 (EXIT_FAILURE, as the original).
//
// One implementation for the sequential program, yours and the reference: they differ only in
// the simulate function they pass.
#pragma once

#include "storm.h"

#include <vector>

namespace storm_io {

using SimulateFn = std::vector<storm::Result> (*)(int layer_size, const std::vector<storm::Storm>& storms);

int run_program(int argc, char** argv, SimulateFn simulate);

}  // namespace storm_io
