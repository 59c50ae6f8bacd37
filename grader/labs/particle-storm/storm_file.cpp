#include "storm_file.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <istream>
#include <ostream>
#include <sstream>

namespace storm_io {
namespace {

// Reads whitespace-separated words and knows the line each one is on.
class Words {
public:
  explicit Words(std::istream& in) : in_(in) {}

  // The next word, or false at the end of the input; `line` is the word's line.
  bool next(std::string& word, int& line) {
    word.clear();
    int c;
    while ((c = in_.get()) != EOF && std::isspace(c))
      if (c == '\n') ++line_;
    if (c == EOF) return false;
    line = last_ = line_;
    word.push_back(static_cast<char>(c));
    while ((c = in_.peek()) != EOF && !std::isspace(c)) word.push_back(static_cast<char>(in_.get()));
    return true;
  }
  int last_line() const { return last_; }  // the line of the last word read (1 if none)

private:
  std::istream& in_;
  int line_ = 1, last_ = 1;
};

// A whole word as a decimal integer (optional sign), or false.
bool to_long(const std::string& word, long long& value) {
  if (word.empty()) return false;
  errno = 0;
  char* end = nullptr;
  value = std::strtoll(word.c_str(), &end, 10);
  return errno == 0 && *end == '\0' && !std::isspace(static_cast<unsigned char>(word[0]));
}

std::string quoted(const std::string& word) {
  return "'" + (word.size() > 40 ? word.substr(0, 40) + "..." : word) + "'";
}

std::string where(const std::string& name, int line) { return name + ":" + std::to_string(line) + ": "; }

}  // namespace

int parse_layer_size(const std::string& text) {
  long long value = 0;
  if (!to_long(text, value) || value < 1)
    throw InputError("the layer size must be a positive integer (a number of cells), found " + quoted(text));
  if (value > MAX_LAYER_SIZE)
    throw InputError("the layer size " + text + " is too large: at most " + std::to_string(MAX_LAYER_SIZE) + " cells");
  return static_cast<int>(value);
}

storm::Storm parse_storm(std::istream& in, const std::string& name) {
  Words words(in);
  std::string word;
  int line = 1;
  if (!words.next(word, line))
    throw InputError(where(name, words.last_line()) + "missing the particle count: the file is empty");
  long long count = 0;
  if (!to_long(word, count))
    throw InputError(where(name, line) + "the particle count must be an integer, found " + quoted(word));
  if (count < 0) throw InputError(where(name, line) + "the particle count is " + word + ": it must be 0 or more");
  if (count > (1LL << 28))
    throw InputError(where(name, line) + "the particle count " + word + " is too large (at most 268435456)");
  const int count_line = line;

  storm::Storm storm;
  storm.posval.reserve(static_cast<std::size_t>(std::min<long long>(count, 1 << 20)) * 2);
  for (long long j = 0; j < count; ++j) {
    for (int field = 0; field < 2; ++field) {
      const char* what = field == 0 ? "position" : "energy value";
      if (!words.next(word, line)) {
        std::ostringstream msg;
        msg << where(name, words.last_line()) << "the file ends in particle " << j + 1 << " of " << count << " (line "
            << count_line << " announces " << count << "): ";
        if (field == 0)
          msg << "expected a line 'position value'";
        else
          msg << "the particle has a position but no energy value";
        throw InputError(msg.str());
      }
      long long value = 0;
      if (!to_long(word, value))
        throw InputError(where(name, line) + "particle " + std::to_string(j + 1) + ": the " + what +
                         " must be an integer, found " + quoted(word));
      if (field == 0 && (value < -MAX_ABS_POSITION || value > MAX_ABS_POSITION))
        throw InputError(where(name, line) + "particle " + std::to_string(j + 1) + ": the position " + word +
                         " is out of range: positions lie in [-" + std::to_string(MAX_ABS_POSITION) + ", " +
                         std::to_string(MAX_ABS_POSITION) + "]");
      if (field == 1 && (value < INT32_MIN || value > INT32_MAX))
        throw InputError(where(name, line) + "particle " + std::to_string(j + 1) + ": the energy value " + word +
                         " does not fit in an int");
      storm.posval.push_back(static_cast<int>(value));
    }
  }
  return storm;
}

storm::Storm read_storm_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path + ": cannot open the storm file: " + std::strerror(errno));
  return parse_storm(in, path);
}

void write_storm(std::ostream& out, const storm::Storm& storm) {
  out << storm.size() << '\n';
  for (int j = 0; j < storm.size(); ++j) out << storm.posval[2 * j] << ' ' << storm.posval[2 * j + 1] << '\n';
}

void write_storm_file(const std::string& path, const storm::Storm& storm) {
  std::ofstream out(path);
  if (!out) throw InputError(path + ": cannot write the storm file: " + std::strerror(errno));
  write_storm(out, storm);
  if (!out.flush()) throw InputError(path + ": error while writing the storm file");
}

std::vector<ShippedCase> read_cases(const std::string& folder) {
  const std::string path = folder + "/cases.txt";
  std::ifstream in(path);
  if (!in) throw InputError(path + ": cannot open the list of cases: " + std::strerror(errno));
  std::vector<ShippedCase> cases;
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    const auto hash = line.find('#');
    if (hash != std::string::npos) line.erase(hash);
    const auto bar = line.find('|');
    std::istringstream fields(line.substr(0, bar));
    ShippedCase c;
    std::string size;
    if (!(fields >> c.name)) continue;  // a blank or comment line
    if (!(fields >> size)) throw InputError(where(path, number) + "expected 'name layer_size file...'");
    c.layer_size = parse_layer_size(size);
    for (std::string file; fields >> file;) c.files.push_back(folder + "/" + file);
    if (c.files.empty()) throw InputError(where(path, number) + "case " + c.name + " names no storm file");
    if (bar != std::string::npos) {
      c.expected = line.substr(bar + 1);
      c.expected.erase(0, c.expected.find_first_not_of(" \t"));
      c.expected.erase(c.expected.find_last_not_of(" \t\r") + 1);
    }
    cases.push_back(std::move(c));
  }
  return cases;
}

}  // namespace storm_io
