// A real course's files (issue 34): archive names in UTF-8 and CP437, Canvas downloads with
// screenshots and merged downloads, Gradescope exports with paths for keys and unusual ids, one
// entry per student by the LMS's own order, and LMS exports that zero nobody.
#include "../batch/raw_zip.hpp"
#include "course/duplicates.hpp"
#include "course/gradescope.hpp"
#include "course/lateness.hpp"
#include "course/lms.hpp"
#include "course/lms_export.hpp"
#include "grader/catch.hpp"
#include "grader/submission.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

using namespace grader;
namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("workbook-course-" + std::to_string(::getpid()));
  TempDir() {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string joined(const std::vector<std::string>& lines) {
  std::string all;
  for (const auto& l : lines) all += l + "\n";
  return all;
}

const std::vector<std::string> kWanted = {"matmul.cu"};

template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("a zip with a UTF-8 name beside the lab's file is read, not taken for an escape", "[course][archive]") {
  TempDir t;
  Submission s{"ana", t.path / "ana.zip", Submission::Type::Zip};
  REQUIRE(
      raw_zip::write(s.path.string(), {{"matmul.cu", "int ok;\n", false}, {"notas-caf\xC3\xA9.txt", "hola\n", true}}));
  const Collected c = collect_files(s, kWanted, t.path / "dest");
  CHECK_FALSE(c.rejected);
  CHECK(c.reason.empty());
  CHECK(c.found == kWanted);
  CHECK(read(t.path / "dest" / "matmul.cu") == "int ok;\n");
}

TEST_CASE("a zip made by Windows Explorer (CP437 names, an accented folder) is read", "[course][archive]") {
  TempDir t;
  Submission s{"jose", t.path / "jose.zip", Submission::Type::Zip};
  REQUIRE(raw_zip::write(s.path.string(), {{"Jos\x82 N\xA3\xA4"
                                            "ez/matmul.cu",
                                            "int ok;\n"},
                                           {"Jos\x82 N\xA3\xA4"
                                            "ez/notas.txt",
                                            "x"}}));
  const Collected c = collect_files(s, kWanted, t.path / "dest");
  REQUIRE_FALSE(c.rejected);
  CHECK(c.found == kWanted);
  CHECK(joined(c.notes).find("took Jos\xC3\xA9 N\xC3\xBA\xC3\xB1"
                             "ez/matmul.cu") != std::string::npos);
  // An escape is still one, whatever the code page.
  Submission bad{"eve", t.path / "eve.zip", Submission::Type::Zip};
  REQUIRE(raw_zip::write(bad.path.string(), {{"matmul.cu", "int ok;\n"}, {"../\x82.cu", "x"}}));
  const Collected e = collect_files(bad, kWanted, t.path / "dest2");
  CHECK(e.rejected);
  CHECK(e.reason.find("unsafe archive: entry '../\xC3\xA9.cu'") != std::string::npos);
}

TEST_CASE("an archive is known to hold the lab's file by its names alone", "[course][archive]") {
  TempDir t;
  REQUIRE(raw_zip::write((t.path / "code.zip").string(), {{"lab1/matmul.cu", "x"}}));
  REQUIRE(raw_zip::write((t.path / "shots.zip").string(), {{"screenshot-1.png", "x"}}));
  CHECK(archive_names_wanted(t.path / "code.zip", Submission::Type::Zip, kWanted));
  CHECK_FALSE(archive_names_wanted(t.path / "shots.zip", Submission::Type::Zip, kWanted));
}

TEST_CASE("Canvas: a screenshot with a long number stops nothing; the newest upload is taken, and said",
          "[course][canvas]") {
  TempDir t;
  const fs::path d = t.path / "canvas";
  write(d / "tanakaai_106_9006_screenshot-1764633540123.png", "png");
  write(d / "tanakaai_106_9006_matmul.cu", "tanaka's\n");
  // Two downloads merged into one folder: bob's older file (9002, broken) listed first by name.
  write(d / "builderbob_102_9002_matmul.cu", "broken\n");
  write(d / "builderbob_LATE_102_9050_matmul.cu", "fixed\n");
  // carol: a plain file, then a zip of her code, then a zip of screenshots.
  write(d / "carol_103_9003_matmul.cu", "first\n");
  REQUIRE(raw_zip::write((d / "carol_103_9040_Lab1.zip").string(), {{"Lab1/matmul.cu", "zipped\n"}}));
  REQUIRE(raw_zip::write((d / "carol_103_9070_shots.zip").string(), {{"shot.png", "png"}}));
  std::vector<std::string> skipped;
  std::vector<Submission> subs;
  REQUIRE_NOTHROW(subs = course::discover_lms(course::LmsLayout::Canvas, d, kWanted, t.path / "lms", &skipped));
  REQUIRE(subs.size() == 3);
  CHECK(subs[0].student == "102");
  CHECK(read(subs[0].path / "matmul.cu") == "fixed\n");
  CHECK(joined(subs[0].notes)
            .find("took builderbob_LATE_102_9050_matmul.cu (the newest upload: Canvas file 9050), "
                  "ignored builderbob_102_9002_matmul.cu") != std::string::npos);
  CHECK(subs[1].student == "103");
  CHECK(subs[1].type == Submission::Type::Zip);
  CHECK(subs[1].path.filename() == "carol_103_9040_Lab1.zip");
  CHECK(subs[2].student == "106");
  CHECK(read(subs[2].path / "matmul.cu") == "tanaka's\n");
}

TEST_CASE("Gradescope: keys are folders inside the export, never paths", "[course][gradescope]") {
  TempDir t;
  const fs::path g = t.path / "export";
  write(t.path / "outside-secret" / "matmul.cu", "not a submission\n");
  write(g / "submission_1" / "matmul.cu", "ana\n");
  write(g / "submission_metadata.yml",
        "submission_1:\n  :submitters:\n  - :sid: ana\n"
        "../outside-secret:\n  :submitters:\n  - :sid: eve\n"
        "/etc:\n  :submitters:\n  - :sid: mallory\n");
  std::vector<std::string> skipped;
  const auto subs = course::discover_gradescope(g, &skipped);
  REQUIRE(subs.size() == 1);
  CHECK(subs[0].student == "ana");
  CHECK(joined(skipped).find("../outside-secret: in submission_metadata.yml, but not the name of a folder inside the "
                             "export: refused") != std::string::npos);
  CHECK(joined(skipped).find("/etc: in submission_metadata.yml, but not the name") != std::string::npos);
}

TEST_CASE("Gradescope: an unusual :sid: uses the :email:; unlisted folders and empty metadata are said",
          "[course][gradescope]") {
  TempDir t;
  const fs::path g = t.path / "export";
  write(g / "submission_1" / "Lab1.zip", "zip");
  write(g / "submission_2" / "matmul.cu", "x");
  write(g / "submission_3" / "matmul.cu", "whose?");
  write(g / "submission_metadata.yml",
        "submission_1:\n  :submitters:\n  - :name: Jos\xC3\xA9 N\xC3\xBA\xC3\xB1"
        "ez\n    :sid: Jos\xC3\xA9 N\xC3\xBA\xC3\xB1"
        "ez\n"
        "    :email: jnunez@uni.edu\n  :created_at: 2026-12-01 20:00:00.000000000 -05:00\n"
        "submission_2:\n  :submitters:\n  - :name: Kim Lee\n    :sid: kim lee\n");
  std::vector<std::string> skipped;
  const auto subs = course::discover_gradescope(g, &skipped);
  REQUIRE(subs.size() == 2);
  CHECK(subs[0].student == "jnunez@uni.edu");
  CHECK(subs[0].type == Submission::Type::Zip);
  CHECK(joined(subs[0].notes).find("graded as jnunez@uni.edu (the :email:)") != std::string::npos);
  CHECK(subs[1].student == "kim_lee");
  CHECK(subs[1].derived_id);
  CHECK(joined(skipped).find("submission_3: a submission folder that submission_metadata.yml does not list") !=
        std::string::npos);

  write(g / "submission_metadata.yml", "");
  std::string why;
  try {
    course::discover_gradescope(g, &skipped);
  } catch (const std::invalid_argument& e) {
    why = e.what();
  }
  CHECK(why.find("submission_metadata.yml: lists no submission") != std::string::npos);
  write(g / "submission_metadata.yml", "submission_2:\n  :submitters:\n  - :sid: kim\n  :created_at: yesterday\n");
  why.clear();
  try {
    course::discover_gradescope(g, &skipped);
  } catch (const std::invalid_argument& e) {
    why = e.what();
  }
  CHECK(why.find("submission_metadata.yml: submission_2: :created_at: 'yesterday' is not a time") != std::string::npos);
  write(g / "submission_metadata.yml", "submission_2:\n  :submitters:\n  - :sid: kim\n  :created_at: {a: 1}\n");
  CHECK(error_of([&] {
          course::discover_gradescope(g, &skipped);
        }).find("submission_2: :created_at: not a text value") != std::string::npos);
}

TEST_CASE("one student, one entry: the newest by the LMS's time, else its order; else exit 3", "[course][duplicates]") {
  const course::EntryTime by_metadata = [](const Submission& s) { return course::parse_time(s.submitted_at); };
  Submission older{"kim", "submission_7", Submission::Type::Folder, "", "2026-12-01T10:00:00Z", "submission_7"};
  Submission newer{"kim", "submission_3", Submission::Type::Folder, "", "2026-12-02T10:00:00Z", "submission_3"};
  older.lms_order = 7;
  newer.lms_order = 3;
  const auto kept = course::one_entry_per_student({older, newer}, by_metadata);
  REQUIRE(kept.size() == 1);
  CHECK(kept[0].path == "submission_3");  // the time decides before the order
  CHECK(kept[0].notes.back() == "took submission_3 (the newest: submitted 2026-12-02T10:00:00Z), ignored submission_7");
  // One entry met twice (a group listing a member by :sid: and by :email:): one entry, no choice.
  Submission again = newer;
  again.submitted_at = "";
  const auto once = course::one_entry_per_student({newer, again}, by_metadata);
  REQUIRE(once.size() == 1);
  CHECK(once[0].notes.empty());
  older.submitted_at = newer.submitted_at = "";
  CHECK(course::newest_entry({older, newer}, by_metadata).path == "submission_7");  // the order, where no time
  older.lms_order = newer.lms_order = -1;
  CHECK_THROWS_AS(course::newest_entry({older, newer}, by_metadata), course::DuplicateEntries);
  CHECK(error_of([&] {
          course::newest_entry({older, newer}, by_metadata);
        }).find("two submissions for student 'kim': submission_3 and submission_7") != std::string::npos);
}

TEST_CASE("LMS exports: only grades are exported (--build-only zeroes nobody)", "[course][lms_export]") {
  const std::vector<course::GradeRow> rows = {{"ana", "Ana", "1", 0, "built"},
                                              {"bo", "Bo", "2", 0, "no GPU"},
                                              {"cy", "Cy", "3", 0, "grader error"},
                                              {"di", "Di", "4", 0, "build failed"},
                                              {"ed", "Ed", "5", 80, "passed"}};
  const std::string canvas = course::canvas_csv(rows, "Lab 1");
  CHECK(canvas.find("Ana,1,ana,,,\n") != std::string::npos);
  CHECK(canvas.find("Bo,2,bo,,,\n") != std::string::npos);
  CHECK(canvas.find("Cy,3,cy,,,\n") != std::string::npos);
  CHECK(canvas.find("Di,4,di,,,0.00\n") != std::string::npos);  // a real 0: it does not build
  CHECK(course::moodle_csv(rows, "Lab 1").find("ana,1,Ana,\n") != std::string::npos);
  // A name as a Mac's folder gave it (decomposed), and one behind a right-to-left mark: the
  // import compares names composed and without invisible marks.
  const std::vector<course::GradeRow> names = {{"jn", "Jose\xCC\x81", "7", 50, "incomplete"},
                                               {"sa", "\xE2\x80\x8F\xD8\xB3\xD8\xA7", "8", 50, "incomplete"}};
  CHECK(course::canvas_csv(names, "Lab 1").find("Jos\xC3\xA9,7,jn,,,50.00\n") != std::string::npos);
  CHECK(course::moodle_csv(names, "Lab 1").find("sa,8,\xD8\xB3\xD8\xA7,50.00\n") != std::string::npos);
}

TEST_CASE("an entry whose name no encoding reads is ignored, named as such, never an escape", "[course][archive]") {
  TempDir t;
  Submission s{"ana", t.path / "ana.zip", Submission::Type::Zip};
  // The UTF-8 flag on bytes that are not UTF-8: libarchive has no name to give.
  REQUIRE(raw_zip::write(s.path.string(), {{"matmul.cu", "int ok;\n"}, {"bad\xFF\xFE name.txt", "x", true}}));
  const Collected c = collect_files(s, kWanted, t.path / "dest");
  CHECK_FALSE(c.rejected);
  CHECK(c.reason.find("would be written outside") == std::string::npos);
  CHECK(c.found == kWanted);
  CHECK(joined(c.notes).find("1 entry of the archive with a name that cannot be read") != std::string::npos);
}
