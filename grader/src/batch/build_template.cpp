#include "batch/build_template.hpp"

#include "grader/files.hpp"
#include "grader/process.hpp"

#include <algorithm>
#include <set>
#include <sstream>

namespace grader {
namespace fs = std::filesystem;

namespace {

std::vector<std::string> words(const std::string& command) {
  std::vector<std::string> out;
  std::istringstream in(command);
  for (std::string w; in >> w;) {
    if (w.size() >= 2 && (w.front() == '"' || w.front() == '\'') && w.back() == w.front())
      w = w.substr(1, w.size() - 2);
    out.push_back(w);
  }
  return out;
}

std::string quoted(const std::string& s) {
  std::string out = "'";
  for (const char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string cache_value(const std::string& cache, const std::string& key) {
  const auto at = cache.find("\n" + key + ":");
  if (at == std::string::npos) return "";
  const auto eq = cache.find('=', at);
  return cache.substr(eq + 1, cache.find('\n', eq) - eq - 1);
}

ProcessResult run_logged(const std::vector<std::string>& argv, const fs::path& log, double timeout_s = 600) {
  ProcessOptions p;
  p.argv = argv;
  p.output_file = log;
  p.timeout_s = timeout_s;
  p.limits.output_bytes = 1 << 20;
  return run_process(p);
}

}  // namespace

std::string replace_paths(std::string text, const std::map<std::string, std::string>& paths) {
  std::vector<std::pair<std::string, std::string>> order(paths.begin(), paths.end());
  std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
  for (const auto& [from, to] : order) {
    if (from.empty()) continue;
    for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
      text.replace(at, from.size(), to);
  }
  return text;
}

std::vector<std::string> command_outputs(const std::string& command) {
  const auto w = words(command);
  std::vector<std::string> out;
  for (std::size_t i = 0; i < w.size(); ++i) {
    if ((w[i] == "-o" || w[i] == "-MF") && i + 1 < w.size()) out.push_back(w[i + 1]);
    // The linker's own dependency file (CMake 3.27+ with GNU ld: -Wl,--dependency-file=PATH).
    static const std::string dep = "--dependency-file=";
    if (const auto at = w[i].find(dep); at != std::string::npos) out.push_back(w[i].substr(at + dep.size()));
  }
  return out;
}

std::string command_object(const std::string& command) {
  const auto w = words(command);
  for (std::size_t i = 0; i + 1 < w.size(); ++i)
    if (w[i] == "-o") return w[i + 1];
  return "";
}

std::string compiled_source(const std::string& command) {
  const auto w = words(command);
  for (std::size_t i = 0; i + 1 < w.size(); ++i)
    if (w[i] == "-c") return w[i + 1];
  return "";
}

std::string build_script(const std::vector<std::string>& commands) {
  std::string script =
      "# Written by grader batch (grader/src/batch/build_template.hpp): the batch project's\n"
      "# own commands for this submission, configured once for the whole batch.\n";
  std::set<std::string> dirs;
  for (const auto& c : commands)
    for (const auto& out : command_outputs(c))
      if (const auto parent = fs::path(out).parent_path(); !parent.empty()) dirs.insert(parent.string());
  for (const auto& d : dirs) script += "mkdir -p " + quoted(d) + " || exit 1\n";
  script += "failed=0\n";
  for (const auto& c : commands)
    if (!compiled_source(c).empty()) script += c + " || failed=1\n";
  script += "[ $failed = 0 ] || exit 1\n";
  for (const auto& c : commands)
    if (compiled_source(c).empty()) script += c + " || exit 1\n";
  return script;
}

std::optional<BuildTemplate> BuildTemplate::configure(const Options& o, std::string* why) {
  BuildTemplate t;
  t.src_ = fs::absolute(o.dir / "src");
  t.build_ = fs::absolute(o.dir / "build");
  t.log_ = o.log;
  fs::remove_all(o.dir);
  for (const auto& [name, text] : o.files) write_atomically(t.src_ / name, text);
  std::vector<std::string> argv = {
      o.cmake.string(), "-S", o.project.string(), "-B", t.build_.string(), "-DSUBMISSION_DIR=" + t.src_.string()};
  argv.insert(argv.end(), o.configure_args.begin(), o.configure_args.end());
  if (const ProcessResult r = run_logged(argv, o.log); !r.ok()) {
    if (why) *why = "configuring the template build " + r.describe() + " (see " + o.log.string() + ")";
    return std::nullopt;
  }
  t.ninja_ = cache_value(read_file(t.build_ / "CMakeCache.txt"), "CMAKE_MAKE_PROGRAM");
  if (t.ninja_.empty() || !fs::exists(t.ninja_)) {
    if (why) *why = "the template build names no Ninja program (CMAKE_MAKE_PROGRAM)";
    return std::nullopt;
  }
  return t;
}

std::optional<std::vector<std::string>> BuildTemplate::commands(const std::string& target, std::string* why) const {
  std::lock_guard<std::mutex> l(*m_);
  if (const auto it = commands_.find(target); it != commands_.end()) return it->second;
  const fs::path out = log_.parent_path() / ("template-commands-" + target + ".txt");
  if (const ProcessResult r = run_logged({ninja_.string(), "-C", build_.string(), "-t", "commands", target}, out);
      !r.ok()) {
    if (why) *why = "ninja -t commands " + target + " " + r.describe() + " (see " + out.string() + ")";
    return std::nullopt;
  }
  std::vector<std::string> list;
  std::istringstream in(read_file(out));
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) list.push_back(line);
  return commands_[target] = list;
}

bool BuildTemplate::shared_compile(const std::string& command) const {
  const std::string source = compiled_source(command);
  if (source.empty() || source.rfind(src_.string(), 0) == 0) return false;  // the submission's own file
  // A file of the project's own: the same object for every submission unless it reads the one
  // definition that differs between them.
  const std::string text = read_file(fs::absolute(build_ / source));
  return !text.empty() && text.find("WORKBOOK_SOURCE_DIR") == std::string::npos;
}

std::optional<BuildTemplate::Recipe> BuildTemplate::recipe(const std::string& target, const fs::path& src,
                                                           const fs::path& build, std::string* why) const {
  const auto list = commands(target, why);
  if (!list) return std::nullopt;
  const std::map<std::string, std::string> paths = {{src_.string(), fs::absolute(src).string()},
                                                    {build_.string(), fs::absolute(build).string()}};
  Recipe recipe;
  std::vector<std::string> own;
  for (const auto& c : *list) {
    if (!shared_compile(c)) {
      own.push_back(replace_paths(c, paths));
      continue;
    }
    const std::string object = command_object(c);
    std::lock_guard<std::mutex> l(*m_);
    if (!built_shared_[object]) {
      const fs::path log = log_.parent_path() / "template-shared-objects.log";
      if (const ProcessResult r = run_logged({ninja_.string(), "-C", build_.string(), object}, log); !r.ok()) {
        if (why) *why = "building the shared object " + object + " " + r.describe() + " (see " + log.string() + ")";
        return std::nullopt;
      }
      built_shared_[object] = true;
    }
    recipe.copies.emplace_back(build_ / object, object);
  }
  recipe.script = build_script(own);
  return recipe;
}

}  // namespace grader
