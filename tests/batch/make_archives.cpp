// Writes the hostile archives of the batch test (tests/batch/batch-test.cmake), with libarchive:
//   make-archives <submissions-folder> <a good matmul.cu>
//   escape.zip       an entry named ../../ESCAPED-archive.cu, beside a good matmul.cu
//   bomb.zip         a good matmul.cu and 400 MiB of zeros (compresses to about 400 KiB)
//   links.tar.gz     matmul.cu as a symbolic link to /etc/passwd
//   absolute.tar.gz  an entry with an absolute path
// and, for the corpus of course input (tests/batch/course-corpus.sh), a zip byte by byte:
//   make-archives --raw-zip <out.zip> {u|c} <name> <content> [{u|c} <name> <content>]...
//   u: the name in UTF-8 with the zip's UTF-8 flag (Python, Windows 11, Info-ZIP); c: its bytes
//   as given, without the flag (Windows Explorer's code page, CP437)
#include "raw_zip.hpp"

#include <archive.h>
#include <archive_entry.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct Entry {
  std::string name;
  std::string data;        // for a file
  std::size_t zeros = 0;   // or this many zero bytes, streamed
  std::string link_to = {};  // or a symbolic link
};

bool write_archive(const std::string& path, bool zip, const std::vector<Entry>& entries) {
  archive* a = archive_write_new();
  if (zip) {
    archive_write_set_format_zip(a);
  } else {
    archive_write_add_filter_gzip(a);
    archive_write_set_format_pax_restricted(a);
  }
  if (archive_write_open_filename(a, path.c_str()) != ARCHIVE_OK) return false;
  for (const auto& e : entries) {
    archive_entry* entry = archive_entry_new();
    archive_entry_set_pathname(entry, e.name.c_str());
    if (!e.link_to.empty()) {
      archive_entry_set_filetype(entry, AE_IFLNK);
      archive_entry_set_symlink(entry, e.link_to.c_str());
      archive_entry_set_perm(entry, 0777);
      archive_write_header(a, entry);
    } else {
      archive_entry_set_filetype(entry, AE_IFREG);
      archive_entry_set_perm(entry, 0644);
      archive_entry_set_size(entry, static_cast<la_int64_t>(e.zeros ? e.zeros : e.data.size()));
      archive_write_header(a, entry);
      if (e.zeros) {
        const std::vector<char> block(1 << 20, 0);
        for (std::size_t done = 0; done < e.zeros; done += block.size()) archive_write_data(a, block.data(), block.size());
      } else {
        archive_write_data(a, e.data.data(), e.data.size());
      }
    }
    archive_entry_free(entry);
  }
  archive_write_close(a);
  archive_write_free(a);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 3 && std::string(argv[1]) == "--raw-zip") {
    std::vector<raw_zip::Entry> entries;
    for (int i = 3; i + 2 < argc; i += 3) entries.push_back({argv[i + 1], argv[i + 2], std::string(argv[i]) == "u"});
    return (argc - 3) % 3 == 0 && raw_zip::write(argv[2], entries) ? 0 : 1;
  }
  if (argc != 3) {
    std::fprintf(stderr, "usage: make-archives <submissions-folder> <matmul.cu>\n");
    return 2;
  }
  const std::string dir = argv[1];
  std::ifstream in(argv[2]);
  std::stringstream good;
  good << in.rdbuf();
  bool ok = true;
  ok &= write_archive(dir + "/escape.zip", true, {{"matmul.cu", good.str()}, {"../../ESCAPED-archive.cu", "int x;\n"}});
  ok &= write_archive(dir + "/bomb.zip", true, {{"matmul.cu", good.str()}, {"data/zeros.bin", "", 400u << 20}});
  ok &= write_archive(dir + "/links.tar.gz", false, {{"matmul.cu", "", 0, "/etc/passwd"}});
  ok &= write_archive(dir + "/absolute.tar.gz", false, {{"/tmp/ESCAPED-absolute.cu", "int y;\n"}, {"matmul.cu", good.str()}});
  return ok ? 0 : 1;
}
