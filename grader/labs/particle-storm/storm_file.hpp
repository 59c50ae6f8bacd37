// Storm files and the command line, read in one place for every program of the lab (the
// sequential program, yours, the reference, the grader's tests), so that they all accept the
// same files and reject the same mistakes with the same message.
//
// A storm file is the original program's format: an integer N, then N particles, each two
// integers "position value" (whitespace and line breaks between them are free, as with the
// original's fscanf). Anything after the N-th particle is ignored, as the original did.
//
// Errors name the file and the line: "storms/a.txt:3: particle 2: the energy value must be an
// integer, found 'x'".
#pragma once

#include "storm.h"

#include <iosfwd>
#include <stdexcept>
#include <string>
#include <vector>

namespace storm_io {

// A malformed storm file or command-line argument; what() is the whole message.
class InputError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// Positions and layer sizes are limited so that |position - k| + 1 always fits in an int.
constexpr int MAX_LAYER_SIZE = 1'000'000'000;
constexpr int MAX_ABS_POSITION = 1'000'000'000;

// The layer size from the command line: an integer in [1, MAX_LAYER_SIZE], nothing else.
int parse_layer_size(const std::string& text);

// Reads one storm; `name` is what messages call the source (usually its path).
storm::Storm parse_storm(std::istream& in, const std::string& name);
storm::Storm read_storm_file(const std::string& path);

// Writes a storm in the same format: the count, then one "position value" line per particle.
void write_storm(std::ostream& out, const storm::Storm& storm);
void write_storm_file(const std::string& path, const storm::Storm& storm);

// The debugging cases shipped with the lab (labs/particle-storm/storms/cases.txt): one per
// line, "name layer_size file... | expected Result line of the sequential program".
struct ShippedCase {
  std::string name;
  int layer_size = 0;
  std::vector<std::string> files;  // paths (the folder of cases.txt prepended)
  std::string expected;            // e.g. "7 1.234567 12 0.500000"
};
std::vector<ShippedCase> read_cases(const std::string& folder);

}  // namespace storm_io
