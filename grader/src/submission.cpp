#include "grader/submission.hpp"

#include <archive.h>
#include <archive_entry.h>

#include <algorithm>
#include <cctype>
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
      if (is_wanted) c.notes.push_back(rel + " is a symbolic link: links are not followed");
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
      c.reason = found->second.path + " is larger than " + std::to_string(limits.max_file_bytes >> 10) + " KiB";
      return c;
    }
    fs::copy_file(src, dest / name, fs::copy_options::overwrite_existing);
    c.found.push_back(name);
    if (found->second.path != name) c.notes.push_back("took " + found->second.path);
  }
  return c;
}

struct ArchiveDeleter {
  void operator()(archive* a) const { archive_read_free(a); }
};

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

  std::unique_ptr<archive, ArchiveDeleter> a(archive_read_new());
  if (s.type == Submission::Type::Zip) {
    archive_read_support_format_zip(a.get());
  } else {
    // Plain, gzip, xz and bzip2 tars, each decompressed inside libarchive: a filter that would
    // call an outside program instead (ARCHIVE_WARN) is not what a grader should start.
    for (auto* support : {archive_read_support_filter_gzip, archive_read_support_filter_xz, archive_read_support_filter_bzip2})
      if (support(a.get()) != ARCHIVE_OK) {
        a.reset(archive_read_new());
        archive_read_support_filter_gzip(a.get());
        break;
      }
    archive_read_support_format_tar(a.get());
  }
  if (archive_read_open_filename(a.get(), s.path.c_str(), 64 * 1024) != ARCHIVE_OK)
    return reject(std::string("not a readable archive: ") + archive_error_string(a.get()));

  std::map<std::string, Choice> chosen;
  std::map<std::string, std::string> contents;  // by wanted name, the chosen entry's bytes
  std::uint64_t total = 0;
  std::size_t entries = 0;
  archive_entry* entry = nullptr;
  for (;;) {
    const int r = archive_read_next_header(a.get(), &entry);
    if (r == ARCHIVE_EOF) break;
    if (r < ARCHIVE_WARN) return reject(std::string("damaged archive: ") + archive_error_string(a.get()));
    if (++entries > limits.max_entries)
      return reject("more than " + std::to_string(limits.max_entries) + " entries in the archive");
    const char* raw_name = archive_entry_pathname(entry);
    const std::string path = raw_name ? raw_name : "";
    if (!safe_entry_path(path))
      return reject("unsafe archive: entry '" + path + "' would be written outside the submission's folder");
    const std::int64_t declared = archive_entry_size_is_set(entry) ? archive_entry_size(entry) : 0;
    if (declared > 0 && static_cast<std::uint64_t>(declared) > limits.max_total_bytes)
      return reject("entry '" + path + "' claims " + std::to_string(declared >> 20) + " MiB: over the limit");

    const std::string name = fs::path(path).filename().string();
    const bool is_wanted = std::find(wanted.begin(), wanted.end(), name) != wanted.end();
    const auto type = archive_entry_filetype(entry);
    if (is_wanted && (type == AE_IFLNK || archive_entry_hardlink(entry))) {
      c.notes.push_back(path + " is a link: links are not followed");
      archive_read_data_skip(a.get());
      continue;
    }
    if (!is_wanted || type != AE_IFREG || ignored_entry(path) || depth(path) >= chosen[name].depth) {
      // Unwanted data is read through anyway (not skipped), so that every decompressed byte is
      // counted against the total: a bomb hidden in an ignored entry is still stopped.
      char buffer[65536];
      for (la_ssize_t n; (n = archive_read_data(a.get(), buffer, sizeof buffer)) > 0;) {
        total += static_cast<std::uint64_t>(n);
        if (total > limits.max_total_bytes)
          return reject("the archive unpacks to more than " + std::to_string(limits.max_total_bytes >> 20) + " MiB");
      }
      continue;
    }
    std::string bytes;
    char buffer[65536];
    for (la_ssize_t n; (n = archive_read_data(a.get(), buffer, sizeof buffer)) > 0;) {
      total += static_cast<std::uint64_t>(n);
      if (total > limits.max_total_bytes)
        return reject("the archive unpacks to more than " + std::to_string(limits.max_total_bytes >> 20) + " MiB");
      bytes.append(buffer, static_cast<std::size_t>(n));
      if (bytes.size() > limits.max_file_bytes)
        return reject(path + " is larger than " + std::to_string(limits.max_file_bytes >> 10) + " KiB");
    }
    chosen[name] = {path, depth(path)};
    contents[name] = std::move(bytes);
  }
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
  return c;
}

}  // namespace

bool valid_student_id(const std::string& id) {
  if (id.empty() || id[0] == '.' || id.size() > 128) return false;
  return std::all_of(id.begin(), id.end(), [](char ch) {
    return std::isalnum(static_cast<unsigned char>(ch)) || ch == '.' || ch == '_' || ch == '-' || ch == '@';
  });
}

std::optional<std::pair<Submission::Type, std::string>> archive_kind(const std::string& file_name) {
  std::string lower = file_name;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  for (const auto& [ext, type] : std::initializer_list<std::pair<const char*, Submission::Type>>{
           {".zip", Submission::Type::Zip}, {".tar.gz", Submission::Type::TarGz}, {".tgz", Submission::Type::TarGz},
           {".tar.xz", Submission::Type::TarGz}, {".tar.bz2", Submission::Type::TarGz}, {".tar", Submission::Type::TarGz}}) {
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
    const std::string name = e.path().filename().string();
    if (name.empty() || name[0] == '.') continue;
    Submission s;
    s.path = e.path();
    if (e.is_directory() && !e.is_symlink()) {
      s.student = name;
      s.type = Submission::Type::Folder;
    } else if (const auto kind = e.is_regular_file() ? archive_kind(name) : std::nullopt) {
      s.type = kind->first;
      s.student = kind->second;
    } else {
      if (skipped) skipped->push_back(name + ": not a folder or an archive (.zip, .tar, .tar.gz, .tgz, .tar.xz, .tar.bz2)");
      continue;
    }
    if (!valid_student_id(s.student)) {
      if (skipped) skipped->push_back(name + ": '" + s.student + "' is not a usable student id (letters, digits, . _ - @)");
      continue;
    }
    all.push_back(s);
  }
  std::sort(all.begin(), all.end(), [](const Submission& a, const Submission& b) { return a.student < b.student; });
  for (std::size_t i = 1; i < all.size(); ++i) {
    if (all[i].student == all[i - 1].student)
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

}  // namespace grader
