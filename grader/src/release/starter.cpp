#include "release/starter.hpp"

#include <sstream>
#include <vector>

namespace grader {
namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::string line;
  std::istringstream in(text);
  while (std::getline(in, line)) lines.push_back(line);
  if (!text.empty() && text.back() == '\n') lines.emplace_back();  // keeps the final newline
  return lines;
}

std::string trimmed(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

std::string indentation(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  return b == std::string::npos ? s : s.substr(0, b);
}

bool is_comment(const std::string& line) { return trimmed(line).rfind("//", 0) == 0; }

// The brief level's one line: the region's first TODO, to the end of its first sentence (which
// may go on over the next comment lines).
std::string brief_line(const std::vector<std::string>& starter, const std::string& exercise) {
  for (std::size_t i = 0; i < starter.size(); ++i) {
    if (trimmed(starter[i]).rfind("// TODO(", 0) != 0) continue;
    // A sentence ends at ". " (not "..", as in "k = 0 .. K - 1").
    const auto sentence_end = [](const std::string& t) {
      for (std::size_t k = 1; k + 1 < t.size(); ++k)
        if (t[k] == '.' && t[k + 1] == ' ' && t[k - 1] != '.' && t[k - 1] != ' ') return k;
      return std::string::npos;
    };
    std::string text = trimmed(starter[i]).substr(3);
    for (std::size_t j = i + 1; j < starter.size(); ++j) {
      const std::string next = trimmed(starter[j]);
      if (sentence_end(text) != std::string::npos || text.back() == '.' || text.back() == ':') break;
      if (next.rfind("//", 0) != 0 || next.rfind("// TODO(", 0) == 0 || trimmed(next.substr(2)).empty()) break;
      text += " " + trimmed(next.substr(2));
    }
    if (const auto end = sentence_end(text); end != std::string::npos) text.resize(end + 1);
    const std::string see = "see README.md, exercise " + exercise + ".";
    if (text.back() == ':' && text.find("): ") == std::string::npos) {  // "TODO(x):" heading a list
      text.pop_back();
      return indentation(starter[i]) + "// " + text + ": " + see;
    }
    if (text.back() == ':') text.back() = '.';
    if (text.back() != '.') text += '.';
    return indentation(starter[i]) + "// " + text + " S" + see.substr(1);
  }
  return "";
}

}  // namespace

std::optional<HintLevel> parse_hint_level(const std::string& text) {
  if (text == "full") return HintLevel::Full;
  if (text == "brief") return HintLevel::Brief;
  if (text == "none") return HintLevel::None;
  return std::nullopt;
}

const char* to_string(HintLevel level) {
  switch (level) {
    case HintLevel::Full:
      return "full";
    case HintLevel::Brief:
      return "brief";
    case HintLevel::None:
      return "none";
  }
  return "?";
}

std::string generate_starter(const std::string& marked, HintLevel level, const std::string& file) {
  enum class Part { Outside, Solution, Starter };
  Part part = Part::Outside;
  std::string exercise;  // of the open region; "" for an unnamed one
  int begin_line = 0;
  std::vector<std::string> starter;  // the open region's starter lines
  std::ostringstream out;
  bool first = true;
  const auto emit = [&](const std::string& line) {
    if (!first) out << '\n';
    out << line;
    first = false;
  };
  const auto fail = [&](int line, const std::string& what) {
    throw MarkerError(file + ":" + std::to_string(line) + ": " + what);
  };
  const std::vector<std::string> lines = lines_of(marked);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const int n = static_cast<int>(i) + 1;
    const std::string& line = lines[i];
    const std::string t = trimmed(line);
    if (t.rfind("// BEGIN SOLUTION", 0) == 0) {
      if (part != Part::Outside)
        fail(n, "BEGIN SOLUTION inside the region opened on line " + std::to_string(begin_line));
      const std::string rest = trimmed(t.substr(17));
      if (!rest.empty() && t[17] != ' ') fail(n, "expected 'BEGIN SOLUTION' or 'BEGIN SOLUTION <exercise>'");
      exercise = rest;
      begin_line = n;
      starter.clear();
      part = Part::Solution;
    } else if (t == "// STARTER") {
      if (part != Part::Solution) fail(n, "STARTER outside a BEGIN SOLUTION ... END SOLUTION region");
      part = Part::Starter;
    } else if (t == "// END SOLUTION") {
      if (part == Part::Outside) fail(n, "END SOLUTION without BEGIN SOLUTION");
      if (exercise.empty() || level == HintLevel::Full) {
        for (const auto& s : starter) emit(s);
      } else {
        if (level == HintLevel::Brief)
          if (const std::string b = brief_line(starter, exercise); !b.empty()) emit(b);
        for (const auto& s : starter)
          if (!trimmed(s).empty() && !is_comment(s)) emit(s);
      }
      part = Part::Outside;
    } else if (part == Part::Starter) {
      if (t.rfind("//|", 0) != 0)
        fail(n, "a starter line must start with //| (region opened on line " + std::to_string(begin_line) + ")");
      const std::size_t at = line.find("//|");
      std::string rest = line.substr(at + 3);
      if (!rest.empty() && rest[0] == ' ') rest.erase(0, 1);
      starter.push_back(rest.empty() ? std::string() : line.substr(0, at) + rest);
    } else if (part == Part::Outside) {
      if (t.rfind("//|", 0) == 0) fail(n, "a //| line outside a STARTER part");
      emit(line);
    }
    // Part::Solution: the solution's own lines stay out of the starter.
  }
  if (part != Part::Outside) fail(begin_line, "BEGIN SOLUTION without END SOLUTION");
  return out.str();
}

FirstDifference first_difference(const std::string& expected, const std::string& found) {
  const auto a = lines_of(expected), b = lines_of(found);
  for (std::size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
    const std::string x = i < a.size() ? a[i] : "(end of file)";
    const std::string y = i < b.size() ? b[i] : "(end of file)";
    if (i >= a.size() || i >= b.size() || x != y) return {static_cast<int>(i) + 1, x, y};
  }
  return {};
}

}  // namespace grader
