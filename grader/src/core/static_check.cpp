#include "grader/static_check.hpp"

#include <cctype>

namespace grader {
namespace {
bool is_ident(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
}  // namespace

namespace {
// A ' right after a digit of a number (1'000'000, 0xFF'FF) is a C++14 digit separator, not the
// start of a character literal: walk back over the token and see whether it starts with a digit.
bool digit_separator(const std::string& s, std::size_t at) {
  if (at == 0 || at + 1 >= s.size() || !std::isxdigit(static_cast<unsigned char>(s[at + 1]))) return false;
  std::size_t start = at;
  while (start > 0 && (is_ident(s[start - 1]) || s[start - 1] == '\'' || s[start - 1] == '.')) --start;
  return start < at && std::isdigit(static_cast<unsigned char>(s[start]));
}

// A " that opens a raw string literal: R"delim( ... )delim", with an optional u8, u, U or L
// before the R. Returns the closing sequence )delim", or "" when this is not one.
std::string raw_string_end(const std::string& s, std::size_t quote) {
  if (quote == 0 || s[quote - 1] != 'R') return "";
  std::size_t prefix = quote - 1;
  while (prefix > 0 && (s[prefix - 1] == 'u' || s[prefix - 1] == 'U' || s[prefix - 1] == 'L' || s[prefix - 1] == '8'))
    --prefix;
  if (prefix > 0 && is_ident(s[prefix - 1])) return "";  // e.g. FOOR"...": an identifier, then a string
  const std::size_t open = s.find('(', quote + 1);
  if (open == std::string::npos || open - quote - 1 > 16) return "";
  return ")" + s.substr(quote + 1, open - quote - 1) + "\"";
}
}  // namespace

// Read as the compiler reads it: a backslash at the end of a line joins the next line to it (so
// a // comment ending in one goes on), digit separators are not quotes, and raw strings end only
// at their own delimiter. Otherwise code could hide in what this calls a comment, or the reverse.
std::string strip_comments_and_strings(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  enum { Code, Line, Block, String, Char, Raw } state = Code;
  std::string raw_end;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const char next = i + 1 < s.size() ? s[i + 1] : '\0';
    switch (state) {
      case Code:
        if (c == '/' && next == '/') {
          state = Line;
          ++i;
          out += ' ';
        } else if (c == '/' && next == '*') {
          state = Block;
          ++i;
          out += ' ';
        } else if (c == '"' && !(raw_end = raw_string_end(s, i)).empty()) {
          state = Raw;
          out += c;
        } else if (c == '"') {
          state = String;
          out += c;
        } else if (c == '\'' && digit_separator(s, i))
          out += c;
        else if (c == '\'') {
          state = Char;
          out += c;
        } else
          out += c;
        break;
      case Line:
        if (c == '\\' && (next == '\n' || (next == '\r' && i + 2 < s.size() && s[i + 2] == '\n'))) {
          i += next == '\r' ? 2 : 1;  // a spliced line: still the comment
          out += '\n';
        } else if (c == '\n') {
          state = Code;
          out += c;
        }
        break;
      case Block:
        if (c == '*' && next == '/') {
          state = Code;
          ++i;
        } else if (c == '\n')
          out += c;
        break;
      case Raw:
        if (s.compare(i, raw_end.size(), raw_end) == 0) {
          state = Code;
          i += raw_end.size() - 1;
          out += '"';
        } else
          out += c == '\n' ? '\n' : ' ';
        break;
      case String:
      case Char: {
        const char quote = state == String ? '"' : '\'';
        if (c == '\\' && next != '\0') {
          ++i;
          out += next == '\n' ? '\n' : ' ';
        } else if (c == quote) {
          state = Code;
          out += c;
        } else if (c == '\n') {
          state = Code;
          out += c;
        }  // unterminated: stop at end of line
        else
          out += ' ';
        break;
      }
    }
  }
  return out;
}

bool code_uses(const std::string& source, const std::string& word) {
  const std::string code = strip_comments_and_strings(source);
  for (std::size_t at = code.find(word); at != std::string::npos; at = code.find(word, at + 1)) {
    const bool starts = at == 0 || !is_ident(code[at - 1]);
    const bool ends = at + word.size() >= code.size() || !is_ident(code[at + word.size()]);
    if (starts && ends) return true;
  }
  return false;
}

std::string function_body(const std::string& source, const std::string& name) {
  const std::string code = strip_comments_and_strings(source);
  for (std::size_t at = code.find(name); at != std::string::npos; at = code.find(name, at + 1)) {
    const bool starts = at == 0 || !is_ident(code[at - 1]);
    const std::size_t after = at + name.size();
    if (!starts || (after < code.size() && is_ident(code[after]))) continue;
    // A definition: the name, its parameter list, then '{' before any ';'.
    std::size_t i = after;
    while (i < code.size() && std::isspace(static_cast<unsigned char>(code[i]))) ++i;
    if (i >= code.size() || code[i] != '(') continue;
    int depth = 0;
    for (; i < code.size(); ++i) {
      if (code[i] == '(') ++depth;
      if (code[i] == ')' && --depth == 0) break;
    }
    std::size_t open = i + 1;
    while (open < code.size() && code[open] != '{' && code[open] != ';') ++open;
    if (open >= code.size() || code[open] == ';') continue;  // a declaration or a call
    depth = 0;
    for (std::size_t j = open; j < code.size(); ++j) {
      if (code[j] == '{') ++depth;
      if (code[j] == '}' && --depth == 0) return code.substr(open, j - open + 1);
    }
    return code.substr(open);
  }
  return {};
}

}  // namespace grader
