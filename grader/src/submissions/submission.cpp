#include "grader/submission.hpp"

#include "grader/student_id.hpp"
#include "grader/utf8.hpp"

#include <archive.h>
#include <archive_entry.h>
#include <locale.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <initializer_list>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>

namespace grader {
namespace fs = std::filesystem;

namespace {

// A path inside an archive that stays inside it: relative, no "..", no empty name.
bool safe_entry_path(const std::string& name) {
  if (name.empty() || name[0] == '/' || name[0] == '\\') return false;
  if (name.size() > 1 && name[1] == ':') return false;  // C:\...
  std::stringstream parts(name);
  for (std::string part; std::getline(parts, part, '/');) {
    if (part == "..") return false;
    if (part.find('\\') != std::string::npos && part.find("..") != std::string::npos) return false;
  }
  return true;
}

int depth(const std::string& path) { return static_cast<int>(std::count(path.begin(), path.end(), '/')); }

bool ignored_entry(const std::string& path) {
  return path.rfind("__MACOSX/", 0) == 0 || path.find("/__MACOSX/") != std::string::npos;
}

// Among several entries with a wanted name, the shallowest wins (a student who zipped their
// whole folder plus a stray copy in a subfolder gets the top-level one).
struct Choice {
  std::string path;
  int depth = 1 << 30;
};

void write_file(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

Collected collect_from_folder(const Submission& s, const std::vector<std::string>& wanted, const fs::path& dest,
                              const CollectLimits& limits) {
  Collected c;
  std::map<std::string, Choice> chosen;
  std::size_t entries = 0;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(s.path, fs::directory_options::none, ec);
       it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) break;
    if (++entries > limits.max_entries) {
      c.rejected = true;
      c.reason = "more than " + std::to_string(limits.max_entries) + " files";
      return c;
    }
    const fs::path p = it->path();
    const std::string rel = p.lexically_relative(s.path).generic_string();  // never follows a link
    const std::string name = p.filename().string();
    const bool is_wanted = std::find(wanted.begin(), wanted.end(), name) != wanted.end();
    if (it->is_symlink()) {
      if (is_wanted) c.notes.push_back(to_valid_utf8(rel) + " is a symbolic link: links are not followed");
      continue;  // recursive_directory_iterator does not descend into linked folders by default
    }
    if (!is_wanted || !it->is_regular_file() || ignored_entry(rel)) continue;
    auto& best = chosen[name];
    if (depth(rel) < best.depth || (depth(rel) == best.depth && rel < best.path)) best = {rel, depth(rel)};
  }
  for (const auto& name : wanted) {
    auto found = chosen.find(name);
    if (found == chosen.end() || found->second.path.empty()) {
      c.missing.push_back(name);
      continue;
    }
    const fs::path src = s.path / found->second.path;
    if (fs::file_size(src) > limits.max_file_bytes) {
      c.rejected = true;
      c.reason =
          to_valid_utf8(found->second.path) + " is larger than " + std::to_string(limits.max_file_bytes >> 10) + " KiB";
      return c;
    }
    fs::copy_file(src, dest / name, fs::copy_options::overwrite_existing);
    c.found.push_back(name);
    if (found->second.path != name) c.notes.push_back("took " + to_valid_utf8(found->second.path));
  }
  return c;
}

struct ArchiveDeleter {
  void operator()(archive* a) const { archive_read_free(a); }
};

// libarchive converts entry names to the locale's character set, and the grader runs in the C
// locale, where a UTF-8 name (the zip flag Python, Windows 11 and Info-ZIP set) has no form at
// all. For this thread, while an archive is read: a UTF-8 locale, whatever the machine's is.
class Utf8Locale {
public:
  Utf8Locale() {
    for (const char* name : {"C.UTF-8", "C.utf8", "en_US.UTF-8"})
      if ((locale_ = ::newlocale(LC_CTYPE_MASK, name, nullptr))) break;
    if (locale_) previous_ = ::uselocale(locale_);
  }
  ~Utf8Locale() {
    if (!locale_) return;
    ::uselocale(previous_);
    ::freelocale(locale_);
  }
  Utf8Locale(const Utf8Locale&) = delete;
  Utf8Locale& operator=(const Utf8Locale&) = delete;

private:
  locale_t locale_ = nullptr;
  locale_t previous_ = nullptr;
};

std::unique_ptr<archive, ArchiveDeleter> new_reader(Submission::Type type) {
  std::unique_ptr<archive, ArchiveDeleter> a(archive_read_new());
  if (type == Submission::Type::Zip) {
    archive_read_support_format_zip(a.get());
    return a;
  }
  // Plain, gzip, xz and bzip2 tars, each decompressed inside libarchive: a filter that would
  // call an outside program instead (ARCHIVE_WARN) is not what a grader should start.
  for (auto* support :
       {archive_read_support_filter_gzip, archive_read_support_filter_xz, archive_read_support_filter_bzip2})
    if (support(a.get()) != ARCHIVE_OK) {
      a.reset(archive_read_new());
      archive_read_support_filter_gzip(a.get());
      break;
    }
  archive_read_support_format_tar(a.get());
  return a;
}

// An entry's name in UTF-8: as libarchive gives it, else its bytes read as the zip's OEM code
// page (CP437: Windows Explorer's zips) or, in a tar, as Windows-1252; nothing if it has none.
std::optional<std::string> entry_name(archive_entry* entry, bool zip) {
  if (const char* utf8 = archive_entry_pathname_utf8(entry)) return to_valid_utf8(utf8);
  const char* raw = archive_entry_pathname(entry);
  if (!raw) return std::nullopt;
  const std::string bytes = raw;
  if (is_valid_utf8(bytes)) return bytes;
  return zip ? cp437_to_utf8(bytes) : to_valid_utf8(bytes);
}

// The current entry's data, read through: every decompressed byte counts against the archive's
// total, so that a bomb hidden in an ignored entry is still stopped; `bytes`, when given, keeps
// them (a wanted file, within its own limit). Why the archive is rejected, or nullopt.
std::optional<std::string> read_entry(archive* a, const std::string& path, const CollectLimits& limits,
                                      std::uint64_t& total, std::string* bytes) {
  char buffer[65536];
  for (la_ssize_t n; (n = archive_read_data(a, buffer, sizeof buffer)) > 0;) {
    total += static_cast<std::uint64_t>(n);
    if (total > limits.max_total_bytes)
      return "the archive unpacks to more than " + std::to_string(limits.max_total_bytes >> 20) + " MiB";
    if (!bytes) continue;
    bytes->append(buffer, static_cast<std::size_t>(n));
    if (bytes->size() > limits.max_file_bytes)
      return path + " is larger than " + std::to_string(limits.max_file_bytes >> 10) + " KiB";
  }
  return std::nullopt;
}

// Why an entry's header alone rejects the archive (a path out of the submission's folder, a
// declared size over the limit), or nullopt.
std::optional<std::string> refused_entry(archive_entry* entry, const std::optional<std::string>& readable,
                                         const CollectLimits& limits) {
  const std::string path = readable.value_or("");
  if (readable && !safe_entry_path(path))
    return "unsafe archive: entry '" + path + "' would be written outside the submission's folder";
  const std::int64_t declared = archive_entry_size_is_set(entry) ? archive_entry_size(entry) : 0;
  if (declared > 0 && static_cast<std::uint64_t>(declared) > limits.max_total_bytes)
    return "entry '" + path + "' claims " + std::to_string(declared >> 20) + " MiB: over the limit";
  return std::nullopt;
}

// The wanted files that were found, written into `dest`; the others named missing.
void place_wanted(const std::vector<std::string>& wanted, std::map<std::string, Choice>& chosen,
                  const std::map<std::string, std::string>& contents, const fs::path& dest, Collected& c) {
  for (const auto& name : wanted) {
    auto it = contents.find(name);
    if (it == contents.end()) {
      c.missing.push_back(name);
      continue;
    }
    write_file(dest / name, it->second);
    c.found.push_back(name);
    if (chosen[name].path != name) c.notes.push_back("took " + chosen[name].path);
  }
}

Collected collect_from_archive(const Submission& s, const std::vector<std::string>& wanted, const fs::path& dest,
                               const CollectLimits& limits) {
  Collected c;
  const auto reject = [&](const std::string& why) {
    c.rejected = true;
    c.reason = why;
    c.found.clear();
    return c;
  };
  if (fs::file_size(s.path) > limits.max_archive_bytes)
    return reject("the archive is larger than " + std::to_string(limits.max_archive_bytes >> 20) + " MiB");

  const Utf8Locale utf8_names;  // before the archive: libarchive reads the locale's character set once
  const auto a = new_reader(s.type);
  if (archive_read_open_filename(a.get(), s.path.c_str(), 64 * 1024) != ARCHIVE_OK)
    return reject(std::string("not a readable archive: ") + archive_error_string(a.get()));

  std::map<std::string, Choice> chosen;
  std::map<std::string, std::string> contents;  // by wanted name, the chosen entry's bytes
  std::uint64_t total = 0;
  std::size_t entries = 0, unreadable = 0;
  archive_entry* entry = nullptr;
  for (;;) {
    const int r = archive_read_next_header(a.get(), &entry);
    if (r == ARCHIVE_EOF) break;
    if (r < ARCHIVE_WARN) return reject(std::string("damaged archive: ") + archive_error_string(a.get()));
    if (++entries > limits.max_entries)
      return reject("more than " + std::to_string(limits.max_entries) + " entries in the archive");
    const std::optional<std::string> readable = entry_name(entry, s.type == Submission::Type::Zip);
    if (!readable) ++unreadable;
    if (const auto why = refused_entry(entry, readable, limits)) return reject(*why);
    const std::string path = readable.value_or("");
    const std::string name = fs::path(path).filename().string();
    const bool is_wanted = std::find(wanted.begin(), wanted.end(), name) != wanted.end();
    const auto type = archive_entry_filetype(entry);
    if (is_wanted && (type == AE_IFLNK || archive_entry_hardlink(entry))) {
      c.notes.push_back(path + " is a link: links are not followed");
      archive_read_data_skip(a.get());
      continue;
    }
    const bool keep =
        readable && is_wanted && type == AE_IFREG && !ignored_entry(path) && depth(path) < chosen[name].depth;
    std::string bytes;
    if (const auto why = read_entry(a.get(), path, limits, total, keep ? &bytes : nullptr)) return reject(*why);
    if (!keep) continue;
    chosen[name] = {path, depth(path)};
    contents[name] = std::move(bytes);
  }
  if (unreadable)
    c.notes.push_back(std::to_string(unreadable) + (unreadable == 1 ? " entry" : " entries") +
                      " of the archive with a name that cannot be read (neither UTF-8 nor a known code page): ignored");
  place_wanted(wanted, chosen, contents, dest, c);
  return c;
}

}  // namespace

bool archive_names_wanted(const fs::path& path, Submission::Type type, const std::vector<std::string>& wanted,
                          const CollectLimits& limits) {
  std::error_code ec;
  if (fs::file_size(path, ec) > limits.max_archive_bytes || ec) return true;  // collect_files says why
  const Utf8Locale utf8_names;
  const auto a = new_reader(type);
  if (archive_read_open_filename(a.get(), path.c_str(), 64 * 1024) != ARCHIVE_OK) return true;
  archive_entry* entry = nullptr;
  for (std::size_t entries = 0; entries <= limits.max_entries; ++entries) {
    const int r = archive_read_next_header(a.get(), &entry);
    if (r == ARCHIVE_EOF) return false;
    if (r < ARCHIVE_WARN || archive_filter_bytes(a.get(), 0) > static_cast<la_int64_t>(limits.max_total_bytes))
      return true;
    const auto name = entry_name(entry, type == Submission::Type::Zip);
    if (name && std::find(wanted.begin(), wanted.end(), fs::path(*name).filename().string()) != wanted.end())
      return true;
  }
  return true;
}

bool valid_student_id(const std::string& id) {
  if (id.empty() || id[0] == '.' || id.size() > 128) return false;
  return std::all_of(id.begin(), id.end(), [](char ch) {
    return std::isalnum(static_cast<unsigned char>(ch)) || ch == '.' || ch == '_' || ch == '-' || ch == '@';
  });
}

std::optional<std::pair<Submission::Type, std::string>> archive_kind(const std::string& file_name) {
  std::string lower = file_name;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  for (const auto& [ext, type] :
       std::initializer_list<std::pair<const char*, Submission::Type>>{{".zip", Submission::Type::Zip},
                                                                       {".tar.gz", Submission::Type::TarGz},
                                                                       {".tgz", Submission::Type::TarGz},
                                                                       {".tar.xz", Submission::Type::TarGz},
                                                                       {".tar.bz2", Submission::Type::TarGz},
                                                                       {".tar", Submission::Type::TarGz}}) {
    const std::string e = ext;
    if (lower.size() > e.size() && lower.compare(lower.size() - e.size(), e.size(), e) == 0)
      return std::make_pair(type, file_name.substr(0, file_name.size() - e.size()));
  }
  return std::nullopt;
}

std::vector<Submission> discover_submissions(const fs::path& folder, std::vector<std::string>* skipped) {
  if (!fs::is_directory(folder)) throw std::runtime_error(folder.string() + " is not a folder of submissions");
  std::vector<Submission> all;
  for (const auto& e : fs::directory_iterator(folder)) {
    const std::string name = decode_file_name(e.path().filename().string());
    if (name.empty() || name[0] == '.') continue;
    Submission s;
    s.path = e.path();
    s.entry = name;
    std::error_code ec;
    if (e.is_symlink(ec)) {  // never followed: it could name anything on the machine
      if (skipped) skipped->push_back(name + ": a link (links are not followed: copy the submission in instead)");
      continue;
    }
    if (e.is_directory(ec)) {
      s.student = name;
      s.type = Submission::Type::Folder;
    } else if (const auto kind = e.is_regular_file(ec) ? archive_kind(name) : std::nullopt) {
      s.type = kind->first;
      s.student = kind->second;
    } else {
      if (skipped)
        skipped->push_back(name + ": not a folder or an archive (.zip, .tar, .tar.gz, .tgz, .tar.xz, .tar.bz2)");
      continue;
    }
    if (!valid_student_id(s.student)) {  // a name as people have them: graded under an id made from it
      s.name = s.student;
      s.student = derive_student_id(s.name);
      s.derived_id = true;
      s.notes.push_back("'" + s.name + "' is not a usable id (letters, digits, . _ - @): graded as " + s.student);
    }
    all.push_back(s);
  }
  std::sort(all.begin(), all.end(), [](const Submission& a, const Submission& b) { return a.student < b.student; });
  for (std::size_t i = 1; i < all.size(); ++i) {
    if (all[i].student == all[i - 1].student && !all[i].derived_id && !all[i - 1].derived_id)
      throw std::runtime_error("two submissions for student '" + all[i].student + "': " + all[i - 1].path.string() +
                               " and " + all[i].path.string());
  }
  return all;
}

Collected collect_files(const Submission& submission, const std::vector<std::string>& wanted, const fs::path& dest,
                        const CollectLimits& limits, const std::vector<std::string>& allowed_includes) {
  fs::remove_all(dest);
  fs::create_directories(dest);
  Collected c = submission.type == Submission::Type::Folder ? collect_from_folder(submission, wanted, dest, limits)
                                                            : collect_from_archive(submission, wanted, dest, limits);
  if (!c.rejected) {
    // The pre-build check, on the copies (the bytes the compiler would read): nothing that could
    // make the compiler read another file gets as far as a build.
    std::vector<std::string> allowed = allowed_includes;
    for (const auto& w : wanted)
      if (std::find(allowed.begin(), allowed.end(), w) == allowed.end()) allowed.push_back(w);
    const auto violations = check_include_folder(dest, c.found, allowed);
    if (!violations.empty()) {
      c.rejected = true;
      c.reason = format_violations(violations);
    }
  }
  if (c.rejected) {  // nothing of a rejected submission is kept
    fs::remove_all(dest);
    fs::create_directories(dest);
  }
  return c;
}

std::string submission_fingerprint(const Submission& s) {
  std::uint64_t h = 14695981039346656037ull;  // FNV-1a
  const auto mix = [&h](const char* data, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) h = (h ^ static_cast<unsigned char>(data[i])) * 1099511628211ull;
  };
  const auto mix_file = [&](const fs::path& file, const std::string& name) {
    mix(name.data(), name.size() + 1);  // with its terminating NUL: "a" + "bc" is not "ab" + "c"
    std::ifstream in(file, std::ios::binary);
    char buffer[1 << 16];
    while (in) {
      in.read(buffer, sizeof buffer);
      mix(buffer, static_cast<std::size_t>(in.gcount()));  // the last, short read too
    }
  };
  std::error_code ec;
  if (s.type != Submission::Type::Folder || !fs::is_directory(s.path, ec)) {
    mix_file(s.path, s.path.filename().string());
  } else {
    std::vector<fs::path> files;
    for (auto it = fs::recursive_directory_iterator(s.path, fs::directory_options::skip_permission_denied, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
      if (it->is_regular_file(ec) && !it->is_symlink(ec)) files.push_back(it->path());
    std::sort(files.begin(), files.end());
    for (const auto& f : files) mix_file(f, f.lexically_relative(s.path).generic_string());
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return hex;
}

}  // namespace grader
