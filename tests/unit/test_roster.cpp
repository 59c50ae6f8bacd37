// grader/include/grader/roster.hpp: a roster as spreadsheets and LMS exports write it.
#include "grader/roster.hpp"

#include "grader/catch.hpp"

#include <filesystem>
#include <fstream>

#include <unistd.h>

namespace fs = std::filesystem;

namespace {
fs::path write(const std::string& name, const std::string& text) {
  const fs::path dir = fs::temp_directory_path() / ("workbook-roster-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / name, std::ios::binary) << text;
  return dir / name;
}
std::string error_of(const fs::path& file) {
  try {
    grader::read_roster(file);
  } catch (const grader::RosterError& e) {
    return e.what();
  }
  return "no error";
}
}  // namespace

TEST_CASE("a roster: ids, quoted names with commas, LMS ids, extra columns, BOM and CRLF", "[roster]") {
  const auto roster = grader::read_roster(write("class.csv",
                                                "\xEF\xBB\xBFid,name,section,lms_id\r\n"
                                                "alice,\"Liddell, Alice\",A,\r\n"
                                                "hank.smith, Hank Smith ,B,12345\r\n"
                                                "\r\n"
                                                "carol@uni.edu,Carol,A,67890\r\n"));
  REQUIRE(roster.students.size() == 3);
  CHECK(roster.students[0].name == "Liddell, Alice");
  CHECK(roster.students[1].name == "Hank Smith");  // trimmed
  CHECK(roster.students[1].lms_id == "12345");
  CHECK(roster.id_of("alice") == "alice");
  CHECK(roster.id_of("12345") == "hank.smith");  // a folder named by the LMS's user id
  CHECK(roster.id_of("67890") == "carol@uni.edu");
  CHECK_FALSE(roster.id_of("zed").has_value());
  // Only `id` is needed.
  CHECK(grader::read_roster(write("ids.csv", "id\nalice\nbob\n")).students.size() == 2);
}

TEST_CASE("a roster that cannot be used is refused, naming the file and line", "[roster]") {
  CHECK(error_of(write("noid.csv", "name,lms_id\nAlice,1\n")).find("no `id` column") != std::string::npos);
  CHECK(error_of(write("twice.csv", "id\nalice\nbob\nalice\n"))
            .find("twice.csv:4: the id alice is on the roster twice") != std::string::npos);
  CHECK(error_of(write("lms.csv", "id,lms_id\nalice,1\nbob,1\n")).find("the lms_id 1 is on the roster twice") !=
        std::string::npos);
  CHECK(error_of(write("space.csv", "id\nhank smith\n")).find("'hank smith' is not a usable student id") !=
        std::string::npos);
  CHECK(error_of("/nonexistent/roster.csv").find("roster /nonexistent/roster.csv") == 0);
}
