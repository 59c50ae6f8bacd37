// particle-storm-gen: writes storm files for workloads of any size.
//
//   particle-storm-gen <layer_size> <particles_per_storm> <storms> <seed> [options]
//     --prefix P          files P-1.txt, P-2.txt, ... (default: storm)
//     --positions LO:HI   particle positions, both ends included (default: 0:<layer_size - 1>)
//     --energy LO:HI      energy values, both ends included (default: 1:1000)
//
// It prints the command line that runs the files, e.g.
//   particle-storm-gen 1048576 2048 2 7  ->  particle-storm 1048576 storm-1.txt storm-2.txt
#include "generator.hpp"
#include "storm_file.hpp"

#include <CLI/CLI.hpp>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <stdexcept>
#include <string>

namespace {

// The checks of the command line's values. Their messages follow the option's or argument's
// name in CLI11's error (e.g. "--energy: LO must not exceed HI, found '9:1'").
long long integer(const std::string& text) {
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno != 0)
    throw std::invalid_argument("must be an integer, found '" + text + "'");
  return v;
}

void range(const std::string& text, long long& lo, long long& hi) {
  const auto colon = text.find(':');
  if (colon == std::string::npos) throw std::invalid_argument("must be LO:HI, found '" + text + "'");
  try {
    lo = integer(text.substr(0, colon));
    hi = integer(text.substr(colon + 1));
  } catch (const std::invalid_argument&) {
    throw std::invalid_argument("LO and HI must be integers, found '" + text + "'");
  }
  if (lo > hi) throw std::invalid_argument("LO must not exceed HI, found '" + text + "'");
}

void positions_range(const std::string& text, long long& lo, long long& hi) {
  range(text, lo, hi);
  if (lo < -storm_io::MAX_ABS_POSITION || hi > storm_io::MAX_ABS_POSITION)
    throw std::invalid_argument("must lie in [-1000000000, 1000000000], found '" + text + "'");
}

void energy_range(const std::string& text, long long& lo, long long& hi) {
  range(text, lo, hi);
  if (lo < -1000000 || hi > 1000000)
    throw std::invalid_argument("must lie in [-1000000, 1000000], found '" + text + "'");
}

long long particles_per_storm(const std::string& text) {
  const long long particles = integer(text);
  if (particles < 0 || particles > (1 << 28))
    throw std::invalid_argument("must be in [0, 268435456], found '" + text + "'");
  return particles;
}

long long storm_count(const std::string& text) {
  const long long storms = integer(text);
  if (storms < 1 || storms > 10000) throw std::invalid_argument("must be in [1, 10000], found '" + text + "'");
  return storms;
}

// A CLI11 validator from a check that throws: its message becomes CLI11's error.
CLI::Validator checked(const char* name, std::function<void(const std::string&)> check) {
  return CLI::Validator(
      [check](std::string& text) -> std::string {
        try {
          check(text);
          return {};
        } catch (const std::exception& e) {
          return e.what();
        }
      },
      "", name);
}

}  // namespace

int main(int argc, char** argv) try {
  std::string layer_size, particles, storms, seed, positions, energy;
  std::string prefix = "storm";
  CLI::App app{
      "particle-storm-gen: writes storm files for workloads of any size and prints the command line that "
      "runs them"};
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);  // a repeated option: the last wins
  app.add_option("layer_size", layer_size, "Cells in the layer")
      ->type_name("INT")
      ->required()
      ->check(checked("LAYER_SIZE", [](const std::string& t) { storm_io::parse_layer_size(t); }));
  app.add_option("particles_per_storm", particles, "Particles in each storm, 0 to 268435456")
      ->type_name("INT")
      ->required()
      ->check(checked("PARTICLES", [](const std::string& t) { particles_per_storm(t); }));
  app.add_option("storms", storms, "Storm files to write, 1 to 10000")
      ->type_name("INT")
      ->required()
      ->check(checked("STORMS", [](const std::string& t) { storm_count(t); }));
  app.add_option("seed", seed, "Seed of the random storms (the same seed gives the same files)")
      ->type_name("INT")
      ->required()
      ->check(checked("SEED", [](const std::string& t) { integer(t); }));
  app.add_option("--prefix", prefix, "Write the files P-1.txt, P-2.txt, ...")->type_name("P")->capture_default_str();
  auto* positions_opt =
      app.add_option("--positions", positions, "Particle positions, both ends included, within +-1000000000")
          ->type_name("LO:HI")
          ->default_str("0:<layer_size - 1>")
          ->check(checked("LO:HI", [](const std::string& t) {
            long long lo = 0, hi = 0;
            positions_range(t, lo, hi);
          }));
  auto* energy_opt = app.add_option("--energy", energy, "Energy values, both ends included, within +-1000000")
                         ->type_name("LO:HI")
                         ->default_str("1:1000")
                         ->check(checked("LO:HI", [](const std::string& t) {
                           long long lo = 0, hi = 0;
                           energy_range(t, lo, hi);
                         }));
  CLI11_PARSE(app, argc, argv);

  // The values were checked while parsing: these conversions cannot fail.
  storm_grading::StormShape shape;
  shape.layer_size = storm_io::parse_layer_size(layer_size);
  shape.particles = static_cast<int>(particles_per_storm(particles));
  shape.storms = static_cast<int>(storm_count(storms));
  const long long seed_value = integer(seed);
  long long lo = 0, hi = 0;
  if (positions_opt->count() > 0) {
    positions_range(positions, lo, hi);
    shape.min_position = lo;
    shape.max_position = hi;
  } else {
    shape.max_position = shape.layer_size - 1;
  }
  if (energy_opt->count() > 0) {
    energy_range(energy, lo, hi);
    shape.min_energy = static_cast<int>(lo);
    shape.max_energy = static_cast<int>(hi);
  }

  std::string command = "particle-storm " + std::to_string(shape.layer_size);
  for (int i = 0; i < shape.storms; ++i) {
    const std::string path = prefix + "-" + std::to_string(i + 1) + ".txt";
    storm_io::write_storm_file(path, storm_grading::generate_storm(shape, static_cast<std::uint64_t>(seed_value), i));
    command += " " + path;
  }
  std::printf("%s\n", command.c_str());
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "%s: error: %s\n", argv[0], e.what());
  return 1;
}
