// particle-storm-seq: the sequential program (sequential.cpp), with the same command line and
// output as yours, so that the two can be compared line by line.
#include "program.hpp"
#include "sequential.hpp"

namespace {
std::vector<storm::Result> simulate(int layer_size, const std::vector<storm::Storm>& storms) {
  return storm_grading::sequential_simulate(layer_size, storms);
}
}  // namespace

int main(int argc, char** argv) { return storm_io::run_program(argc, argv, simulate); }
