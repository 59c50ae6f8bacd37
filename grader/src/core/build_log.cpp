#include "grader/build_log.hpp"

#include <sstream>
#include <vector>

namespace grader {
namespace fs = std::filesystem;

std::string compiler_errors(const std::string& log, const fs::path& source_root, std::size_t max_lines) {
  std::istringstream in(log);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);

  const std::string root = source_root.string() + "/";
  // Removes the root where a path starts with it (at the start of the line or after a space, a
  // quote or a parenthesis), not inside another path such as an object file's name.
  const auto shorten = [&](std::string line) {
    for (std::size_t at = line.find(root); at != std::string::npos; at = line.find(root, at)) {
      const char before = at == 0 ? ' ' : line[at - 1];
      if (before == ' ' || before == '"' || before == '\'' || before == '(' || before == '`')
        line.erase(at, root.size());
      else
        at += root.size();
    }
    return line;
  };
  // gcc/clang: "file:line:col: error: ..."; nvcc: "file(line): error: ..."; the linker: "undefined reference".
  const auto is_error = [](const std::string& l) {
    return l.find(": error") != std::string::npos || l.find("): error") != std::string::npos ||
           l.find("undefined reference") != std::string::npos || l.find("fatal error") != std::string::npos;
  };
  std::vector<std::string> picked;
  for (std::size_t i = 0; i < lines.size() && picked.size() < max_lines; ++i) {
    if (!is_error(lines[i])) continue;
    picked.push_back(shorten(lines[i]));
    // The lines after an error show the offending source and the caret; keep a few.
    for (std::size_t j = i + 1; j < lines.size() && j <= i + 3 && picked.size() < max_lines; ++j) {
      const std::string& l = lines[j];
      if (is_error(l) || l.rfind("[", 0) == 0 || l.rfind("FAILED", 0) == 0 || l.rfind("ninja:", 0) == 0) break;
      picked.push_back(shorten(lines[j]));
      i = j;
    }
  }
  if (picked.empty()) {  // no recognisable error line: show the end of the log
    const std::size_t from = lines.size() > max_lines ? lines.size() - max_lines : 0;
    for (std::size_t i = from; i < lines.size(); ++i) picked.push_back(shorten(lines[i]));
  }
  std::string out;
  for (const auto& l : picked) out += "    " + l + "\n";
  return out;
}

}  // namespace grader
