#include "release/starters.hpp"

#include "grader/files.hpp"

#include <fmt/format.h>

#include <iostream>

namespace fs = std::filesystem;

namespace grader {

std::vector<StarterFile> starter_files(const Paths& paths, const std::vector<std::string>& labs) {
  std::vector<StarterFile> files;
  for (const std::string& lab : labs.empty() ? available_labs(paths) : labs) {
    const LabConfig config = load_lab(paths, lab);  // throws UnknownLab
    for (const std::string& file : config.files()) {
      const fs::path solution = paths.solution_dir(lab) / file;
      if (fs::exists(solution)) files.push_back({lab, solution, paths.lab_dir(lab) / file});
    }
  }
  return files;
}

int cmd_starters(const Paths& paths, const StartersOptions& options) {
  const auto relative = [&](const fs::path& p) { return fs::relative(p, paths.source_root).string(); };
  int differing = 0, written = 0;
  const auto files = starter_files(paths, options.labs);
  if (files.empty()) {
    std::cerr << "no marked solutions here (solutions/<lab>/ is absent): nothing to generate\n";
    return 1;
  }
  for (const StarterFile& f : files) {
    std::string generated;
    try {
      generated = generate_starter(read_file(f.solution), options.hints, relative(f.solution));
    } catch (const MarkerError& e) {
      std::cerr << e.what() << '\n';
      ++differing;
      continue;
    }
    if (options.write) {
      if (!fs::exists(f.starter) || read_file(f.starter) != generated) {
        write_atomically(f.starter, generated);
        std::cout << "wrote " << relative(f.starter) << " (hints: " << to_string(options.hints) << ")\n";
        ++written;
      }
      continue;
    }
    const std::string committed = fs::exists(f.starter) ? read_file(f.starter) : "";
    const FirstDifference d = first_difference(generated, committed);
    if (d.line == 0) continue;
    ++differing;
    std::cerr << fmt::format("{}:{}: differs from what {} generates (hints: {})\n  generated: {}\n  found:     {}\n",
                             relative(f.starter), d.line, relative(f.solution), to_string(options.hints), d.expected,
                             d.found);
  }
  if (options.write) {
    std::cout << written << " of " << files.size() << " starters written, the others were up to date\n";
    return differing ? 1 : 0;
  }
  if (differing) {
    std::cerr << differing << " of " << files.size()
              << " starters differ from their marked solutions: edit the solution (between STARTER and END "
                 "SOLUTION for starter text), then run `grader starters --write`\n";
    return 1;
  }
  std::cout << "all " << files.size() << " starters are what their solutions generate\n";
  return 0;
}

}  // namespace grader
