#include "grader/catch.hpp"
#include "grader/submission.hpp"

#include <algorithm>
#include <archive.h>
#include <archive_entry.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace grader;
namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("workbook-subs-" + std::to_string(::getpid()));
  TempDir() {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

struct Item {
  std::string name, data;
  std::string link = {};  // a symbolic link to this target, when not empty
  bool declare_size = true;
};

void make_archive(const fs::path& path, bool zip, const std::vector<Item>& items) {
  archive* a = archive_write_new();
  if (zip) {
    archive_write_set_format_zip(a);
  } else {
    archive_write_add_filter_gzip(a);
    archive_write_set_format_pax_restricted(a);
  }
  REQUIRE(archive_write_open_filename(a, path.c_str()) == ARCHIVE_OK);
  for (const auto& it : items) {
    archive_entry* e = archive_entry_new();
    archive_entry_set_pathname(e, it.name.c_str());
    if (!it.link.empty()) {
      archive_entry_set_filetype(e, AE_IFLNK);
      archive_entry_set_symlink(e, it.link.c_str());
    } else {
      archive_entry_set_filetype(e, AE_IFREG);
      archive_entry_set_perm(e, 0644);
      archive_entry_set_size(e, static_cast<la_int64_t>(it.data.size()));
    }
    archive_write_header(a, e);
    if (it.link.empty()) archive_write_data(a, it.data.data(), it.data.size());
    archive_entry_free(e);
  }
  archive_write_close(a);
  archive_write_free(a);
}

}  // namespace

TEST_CASE("submissions: folders, .zip, .tar.gz and .tgz, by student id; the rest skipped, a name graded",
          "[submission]") {
  TempDir t;
  fs::create_directories(t.path / "alice");
  write(t.path / "bob.zip", "x");
  write(t.path / "carol.tar.gz", "x");
  write(t.path / "dave.tgz", "x");
  write(t.path / "notes.txt", "x");
  fs::create_directories(t.path / ".hidden");
  fs::create_directories(t.path / "bad id");
  std::vector<std::string> skipped;
  const auto subs = discover_submissions(t.path, &skipped);
  REQUIRE(subs.size() == 5);
  CHECK(subs[0].student == "alice");
  CHECK(subs[0].type == Submission::Type::Folder);
  CHECK(subs[1].student == "bad_id");  // "bad id": no usable id, graded under one made from it
  CHECK(subs[1].derived_id);
  CHECK(subs[1].name == "bad id");
  CHECK(subs[2].student == "bob");
  CHECK(subs[2].type == Submission::Type::Zip);
  CHECK(subs[3].student == "carol");
  CHECK(subs[3].type == Submission::Type::TarGz);
  CHECK(subs[4].student == "dave");
  CHECK(skipped.size() == 1);  // notes.txt
}

// A link in the submissions folder could name anything on the machine (the walk of issue 34
// graded erin.zip -> ../elsewhere/secret.zip): skipped and named as a link, folder or archive.
TEST_CASE("links in the submissions folder are skipped as links, to archives too", "[submission]") {
  TempDir t;
  fs::create_directories(t.path / "in");
  fs::create_directories(t.path / "elsewhere" / "folder");
  write(t.path / "elsewhere" / "secret.zip", "x");
  fs::create_symlink(t.path / "elsewhere" / "secret.zip", t.path / "in" / "erin.zip");
  fs::create_directory_symlink(t.path / "elsewhere" / "folder", t.path / "in" / "alice");
  fs::create_directories(t.path / "in" / "bob");
  std::vector<std::string> skipped;
  const auto subs = discover_submissions(t.path / "in", &skipped);
  REQUIRE(subs.size() == 1);
  CHECK(subs[0].student == "bob");
  std::sort(skipped.begin(), skipped.end());
  REQUIRE(skipped.size() == 2);
  CHECK(skipped[0].rfind("alice: a link", 0) == 0);
  CHECK(skipped[1].rfind("erin.zip: a link", 0) == 0);
}

TEST_CASE("two submissions for one student are an error, not a silent choice", "[submission]") {
  TempDir t;
  fs::create_directories(t.path / "alice");
  write(t.path / "alice.zip", "x");
  CHECK_THROWS_AS(discover_submissions(t.path), std::runtime_error);
}

TEST_CASE("student ids", "[submission]") {
  CHECK(valid_student_id("s1234567"));
  CHECK(valid_student_id("jane.doe@uni.edu"));
  CHECK_FALSE(valid_student_id(""));
  CHECK_FALSE(valid_student_id(".."));
  CHECK_FALSE(valid_student_id("a/b"));
  CHECK_FALSE(valid_student_id("a b"));
}

TEST_CASE("a folder: only the wanted files, the shallowest copy, links not followed", "[submission]") {
  TempDir t;
  const fs::path sub = t.path / "alice";
  write(sub / "deep" / "matmul.cu", "deep copy");
  write(sub / "matmul.cu", "top copy");
  write(sub / "matmul.h", "a header the student changed");
  write(sub / "notes.md", "ignored");
  fs::create_symlink("/etc/passwd", sub / "other.cu");
  const auto c = collect_files({"alice", sub, Submission::Type::Folder}, {"matmul.cu", "other.cu"}, t.path / "out");
  CHECK_FALSE(c.rejected);
  CHECK(c.found == std::vector<std::string>{"matmul.cu"});
  CHECK(c.missing == std::vector<std::string>{"other.cu"});
  CHECK(read(t.path / "out" / "matmul.cu") == "top copy");
  CHECK_FALSE(fs::exists(t.path / "out" / "matmul.h"));  // never the official header's copy
  CHECK_FALSE(fs::exists(t.path / "out" / "notes.md"));
}

TEST_CASE("a zip: the wanted file from a subfolder, noted", "[submission]") {
  TempDir t;
  make_archive(t.path / "bob.zip", true, {{"bob/lab/matmul.cu", "from zip"}, {"bob/readme.txt", "x"}});
  const auto c = collect_files({"bob", t.path / "bob.zip", Submission::Type::Zip}, {"matmul.cu"}, t.path / "out");
  CHECK_FALSE(c.rejected);
  CHECK(read(t.path / "out" / "matmul.cu") == "from zip");
  REQUIRE(c.notes.size() == 1);
  CHECK(c.notes[0] == "took bob/lab/matmul.cu");
}

TEST_CASE("archives that climb out of their folder are rejected whole", "[submission]") {
  TempDir t;
  for (const std::string evil : {"../escape.cu", "a/../../escape.cu", "/etc/cron.d/x"}) {
    INFO(evil);
    make_archive(t.path / "e.tar.gz", false, {{"matmul.cu", "ok"}, {evil, "bad"}});
    const auto c = collect_files({"e", t.path / "e.tar.gz", Submission::Type::TarGz}, {"matmul.cu"}, t.path / "out");
    CHECK(c.rejected);
    CHECK(c.reason.find("unsafe archive") != std::string::npos);
    CHECK(fs::is_empty(t.path / "out"));  // nothing of it is kept
  }
}

TEST_CASE("a link in an archive is not followed", "[submission]") {
  TempDir t;
  make_archive(t.path / "l.tar.gz", false, {{"matmul.cu", "", "/etc/passwd"}});
  const auto c = collect_files({"l", t.path / "l.tar.gz", Submission::Type::TarGz}, {"matmul.cu"}, t.path / "out");
  CHECK_FALSE(c.rejected);
  CHECK(c.missing == std::vector<std::string>{"matmul.cu"});
  REQUIRE_FALSE(c.notes.empty());
  CHECK(c.notes[0].find("links are not followed") != std::string::npos);
}

TEST_CASE("limits: file size, total size and entry count, counted as decompressed", "[submission]") {
  TempDir t;
  CollectLimits small;
  small.max_file_bytes = 1000;
  small.max_total_bytes = 5000;
  small.max_entries = 10;
  make_archive(t.path / "big.zip", true, {{"matmul.cu", std::string(2000, 'x')}});
  auto c = collect_files({"b", t.path / "big.zip", Submission::Type::Zip}, {"matmul.cu"}, t.path / "out", small);
  CHECK(c.rejected);
  CHECK(c.reason.find("larger than") != std::string::npos);

  make_archive(t.path / "total.zip", true,
               {{"a.bin", std::string(3000, '\0')}, {"b.bin", std::string(3000, '\0')}, {"matmul.cu", "x"}});
  c = collect_files({"t", t.path / "total.zip", Submission::Type::Zip}, {"matmul.cu"}, t.path / "out", small);
  CHECK(c.rejected);
  CHECK(c.reason.find("more than") != std::string::npos);

  std::vector<Item> many;
  for (int i = 0; i < 20; ++i) many.push_back({"f" + std::to_string(i), "x"});
  make_archive(t.path / "many.zip", true, many);
  c = collect_files({"m", t.path / "many.zip", Submission::Type::Zip}, {"matmul.cu"}, t.path / "out", small);
  CHECK(c.rejected);
  CHECK(c.reason.find("entries") != std::string::npos);
}

TEST_CASE("a file that is not an archive is rejected with a reason", "[submission]") {
  TempDir t;
  write(t.path / "x.zip", "this is not a zip file");
  const auto c = collect_files({"x", t.path / "x.zip", Submission::Type::Zip}, {"matmul.cu"}, t.path / "out");
  CHECK(c.rejected);
  CHECK_FALSE(c.reason.empty());
}

namespace {
// What `grader batch` allows a matmul-tiled submission to include.
std::vector<std::string> matmul_includes() {
  const fs::path root = WORKBOOK_SOURCE_ROOT;
  return lab_allowed_includes(root / "labs" / "matmul-tiled", {"matmul.cu"}, root / "common" / "include");
}
const fs::path solution = fs::path(WORKBOOK_SOURCE_ROOT) / "solutions" / "matmul-tiled" / "matmul.cu";
}  // namespace

TEST_CASE("the pre-build check: the reference included by absolute path is rejected, with file, line and rule",
          "[submission][include_check]") {
  TempDir t;
  const fs::path sub = t.path / "cheat";
  write(sub / "matmul.cu", "// all mine\n#include \"" + solution.string() + "\"\n");
  const auto c =
      collect_files({"cheat", sub, Submission::Type::Folder}, {"matmul.cu"}, t.path / "out", {}, matmul_includes());
  CHECK(c.rejected);
  INFO(c.reason);
  CHECK(c.reason.find("matmul.cu:2:") != std::string::npos);
  CHECK(c.reason.find("absolute path") != std::string::npos);
  CHECK(c.reason.find("rule: absolute-path") != std::string::npos);
  CHECK(fs::is_empty(t.path / "out"));  // nothing of it is kept, so nothing is built
}

TEST_CASE("the pre-build check: a header linked to the reference is no header of the lab",
          "[submission][include_check]") {
  TempDir t;
  const fs::path sub = t.path / "linker";
  write(sub / "matmul.cu", "#include \"matmul.h\"\n#include \"helper.h\"\n");
  fs::create_symlink(solution, sub / "helper.h");
  const auto c =
      collect_files({"linker", sub, Submission::Type::Folder}, {"matmul.cu"}, t.path / "out", {}, matmul_includes());
  CHECK(c.rejected);
  INFO(c.reason);
  CHECK(c.reason.find("matmul.cu:2:") != std::string::npos);
  CHECK(c.reason.find("helper.h") != std::string::npos);
  CHECK(c.reason.find("rule: unlisted-header") != std::string::npos);
}

TEST_CASE("the pre-build check: an archive whose file climbs out is rejected too", "[submission][include_check]") {
  TempDir t;
  make_archive(
      t.path / "climb.tar.gz", false,
      {{"climb/matmul.cu", "#include \"matmul.h\"\n#include \"../../../solutions/matmul-tiled/matmul.cu\"\n"}});
  const auto c = collect_files({"climb", t.path / "climb.tar.gz", Submission::Type::TarGz}, {"matmul.cu"},
                               t.path / "out", {}, matmul_includes());
  CHECK(c.rejected);
  CHECK(c.reason.find("matmul.cu:2:") != std::string::npos);
  CHECK(c.reason.find("rule: climbing-path") != std::string::npos);
}

TEST_CASE("the pre-build check: an honest copy of the reference passes", "[submission][include_check]") {
  TempDir t;
  const fs::path sub = t.path / "honest";
  fs::create_directories(sub);
  // A student release has no solutions/ (release-exclude.txt): there the starter is the honest copy.
  const fs::path honest =
      fs::exists(solution) ? solution : fs::path(WORKBOOK_SOURCE_ROOT) / "labs" / "matmul-tiled" / "matmul.cu";
  fs::copy_file(honest, sub / "matmul.cu");
  const auto c =
      collect_files({"honest", sub, Submission::Type::Folder}, {"matmul.cu"}, t.path / "out", {}, matmul_includes());
  INFO(c.reason);
  CHECK_FALSE(c.rejected);
  CHECK(c.found == std::vector<std::string>{"matmul.cu"});
  CHECK(read(t.path / "out" / "matmul.cu") == read(honest));
}
