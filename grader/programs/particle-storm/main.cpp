// particle-storm (your storm.cu) and particle-storm-reference (the reference solution's): the
// program of the course, `particle-storm <layer_size> <storm_file>...` (program.hpp).
#include "program.hpp"

namespace {
std::vector<storm::Result> simulate(int layer_size, const std::vector<storm::Storm>& storms) {
  return storm::simulate(layer_size, storms);  // with your update, relax and maximum
}
}  // namespace

int main(int argc, char** argv) { return storm_io::run_program(argc, argv, simulate); }
