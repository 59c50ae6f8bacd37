#include "grader/forbidden_api.hpp"

#include "grader/static_check.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>
#include <set>
#include <utility>

namespace grader {
namespace {

bool is_alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }
bool is_ident(char c) { return is_alnum(c) || c == '_'; }
bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }
bool is_space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }
bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

// Translation phase 2 first: a backslash-newline splices two lines, so `cub\<newline>lasSgemm` is
// one name to the compiler and must be one here. The newlines it removes are put back after the
// logical line, so that every later line keeps its number.
std::string splice_lines(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  std::size_t pending = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size() && s[i + 1] == '\n') {
      ++pending;
      ++i;
      continue;
    }
    if (s[i] == '\\' && i + 2 < s.size() && s[i + 1] == '\r' && s[i + 2] == '\n') {
      ++pending;
      i += 2;
      continue;
    }
    out += s[i];
    if (s[i] == '\n') {
      out.append(pending, '\n');
      pending = 0;
    }
  }
  out.append(pending, '\n');
  return out;
}

// C++14 digit separators (1'000'000): strip_comments_and_strings would read the quote as the
// start of a character literal and blank the rest of the line, code included. A quote between
// two alphanumerics inside a number (a token that starts with a digit, or a dot and a digit) is a
// separator to the compiler too: dropped. u8'a' and L'a' start with a letter and are kept.
// Dropping a quote inside a comment or a string changes nothing that is scanned.
std::string drop_digit_separators(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\'' && i > 0 && i + 1 < s.size() && is_alnum(s[i - 1]) && is_alnum(s[i + 1])) {
      std::size_t start = i;
      while (start > 0 && (is_ident(s[start - 1]) || s[start - 1] == '\'' || s[start - 1] == '.')) --start;
      const bool number = is_digit(s[start]) || (s[start] == '.' && start + 1 < i && is_digit(s[start + 1]));
      if (number) continue;
    }
    out += s[i];
  }
  return out;
}

std::vector<std::string> split_lines(const std::string& s) {
  std::vector<std::string> lines;
  std::size_t begin = 0;
  for (std::size_t at = s.find('\n'); at != std::string::npos; at = s.find('\n', begin)) {
    lines.push_back(s.substr(begin, at - begin));
    begin = at + 1;
  }
  lines.push_back(s.substr(begin));
  return lines;
}

std::string trim(const std::string& s) {
  std::size_t b = 0, e = s.size();
  while (b < e && is_space(s[b])) ++b;
  while (e > b && is_space(s[e - 1])) --e;
  return s.substr(b, e - b);
}

// Why each kind of thing is forbidden, in words for the student.
std::string library_why(const std::string& library) {
  return library + " computes the result for you: the leaderboard ranks kernels you write yourself.";
}
const char* const kThreadWhy =
    "A thread of your own works outside the timed call: do all the work in the call, on the GPU.";
const char* const kOpenMpWhy = "OpenMP threads compute on the host, outside the timed kernel: do the work on the GPU.";
const char* const kProcessWhy = "Starting another program escapes the sandbox and the timer.";
const char* const kDynamicWhy = "Loading a library at run time brings in code that the checks never see.";
const char* const kEnvReadWhy =
    "Reading the environment lets your code tell a timed run from a graded one; it must behave the same in both.";
const char* const kEnvWriteWhy = "Changing the environment changes how the CUDA runtime behaves under the timer.";
const char* const kOwnStreamWhy = "Work on a stream of your own escapes the timer: launch on the stream you are given.";
const char* const kOtherStreamWhy = "Work on another stream escapes the timer: launch on the stream you are given.";
const char* const kCallbackWhy =
    "A host callback runs your code outside the timed kernel: do the work on the GPU, in the call.";
const char* const kRawStringWhy =
    "Raw string literals can hide code from these checks, and a kernel file does not need them.";
const char* const kMacroIncludeWhy = "An #include through a macro hides what it brings in: name the header itself.";
const char* const kPastingWhy =
    "Token pasting (##) builds names that these checks cannot see: write names out in full.";
const char* const kSyscallWhy = "A raw system call can do what the sandbox forbids: call the CUDA runtime instead.";

// Name prefixes of the vendor libraries' functions and types (then a capital: cublasSgemm) and of
// their constants (then an underscore: CUBLAS_OP_N).
const std::vector<std::pair<std::string, std::string>> kLibraryPrefixes = {
    {"cublas", "cuBLAS"},     {"CUBLAS", "cuBLAS"},     {"cudnn", "cuDNN"}, {"CUDNN", "cuDNN"},
    {"cusparse", "cuSPARSE"}, {"CUSPARSE", "cuSPARSE"}, {"cufft", "cuFFT"}, {"CUFFT", "cuFFT"},
    {"cusolver", "cuSOLVER"}, {"CUSOLVER", "cuSOLVER"}};
// Libraries known by their namespace (their names alone are ordinary words: a particle's thrust).
const std::vector<std::pair<std::string, std::string>> kLibraryNamespaces = {
    {"thrust", "Thrust"}, {"cub", "CUB"}, {"cutlass", "CUTLASS"}, {"cute", "CuTe"}};

// What a header brings in, or "" when it is allowed. `name` as written between <> or "".
std::pair<std::string, std::string> header_verdict(const std::string& name) {
  std::string lower;
  for (char c : name) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c == '\\' ? '/' : c)));
  std::vector<std::string> parts;
  std::size_t begin = 0;
  for (std::size_t at = lower.find('/'); at != std::string::npos; at = lower.find('/', begin)) {
    parts.push_back(lower.substr(begin, at - begin));
    begin = at + 1;
  }
  const std::string base = lower.substr(begin);
  const std::vector<std::pair<std::string, std::string>> prefixes = {
      {"cublas", "cuBLAS"}, {"cudnn", "cuDNN"}, {"cusparse", "cuSPARSE"}, {"cufft", "cuFFT"}, {"cusolver", "cuSOLVER"}};
  for (const auto& [prefix, library] : prefixes)
    if (starts_with(base, prefix)) return {library, library_why(library)};
  for (const auto& part : parts)
    for (const auto& [space, library] : kLibraryNamespaces)
      if (part == space) return {library, library_why(library)};
  if (base == "cub.cuh") return {"CUB", library_why("CUB")};
  if (base == "thread" || base == "future" || base == "pthread.h") return {"threads", kThreadWhy};
  if (base == "omp.h") return {"OpenMP", kOpenMpWhy};
  if (base == "dlfcn.h") return {"dlopen", kDynamicWhy};
  if (base == "spawn.h") return {"posix_spawn", kProcessWhy};
  return {};
}

struct Token {
  std::string text;
  int line;
  std::size_t begin, end;  // offsets in the stripped code
  bool ident;
};

// The stripped code as identifiers, numbers and punctuation (`::` and `->` as one token).
std::vector<Token> tokenize(const std::string& code) {
  std::vector<Token> tokens;
  int line = 1;
  for (std::size_t i = 0; i < code.size();) {
    const char c = code[i];
    if (c == '\n') {
      ++line;
      ++i;
      continue;
    }
    if (is_space(c)) {
      ++i;
      continue;
    }
    const std::size_t begin = i;
    bool ident = false;
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      while (i < code.size() && is_ident(code[i])) ++i;
      ident = true;
    } else if (is_digit(c) || (c == '.' && i + 1 < code.size() && is_digit(code[i + 1]))) {
      // A pp-number: 1.5e+3f, 0x1Fu; its letters are no names.
      ++i;
      while (i < code.size()) {
        const char d = code[i];
        if ((d == '+' || d == '-') && std::string("eEpP").find(code[i - 1]) != std::string::npos)
          ++i;
        else if (is_ident(d) || d == '.')
          ++i;
        else
          break;
      }
    } else if ((c == ':' && i + 1 < code.size() && code[i + 1] == ':') ||
               (c == '-' && i + 1 < code.size() && code[i + 1] == '>')) {
      i += 2;
    } else {
      ++i;
    }
    tokens.push_back({code.substr(begin, i - begin), line, begin, i, ident});
  }
  return tokens;
}

class Scan {
public:
  explicit Scan(std::string file) : file_(std::move(file)) {}

  // One finding per line and reason: the first thing found for it (cublasSgemm, not CUBLAS_OP_N).
  void add(int line, std::string what, std::string why) {
    if (seen_.insert({line, why}).second) findings_.push_back({file_, line, std::move(what), std::move(why)});
  }

  std::vector<ApiFinding> take() {
    std::stable_sort(findings_.begin(), findings_.end(),
                     [](const ApiFinding& a, const ApiFinding& b) { return a.line < b.line; });
    return std::move(findings_);
  }

private:
  std::string file_;
  std::set<std::pair<int, std::string>> seen_;
  std::vector<ApiFinding> findings_;
};

// A preprocessor directive on a stripped line: its name ("include") and what follows it.
bool directive(const std::string& code_line, std::string& name, std::string& rest) {
  std::size_t i = 0;
  while (i < code_line.size() && is_space(code_line[i])) ++i;
  if (i < code_line.size() && code_line[i] == '#')
    ++i;
  else if (code_line.compare(i, 2, "%:") == 0)
    i += 2;  // the digraph of #
  else
    return false;
  while (i < code_line.size() && is_space(code_line[i])) ++i;
  const std::size_t begin = i;
  while (i < code_line.size() && is_ident(code_line[i])) ++i;
  name = code_line.substr(begin, i - begin);
  rest = trim(code_line.substr(i));
  return true;
}

// The header of an #include "..." line, read from the source line (the stripped one has the
// quotes' contents blanked): the first quoted text after the word include.
std::string quoted_header(const std::string& source_line) {
  const std::size_t word = source_line.find("include");
  const std::size_t open = source_line.find('"', word == std::string::npos ? 0 : word);
  if (open == std::string::npos) return {};
  const std::size_t close = source_line.find('"', open + 1);
  return source_line.substr(open + 1, close == std::string::npos ? std::string::npos : close - open - 1);
}

// An #include (include_next, import) line's header, as shown and as judged; `rest`: what follows
// the directive's name. Added to `scan` when its header is forbidden, or when it is no header name
// at all (a macro).
void scan_include(Scan& scan, int line, const std::string& name, const std::string& rest,
                  const std::string& text_line) {
  std::string header;
  std::string shown;
  if (!rest.empty() && rest[0] == '<') {
    header = rest.substr(1, rest.find('>') == std::string::npos ? std::string::npos : rest.find('>') - 1);
    shown = "#" + name + " <" + header + ">";
  } else if (!rest.empty() && rest[0] == '"') {
    header = quoted_header(text_line);
    shown = "#" + name + " \"" + header + "\"";
  } else {
    scan.add(line, "#" + name + " " + rest, kMacroIncludeWhy);
    return;
  }
  const auto verdict = header_verdict(header);
  if (!verdict.first.empty()) scan.add(line, shown, verdict.second);
}

// Directives, line by line: which headers come in, and OpenMP. Returns the include lines.
std::set<int> scan_directives(Scan& scan, const std::vector<std::string>& code_lines,
                              const std::vector<std::string>& text_lines) {
  std::set<int> include_lines;
  for (std::size_t n = 0; n < code_lines.size(); ++n) {
    const int line = static_cast<int>(n) + 1;
    std::string name, rest;
    if (!directive(code_lines[n], name, rest)) continue;
    if (name == "pragma") {
      if (rest.rfind("omp", 0) == 0 && (rest.size() == 3 || !is_ident(rest[3])))
        scan.add(line, "#pragma omp", kOpenMpWhy);
      continue;
    }
    if (name != "include" && name != "include_next" && name != "import") continue;
    include_lines.insert(line);
    scan_include(scan, line, name, rest, n < text_lines.size() ? text_lines[n] : std::string());
  }
  return include_lines;
}

// The vendor libraries' names among the tokens, at tokens[i]: their prefixes (cublasSgemm,
// cufftHandle, CUBLAS_OP_N; not a cublas_ms of one's own) and their namespaces (thrust::sort,
// using namespace thrust, namespace t = thrust, namespace t = ::thrust).
void scan_library_name(Scan& scan, const std::vector<Token>& tokens, std::size_t i) {
  static const std::string none;
  const auto at = [&](std::size_t k) -> const std::string& { return k < tokens.size() ? tokens[k].text : none; };
  const Token& t = tokens[i];
  const std::string& w = t.text;
  const std::string& prev = i > 0 ? tokens[i - 1].text : none;
  for (const auto& [prefix, library] : kLibraryPrefixes) {
    if (!starts_with(w, prefix) || w.size() == prefix.size()) continue;
    const char next = w[prefix.size()];
    const bool upper_prefix = std::isupper(static_cast<unsigned char>(prefix[0])) != 0;
    if (upper_prefix ? next == '_' : std::isupper(static_cast<unsigned char>(next)) != 0)
      scan.add(t.line, w, library_why(library));
  }
  if (prev == "." || prev == "->") return;  // a member of that name is no namespace
  for (const auto& [space, library] : kLibraryNamespaces) {
    if (w != space) continue;
    const bool qualifies = at(i + 1) == "::";
    const bool named = prev == "namespace" || (prev == "=" && i >= 3 && tokens[i - 3].text == "namespace") ||
                       (prev == "::" && i >= 4 && tokens[i - 2].text == "=" && tokens[i - 4].text == "namespace");
    if (qualifies || named) scan.add(t.line, named ? "namespace " + w : w + "::", library_why(library));
  }
}

// The other names a submission may not use, at tokens[i]: threads, processes, the dynamic loader,
// the environment, streams and callbacks of its own, raw system calls, raw strings.
void scan_other_name(Scan& scan, const std::vector<Token>& tokens, std::size_t i) {
  static const std::string none;
  static const std::set<std::string> process_calls = {"fork",   "vfork",   "popen",       "system",      "execl",
                                                      "execlp", "execle",  "execv",       "execvp",      "execvpe",
                                                      "execve", "fexecve", "posix_spawn", "posix_spawnp"};
  static const std::set<std::string> dynamic = {"dlopen", "dlmopen", "dlsym", "dlvsym"};
  static const std::set<std::string> env_read = {"getenv", "secure_getenv", "environ", "__environ"};
  static const std::set<std::string> env_write = {"setenv", "putenv", "unsetenv", "clearenv"};
  static const std::set<std::string> other_streams = {"cudaStreamPerThread", "cudaStreamLegacy", "CU_STREAM_PER_THREAD",
                                                      "CU_STREAM_LEGACY"};
  static const std::set<std::string> callbacks = {"cudaLaunchHostFunc", "cudaStreamAddCallback", "cuLaunchHostFunc",
                                                  "cuStreamAddCallback"};
  static const std::set<std::string> raw_prefixes = {"R", "u8R", "uR", "UR", "LR"};
  const auto at = [&](std::size_t k) -> const std::string& { return k < tokens.size() ? tokens[k].text : none; };
  const Token& t = tokens[i];
  const std::string& w = t.text;
  const std::string& prev = i > 0 ? tokens[i - 1].text : none;
  const bool member = prev == "." || prev == "->";
  if (w == "std" && at(i + 1) == "::" && (at(i + 2) == "thread" || at(i + 2) == "jthread" || at(i + 2) == "async"))
    scan.add(t.line, "std::" + at(i + 2), kThreadWhy);
  if (w == "pthread_create") scan.add(t.line, w, kThreadWhy);
  if (process_calls.count(w) && !member && at(i + 1) == "(") scan.add(t.line, w, kProcessWhy);
  if (dynamic.count(w)) scan.add(t.line, w, kDynamicWhy);
  if (env_read.count(w) && !member) scan.add(t.line, w, kEnvReadWhy);
  if (env_write.count(w) && !member) scan.add(t.line, w, kEnvWriteWhy);
  if (starts_with(w, "cudaStreamCreate") || starts_with(w, "cuStreamCreate")) scan.add(t.line, w, kOwnStreamWhy);
  if (other_streams.count(w)) scan.add(t.line, w, kOtherStreamWhy);
  if (callbacks.count(w)) scan.add(t.line, w, kCallbackWhy);
  if (w == "syscall" && !member) scan.add(t.line, w, kSyscallWhy);
  if (raw_prefixes.count(w) && i + 1 < tokens.size() && tokens[i + 1].text == "\"" && tokens[i + 1].begin == t.end)
    scan.add(t.line, w + "\"...\"", kRawStringWhy);
}

}  // namespace

std::vector<ApiFinding> find_forbidden_apis(const std::string& file_name, const std::string& source) {
  const std::string text = drop_digit_separators(splice_lines(source));
  const std::string code = strip_comments_and_strings(text);
  Scan scan(file_name);
  const std::set<int> include_lines = scan_directives(scan, split_lines(code), split_lines(text));
  // Names in the code (the include lines are done: their header names are not calls).
  std::vector<Token> tokens;
  for (Token& t : tokenize(code))
    if (!include_lines.count(t.line)) tokens.push_back(std::move(t));
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const Token& t = tokens[i];
    if (t.text == "#" && i + 1 < tokens.size() && tokens[i + 1].text == "#" && tokens[i + 1].begin == t.end)
      scan.add(t.line, "##", kPastingWhy);
    if (!t.ident) continue;
    scan_library_name(scan, tokens, i);
    scan_other_name(scan, tokens, i);
  }
  return scan.take();
}

std::string to_string(const ApiFinding& finding) {
  return finding.file + ":" + std::to_string(finding.line) + ": " + finding.what + ": " + finding.why;
}

std::vector<std::string> forbidden_api_notes(const std::string& src, const std::vector<std::string>& files) {
  std::vector<std::string> notes;
  for (const auto& name : files) {
    std::ifstream in(src + "/" + name);
    if (!in) continue;
    std::stringstream text;
    text << in.rdbuf();
    for (const auto& f : find_forbidden_apis(name, text.str()))
      notes.push_back("the leaderboard would refuse this submission: " + to_string(f));
  }
  return notes;
}

}  // namespace grader
