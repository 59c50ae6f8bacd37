#include "release/release.hpp"

#include "release/starters.hpp"

#include "grader/files.hpp"

#include <fmt/format.h>
#include <fnmatch.h>
#include <toml++/toml.h>

#include <cstdio>
#include <iostream>
#include <map>
#include <sstream>

namespace fs = std::filesystem;

namespace grader {
namespace {

// The output of a command (for git), or nullopt when it failed.
std::optional<std::string> capture(const std::string& command) {
  FILE* p = ::popen(command.c_str(), "r");
  if (!p) return std::nullopt;
  std::string out;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  return ::pclose(p) == 0 ? std::optional<std::string>(out) : std::nullopt;
}

std::string quoted(const fs::path& p) { return "'" + p.string() + "'"; }  // paths without quotes

// The working copy's files, relative: git's list where there is a repository (no build output,
// nothing ignored), else every file outside hidden and build folders.
std::vector<std::string> working_copy_files(const fs::path& root) {
  std::vector<std::string> files;
  if (fs::exists(root / ".git")) {
    if (const auto out = capture("git -C " + quoted(root) + " ls-files -z --cached")) {
      std::string name;
      for (char c : *out) {
        if (c)
          name += c;
        else if (!name.empty())
          files.push_back(std::exchange(name, {}));
      }
      return files;
    }
  }
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
    const std::string name = it->path().filename().string();
    if (it->is_directory() && (name.rfind('.', 0) == 0 || name.rfind("build", 0) == 0)) {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file()) files.push_back(fs::relative(it->path(), root).generic_string());
  }
  return files;
}

struct Course {
  HintLevel default_hints = HintLevel::Full;
  std::map<std::string, HintLevel> hints;        // per lab
  std::map<std::string, std::string> overrides;  // per lab: TOML laid over its lab.toml
};

Course read_course(const std::optional<fs::path>& file) {
  Course course;
  if (!file) return course;
  toml::table t;
  try {
    t = toml::parse_file(file->string());
  } catch (const toml::parse_error& e) {
    throw ConfigError(file->string() + ": " + std::string(e.description()));
  }
  const auto level = [&](const toml::node& n, const std::string& where) {
    const auto text = n.value<std::string>();
    const auto l = text ? parse_hint_level(*text) : std::nullopt;
    if (!l) throw ConfigError(file->string() + ": " + where + " must be \"full\", \"brief\" or \"none\"");
    return *l;
  };
  if (const auto* hints = t["hints"].as_table()) {
    for (const auto& [key, value] : *hints) {
      const std::string k(key.str());
      if (k == "default")
        course.default_hints = level(value, "[hints] default");
      else
        course.hints[k] = level(value, "[hints] " + k);
    }
  }
  if (const auto* labs = t["labs"].as_table()) {
    for (const auto& [key, value] : *labs) {
      const auto* lab = value.as_table();
      if (!lab) throw ConfigError(file->string() + ": [labs." + std::string(key.str()) + "] must be a table");
      // A course.toml goes to the students: hidden cases there would be hidden from no one.
      if (lab->contains("hidden"))
        throw ConfigError(file->string() + ": [labs." + std::string(key.str()) +
                          ".hidden]: hidden cases would be handed to the students with the release; put them "
                          "in an override file of your own (a [hidden] table) and pass it to grader batch "
                          "and grader leaderboard with --config");
      std::ostringstream text;
      text << *lab;
      course.overrides[std::string(key.str())] = text.str();
    }
  }
  return course;
}

}  // namespace

bool excluded(const std::string& path, const std::vector<std::string>& patterns) {
  for (const std::string& pattern : patterns) {
    if (pattern.back() == '/') {
      if (path.rfind(pattern, 0) == 0) return true;
      continue;
    }
    // The path itself, or a folder above it.
    for (std::string p = path;;) {
      if (::fnmatch(pattern.c_str(), p.c_str(), FNM_PATHNAME) == 0) return true;
      const auto slash = p.rfind('/');
      if (slash == std::string::npos) break;
      p.resize(slash);
    }
  }
  return false;
}

std::vector<std::string> read_exclude_patterns(const fs::path& file) {
  std::vector<std::string> patterns;
  std::istringstream in(read_file(file));
  for (std::string line; std::getline(in, line);) {
    if (const auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r')) line.pop_back();
    const auto b = line.find_first_not_of(" \t");
    if (b != std::string::npos) patterns.push_back(line.substr(b));
  }
  return patterns;
}

namespace {

// What a release copies, and what it leaves out.
struct Copied {
  std::size_t files = 0, left_out = 0;
};

// 1. The working copy's files into `out`, without what `patterns` leave out. A link must point
//    inside what the release holds.
Copied copy_files(const fs::path& root, const fs::path& out, const std::vector<std::string>& patterns) {
  Copied n;
  for (const std::string& file : working_copy_files(root)) {
    if (excluded(file, patterns)) {
      ++n.left_out;
      continue;
    }
    const fs::path from = root / file;
    if (fs::is_symlink(from)) {
      const fs::path target = fs::weakly_canonical(from.parent_path() / fs::read_symlink(from));
      const auto rel = fs::relative(target, root).generic_string();
      if (rel.rfind("..", 0) == 0 || excluded(rel, patterns))
        throw std::runtime_error(file + " is a link to " + target.string() + ", outside what the release holds");
    }
    if (!fs::is_regular_file(from)) continue;  // deleted in the working copy but not in git
    fs::create_directories((out / file).parent_path());
    fs::copy_file(from, out / file, fs::copy_options::overwrite_existing);
    fs::permissions(out / file, fs::status(from).permissions());
    ++n.files;
  }
  return n;
}

// 2. The starters at the course's hint level, from the marked solutions. Returns how many.
std::size_t write_starters(const Paths& paths, const fs::path& out, const std::vector<std::string>& patterns,
                           const Course& course, const std::optional<HintLevel>& hints) {
  const fs::path root = paths.source_root;
  std::size_t starters = 0;
  for (const StarterFile& f : starter_files(paths, {})) {
    if (excluded(fs::relative(f.starter, root).generic_string(), patterns)) continue;  // a lab left out
    const auto it = course.hints.find(f.lab);
    const HintLevel level = hints ? *hints : it != course.hints.end() ? it->second : course.default_hints;
    write_atomically(out / fs::relative(f.starter, root),
                     generate_starter(read_file(f.solution), level, fs::relative(f.solution, root).string()));
    ++starters;
  }
  return starters;
}

// --git: the release as a git repository with one commit. False when git could not make it.
bool make_repository(const fs::path& out) {
  const std::string git = "git -C " + quoted(out);
  const std::string who = " -c user.name='CUDA Workbook release' -c user.email='release@cuda-workbook.invalid'";
  return capture(git + " init -q") && capture(git + " add -A") &&
         capture(git + who + " commit -q -m 'CUDA Workbook: the student release'");
}

}  // namespace

int cmd_release(const Paths& paths, const ReleaseOptions& options) {
  const fs::path root = paths.source_root;
  const fs::path out = fs::absolute(options.out);
  if (fs::exists(out) && !fs::is_empty(out)) {
    std::cerr << "grader release: " << out.string() << " exists and is not empty\n";
    return 64;
  }
  const fs::path exclude_file = root / "release-exclude.txt";
  if (!fs::exists(exclude_file)) {
    std::cerr << "grader release: " << exclude_file.string() << " is missing: it names what a release leaves out\n";
    return 64;
  }
  std::vector<std::string> patterns = read_exclude_patterns(exclude_file);
  patterns.push_back("release-exclude.txt");
  const Course course = read_course(options.course);
  for (const auto& [lab, _] : course.overrides)
    if (!fs::exists(paths.lab_dir(lab) / "lab.toml")) throw UnknownLab(lab, available_labs(paths));

  const Copied copied = copy_files(root, out, patterns);
  const std::size_t starters = write_starters(paths, out, patterns, course, options.hints);
  // 3. The course's overrides, beside each lab.toml.
  for (const auto& [lab, text] : course.overrides)
    write_atomically(out / "labs" / lab / "course.toml",
                     "# This course's settings for " + lab + ", laid over lab.toml by the grader.\n" + text + "\n");
  // 4. Nothing left of the solutions.
  if (fs::exists(out / "solutions")) throw std::logic_error("internal: solutions/ reached the release");

  std::cout << fmt::format("wrote {}: {} files ({} left out), {} starters generated, {} course override(s)\n",
                           out.string(), copied.files, copied.left_out, starters, course.overrides.size());
  if (options.git) {
    if (!make_repository(out)) {
      std::cerr << "grader release: git could not make the repository in " << out.string() << '\n';
      return 3;
    }
    std::cout << "made it a git repository with one commit: push it to the course's template repository\n";
  }
  return 0;
}

}  // namespace grader
