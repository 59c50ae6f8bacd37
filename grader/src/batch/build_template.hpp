// A submission's build without a CMake configure of its own (issue 33, "no work twice"). The
// batch project (grader/batch/CMakeLists.txt) is configured once per batch, for a template
// submission (the starter's files), and each submission then runs that configuration's own
// commands (`ninja -t commands <target>`) with the template's folders replaced by its own: the
// very compiler and linker lines CMake wrote, minus CMake's compiler detection, which took 60% of
// a submission's build. A command that compiles a file of the project's own that does not depend
// on the submission (test_main.cpp: it never reads WORKBOOK_SOURCE_DIR) is run once, in the
// template, and its object copied in. Where anything of this fails, the caller falls back to the
// configure per submission.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace grader {

// `text` with every occurrence of each key replaced by its value (longest keys first).
std::string replace_paths(std::string text, const std::map<std::string, std::string>& paths);

// The files a command writes that may sit in folders not made yet: the words after -o and -MF,
// and the linker's dependency file (-Wl,--dependency-file=PATH, which CMake 3.27+ adds).
std::vector<std::string> command_outputs(const std::string& command);

// The file a command writes with -o ("" when none).
std::string command_object(const std::string& command);

// The file a compile command compiles (the word after -c), "" when the command compiles nothing.
std::string compiled_source(const std::string& command);

// A shell script (run with `sh`, in the submission's build folder) that runs `commands` in
// order: every compile first, all of them even after one fails (all the errors at once), then the
// rest (archive, link) only if every compile succeeded; the folders of their outputs made first.
std::string build_script(const std::vector<std::string>& commands);

class BuildTemplate {
public:
  struct Options {
    std::filesystem::path cmake;               // the cmake program
    std::filesystem::path project;             // grader/batch
    std::filesystem::path dir;                 // the template's folder: <dir>/src, <dir>/build
    std::vector<std::string> configure_args;   // -G Ninja -D... (all but -S, -B and SUBMISSION_DIR)
    std::map<std::string, std::string> files;  // the template submission's files: name -> text
    std::filesystem::path log;
  };
  // Configures the template; nullopt (with `why`) when it cannot.
  static std::optional<BuildTemplate> configure(const Options& options, std::string* why);

  // The script that builds `target` for the submission in `src` into `build`, and the template
  // objects to copy into `build` before it runs (template path -> path relative to build).
  struct Recipe {
    std::string script;
    std::vector<std::pair<std::filesystem::path, std::filesystem::path>> copies;
  };
  // nullopt (with `why`) when the target's commands cannot be had or a shared object not built.
  std::optional<Recipe> recipe(const std::string& target, const std::filesystem::path& src,
                               const std::filesystem::path& build, std::string* why) const;

  const std::filesystem::path& build_dir() const { return build_; }

private:
  std::optional<std::vector<std::string>> commands(const std::string& target, std::string* why) const;
  bool shared_compile(const std::string& command) const;  // the same for every submission
  std::filesystem::path ninja_, src_, build_, log_;
  mutable std::shared_ptr<std::mutex> m_ = std::make_shared<std::mutex>();
  mutable std::map<std::string, std::vector<std::string>> commands_;  // per target
  mutable std::map<std::string, bool> built_shared_;                  // per shared object
};

}  // namespace grader
