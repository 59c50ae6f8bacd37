// The environment of a test program, written in one place (grader/test_program_env.hpp): each
// field set becomes its variable, with the value as the test program reads it; unset is absent.
#include "grader/catch.hpp"
#include "grader/test_program_env.hpp"

#include <filesystem>
#include <map>
#include <string>

TEST_CASE("test_program_env writes the fields that are set, and only those", "[test_program_env]") {
  grader::TestProgramEnv env;
  CHECK(grader::test_program_env(env).empty());
  env.seed = 42;
  env.config = "/w/labs/matmul-tiled/lab.toml";
  env.overrides = "";
  env.results_fd = 7;
  env.gate_fd = 9;
  env.phase_timeout_s = 600;
  env.runner_file_bytes = 256ull << 20;
  env.fewer_cases = true;
  env.untimed = true;
  const std::map<std::string, std::string> want = {{"WORKBOOK_SEED", "42"},
                                                   {"WORKBOOK_CONFIG", "/w/labs/matmul-tiled/lab.toml"},
                                                   {"WORKBOOK_OVERRIDES", ""},
                                                   {"WORKBOOK_RESULTS_FD", "7"},
                                                   {"WORKBOOK_GATE_FD", "9"},
                                                   {"WORKBOOK_PHASE_TIMEOUT_S", "600.000000"},
                                                   {"WORKBOOK_RUNNER_FILE_BYTES", "268435456"},
                                                   {"WORKBOOK_FEWER_CASES", "1"},
                                                   {"WORKBOOK_UNTIMED", "1"}};
  CHECK(grader::test_program_env(env) == want);
}

TEST_CASE("override_list joins override files as absolute paths, in order", "[test_program_env]") {
  CHECK(grader::override_list({}).empty());
  CHECK(grader::override_list({"/c/course.toml"}) == "/c/course.toml");
  const std::string relative = grader::override_list({"h100.toml", "/c/course.toml"});
  CHECK(relative == (std::filesystem::current_path() / "h100.toml").string() + ":/c/course.toml");
}
