#include "grader/lab_config.hpp"

#include <cstdlib>
#include <functional>

#include <fstream>
#include <sstream>

namespace grader {
namespace {

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError("cannot read " + path.string());
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

toml::table parse_toml(std::string_view text, const std::string& source_name) {
  try {
    return toml::parse(text, source_name);
  } catch (const toml::parse_error& e) {
    std::ostringstream msg;
    msg << source_name << ':' << e.source().begin.line << ':' << e.source().begin.column << ": " << e.description();
    throw ConfigError(msg.str());
  }
}

}  // namespace

double ExerciseConfig::total_points() const {
  double total = 0;
  for (const auto& [kind, pts] : points) total += pts;
  return total;
}

void merge_tables(toml::table& base, const toml::table& over) {
  for (const auto& [key, value] : over) {
    auto* mine = base.get(key);
    if (mine && mine->is_table() && value.is_table()) {
      merge_tables(*mine->as_table(), *value.as_table());
    } else {
      base.insert_or_assign(key, value);
    }
  }
}

LabConfig LabConfig::parse(std::string_view text, const std::string& source_name) {
  LabConfig config;
  config.table_ = parse_toml(text, source_name);
  config.validate(source_name);
  return config;
}

void LabConfig::apply_override(std::string_view text, const std::string& source_name) {
  merge_tables(table_, parse_toml(text, source_name));
  validate(source_name);
}

LabConfig LabConfig::load(const std::filesystem::path& lab_toml, const std::vector<std::filesystem::path>& overrides) {
  LabConfig config = parse(read_file(lab_toml), lab_toml.string());
  // WORKBOOK_LAB_ALONE: lab.toml's own values, as grader calibrate measures them (the shipped
  // thresholds are derived from; a course's settings are laid over the result).
  const char* alone = std::getenv("WORKBOOK_LAB_ALONE");
  if (const auto course = lab_toml.parent_path() / "course.toml"; !(alone && *alone) && std::filesystem::exists(course))
    config.apply_override(read_file(course), course.string());
  for (const auto& path : overrides) config.apply_override(read_file(path), path.string());
  return config;
}

namespace {

// Says what is wrong with the lab's configuration, by throwing ConfigError.
using Fail = std::function<void(const std::string& what)>;

// [lab] files: the files a student edits.
std::vector<std::string> read_files(const toml::table& t, const Fail& fail) {
  std::vector<std::string> files;
  if (const auto* list = t["lab"]["files"].as_array()) {
    for (const auto& f : *list) {
      if (!f.is_string()) fail("[lab] files must be a list of file names");
      files.push_back(*f.value<std::string>());
    }
  }
  if (files.empty()) fail("[lab] files must name at least one file");
  return files;
}

// [lab] exercises, in report order, each with its [exercises.<name>] title and points.
std::vector<ExerciseConfig> read_exercises(const toml::table& t, const Fail& fail) {
  std::vector<ExerciseConfig> exercises;
  const auto* order = t["lab"]["exercises"].as_array();
  if (!order || order->empty()) fail("[lab] exercises must list the exercises in report order");
  for (const auto& e : *order) {
    if (!e.is_string()) fail("[lab] exercises must be a list of names");
    ExerciseConfig ex;
    ex.name = *e.value<std::string>();
    const auto* section = t["exercises"][ex.name].as_table();
    if (!section) fail("[lab] exercises names '" + ex.name + "' but there is no [exercises." + ex.name + "]");
    ex.title = (*section)["title"].value_or(ex.name);
    const auto* points = (*section)["points"].as_table();
    if (!points || points->empty())
      fail("[exercises." + ex.name + "] needs points, e.g. points = { correctness = 30 }");
    for (const auto& [kind, value] : *points) {
      const auto pts = value.value<double>();
      if (!pts || *pts < 0)
        fail("[exercises." + ex.name + "] points." + std::string(kind.str()) + " must be a number >= 0");
      ex.points[std::string(kind.str())] = *pts;
    }
    exercises.push_back(std::move(ex));
  }
  return exercises;
}

// A visibility setting (Gradescope's words): `fallback` when the node is not set.
std::string read_visibility(const toml::node_view<const toml::node>& node, const std::string& key,
                            const std::string& fallback, const Fail& fail) {
  if (!node) return fallback;
  const auto v = node.value<std::string>();
  if (!v || (*v != "hidden" && *v != "after_published" && *v != "visible"))
    fail(key + " must be \"hidden\", \"after_published\" or \"visible\"");
  return *v;
}

// [hidden]: its visibility and its shapes, each in the lab's form ([lab] hidden_shape).
HiddenCases read_hidden(const toml::table& t, const std::string& lab, const Fail& fail) {
  HiddenCases hidden;
  const auto* table = t["hidden"].as_table();
  if (!table) return hidden;
  hidden.visibility = read_visibility(t["hidden"]["visibility"], "[hidden] visibility", "after_published", fail);
  std::vector<std::string> form;
  if (const auto* dims = t["lab"]["hidden_shape"].as_array())
    for (const auto& d : *dims) form.push_back(d.value_or(std::string{}));
  std::string form_text;
  for (const auto& d : form) form_text += (form_text.empty() ? "" : ", ") + d;
  form_text = "[" + form_text + "]";
  const auto* shapes = (*table)["shapes"].as_array();
  if (!shapes) return hidden;
  if (form.empty()) fail("[hidden] shapes: " + lab + " takes no hidden cases (its lab.toml has no [lab] hidden_shape)");
  for (const auto& shape : *shapes) {
    const auto* dims = shape.as_array();
    std::vector<int> values;
    if (dims)
      for (const auto& d : *dims)
        if (const auto i = d.value<int64_t>(); i && *i >= 1 && *i <= (1 << 20)) values.push_back(static_cast<int>(*i));
    if (!dims || values.size() != form.size() || values.size() != dims->size())
      fail("[hidden] shapes: each shape is " + form_text + ", whole numbers from 1 to 1048576");
    hidden.shapes.push_back(std::move(values));
  }
  return hidden;
}

}  // namespace

void LabConfig::validate(const std::string& source_name) {
  const Fail fail = [&](const std::string& what) { throw ConfigError(source_name + ": " + what); };
  name_ = table_["lab"]["name"].value_or(std::string{});
  if (name_.empty()) fail("[lab] needs a name");
  title_ = table_["lab"]["title"].value_or(name_);
  files_ = read_files(table_, fail);
  exercises_ = read_exercises(table_, fail);
  const toml::table& t = table_;
  gradescope_visibility_ = read_visibility(t["gradescope"]["visibility"], "[gradescope] visibility", "visible", fail);
  hidden_ = read_hidden(table_, name_, fail);
}

const ExerciseConfig* LabConfig::exercise(const std::string& name) const {
  for (const auto& e : exercises_)
    if (e.name == name) return &e;
  return nullptr;
}

double LabConfig::total_points() const {
  double total = 0;
  for (const auto& e : exercises_) total += e.total_points();
  return total;
}

std::optional<double> LabConfig::number(const std::string& path) const {
  const auto node = table_.at_path(path);
  return node.value<double>();  // integers convert; anything else is empty
}

double LabConfig::require_number(const std::string& path) const {
  const auto value = number(path);
  if (!value) throw ConfigError(name_ + ": lab.toml has no number at '" + path + "'");
  return *value;
}

std::vector<int> LabConfig::int_list(const std::string& path) const {
  std::vector<int> values;
  const auto* array = table_.at_path(path).as_array();
  if (!array) throw ConfigError(name_ + ": lab.toml has no list at '" + path + "'");
  for (const auto& v : *array) {
    const auto i = v.value<int64_t>();
    if (!i) throw ConfigError(name_ + ": '" + path + "' must be a list of integers");
    values.push_back(static_cast<int>(*i));
  }
  return values;
}

}  // namespace grader
