#include "grader/static_check.hpp"

#include <cctype>

namespace grader {
namespace {
bool is_ident(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
}  // namespace

std::string strip_comments_and_strings(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  enum { Code, Line, Block, String, Char } state = Code;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const char next = i + 1 < s.size() ? s[i + 1] : '\0';
    switch (state) {
      case Code:
        if (c == '/' && next == '/') { state = Line; ++i; out += ' '; }
        else if (c == '/' && next == '*') { state = Block; ++i; out += ' '; }
        else if (c == '"') { state = String; out += c; }
        else if (c == '\'') { state = Char; out += c; }
        else out += c;
        break;
      case Line:
        if (c == '\n') { state = Code; out += c; }
        break;
      case Block:
        if (c == '*' && next == '/') { state = Code; ++i; }
        else if (c == '\n') out += c;
        break;
      case String:
      case Char: {
        const char quote = state == String ? '"' : '\'';
        if (c == '\\' && next != '\0') { ++i; out += ' '; }
        else if (c == quote) { state = Code; out += c; }
        else if (c == '\n') { state = Code; out += c; }  // unterminated: stop at end of line
        else out += ' ';
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
