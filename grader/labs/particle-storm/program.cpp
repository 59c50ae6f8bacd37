#include "program.hpp"

#include "storm_file.hpp"

#include <chrono>
#include <cstdio>
#include <exception>
#include <string>

namespace storm_io {

int run_program(int argc, char** argv, SimulateFn simulate) {
  /* 1.1. Read arguments */
  if (argc < 3) {
    std::fprintf(stderr, "Usage: %s <size> <storm_1_file> [ <storm_i_file> ] ... \n", argv[0]);
    return 1;
  }
  std::vector<storm::Storm> storms;
  int layer_size = 0;
  try {
    layer_size = parse_layer_size(argv[1]);
    /* 1.2. Read storms information */
    for (int i = 2; i < argc; i++) storms.push_back(read_storm_file(argv[i]));
  } catch (const InputError& e) {
    std::fprintf(stderr, "%s: error: %s\n", argv[0], e.what());
    return 1;
  }

  std::vector<storm::Result> results;
  /* 2. Begin time measurement */
  const auto start = std::chrono::steady_clock::now();
  try {
    results = simulate(layer_size, storms);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: error during the simulation: %s\n", argv[0], e.what());
    return 1;
  }
  /* 5. End time measurement */
  const double ttotal = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (results.size() != storms.size()) {
    std::fprintf(stderr, "%s: error: simulate() returned %zu results for %zu storms\n", argv[0], results.size(),
                 storms.size());
    return 1;
  }

  /* 7. Results output, used by the Tablon online judge software */
  std::printf("\n");
  /* 7.1. Total computation time */
  std::printf("Time: %lf\n", ttotal);
  /* 7.2. Print the maximum levels */
  std::printf("Result:");
  for (const auto& r : results) std::printf(" %d %f", r.position, r.value);
  std::printf("\n");
  return 0;
}

}  // namespace storm_io
