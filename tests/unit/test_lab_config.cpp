#include "grader/catch.hpp"
#include "grader/lab_config.hpp"

#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>

using grader::ConfigError;
using grader::LabConfig;

namespace {
const char* kLab = R"(
[lab]
name = "demo"
title = "A demo lab"
files = ["demo.cu"]
exercises = ["first", "second"]
timeout_s = 100

[performance]
size = [64, 32, 16]

[exercises.first]
title = "First"
points = { correctness = 30, performance = 10 }
min_speedup = 5.0

[exercises.second]
points = { correctness = 20, static = 5 }
min_speedup = 2
)";

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("lab.toml: exercises in report order, points, values by path", "[config]") {
  const auto c = LabConfig::parse(kLab, "lab.toml");
  CHECK(c.name() == "demo");
  CHECK(c.title() == "A demo lab");
  CHECK(c.files() == std::vector<std::string>{"demo.cu"});
  REQUIRE(c.exercises().size() == 2);
  CHECK(c.exercises()[0].name == "first");
  CHECK(c.exercises()[1].name == "second");
  CHECK(c.exercises()[1].title == "second");  // no title: the name
  CHECK(c.exercise("first")->points.at("performance") == 10);
  CHECK(c.total_points() == 65);
  CHECK(c.timeout_s() == 100);
  CHECK(c.number("exercises.first.min_speedup") == 5.0);
  CHECK(c.number("exercises.second.min_speedup") == 2.0);  // an integer reads as a number
  CHECK_FALSE(c.number("exercises.first.nothing").has_value());
  CHECK(c.int_list("performance.size") == std::vector<int>{64, 32, 16});
  CHECK_THROWS_AS(c.require_number("exercises.first.nothing"), ConfigError);
}

TEST_CASE("an override replaces values and merges tables key by key", "[config]") {
  auto c = LabConfig::parse(kLab, "lab.toml");
  c.apply_override(R"(
[exercises.first]
min_speedup = 2.5
points = { performance = 20 }
)",
                   "course.toml");
  CHECK(c.number("exercises.first.min_speedup") == 2.5);
  CHECK(c.exercise("first")->points.at("performance") == 20);
  CHECK(c.exercise("first")->points.at("correctness") == 30);  // untouched by the override
  CHECK(c.number("exercises.second.min_speedup") == 2.0);
  CHECK(c.total_points() == 75);
}

TEST_CASE("overrides apply in order: the last one wins", "[config]") {
  auto c = LabConfig::parse(kLab, "lab.toml");
  c.apply_override("[exercises.first]\nmin_speedup = 3\n", "course.toml");
  c.apply_override("[exercises.first]\nmin_speedup = 4\n", "h100.toml");
  CHECK(c.number("exercises.first.min_speedup") == 4.0);
}

TEST_CASE("a syntax error names the file, line and column", "[config]") {
  const auto msg = message_of([] { LabConfig::parse("[lab]\nname = \"x\"\nfiles = [\n", "broken.toml"); });
  CHECK(msg.find("broken.toml:") == 0);
  CHECK(msg.find(":3:") != std::string::npos);  // line 3 holds the unterminated array
}

TEST_CASE("a lab.toml missing what the grader needs says what is missing", "[config]") {
  CHECK(message_of([] { LabConfig::parse("[lab]\ntitle = \"x\"\n", "a.toml"); }).find("needs a name") !=
        std::string::npos);
  CHECK(message_of([] { LabConfig::parse("[lab]\nname = \"x\"\nexercises = [\"e\"]\n", "b.toml"); }).find("files") !=
        std::string::npos);
  CHECK(message_of([] {
          LabConfig::parse("[lab]\nname = \"x\"\nfiles = [\"x.cu\"]\nexercises = [\"e\"]\n", "c.toml");
        }).find("no [exercises.e]") != std::string::npos);
  CHECK(message_of([] {
          LabConfig::parse(
              "[lab]\nname = \"x\"\nfiles = [\"x.cu\"]\nexercises = [\"e\"]\n[exercises.e]\npoints = { correctness = "
              "-1 }\n",
              "d.toml");
        }).find(">= 0") != std::string::npos);
  // An override is validated too: it cannot remove what the grader needs.
  auto c = LabConfig::parse(kLab, "lab.toml");
  CHECK(message_of([&] { c.apply_override("[lab]\nexercises = [\"third\"]\n", "bad.toml"); }).find("bad.toml") == 0);
}

TEST_CASE("every shipped lab.toml loads", "[config]") {
  const std::filesystem::path labs = std::filesystem::path(WORKBOOK_SOURCE_ROOT) / "labs";
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(labs)) {
    const auto toml = entry.path() / "lab.toml";
    if (!std::filesystem::exists(toml)) continue;
    INFO(toml.string());
    const auto c = LabConfig::load(toml);
    CHECK(c.name() == entry.path().filename().string());
    CHECK(c.total_points() > 0);
    for (const auto& f : c.files()) CHECK(std::filesystem::exists(entry.path() / f));
    ++count;
  }
  CHECK(count >= 1);
}

TEST_CASE("a course.toml beside lab.toml is laid over it, before the overrides given", "[config]") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "workbook-course-toml-test";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const auto write = [&](const char* name, const std::string& text) {
    std::FILE* f = std::fopen((dir / name).c_str(), "w");
    std::fputs(text.c_str(), f);
    std::fclose(f);
  };
  write("lab.toml", kLab);
  CHECK(LabConfig::load(dir / "lab.toml").number("exercises.first.min_speedup") == 5.0);
  write("course.toml", "[exercises.first]\nmin_speedup = 3\n");
  CHECK(LabConfig::load(dir / "lab.toml").number("exercises.first.min_speedup") == 3.0);
  write("h100.toml", "[exercises.first]\nmin_speedup = 4\n");
  CHECK(LabConfig::load(dir / "lab.toml", {dir / "h100.toml"}).number("exercises.first.min_speedup") == 4.0);
  fs::remove_all(dir);
}

TEST_CASE("[hidden] shapes take the lab's form; visibilities are Gradescope's three", "[config][hidden]") {
  auto config = LabConfig::parse(std::string(kLab) + "\n", "lab.toml");
  CHECK(config.hidden().shapes.empty());
  CHECK(config.gradescope_visibility() == "visible");
  // A lab without [lab] hidden_shape takes none.
  const auto none = message_of([&] { config.apply_override("[hidden]\nshapes = [[3, 4, 5]]\n", "hidden.toml"); });
  CHECK(none.find("hidden.toml") == 0);
  CHECK(none.find("takes no hidden cases") != std::string::npos);

  std::string lab = kLab;
  lab.replace(lab.find("timeout_s = 100"), 15, "timeout_s = 100\nhidden_shape = [\"M\", \"N\", \"K\"]");
  auto shaped = LabConfig::parse(lab, "lab.toml");
  shaped.apply_override(
      "[hidden]\nshapes = [[999, 333, 77], [1, 2048, 3]]\nvisibility = \"hidden\"\n"
      "[gradescope]\nvisibility = \"after_published\"\n",
      "hidden.toml");
  REQUIRE(shaped.hidden().shapes.size() == 2);
  CHECK(shaped.hidden().shapes[0] == std::vector<int>{999, 333, 77});
  CHECK(shaped.hidden().visibility == "hidden");
  CHECK(shaped.gradescope_visibility() == "after_published");

  auto fresh = LabConfig::parse(lab, "lab.toml");
  CHECK(message_of([&] {
          fresh.apply_override("[hidden]\nshapes = [[999, 333]]\n", "h.toml");
        }).find("each shape is [M, N, K]") != std::string::npos);
  CHECK(message_of([&] {
          fresh.apply_override("[hidden]\nshapes = [[0, 3, 3]]\n", "h.toml");
        }).find("whole numbers from 1") != std::string::npos);
  CHECK(message_of([&] {
          fresh.apply_override("[hidden]\nshapes = [[2, 3, 3]]\nvisibility = \"secret\"\n", "h.toml");
        }).find("[hidden] visibility must be") != std::string::npos);
}
