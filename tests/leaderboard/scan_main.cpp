// forbidden-api-scan FILE...: prints the forbidden APIs of each file (grader/forbidden_api.hpp),
// one "file:line: what: why" per line. Exit status: 0 when every file is clean, 1 when something
// was found, 2 when a file cannot be read or no file was given.
#include "grader/forbidden_api.hpp"

#include <fstream>
#include <iostream>
#include <sstream>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: forbidden-api-scan FILE...\n";
    return 2;
  }
  bool found = false;
  for (int i = 1; i < argc; ++i) {
    std::ifstream in(argv[i], std::ios::binary);
    if (!in) {
      std::cerr << "forbidden-api-scan: cannot read " << argv[i] << "\n";
      return 2;
    }
    std::stringstream text;
    text << in.rdbuf();
    for (const auto& finding : grader::find_forbidden_apis(argv[i], text.str())) {
      std::cout << grader::to_string(finding) << "\n";
      found = true;
    }
  }
  return found ? 1 : 0;
}
