#include "inspect/sanitizer_output.hpp"
#include "inspect/ncu_output.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <optional>
#include <regex>
#include <sstream>

namespace grader::inspect {
namespace fs = std::filesystem;

namespace {

std::string trim(const std::string& s) {
  const auto a = s.find_first_not_of(" \t\r");
  if (a == std::string::npos) return {};
  const auto b = s.find_last_not_of(" \t\r");
  return s.substr(a, b - a + 1);
}

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

// "at <function>+0x2d0 in <file>:<line>" (CUDA 12 and later, with -lineinfo), "at <function>+0x2d0"
// (no line information), or the older "at 0x2d0 in <file>:<line>:<function>". A race's place
// starts with its access: "Write access at ...".
std::optional<SourcePlace> place_of(const std::string& line) {
  static const std::regex with_line(
      R"((?:(Write|Read) access )?at (.+?)\+0x[0-9a-fA-F]+ in (.+):(\d+)(?:\s+\[\d+ hazards?\])?\s*$)");
  static const std::regex old_style(
      R"((?:(Write|Read) access )?at 0x[0-9a-fA-F]+ in (.+?):(\d+):(.+?)(?:\s+\[\d+ hazards?\])?\s*$)");
  static const std::regex no_line(R"((?:(Write|Read) access )?at (.+?)\+0x[0-9a-fA-F]+(?:\s+\[\d+ hazards?\])?\s*$)");
  std::smatch m;
  SourcePlace p;
  if (std::regex_search(line, m, with_line)) {
    p.access = m[1];
    p.function = m[2];
    p.file = m[3];
    p.line = std::stoi(m[4]);
    return p;
  }
  if (std::regex_search(line, m, old_style)) {
    p.access = m[1];
    p.file = m[2];
    p.line = std::stoi(m[3]);
    p.function = m[4];
    return p;
  }
  if (std::regex_search(line, m, no_line)) {
    p.access = m[1];
    p.function = m[2];
    return p;
  }
  return std::nullopt;
}

long hazards_of(const std::string& line) {
  static const std::regex count(R"(\[(\d+) hazards?\])");
  std::smatch m;
  return std::regex_search(line, m, count) ? std::stol(m[1]) : 0;
}

// A heading that names a problem in the program's kernels (or its memory); every other heading
// is the tool's own note (its banner, summaries, "process didn't terminate successfully", limits).
bool is_hazard(const std::string& heading) {
  for (const char* kind : {"Invalid ", "Race reported", "Barrier error", "Divergent thread", "Uninitialized", "Leaked ",
                           "Misaligned", "Potential ", "hazard detected", "Out-of-range", "Malloc/Free"})
    if (heading.find(kind) != std::string::npos) return true;
  return false;
}

void finish(Hazard& h) {
  long total = 0;  // a race's "[N hazards]", one per pair of places
  for (const auto& line : h.lines) {
    // A race lists one place per instruction (an unrolled loop reads one line at 16 addresses):
    // each line once is what a student reads.
    if (auto p = place_of(line)) {
      const bool seen = std::any_of(h.places.begin(), h.places.end(), [&](const SourcePlace& q) {
        return q.access == p->access && where(q) == where(*p);
      });
      if (!seen) h.places.push_back(*p);
    }
    total += hazards_of(line);
    static const std::regex thread(R"(by thread (\([0-9, ]+\)) in block (\([0-9, ]+\)))");
    std::smatch m;
    if (h.thread.empty() && std::regex_search(line, m, thread)) {
      h.thread = m[1];
      h.block = m[2];
    }
    static const std::regex nearest(R"(and is (.+ the nearest allocation.*))");
    if (h.address.empty() && std::regex_search(line, m, nearest)) h.address = trim(m[1]);
  }
  h.count = total > 0 ? total : 1;
}

}  // namespace

SanitizerOutput parse_sanitizer_output(const std::string& tool, const std::string& text) {
  SanitizerOutput out;
  std::istringstream in(text);
  Hazard* current = nullptr;
  bool in_backtrace = false;
  for (std::string raw; std::getline(in, raw);) {
    if (!starts_with(raw, "=========")) continue;  // the program's own output
    std::string body = raw.substr(9);
    if (!body.empty() && body[0] == ' ') body.erase(0, 1);
    if (trim(body).empty()) {  // "=========" alone ends a record
      current = nullptr;
      in_backtrace = false;
      continue;
    }
    const bool indented = body[0] == ' ' || body[0] == '\t';
    if (indented) {
      const std::string detail = trim(body);
      if (starts_with(detail, "Saved host backtrace") || starts_with(detail, "Device Frame")) {
        in_backtrace = true;
        continue;
      }
      if (in_backtrace || starts_with(detail, "Host Frame") || starts_with(detail, "in /")) continue;
      if (current) current->lines.push_back(detail);
      continue;
    }
    in_backtrace = false;
    std::string heading = trim(body);
    static const std::regex summary(R"(ERROR SUMMARY: (\d+) errors?)");
    std::smatch m;
    if (std::regex_search(heading, m, summary)) out.error_summary = std::stoi(m[1]);
    if (starts_with(heading, "Program hit ")) {
      current = nullptr;
      out.api_errors.push_back(heading);
      continue;
    }
    if (!is_hazard(heading)) {
      current = nullptr;
      if (!starts_with(heading, "COMPUTE-SANITIZER")) out.notes.push_back(heading);
      continue;
    }
    Hazard h;
    h.tool = tool;
    h.severity = "error";
    for (const auto& [prefix, severity] : {std::pair{"Error: ", "error"},
                                           {"ERROR: ", "error"},
                                           std::pair{"Warning: ", "warning"},
                                           {"WARN: ", "warning"}}) {
      if (starts_with(heading, prefix)) {
        heading.erase(0, std::string(prefix).size());
        h.severity = severity;
      }
    }
    h.heading = heading;
    h.lines.push_back(heading);
    out.hazards.push_back(std::move(h));
    current = &out.hazards.back();
  }
  for (auto& h : out.hazards) finish(h);
  return out;
}

std::vector<Hazard> distinct(const std::vector<Hazard>& hazards) {
  // The places by line, not by function: the same line in tiledKernel<16> and tiledKernel<32> is
  // one thing to fix. A race's heading names an instruction's address, and its two sides come in
  // either order (the load before the read, or the read before the next phase's load): a race is
  // its set of places.
  const auto key = [](const Hazard& h) {
    const bool race = h.heading.find("Race reported") != std::string::npos;
    std::vector<std::string> places;
    for (const auto& p : h.places) places.push_back(p.access + "@" + where(p));
    if (race) std::sort(places.begin(), places.end());
    std::string k = h.tool + "|" + (race ? std::string("race") : h.heading);
    for (const auto& p : places) k += "|" + p;
    return k;
  };
  std::vector<Hazard> out;
  std::vector<std::string> keys;
  for (const auto& h : hazards) {
    const std::string k = key(h);
    const auto at = std::find(keys.begin(), keys.end(), k);
    if (at != keys.end()) {
      out[static_cast<std::size_t>(at - keys.begin())].count += h.count;
      continue;
    }
    keys.push_back(k);
    out.push_back(h);
  }
  return out;
}

std::string where(const SourcePlace& place) {
  if (!place.file.empty()) return fmt::format("{}:{}", fs::path(place.file).filename().string(), place.line);
  return base_function(place.function) + " (no line: build with -lineinfo)";
}

std::string source_line(const std::vector<fs::path>& sources, const SourcePlace& place) {
  if (place.file.empty() || place.line < 1) return {};
  const std::string name = fs::path(place.file).filename().string();
  for (const auto& s : sources) {
    if (s.filename().string() != name) continue;
    std::ifstream in(s);
    std::string line;
    for (int n = 1; std::getline(in, line); ++n)
      if (n == place.line) return trim(line);
  }
  return {};
}

namespace {

std::string thread_words(const Hazard& h) {
  return h.thread.empty() ? "a thread" : fmt::format("thread {} of block {}", h.thread, h.block);
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

std::string title(const Hazard& h) {
  if (h.heading.find("Race reported") == std::string::npos || h.places.empty()) return h.heading;
  std::string t = "shared-memory race:";
  std::vector<std::string> seen;
  for (const auto& p : h.places) {
    const std::string part = fmt::format("{} at {}", p.access.empty() ? "access" : p.access, where(p));
    if (std::find(seen.begin(), seen.end(), part) != seen.end()) continue;
    t += (seen.empty() ? " " : ", ") + part;
    seen.push_back(part);
  }
  return t;
}

std::string explain(const Hazard& h) {
  const std::string& t = h.heading;
  const bool write = contains(t, "write");
  const std::string verb = write ? "writes" : "reads";
  const bool misaligned =
      contains(t, "Misaligned") || std::any_of(h.lines.begin(), h.lines.end(), [](const std::string& l) {
        return l.find("is misaligned") != std::string::npos;
      });
  if (misaligned)
    return fmt::format(
        "{} {} at an address that is not a multiple of the access's size (a float4 or "
        "reinterpret_cast to a wider type from an unaligned offset).",
        thread_words(h), verb);
  if (contains(t, "Race reported") && h.places.size() >= 2) {
    const SourcePlace& a = h.places[0];
    const SourcePlace& b = h.places[1];
    const std::string between = fmt::format("{} ({}) and {} ({})", where(a), a.access.empty() ? "access" : a.access,
                                            where(b), b.access.empty() ? "access" : b.access);
    if (a.access == "Write" && b.access == "Write")
      return fmt::format(
          "Two threads write the same shared-memory element, at {}, with no __syncthreads() "
          "between: which value stays depends on timing.",
          between);
    return fmt::format(
        "A shared-memory race between {}: one thread reads an element another thread writes, with no "
        "__syncthreads() between them. A barrier is missing: after the tile is loaded and before it is read, "
        "or at the end of the loop, before the next phase's loads overwrite what slower threads still read.",
        between);
  }
  if (contains(t, "Race reported") && h.places.size() == 1 && h.places[0].access == "Write")
    return fmt::format(
        "Two threads write the same shared-memory element at {}, with no __syncthreads() between: "
        "which value stays depends on timing (two threads given the same index?).",
        where(h.places[0]));
  if (contains(t, "Race reported"))
    return "A shared-memory race: two threads of a block access one element, at least one writing, with no "
           "__syncthreads() between them.";
  if (contains(t, "Invalid __global__") || contains(t, "Invalid __local__") || contains(t, "Invalid __shared__") ||
      contains(t, "Invalid __generic__")) {
    const std::string space = contains(t, "__shared__") ? "a __shared__ array" : "an array";
    if (contains(h.address, "after the nearest allocation"))
      return fmt::format(
          "{} {} past the end of {} ({}). A thread outside the data: the threads of the last, partial "
          "block or tile must not load or store (check Row < M && Col < N, or i < n, before the access).",
          thread_words(h), verb, space, h.address);
    if (contains(h.address, "before the nearest allocation")) {
      // Far before any buffer (more than 1 GB): not an index one off, but a pointer that is no
      // buffer of this call's.
      const bool far = std::regex_search(h.address, std::regex(R"(^\d{10,} bytes before)"));
      if (far)
        return fmt::format(
            "{} {} through a pointer that points at no buffer of this call ({}): a null pointer, a "
            "host pointer passed to the kernel, or a buffer already freed.",
            thread_words(h), verb, h.address);
      return fmt::format("{} {} before the start of {} ({}): a negative index, or an offset subtracted twice.",
                         thread_words(h), verb, space, h.address);
    }
    if (contains(t, "__shared__"))
      return fmt::format(
          "{} {} outside the __shared__ array: its index goes past the array's size (a tile "
          "declared smaller than the block, or an index from the global position instead of "
          "threadIdx).",
          thread_words(h), verb);
    return fmt::format(
        "{} {} memory that no allocation holds: a pointer that is not a device allocation of "
        "this call (a host pointer passed to a kernel?) or an index far out of range.",
        thread_words(h), verb);
  }
  if (contains(t, "Uninitialized"))
    return fmt::format(
        "{} reads device memory that nothing wrote: a buffer your code allocated and read "
        "before filling (cudaMalloc does not zero it: cudaMemset it, or write it first).",
        thread_words(h));
  if (contains(t, "Barrier error") || contains(t, "Divergent thread"))
    return "A __syncthreads() that only some threads of the block reach: a barrier inside an if, or after an "
           "early return for out-of-range threads. Every thread must reach every barrier: put the bounds check "
           "around the loads and stores, not around the barrier.";
  if (contains(t, "Invalid arguments") || contains(t, "barrier"))
    return "A barrier used wrongly (the tool's words are above).";
  if (contains(t, "leak")) return "Device memory allocated and never freed.";
  return "The tool's own words are above.";
}

}  // namespace grader::inspect
