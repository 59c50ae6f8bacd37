#include "grader/text_file.hpp"

#include "grader/utf8.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace grader {
namespace {

std::size_t line_of(const std::string& bytes, std::size_t offset) {
  return 1 + static_cast<std::size_t>(std::count(bytes.begin(), bytes.begin() + static_cast<long>(offset), '\n'));
}

}  // namespace

TextFile decode_text(std::string bytes, const std::filesystem::path& file, const std::string& what) {
  const auto refuse = [&](std::size_t offset, const std::string& why) {
    return TextFileError(fmt::format("{} {}:{}: {}", what, file.string(), line_of(bytes, offset), why));
  };
  if (bytes.rfind("\xFF\xFE", 0) == 0 || bytes.rfind("\xFE\xFF", 0) == 0)
    throw refuse(0, "saved as UTF-16 (\"Unicode text\"): save it as \"CSV UTF-8\" (or plain CSV) and try again");
  if (bytes.rfind("\xEF\xBB\xBF", 0) == 0) bytes.erase(0, 3);  // Excel's UTF-8 byte-order mark
  if (const auto nul = bytes.find('\0'); nul != std::string::npos)
    throw refuse(nul, "a NUL byte: not a text file (or UTF-16 without its byte-order mark); save it as \"CSV UTF-8\"");
  if (is_valid_utf8(bytes)) return {std::move(bytes), "UTF-8"};
  // Line by line: a file saved as Windows-1252 to which rows were added in another editor (as
  // UTF-8) has both; each line is read in the one it is valid in.
  std::string text;
  bool some_utf8 = false;
  for (std::size_t start = 0; start < bytes.size();) {
    const std::size_t end = std::min(bytes.find('\n', start), bytes.size());
    const std::string line = bytes.substr(start, end - start);
    const bool ascii =
        std::all_of(line.begin(), line.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; });
    if (is_valid_utf8(line)) {
      some_utf8 = some_utf8 || !ascii;
      text += line;
    } else {
      std::size_t undefined = std::string::npos;
      text += windows_1252_to_utf8(line, &undefined);
      if (undefined != std::string::npos)
        throw refuse(start + undefined,
                     fmt::format("byte 0x{:02X} is neither UTF-8 nor Windows-1252: save the file as \"CSV UTF-8\"",
                                 static_cast<unsigned char>(line[undefined])));
    }
    if (end < bytes.size()) text += '\n';
    start = end + 1;
  }
  return {std::move(text), some_utf8 ? "Windows-1252 and UTF-8, line by line" : "Windows-1252"};
}

TextFile read_text_file(const std::filesystem::path& file, const std::string& what) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw TextFileError(fmt::format("{} {}: cannot be read", what, file.string()));
  std::ostringstream s;
  s << in.rdbuf();
  return decode_text(s.str(), file, what);
}

}  // namespace grader
