#include "grader/include_check.hpp"

#include "grader/files.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <optional>
#include <set>
#include <system_error>

namespace grader {
namespace fs = std::filesystem;

namespace {

// ---- Translation phases 1 and 2: line ends and splices, with the original line of each byte.

struct Spliced {
  std::string text;       // "\n" for every line end; continuations removed
  std::vector<int> line;  // line[i]: the original 1-based line of text[i]
  int line_at(std::size_t i) const { return line.empty() ? 1 : line[std::min(i, line.size() - 1)]; }
};

// The length of the line end at s[i] ("\r\n", "\n" or a lone "\r", all line ends for GCC), or 0.
std::size_t newline_at(const std::string& s, std::size_t i) {
  if (i >= s.size()) return 0;
  if (s[i] == '\n') return 1;
  if (s[i] == '\r') return i + 1 < s.size() && s[i + 1] == '\n' ? 2 : 1;
  return 0;
}

bool horizontal_space(char c) { return c == ' ' || c == '\t' || c == '\f' || c == '\v'; }

Spliced splice(const std::string& s) {
  Spliced out;
  out.text.reserve(s.size());
  out.line.reserve(s.size());
  int line = 1;
  std::size_t i = s.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0;  // GCC skips a byte-order mark
  while (i < s.size()) {
    if (s[i] == '\\') {
      // A backslash, blanks (GCC accepts them, with a warning), a line end: a continuation.
      std::size_t j = i + 1;
      while (j < s.size() && horizontal_space(s[j])) ++j;
      if (const std::size_t nl = newline_at(s, j)) {
        i = j + nl;
        ++line;
        continue;
      }
    }
    if (const std::size_t nl = newline_at(s, i)) {
      out.text += '\n';
      out.line.push_back(line);
      i += nl;
      ++line;
      continue;
    }
    out.text += s[i];
    out.line.push_back(line);
    ++i;
  }
  return out;
}

// ---- Translation phase 3: preprocessing tokens.

struct Token {
  enum Kind { Ident, Number, String, Char, HeaderName, Punct, Eol } kind;
  std::string text;   // as written (for a literal: the whole literal, prefix and quotes included)
  std::string value;  // a string literal's decoded contents; a header name's path
  char open = 0;      // a header name's opening character: '"' or '<'
  int line = 0;
  bool line_start = false;  // only blanks and comments before it on its line
};

bool ident_start(unsigned char c) { return std::isalpha(c) || c == '_' || c == '$' || c >= 0x80; }
bool ident_char(unsigned char c) { return std::isalnum(c) || c == '_' || c == '$' || c >= 0x80; }

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The value of the escape sequence at s[i] (just after the backslash); advances i past it.
void decode_escape(const std::string& s, std::size_t& i, std::string& out) {
  if (i >= s.size()) return;
  const char c = s[i];
  const auto hex = [](char h) {
    return std::isdigit(static_cast<unsigned char>(h)) ? h - '0'
                                                       : std::tolower(static_cast<unsigned char>(h)) - 'a' + 10;
  };
  if (c == 'x') {
    unsigned long v = 0;
    ++i;
    while (i < s.size() && std::isxdigit(static_cast<unsigned char>(s[i]))) v = v * 16 + hex(s[i++]);
    out += static_cast<char>(v & 0xFF);
  } else if (c >= '0' && c <= '7') {
    unsigned v = 0;
    for (int n = 0; n < 3 && i < s.size() && s[i] >= '0' && s[i] <= '7'; ++n) v = v * 8 + (s[i++] - '0');
    out += static_cast<char>(v & 0xFF);
  } else if (c == 'u' || c == 'U') {
    const int digits = c == 'u' ? 4 : 8;
    unsigned long v = 0;
    ++i;
    for (int n = 0; n < digits && i < s.size() && std::isxdigit(static_cast<unsigned char>(s[i])); ++n)
      v = v * 16 + hex(s[i++]);
    out += v < 0x80 ? static_cast<char>(v) : '?';  // "\u002e" is a '.' inside a literal
  } else {
    static const std::string from = "ntrabfve", to = "\n\t\r\a\b\f\v\x1b";
    const auto at = from.find(c);
    out += at == std::string::npos ? c : to[at];
    ++i;
  }
}

class Lexer {
public:
  explicit Lexer(const Spliced& src) : s_(src.text), src_(src) {}

  std::vector<Token> run() {
    bool line_start = true;
    std::size_t i = 0;
    while (i < s_.size()) {
      if (s_[i] == '\n') {
        push(Token::Eol, "\n", i, line_start);
        line_start = true;
        ++i;
      } else if (const auto past = past_blank_or_comment(i)) {
        i = *past;
      } else {
        i = token(i, line_start);
        line_start = false;
      }
    }
    return std::move(tokens_);
  }

private:
  // Past a blank (GCC takes a NUL for one) or a comment at s_[i]; nullopt when there is none.
  // A // comment ends before its newline, which is a token.
  std::optional<std::size_t> past_blank_or_comment(std::size_t i) const {
    const char c = s_[i];
    if (horizontal_space(c) || c == '\0') return i + 1;
    if (c == '/' && at(i + 1) == '/') return std::min(s_.find('\n', i), s_.size());
    if (c == '/' && at(i + 1) == '*') {
      const auto end = s_.find("*/", i + 2);
      return end == std::string::npos ? s_.size() : end + 2;
    }
    return std::nullopt;
  }

  // The token at s_[i] (neither a blank, a comment nor a newline); returns the position after it.
  std::size_t token(std::size_t i, bool line_start) {
    const char c = s_[i];
    if ((c == '"' || c == '<') && header_name_expected())
      if (const auto next = header_name(i, line_start)) return *next;
    if (ident_start(static_cast<unsigned char>(c))) return word(i, line_start);
    if (std::isdigit(static_cast<unsigned char>(c)) ||
        (c == '.' && std::isdigit(static_cast<unsigned char>(at(i + 1)))))
      return number(i, line_start);
    if (c == '"' || c == '\'') return quoted(i, i, c, line_start);
    return punctuator(i, line_start);
  }

  // "..." or <...> closed on its line; nullopt when not closed there (then lexed as usual).
  std::optional<std::size_t> header_name(std::size_t i, bool line_start) {
    const char c = s_[i];
    const auto close = s_.find(c == '"' ? '"' : '>', i + 1);
    const auto eol = s_.find('\n', i + 1);
    if (close == std::string::npos || (eol != std::string::npos && close > eol)) return std::nullopt;
    Token& t = push(Token::HeaderName, s_.substr(i, close - i + 1), i, line_start);
    t.value = s_.substr(i + 1, close - i - 1);
    t.open = c;
    return close + 1;
  }

  // An identifier, or a literal with an encoding prefix (L"", u8"", R"x(...)x", U'').
  std::size_t word(std::size_t i, bool line_start) {
    std::size_t j = i;
    while (j < s_.size() && ident_char(static_cast<unsigned char>(s_[j]))) ++j;
    const std::string w = s_.substr(i, j - i);
    const bool string_prefix = w == "L" || w == "u" || w == "U" || w == "u8";
    const bool raw_prefix = w == "R" || w == "LR" || w == "uR" || w == "UR" || w == "u8R";
    std::size_t next = 0;
    if (at(j) == '"' && raw_prefix && raw_string(i, j, line_start, next)) return next;
    if (at(j) == '"' && (string_prefix || raw_prefix)) return quoted(i, j, '"', line_start);
    if (at(j) == '\'' && string_prefix) return quoted(i, j, '\'', line_start);
    push(Token::Ident, w, i, line_start);
    return j;
  }

  // A preprocessing number: digits, letters, dots, an exponent's sign, 1'000's separators.
  std::size_t number(std::size_t i, bool line_start) {
    std::size_t j = i + 1;
    while (j < s_.size()) {
      const char d = s_[j];
      const char e = s_[j - 1];
      if ((d == '+' || d == '-') && (e == 'e' || e == 'E' || e == 'p' || e == 'P'))
        ++j;
      else if (ident_char(static_cast<unsigned char>(d)) || d == '.')
        ++j;
      else if (d == '\'' && ident_char(static_cast<unsigned char>(at(j + 1))))
        j += 2;  // 1'000
      else
        break;
    }
    push(Token::Number, s_.substr(i, j - i), i, line_start);
    return j;
  }

  // Punctuators: only the ones that matter here are told apart (# and ##, with their digraphs
  // %: and %:%:); everything else is one character.
  std::size_t punctuator(std::size_t i, bool line_start) {
    const char c = s_[i];
    if (c != '#' && !(c == '%' && at(i + 1) == ':')) {
      push(Token::Punct, std::string(1, c), i, line_start);
      return i + 1;
    }
    const std::size_t len = c == '#' ? 1 : 2;
    const bool twice = s_.compare(i + len, 1, "#") == 0 || s_.compare(i + len, 2, "%:") == 0;
    if (!twice) {
      push(Token::Punct, "#", i, line_start);
      return i + len;
    }
    push(Token::Punct, "##", i, line_start);
    return i + len + (s_[i + len] == '#' ? 1 : 2);
  }

  char at(std::size_t i) const { return i < s_.size() ? s_[i] : '\0'; }

  Token& push(Token::Kind kind, std::string text, std::size_t pos, bool line_start) {
    Token t{kind, std::move(text), {}, 0, src_.line_at(pos), line_start};
    tokens_.push_back(std::move(t));
    return tokens_.back();
  }

  // After `# include` (import, include_next, embed) and after `__has_include (` a "..." or
  // <...> is a header name: no escapes, and // or /* inside it is part of the name.
  bool header_name_expected() const {
    const std::size_t n = tokens_.size();
    if (n >= 2 && tokens_[n - 2].kind == Token::Punct && tokens_[n - 2].text == "#" &&
        tokens_[n - 1].kind == Token::Ident) {
      const auto& w = tokens_[n - 1].text;
      return w == "include" || w == "include_next" || w == "import" || w == "embed";
    }
    if (n >= 2 && tokens_[n - 1].kind == Token::Punct && tokens_[n - 1].text == "(" &&
        tokens_[n - 2].kind == Token::Ident) {
      const auto& w = tokens_[n - 2].text;
      return w == "__has_include" || w == "__has_include_next" || w == "__has_embed";
    }
    return false;
  }

  // A string or character literal from `quote` (s_[quote] is the quote), prefix from `start`.
  // An unterminated one ends at the end of its line. Returns the position after it.
  std::size_t quoted(std::size_t start, std::size_t quote, char q, bool line_start) {
    std::string value;
    std::size_t i = quote + 1;
    while (i < s_.size() && s_[i] != q && s_[i] != '\n') {
      if (s_[i] == '\\' && i + 1 < s_.size() && s_[i + 1] != '\n') {
        ++i;
        decode_escape(s_, i, value);
      } else {
        value += s_[i++];
      }
    }
    if (i < s_.size() && s_[i] == q) ++i;
    Token& t = push(q == '"' ? Token::String : Token::Char, s_.substr(start, i - start), start, line_start);
    t.value = std::move(value);
    return i;
  }

  // R"delim( ... )delim": true and `next` set past it when s_[quote] opens one.
  bool raw_string(std::size_t start, std::size_t quote, bool line_start, std::size_t& next) {
    const auto open = s_.find('(', quote + 1);
    if (open == std::string::npos || open - quote - 1 > 16) return false;
    const std::string delim = s_.substr(quote + 1, open - quote - 1);
    if (delim.find_first_of(" ()\\\t\v\f\n") != std::string::npos) return false;
    const std::string close = ")" + delim + "\"";
    const auto end = s_.find(close, open + 1);
    const std::size_t stop = end == std::string::npos ? s_.size() : end + close.size();
    Token& t = push(Token::String, s_.substr(start, stop - start), start, line_start);
    t.value = s_.substr(open + 1, (end == std::string::npos ? s_.size() : end) - open - 1);
    next = stop;
    return true;
  }

  const std::string& s_;
  const Spliced& src_;
  std::vector<Token> tokens_;
};

std::vector<Token> tokenize(const std::string& text) { return Lexer(splice(text)).run(); }

// ---- The rules.

std::string shown(const std::string& path) {
  std::string p;
  for (char c : path) p += std::isprint(static_cast<unsigned char>(c)) ? c : '?';
  return p.size() > 80 ? p.substr(0, 77) + "..." : p;
}

// "matmul.h, matmul.cu, workbook/...": the names a quoted include may use, in short.
std::string allowed_summary(const std::vector<std::string>& allowed) {
  std::string plain, folders;
  std::set<std::string> seen, seen_folders;
  for (const auto& a : allowed) {
    const auto slash = a.find('/');
    if (slash == std::string::npos) {
      if (seen.insert(a).second) plain += (plain.empty() ? "" : ", ") + a;
    } else if (seen_folders.insert(a.substr(0, slash)).second) {
      folders += (folders.empty() ? "" : ", ") + a.substr(0, slash) + "/...";
    }
  }
  std::string all = plain;
  if (!folders.empty()) all += (all.empty() ? "" : ", ") + folders;
  return all.empty() ? "none" : all;
}

bool has_dotdot(const std::string& path) {
  std::size_t start = 0;
  for (;;) {
    const auto slash = path.find_first_of("/\\", start);
    const std::string part = path.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
    if (part == "..") return true;
    if (slash == std::string::npos) return false;
    start = slash + 1;
  }
}

bool absolute(const std::string& path) {
  if (!path.empty() && (path[0] == '/' || path[0] == '\\')) return true;
  return path.size() >= 2 && path[1] == ':' && std::isalpha(static_cast<unsigned char>(path[0]));  // C:...
}

const std::set<std::string>& file_pragma_words() {
  static const std::set<std::string> words = {"include_alias", "dependency", "include",
                                              "include_next",  "import",     "embed"};
  return words;
}

class Checker {
public:
  Checker(const std::string& file, const std::vector<std::string>& allowed) : file_(file), allowed_(allowed) {}

  std::vector<IncludeViolation> run(const std::vector<Token>& tokens) {
    std::vector<const Token*> line;
    for (const auto& t : tokens) {
      if (t.kind == Token::Eol) {
        check_line(line);
        line.clear();
      } else {
        line.push_back(&t);
      }
    }
    check_line(line);
    check_everywhere(tokens);
    std::stable_sort(found_.begin(), found_.end(), [](const auto& a, const auto& b) { return a.line < b.line; });
    return std::move(found_);
  }

private:
  void add(int line, const std::string& rule, const std::string& message) {
    if (!reported_.insert({line, rule}).second) return;  // one of each rule per line
    found_.push_back({file_, line, rule, message});
  }

  std::string may_include() const {
    return "a submission may include only the lab's headers and its own files (" + allowed_summary(allowed_) +
           ") and system/CUDA headers in <...>";
  }

  // The path rules, for any operand that names a file; reported at `line` (the directive's).
  bool path_ok(const Token& t, const std::string& what, int line) {
    const std::string p = shown(t.value);
    if (absolute(t.value)) {
      add(line, "absolute-path", what + " of an absolute path (" + p + "): " + may_include());
      return false;
    }
    if (has_dotdot(t.value)) {
      add(line, "climbing-path", what + " of a path that climbs out with .. (" + p + "): " + may_include());
      return false;
    }
    if (t.value.find('\\') != std::string::npos) {
      add(line, "backslash-path", what + " of a path with a backslash (" + p + "): write / (" + may_include() + ")");
      return false;
    }
    return true;
  }

  void check_pragma(const std::vector<const Token*>& words, int line, const std::string& how) {
    for (const Token* w : words) {
      if (w->kind == Token::Ident && file_pragma_words().count(w->text)) {
        add(line, "file-pragma",
            how + " naming '" + w->text + "' can make the compiler read another file: not allowed in a submission");
        return;
      }
    }
  }

  // One logical line (a directive ends at its line's end).
  void check_line(const std::vector<const Token*>& l) {
    for (std::size_t k = 0; k + 1 < l.size(); ++k) {
      if (l[k]->kind != Token::Punct || l[k]->text != "#") continue;
      const Token& name = *l[k + 1];
      const int at = l[k]->line;
      const bool directive = k == 0 && l[k]->line_start;
      if (name.kind == Token::Ident &&
          (name.text == "include" || name.text == "import" || name.text == "include_next")) {
        const std::string what = "#" + name.text;
        if (name.text == "include_next") {
          add(at, "include-next",
              "#include_next is not allowed in a submission: it walks the include path past the usual "
              "headers; use #include");
        }
        if (k + 2 >= l.size() || l[k + 2]->kind != Token::HeaderName) {
          std::string operand;
          for (std::size_t j = k + 2; j < l.size() && operand.size() < 60; ++j)
            operand += (operand.empty() ? "" : " ") + l[j]->text;
          add(at, "computed-include",
              what + " of " + (operand.empty() ? "nothing" : shown(operand)) +
                  ", not a literal \"file\" or <file>: a computed include could name any file; "
                  "write the header's name");
          continue;
        }
        const Token& path = *l[k + 2];
        if (!path_ok(path, what, at)) continue;
        if (path.open == '"' && std::find(allowed_.begin(), allowed_.end(), path.value) == allowed_.end())
          add(at, "unlisted-header",
              what + " \"" + shown(path.value) + "\" names no header of this lab: " + may_include());
      } else if (name.kind == Token::Ident && name.text == "embed") {
        add(at, "embed", "#embed reads a file into the program: not allowed in a submission");
      } else if (name.kind == Token::Ident && name.text == "line") {
        const bool number_only = k + 3 == l.size() && l[k + 2]->kind == Token::Number &&
                                 l[k + 2]->text.find_first_not_of("0123456789") == std::string::npos;
        if (!number_only)
          add(at, "line-file",
              "#line with a file name (or anything but a line number) makes the compiler's messages and the "
              "static checks misreport where code comes from: not allowed in a submission");
      } else if (directive && name.kind == Token::Number) {  // GNU line marker: # 12 "file"
        if (k + 2 < l.size())
          add(at, "line-file",
              "a line marker with a file name (# " + shown(name.text) +
                  " \"...\") makes the compiler's "
                  "messages and the static checks misreport where code comes from: not allowed in a submission");
      } else if (directive && name.kind == Token::Ident && name.text == "pragma") {
        check_pragma({l.begin() + static_cast<std::ptrdiff_t>(k + 2), l.end()}, at, "#pragma");
      }
    }
  }

  // What counts wherever it is: __has_include, _Pragma, the assembler's file directives, trigraphs.
  void check_everywhere(const std::vector<Token>& all) {
    std::vector<const Token*> t;  // without the line ends: literals on two lines are still adjacent
    for (const auto& x : all)
      if (x.kind != Token::Eol) t.push_back(&x);
    const auto punct = [&](std::size_t i, const char* p) {
      return i < t.size() && t[i]->kind == Token::Punct && t[i]->text == p;
    };
    for (std::size_t i = 0; i < t.size(); ++i) {
      const Token& x = *t[i];
      if (x.kind == Token::Ident && (x.text == "__has_include" || x.text == "__has_include_next")) {
        if (!punct(i + 1, "(")) continue;  // `defined __has_include` asks whether it exists: fine
        if (i + 2 < t.size() && t[i + 2]->kind == Token::HeaderName) {
          path_ok(*t[i + 2], x.text, x.line);
        } else {
          add(x.line, "computed-include",
              x.text +
                  " of something that is not a literal \"file\" or <file>: it could probe "
                  "any file; write the header's name");
        }
      } else if (x.kind == Token::Ident && x.text == "__has_embed") {
        add(x.line, "embed", "__has_embed probes a file for #embed: not allowed in a submission");
      } else if (x.kind == Token::Ident && x.text == "_Pragma") {
        if (punct(i + 1, "(") && i + 3 < t.size() && t[i + 2]->kind == Token::String && punct(i + 3, ")")) {
          const auto words = tokenize(t[i + 2]->value);
          std::vector<const Token*> ptrs;
          for (const auto& w : words) ptrs.push_back(&w);
          check_pragma(ptrs, x.line, "_Pragma(\"" + shown(t[i + 2]->value) + "\")");
        } else {
          add(x.line, "computed-pragma",
              "_Pragma of something that is not one string literal: the pragma it makes cannot be "
              "checked; write #pragma ... or _Pragma(\"...\")");
        }
      }
      // The assembler's .incbin and .include, spelled in the code (a macro may stringize it)...
      if ((x.kind == Token::Ident || x.kind == Token::Number) && lower(x.text).find("incbin") != std::string::npos) {
        add(x.line, "asm-file",
            "'" + shown(x.text) + "': .incbin makes the assembler read a file: not allowed in a submission");
      } else if (punct(i, ".") && i + 1 < t.size() && t[i + 1]->kind == Token::Ident &&
                 lower(t[i + 1]->text) == "include") {
        add(x.line, "asm-file", "." + t[i + 1]->text + " makes the assembler read a file: not allowed in a submission");
      } else if (x.kind == Token::Number && lower(x.text).find(".include") != std::string::npos) {
        add(x.line, "asm-file",
            "'" + shown(x.text) + "': .include makes the assembler read a file: not allowed in a submission");
      }
      // ... or in string literals, adjacent ones joined as the compiler joins them.
      if (x.kind == Token::String && (i == 0 || t[i - 1]->kind != Token::String)) {
        std::string joined;
        for (std::size_t j = i; j < t.size() && t[j]->kind == Token::String; ++j) joined += t[j]->value;
        check_asm_text(lower(joined), x.line);
      }
      // Trigraphs: ??= is # and ??/ is \ where they are enabled (-trigraphs).
      const bool q = punct(i, "?") && punct(i + 1, "?") && (punct(i + 2, "=") || punct(i + 2, "/"));
      const bool in_literal = (x.kind == Token::String || x.kind == Token::Char) &&
                              (x.text.find("?\?=") != std::string::npos || x.text.find("?\?/") != std::string::npos);
      if (q || in_literal)
        add(x.line, "trigraph",
            "the trigraph ?\?= or ?\?/ stands for # or \\ where trigraphs are on, hiding a directive from "
            "this check: write # or \\");
    }
  }

  void check_asm_text(const std::string& text, int line) {
    for (const std::string directive : {".incbin", ".include"}) {
      for (auto at = text.find(directive); at != std::string::npos; at = text.find(directive, at + 1)) {
        const std::size_t end = at + directive.size();
        if (end < text.size() && ident_char(static_cast<unsigned char>(text[end]))) continue;  // .includes
        add(line, "asm-file",
            "a string holding the assembler directive " + directive +
                ", which makes the assembler read a "
                "file: not allowed in a submission");
        return;
      }
    }
    if (text.find("incbin") != std::string::npos)
      add(line, "asm-file",
          "a string holding 'incbin' (the assembler's .incbin reads a file): not allowed in a submission");
  }

  std::string file_;
  const std::vector<std::string>& allowed_;
  std::vector<IncludeViolation> found_;
  std::set<std::pair<int, std::string>> reported_;
};

}  // namespace

std::vector<IncludeViolation> check_includes(const std::string& source, const std::string& file_name,
                                             const std::vector<std::string>& allowed_quoted) {
  return Checker(file_name, allowed_quoted).run(tokenize(source));
}

std::vector<IncludeViolation> check_include_folder(const fs::path& folder, const std::vector<std::string>& files,
                                                   const std::vector<std::string>& allowed_quoted) {
  std::vector<IncludeViolation> all;
  for (const auto& name : files) {
    std::error_code ec;
    if (!fs::is_regular_file(folder / name, ec)) continue;
    auto found = check_includes(read_file(folder / name), name, allowed_quoted);
    all.insert(all.end(), found.begin(), found.end());
  }
  return all;
}

std::string format_violation(const IncludeViolation& v) {
  return v.file + ":" + std::to_string(v.line) + ": " + v.message + " (rule: " + v.rule + ")";
}

std::string format_violations(const std::vector<IncludeViolation>& violations, std::size_t max_shown) {
  std::string out;
  for (std::size_t i = 0; i < violations.size() && i < max_shown; ++i)
    out += (out.empty() ? "" : "\n") + format_violation(violations[i]);
  if (violations.size() > max_shown) out += "\n... and " + std::to_string(violations.size() - max_shown) + " more";
  return out;
}

std::vector<std::string> lab_allowed_includes(const fs::path& lab_dir, const std::vector<std::string>& editable_files,
                                              const fs::path& common_include_dir) {
  static const std::set<std::string> header_ext = {".h", ".hpp", ".cuh", ".hh", ".hxx", ".inl"};
  std::vector<std::string> allowed;
  std::error_code ec;
  for (auto it = fs::directory_iterator(lab_dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (it->is_regular_file(ec) && header_ext.count(it->path().extension().string()) &&
        std::find(editable_files.begin(), editable_files.end(), name) == editable_files.end())
      allowed.push_back(name);
  }
  std::sort(allowed.begin(), allowed.end());
  for (const auto& f : editable_files) allowed.push_back(f);
  std::vector<std::string> common;
  for (auto it = fs::recursive_directory_iterator(common_include_dir, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_regular_file(ec) && header_ext.count(it->path().extension().string()))
      common.push_back(it->path().lexically_relative(common_include_dir).generic_string());
  }
  std::sort(common.begin(), common.end());
  allowed.insert(allowed.end(), common.begin(), common.end());
  return allowed;
}

}  // namespace grader
