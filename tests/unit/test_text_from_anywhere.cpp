// Text from anywhere into a result (issue 34): grader/utf8.hpp, utf8_json.hpp, text_file.hpp,
// student_id.hpp, and a roster or times file as a spreadsheet saves it.
#include "course/lateness.hpp"
#include "grader/catch.hpp"
#include "grader/gradebook.hpp"
#include "grader/roster.hpp"
#include "grader/student_id.hpp"
#include "grader/submission.hpp"
#include "grader/text_file.hpp"
#include "grader/utf8.hpp"
#include "grader/utf8_json.hpp"

#include <filesystem>
#include <fstream>

#include <unistd.h>

using namespace grader;
namespace fs = std::filesystem;

namespace {

fs::path write(const std::string& name, const std::string& bytes) {
  const fs::path dir = fs::temp_directory_path() / ("workbook-text-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / name, std::ios::binary) << bytes;
  return dir / name;
}

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

TEST_CASE("to_valid_utf8: UTF-8 kept, Latin-1 and Windows-1252 decoded, the rest replaced", "[utf8]") {
  CHECK(to_valid_utf8("caf\xC3\xA9") == "caf\xC3\xA9");                                  // UTF-8 as it is
  CHECK(to_valid_utf8("caf\xE9") == "caf\xC3\xA9");                                      // Latin-1 é
  CHECK(to_valid_utf8("\x80 \x93hi\x94") == "\xE2\x82\xAC \xE2\x80\x9Chi\xE2\x80\x9D");  // € and quotes
  CHECK(to_valid_utf8("a\x81z") == "a\xEF\xBF\xBDz");                                    // undefined in Windows-1252
  CHECK(to_valid_utf8("\xC3\xA9 and \xE9") == "\xC3\xA9 and \xC3\xA9");  // mixed: a compiler's line quoting Latin-1
  CHECK(to_valid_utf8("\xC0\xAF") == "\xC3\x80\xC2\xAF");                // an overlong '/' is no '/'
  CHECK(to_valid_utf8("\xED\xA0\x80").find("\xED\xA0\x80") == std::string::npos);  // no surrogates
  CHECK(is_valid_utf8(to_valid_utf8(std::string("\xFF\xFE\x00\xF4\x90\x80\x80", 7))));
  CHECK(cp437_to_utf8("Jos\x82 N\xA3\xA4"
                      "ez") ==
        "Jos\xC3\xA9 N\xC3\xBA\xC3\xB1"
        "ez");  // José Núñez
}

TEST_CASE("a result holding Latin-1 is written, not thrown (type_error.316)", "[utf8]") {
  StudentResult r;
  r.student = "ana";
  r.status = "build failed";
  r.detail = "matmul.cu:12: error: expected ';'\n  int x = 1  // c\xE1lculo del \xEDndice\n";  // Latin-1 source
  r.notes = {"took Jos\xE9/matmul.cu"};
  CHECK_THROWS(to_json(r).dump(2));  // what every batch did, and stopped the class on
  std::string text;
  REQUIRE_NOTHROW(text = dump_json(to_json(r)));
  CHECK(text.find("c\xC3\xA1lculo del \xC3\xADndice") != std::string::npos);
  CHECK(text.find("took Jos\xC3\xA9/matmul.cu") != std::string::npos);
  CHECK(student_from_json(nlohmann::json::parse(text)).detail.find("c\xC3\xA1lculo") != std::string::npos);
}

TEST_CASE("a course's text file: UTF-8, with a BOM, Windows-1252; else refused with file and line",
          "[utf8][text_file]") {
  CHECK(read_text_file(write("a.csv", "id,name\njn,Jos\xC3\xA9\n"), "roster").encoding == "UTF-8");
  CHECK(read_text_file(write("b.csv", "\xEF\xBB\xBFid,name\njn,Jos\xC3\xA9\n"), "roster").text ==
        "id,name\njn,Jos\xC3\xA9\n");
  const TextFile latin = read_text_file(write("c.csv",
                                              "id,name\njn,Jos\xE9 N\xFA\xF1"
                                              "ez\n"),
                                        "roster");
  CHECK(latin.encoding == "Windows-1252");
  CHECK(latin.text ==
        "id,name\njn,Jos\xC3\xA9 N\xC3\xBA\xC3\xB1"
        "ez\n");
  CHECK(error_of([] {
          read_text_file(write("d.csv", "id,name\nab,x\njn,J\x81n\n"), "roster");
        }).find("d.csv:3: byte 0x81 is neither UTF-8 nor Windows-1252") != std::string::npos);
  CHECK(error_of([] { read_text_file(write("e.csv", std::string("\xFF\xFEi\0d\0", 6)), "times"); }).find("times ") ==
        0);
  CHECK(error_of([] {
          read_text_file(write("e.csv", std::string("\xFF\xFEi\0d\0", 6)), "times");
        }).find("e.csv:1: saved as UTF-16") != std::string::npos);
  CHECK(error_of([] {
          read_text_file(write("f.csv", std::string("id\nx\0y\n", 7)), "roster");
        }).find("f.csv:2: a NUL byte") != std::string::npos);
}

TEST_CASE("a roster saved by Excel as Windows-1252, or with ';', is read; names find their student", "[utf8][roster]") {
  const Roster latin = read_roster(write("r1.csv",
                                         "id,name,lms_id\r\njnunez,\"N\xFA\xF1"
                                         "ez, Jos\xE9\",101\r\n"));
  REQUIRE(latin.students.size() == 1);
  CHECK(latin.students[0].name ==
        "N\xC3\xBA\xC3\xB1"
        "ez, Jos\xC3\xA9");
  CHECK(latin.id_by_name("Jos\xC3\xA9 N\xC3\xBA\xC3\xB1"
                         "ez") == std::optional<std::string>("jnunez"));
  CHECK_FALSE(latin.id_by_name("Jose Perez"));
  const Roster semicolons = read_roster(write("r2.csv", "id;name;email\nab;Ana B;ana@uni.edu\n\ncd;C D;\n"));
  REQUIRE(semicolons.students.size() == 2);
  CHECK(semicolons.id_of("ana@uni.edu") == std::optional<std::string>("ab"));
  CHECK(error_of([] { read_roster(write("r3.csv", "id,name\nab,\x81\n")); }).find("r3.csv:2:") != std::string::npos);
  // Saved as Windows-1252, then a row added in an editor that writes UTF-8: each line as it is.
  const Roster mixed = read_roster(write("r5.csv",
                                         "id,name\nlm,Lo\xEF"
                                         "c\nzl,Zo\xC3\xAB Lef\xC3\xA8vre\n"));
  REQUIRE(mixed.students.size() == 2);
  CHECK(mixed.students[0].name ==
        "Lo\xC3\xAF"
        "c");
  CHECK(mixed.students[1].name == "Zo\xC3\xAB Lef\xC3\xA8vre");
}

TEST_CASE("a times file saved as Windows-1252, or as CSV UTF-8 with ';', is read", "[utf8][lateness]") {
  const auto times =
      course::read_times(write("t.csv", "id,submitted_at,comment\nab,2026-12-01T20:00:00-05:00,tard\xE9\n"));
  CHECK(times.at("ab") == *course::parse_time("2026-12-02T01:00:00Z"));
  const auto excel = course::read_times(write("t2.csv", "\xEF\xBB\xBFid;submitted_at\r\nab;2026-12-02 01:00:00Z\r\n"));
  CHECK(excel.at("ab") == *course::parse_time("2026-12-02T01:00:00Z"));
}

TEST_CASE("ids for names as people have them", "[utf8][student_id]") {
  CHECK(derive_student_id("Jos\xC3\xA9 N\xC3\xBA\xC3\xB1"
                          "ez") == "Jose_Nunez");
  CHECK(derive_student_id("\xCE\x93\xCE\xB9\xCE\xAC\xCE\xBD\xCE\xBD\xCE\xB7\xCF\x82") == "Giannis");  // Γιάννης
  CHECK(derive_student_id("Fran\xC3\xA7oise L'H\xC3\xB4pital") == "Francoise_L_Hopital");
  CHECK(derive_student_id("Stra\xC3\x9F"
                          "e") == "Strasse");
  const std::string cjk = derive_student_id("\xE6\x9D\x8E\xE9\x9B\xB7");  // 李雷: no Latin form
  CHECK(cjk.rfind("id-", 0) == 0);
  CHECK(valid_student_id(cjk));
  CHECK(derive_student_id("\xE6\x9D\x8E\xE9\x9B\xB7") == cjk);  // the same name, the same id, at every run
  CHECK(valid_student_id(derive_student_id("Jos\xE9 (Latin-1 bytes)")));
  CHECK(name_key("N\xC3\xBA\xC3\xB1"
                 "ez, Jos\xC3\xA9") == name_key("jose_nunez"));
  CHECK(decode_file_name("Jos\x82 N\xA3\xA4"
                         "ez") ==
        "Jos\xC3\xA9 N\xC3\xBA\xC3\xB1"
        "ez");  // unzip's raw CP437
  CHECK(decode_file_name("Jos\xE9 N\xFA\xF1"
                         "ez") ==
        "Jos\xC3\xA9 N\xC3\xBA\xC3\xB1"
        "ez");  // Latin-1
  CHECK(decode_file_name("Jos\xC3\xA9") == "Jos\xC3\xA9");
  CHECK(name_key("Ana Bel\xC3\xA9n") != name_key("Ana"));
}

// A folder made on a Mac holds its accents apart (NFD: "e" then U+0301); a name in a script with
// nothing to fold (Chinese, Korean) is compared by its own words. Both found the walk of issue 34
// graded under a made id while the roster said "no submission".
TEST_CASE("names written decomposed, or in scripts without a Latin form, find their student", "[utf8][roster]") {
  const std::string nfd =
      "Jose\xCC\x81 Nu\xCC\x81n\xCC\x83"
      "ez";  // José Núñez, decomposed
  CHECK(derive_student_id(nfd) == "Jose_Nunez");
  CHECK(name_key(nfd) == name_key("N\xC3\xBA\xC3\xB1"
                                  "ez, Jos\xC3\xA9"));
  const Roster r = read_roster(write("r4.csv",
                                     "id,name\njnunez,\"N\xC3\xBA\xC3\xB1"
                                     "ez, Jos\xC3\xA9\"\n"
                                     "wxm,\xE7\x8E\x8B\xE5\xB0\x8F\xE6\x98\x8E\n"     // 王小明
                                     "kmj,\xEA\xB9\x80\xEB\xAF\xBC\xEC\xA4\x80\n"));  // 김민준, composed
  CHECK(r.id_by_name(nfd) == std::optional<std::string>("jnunez"));
  CHECK(r.id_by_name("\xE7\x8E\x8B\xE5\xB0\x8F\xE6\x98\x8E") == std::optional<std::string>("wxm"));
  // 김민준 as a Mac names a folder: each syllable as its jamo (ᄀ ᅵ ᆷ, ᄆ ᅵ ᆫ, ᄌ ᅮ ᆫ).
  const std::string jamo =
      "\xE1\x84\x80\xE1\x85\xB5\xE1\x86\xB7\xE1\x84\x86\xE1\x85\xB5\xE1\x86\xAB\xE1\x84\x8C\xE1\x85\xAE\xE1\x86\xAB";
  CHECK(r.id_by_name(jamo) == std::optional<std::string>("kmj"));
  CHECK(r.id_by_name("\xEA\xB9\x80 \xEB\xAF\xBC\xEC\xA4\x80") == std::optional<std::string>("kmj"));  // 김 민준
  // Two rows differing only in accents: the one written exactly as the entry is.
  const Roster two = read_roster(write("r6.csv", "id,name\njp1,Jos\xC3\xA9 P\xC3\xA9rez\njp2,Jose Perez\n"));
  CHECK(two.id_by_name("Jose Perez") == std::optional<std::string>("jp2"));
  CHECK(two.id_by_name("Jos\xC3\xA9 P\xC3\xA9rez") == std::optional<std::string>("jp1"));
  CHECK(two.id_by_name("P\xC3\xA9rez, Jos\xC3\xA9") == std::optional<std::string>("jp1"));  // its accents, any order
  const Roster orders = read_roster(write("r7.csv",
                                          "id,name\nm1,Mar\xC3\xAD"
                                          "a Garc\xC3\xAD"
                                          "a\nm2,\"Garc\xC3\xAD"
                                          "a, Mar\xC3\xAD"
                                          "a\"\n"));
  CHECK_FALSE(
      orders.id_by_name("Mar\xC3\xAD"
                        "a Garc\xC3\xAD"
                        "a"));                            // one name in two orders: not guessed
  CHECK_FALSE(r.id_by_name("\xE6\x9D\x8E\xE9\x9B\xB7"));  // 李雷: on no row
  CHECK(name_key("\xE7\x8E\x8B\xE5\xB0\x8F\xE6\x98\x8E") != name_key("\xE6\x9D\x8E\xE9\x9B\xB7"));
}

// The walk of issue 34 typed --times keys composed for entries a Mac named decomposed: the keys
// matched nothing, and the late work went unpenalised.
TEST_CASE("nfc composes a Mac's decomposed letters and keeps every accent", "[utf8][lateness]") {
  CHECK(nfc("Jose\xCC\x81 Nu\xCC\x81n\xCC\x83"
            "ez") ==
        "Jos\xC3\xA9 N\xC3\xBA\xC3\xB1"
        "ez");                                                           // José Núñez
  CHECK(nfc("Nguye\xCC\x82\xCC\x83n") == "Nguy\xE1\xBB\x85n");           // Nguyễn: ê, then ễ
  CHECK(nfc("\xCE\xB1\xCC\x81") == "\xCE\xAC");                          // ά
  CHECK(nfc("\xE1\x84\x80\xE1\x85\xB5\xE1\x86\xB7") == "\xEA\xB9\x80");  // 김 from its jamo
  CHECK(nfc("\xD8\xA7\xD9\x94") == "\xD8\xA3");                                 // أ: alef, hamza above
  CHECK(nfc("\xE3\x81\x8B\xE3\x82\x99") == "\xE3\x81\x8C");                     // が: か, dakuten
  CHECK(nfc("Jose Nunez") == "Jose Nunez");                              // nothing to compose
  CHECK(nfc("Jos\xC3\xA9") != nfc("Jose"));                              // accents kept
  CHECK(nfc("\xCC\x81x") == "\xCC\x81x");                                // a mark with no letter
  const auto times = course::read_times(write("t3.csv", "id,submitted_at\nJos\xC3\xA9,2026-12-01T00:00:00Z\n"));
  CHECK(times.count(course::times_key("Jose\xCC\x81")) == 1);
  CHECK(times.count(course::times_key("Jose")) == 0);
}

// Vietnamese letters typed precomposed (ễ, ạ) have no entry of their own in the fold table: they
// fold as their base letters, as the decomposed ones a Mac writes do (walk of issue 34).
TEST_CASE("precomposed letters fold as their base letters, however typed", "[utf8][student_id]") {
  CHECK(derive_student_id("Nguy\xE1\xBB\x85n V\xC4\x83n \xC4\x90\xE1\xBB\xA9"
                          "c") == "Nguyen_Van_Duc");
  CHECK(derive_student_id("Nguye\xCC\x82\xCC\x83n") == "Nguyen");
  // Russian й typed, and as a Mac writes it (и, then the breve): the same id, "y" as the table says.
  CHECK(derive_student_id("\xD0\xA1\xD0\xB5\xD1\x80\xD0\xB3\xD0\xB5\xD0\xB9") == "Sergey");
  CHECK(derive_student_id("\xD0\xA1\xD0\xB5\xD1\x80\xD0\xB3\xD0\xB5\xD0\xB8\xCC\x86") == "Sergey");
  const Roster r = read_roster(write("r8.csv", "id,name,email\nnv,Nguy\xE1\xBB\x85n V\xC4\x83n,ana@uni.edu\nb1,Bo,\n"));
  CHECK(r.id_by_name("Nguye\xCC\x82\xCC\x83n Va\xCC\x86n") == std::optional<std::string>("nv"));
  CHECK(r.id_of("Ana@Uni.EDU") == std::optional<std::string>("nv"));  // an e-mail in any case
  CHECK(r.id_of("B1") == std::optional<std::string>("b1"));           // the one id it can be
  const Roster two = read_roster(write("r9.csv", "id,name\nab,A\nAB,B\n"));
  CHECK(two.id_of("Ab") == std::nullopt);  // two ids it could be: not guessed
}

// Arabic vowel marks and the right-to-left mark are not part of a name's key (repro of walk34b).
TEST_CASE("Arabic vowel marks and invisible bidi marks do not change a name", "[utf8][roster]") {
  const std::string plain = "\xD9\x85\xD8\xAD\xD9\x85\xD8\xAF";                                     // محمد
  const std::string vowelled = "\xD9\x85\xD9\x8F\xD8\xAD\xD9\x8E\xD9\x85\xD9\x8E\xD9\x91\xD8\xAF";  // مُحَمَّد
  CHECK(name_key(vowelled) == name_key(plain));
  CHECK(name_key("\xE2\x80\x8F" + plain) == name_key(plain));  // U+200F first
  // أحمد typed, and as a Mac writes it (alef, then the hamza apart): one name.
  CHECK(name_key("\xD8\xA3\xD8\xAD\xD9\x85\xD8\xAF") == name_key("\xD8\xA7\xD9\x94\xD8\xAD\xD9\x85\xD8\xAF"));
  CHECK(derive_student_id("Ali\xE2\x80\x8B"
                          "Khan") == "Ali_Khan");  // a zero-width space still parts words
  CHECK(name_key(plain) != name_key("\xD8\xB3\xD8\xA7\xD8\xB1\xD8\xA9"));
}

TEST_CASE("a deadline's file is named: the last one laid that has [deadline]", "[lateness]") {
  const fs::path lab = write("lab.toml", "[lab]\nname = 'x'\n");
  const fs::path course = write("course.toml", "[deadline]\ndue = 2026-12-01T23:59:00\n");
  const fs::path other = write("other.toml", "[points]\n");
  CHECK(course::deadline_file({lab, course, other}) == course.string());
  CHECK(course::deadline_file({lab, other}).empty());
}
