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

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

long long integer(const std::string& text, const char* what) {
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno != 0)
    throw std::invalid_argument(std::string(what) + " must be an integer, found '" + text + "'");
  return v;
}

void range(const std::string& text, const char* what, long long& lo, long long& hi) {
  const auto colon = text.find(':');
  if (colon == std::string::npos) throw std::invalid_argument(std::string(what) + " must be LO:HI, found '" + text + "'");
  lo = integer(text.substr(0, colon), what);
  hi = integer(text.substr(colon + 1), what);
  if (lo > hi) throw std::invalid_argument(std::string(what) + ": LO must not exceed HI in '" + text + "'");
}

int usage(const char* argv0) {
  std::fprintf(stderr,
               "Usage: %s <layer_size> <particles_per_storm> <storms> <seed> [--prefix P] "
               "[--positions LO:HI] [--energy LO:HI]\n",
               argv0);
  return 1;
}

}  // namespace

int main(int argc, char** argv) try {
  std::vector<std::string> args;
  std::string prefix = "storm";
  storm_grading::StormShape shape;
  bool positions_given = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if ((a == "--prefix" || a == "--positions" || a == "--energy") && i + 1 < argc) {
      const std::string v = argv[++i];
      long long lo = 0, hi = 0;
      if (a == "--prefix") {
        prefix = v;
      } else if (a == "--positions") {
        range(v, "--positions", lo, hi);
        if (lo < -storm_io::MAX_ABS_POSITION || hi > storm_io::MAX_ABS_POSITION)
          throw std::invalid_argument("--positions must lie in [-1000000000, 1000000000]");
        shape.min_position = lo;
        shape.max_position = hi;
        positions_given = true;
      } else {
        range(v, "--energy", lo, hi);
        if (lo < -1000000 || hi > 1000000) throw std::invalid_argument("--energy must lie in [-1000000, 1000000]");
        shape.min_energy = static_cast<int>(lo);
        shape.max_energy = static_cast<int>(hi);
      }
    } else if (a == "-h" || a == "--help") {
      usage(argv[0]);
      return 0;
    } else if (!a.empty() && a[0] == '-' && a.size() > 1 && !std::isdigit(static_cast<unsigned char>(a[1]))) {
      std::fprintf(stderr, "%s: unknown option '%s'\n", argv[0], a.c_str());
      return usage(argv[0]);
    } else {
      args.push_back(a);
    }
  }
  if (args.size() != 4) return usage(argv[0]);
  shape.layer_size = storm_io::parse_layer_size(args[0]);
  const long long particles = integer(args[1], "the number of particles per storm");
  const long long storms = integer(args[2], "the number of storms");
  const long long seed = integer(args[3], "the seed");
  if (particles < 0 || particles > (1 << 28)) throw std::invalid_argument("particles per storm must be in [0, 268435456]");
  if (storms < 1 || storms > 10000) throw std::invalid_argument("storms must be in [1, 10000]");
  shape.particles = static_cast<int>(particles);
  shape.storms = static_cast<int>(storms);
  if (!positions_given) shape.max_position = shape.layer_size - 1;

  std::string command = "particle-storm " + std::to_string(shape.layer_size);
  for (int i = 0; i < shape.storms; ++i) {
    const std::string path = prefix + "-" + std::to_string(i + 1) + ".txt";
    storm_io::write_storm_file(path, storm_grading::generate_storm(shape, static_cast<std::uint64_t>(seed), i));
    command += " " + path;
  }
  std::printf("%s\n", command.c_str());
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "%s: error: %s\n", argv[0], e.what());
  return 1;
}
