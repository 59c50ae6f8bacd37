// grader list: the labs, their exercises and points, in the course's order.
#include "command.hpp"

#include "grader/lab_config.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <iostream>
#include <memory>

namespace grader::cli {
namespace {

int list_labs(const Paths& paths, bool json) {
  struct Row {
    std::string name, title, points, exercises;
  };
  std::vector<Row> rows{{"LAB", "TITLE", "POINTS", "EXERCISES"}};
  nlohmann::json all = nlohmann::json::array();
  for (const auto& name : available_labs(paths)) {  // in the course's order
    const auto config = load_lab(paths, name);
    std::string exercises;
    nlohmann::json ex = nlohmann::json::array();
    for (const auto& e : config.exercises()) {
      exercises += (exercises.empty() ? "" : ", ") + e.name;
      ex.push_back({{"name", e.name}, {"title", e.title}, {"points", e.total_points()}});
    }
    all.push_back({{"name", name},
                   {"title", config.title()},
                   {"files", config.files()},
                   {"points", config.total_points()},
                   {"exercises", ex}});
    rows.push_back({name, config.title(), fmt::format("{:g}", config.total_points()), exercises});
  }
  if (json) {
    std::cout << all.dump(2) << std::endl;
    return 0;
  }
  std::size_t w_name = 0, w_title = 0, w_points = 0;
  for (const auto& r : rows) {
    w_name = std::max(w_name, r.name.size());
    w_title = std::max(w_title, r.title.size());
    w_points = std::max(w_points, r.points.size());
  }
  for (const auto& r : rows)
    std::cout << fmt::format("{:<{}}  {:<{}}  {:>{}}  {}\n", r.name, w_name, r.title, w_title, r.points, w_points,
                             r.exercises);
  return 0;
}

}  // namespace

Command setup_list(CLI::App& app) {
  auto json = std::make_shared<bool>(false);
  auto* list = app.add_subcommand("list", "List the labs, their exercises and points");
  list->add_flag("--json", *json, "Machine-readable output");
  return {list, [json](const Paths& paths) { return list_labs(paths, *json); }};
}

}  // namespace grader::cli
