// kernel_code (static_check.hpp): a kernel's body and the code it reaches, so that a technique
// check sees the technique wherever the student's kernel puts it: a __shared__ tile declared in a
// __device__ helper, an `extern __shared__` array at file scope, a barrier in a helper, a macro.
// Read by name, as a person reads the file: a call is an identifier followed by '(' (or by
// template arguments and '('); every definition of that name is followed (overloads and
// templates alike); a function defined but never reached does not count.
#include "grader/static_check.hpp"

#include <cctype>
#include <map>
#include <set>
#include <vector>

namespace grader {
namespace {

bool is_ident(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool is_space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

// What the code defines, by name: function bodies, macro replacement texts, and declarations at
// namespace scope (an `extern __shared__ float smem[];`), each text with the names it declares.
struct Definitions {
  std::map<std::string, std::vector<std::string>> bodies;  // function name -> every body
  std::map<std::string, std::string> macros;               // macro name -> its whole #define
  std::map<std::string, std::string> globals;              // variable name -> its declaration
};

// Keywords that a '(' and later a '{' follow without making a function definition.
bool is_statement_keyword(const std::string& word) {
  static const std::set<std::string> words = {
      "if",      "for",      "while",         "switch", "catch", "return", "sizeof",
      "alignof", "decltype", "static_assert", "else",   "do",    "case",   "__launch_bounds__",
      "noexcept"};
  return words.count(word) > 0;
}

// The end of the balanced pair that opens at `at` (one past the closing character), or npos.
std::size_t skip_balanced(const std::string& code, std::size_t at, char open, char close) {
  int depth = 0;
  for (std::size_t i = at; i < code.size(); ++i) {
    if (code[i] == open) ++depth;
    if (code[i] == close && --depth == 0) return i + 1;
    if (open == '<' && (code[i] == ';' || code[i] == '{' || code[i] == '}')) return std::string::npos;
  }
  return std::string::npos;
}

std::size_t skip_space(const std::string& code, std::size_t i) {
  while (i < code.size() && is_space(code[i])) ++i;
  return i;
}

// After an identifier at [begin, end): the position of the '(' of a call or a definition, past
// template arguments (`load<TILE>(`), or npos when no '(' follows.
std::size_t call_paren(const std::string& code, std::size_t end) {
  std::size_t i = skip_space(code, end);
  if (i < code.size() && code[i] == '<') {
    const std::size_t after = skip_balanced(code, i, '<', '>');
    if (after == std::string::npos) return std::string::npos;
    i = skip_space(code, after);
  }
  return i < code.size() && code[i] == '(' ? i : std::string::npos;
}

// Between a definition's ')' and its '{' only qualifiers and a trailing return type may stand
// (const, __restrict__, -> float4): a ')' or ';' there means a call inside a statement.
bool only_qualifiers(const std::string& text) {
  for (char c : text)
    if (!(is_ident(c) || is_space(c) || c == ':' || c == '<' || c == '>' || c == '*' || c == '&' || c == '-' ||
          c == ','))
      return false;
  return true;
}

// Every identifier of `code` followed by '(' (a call), and every other identifier (a variable or
// a macro it may name).
std::set<std::string> names_in(const std::string& code) {
  std::set<std::string> names;
  for (std::size_t i = 0; i < code.size();) {
    if (!is_ident(code[i]) || (i > 0 && is_ident(code[i - 1]))) {
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < code.size() && is_ident(code[end])) ++end;
    if (!std::isdigit(static_cast<unsigned char>(code[i]))) names.insert(code.substr(i, end - i));
    i = end;
  }
  return names;
}

// The preprocessor's lines moved out of `code` (blanked there, line breaks kept); each #define
// kept by the name it defines.
void take_directives(std::string& code, std::map<std::string, std::string>& macros) {
  for (std::size_t line = 0; line < code.size();) {
    std::size_t end = code.find('\n', line);
    while (end != std::string::npos && end > line && code[end - 1] == '\\') end = code.find('\n', end + 1);
    if (end == std::string::npos) end = code.size();
    const std::size_t first = skip_space(code, line);
    if (first < end && code[first] == '#') {
      const std::string text = code.substr(first, end - first);
      std::size_t name = skip_space(text, 1);
      if (text.compare(name, 6, "define") == 0) {
        name = skip_space(text, name + 6);
        std::size_t stop = name;
        while (stop < text.size() && is_ident(text[stop])) ++stop;
        if (stop > name) macros[text.substr(name, stop - name)] = text;
      }
      for (std::size_t i = line; i < end; ++i)
        if (code[i] != '\n') code[i] = ' ';
    }
    line = end + 1;
  }
}

// A statement at namespace scope that declares a variable (`extern __shared__ float smem[];`,
// `__constant__ float k[9] = {...};`): the name before its first '[', '=' or ';'.
void add_global(const std::string& statement, std::map<std::string, std::string>& globals) {
  const std::size_t stop = statement.find_first_of("[=;({");
  if (stop == std::string::npos || statement[stop] == '(' || statement[stop] == '{') return;
  std::size_t end = stop;
  while (end > 0 && is_space(statement[end - 1])) --end;
  std::size_t begin = end;
  while (begin > 0 && is_ident(statement[begin - 1])) --begin;
  if (begin < end) globals[statement.substr(begin, end - begin)] = statement;
}

// The function definitions at [from, to) of `code` and, at namespace scope, its declarations;
// namespaces and classes are entered (a helper in a namespace, a member function).
void scan_scope(const std::string& code, std::size_t from, std::size_t to, Definitions& out) {
  std::size_t statement = from;
  for (std::size_t i = from; i < to;) {
    const char c = code[i];
    if (c == ';') {
      add_global(code.substr(statement, i + 1 - statement), out.globals);
      statement = ++i;
      continue;
    }
    if (c == '}') {
      statement = ++i;
      continue;
    }
    if (c == '{') {
      const std::size_t close = skip_balanced(code, i, '{', '}');
      const std::size_t end = close == std::string::npos ? to : std::min(close, to);
      const std::string head = code.substr(statement, i - statement);
      const bool initializer = head.find('=') != std::string::npos;  // `= {1, 2}`: the statement goes on
      if (head.find('(') == std::string::npos && !initializer)
        scan_scope(code, i + 1, end > i + 1 ? end - 1 : end, out);  // a namespace, a class, extern "C"
      i = end;
      if (!initializer) statement = i;
      continue;
    }
    if (!is_ident(c) || (i > from && is_ident(code[i - 1]))) {
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < to && is_ident(code[end])) ++end;
    const std::string name = code.substr(i, end - i);
    const std::size_t paren = call_paren(code, end);
    if (paren == std::string::npos || paren >= to || is_statement_keyword(name)) {
      i = end;
      continue;
    }
    const std::size_t after = skip_balanced(code, paren, '(', ')');
    const std::size_t open = after == std::string::npos ? std::string::npos : code.find_first_of("{;", after);
    if (open == std::string::npos || open >= to || code[open] != '{' ||
        !only_qualifiers(code.substr(after, open - after))) {
      i = end;
      continue;
    }
    const std::size_t close = skip_balanced(code, open, '{', '}');
    const std::size_t stop = close == std::string::npos ? to : std::min(close, to);
    out.bodies[name].push_back(code.substr(open, stop - open));
    i = stop;
    statement = i;
  }
}

}  // namespace

std::string kernel_code(const std::string& source, const std::string& kernel_name) {
  std::string code = strip_comments_and_strings(source);
  Definitions defs;
  take_directives(code, defs.macros);
  scan_scope(code, 0, code.size(), defs);
  if (!defs.bodies.count(kernel_name)) return {};
  std::string reached;
  std::set<std::string> seen = {kernel_name};
  std::vector<std::string> todo = {kernel_name};
  while (!todo.empty()) {
    const std::string name = todo.back();
    todo.pop_back();
    std::string text;
    if (const auto b = defs.bodies.find(name); b != defs.bodies.end())
      for (const auto& body : b->second) text += body + "\n";
    if (const auto m = defs.macros.find(name); m != defs.macros.end()) text += m->second + "\n";
    if (const auto g = defs.globals.find(name); g != defs.globals.end()) text += g->second + "\n";
    reached += text;
    for (const auto& used : names_in(text))
      if (seen.insert(used).second && (defs.bodies.count(used) || defs.macros.count(used) || defs.globals.count(used)))
        todo.push_back(used);
  }
  return reached;
}

}  // namespace grader
