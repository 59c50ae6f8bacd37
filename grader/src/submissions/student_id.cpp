#include "grader/student_id.hpp"

#include "grader/submission.hpp"
#include "grader/utf8.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <sstream>
#include <vector>

namespace grader {
namespace {

struct Fold {
  std::uint32_t code_point;
  const char* ascii;
};

// Latin letters with marks (U+00C0..U+024F) to their base letters (Unicode's NFKD, and the
// usual spellings of Æ, ß, Ø, Ł ...), Greek and Cyrillic letters to Latin ones. Sorted.
constexpr Fold kFolds[] = {
    {0x00C0, "A"},  {0x00C1, "A"},    {0x00C2, "A"},  {0x00C3, "A"},    {0x00C4, "A"},  {0x00C5, "A"},  {0x00C6, "AE"},
    {0x00C7, "C"},  {0x00C8, "E"},    {0x00C9, "E"},  {0x00CA, "E"},    {0x00CB, "E"},  {0x00CC, "I"},  {0x00CD, "I"},
    {0x00CE, "I"},  {0x00CF, "I"},    {0x00D0, "D"},  {0x00D1, "N"},    {0x00D2, "O"},  {0x00D3, "O"},  {0x00D4, "O"},
    {0x00D5, "O"},  {0x00D6, "O"},    {0x00D8, "O"},  {0x00D9, "U"},    {0x00DA, "U"},  {0x00DB, "U"},  {0x00DC, "U"},
    {0x00DD, "Y"},  {0x00DE, "Th"},   {0x00DF, "ss"}, {0x00E0, "a"},    {0x00E1, "a"},  {0x00E2, "a"},  {0x00E3, "a"},
    {0x00E4, "a"},  {0x00E5, "a"},    {0x00E6, "ae"}, {0x00E7, "c"},    {0x00E8, "e"},  {0x00E9, "e"},  {0x00EA, "e"},
    {0x00EB, "e"},  {0x00EC, "i"},    {0x00ED, "i"},  {0x00EE, "i"},    {0x00EF, "i"},  {0x00F0, "d"},  {0x00F1, "n"},
    {0x00F2, "o"},  {0x00F3, "o"},    {0x00F4, "o"},  {0x00F5, "o"},    {0x00F6, "o"},  {0x00F8, "o"},  {0x00F9, "u"},
    {0x00FA, "u"},  {0x00FB, "u"},    {0x00FC, "u"},  {0x00FD, "y"},    {0x00FE, "th"}, {0x00FF, "y"},  {0x0100, "A"},
    {0x0101, "a"},  {0x0102, "A"},    {0x0103, "a"},  {0x0104, "A"},    {0x0105, "a"},  {0x0106, "C"},  {0x0107, "c"},
    {0x0108, "C"},  {0x0109, "c"},    {0x010A, "C"},  {0x010B, "c"},    {0x010C, "C"},  {0x010D, "c"},  {0x010E, "D"},
    {0x010F, "d"},  {0x0110, "D"},    {0x0111, "d"},  {0x0112, "E"},    {0x0113, "e"},  {0x0114, "E"},  {0x0115, "e"},
    {0x0116, "E"},  {0x0117, "e"},    {0x0118, "E"},  {0x0119, "e"},    {0x011A, "E"},  {0x011B, "e"},  {0x011C, "G"},
    {0x011D, "g"},  {0x011E, "G"},    {0x011F, "g"},  {0x0120, "G"},    {0x0121, "g"},  {0x0122, "G"},  {0x0123, "g"},
    {0x0124, "H"},  {0x0125, "h"},    {0x0126, "H"},  {0x0127, "h"},    {0x0128, "I"},  {0x0129, "i"},  {0x012A, "I"},
    {0x012B, "i"},  {0x012C, "I"},    {0x012D, "i"},  {0x012E, "I"},    {0x012F, "i"},  {0x0130, "I"},  {0x0131, "i"},
    {0x0132, "IJ"}, {0x0133, "ij"},   {0x0134, "J"},  {0x0135, "j"},    {0x0136, "K"},  {0x0137, "k"},  {0x0138, "k"},
    {0x0139, "L"},  {0x013A, "l"},    {0x013B, "L"},  {0x013C, "l"},    {0x013D, "L"},  {0x013E, "l"},  {0x013F, "L"},
    {0x0140, "l"},  {0x0141, "L"},    {0x0142, "l"},  {0x0143, "N"},    {0x0144, "n"},  {0x0145, "N"},  {0x0146, "n"},
    {0x0147, "N"},  {0x0148, "n"},    {0x014A, "N"},  {0x014B, "n"},    {0x014C, "O"},  {0x014D, "o"},  {0x014E, "O"},
    {0x014F, "o"},  {0x0150, "O"},    {0x0151, "o"},  {0x0152, "OE"},   {0x0153, "oe"}, {0x0154, "R"},  {0x0155, "r"},
    {0x0156, "R"},  {0x0157, "r"},    {0x0158, "R"},  {0x0159, "r"},    {0x015A, "S"},  {0x015B, "s"},  {0x015C, "S"},
    {0x015D, "s"},  {0x015E, "S"},    {0x015F, "s"},  {0x0160, "S"},    {0x0161, "s"},  {0x0162, "T"},  {0x0163, "t"},
    {0x0164, "T"},  {0x0165, "t"},    {0x0168, "U"},  {0x0169, "u"},    {0x016A, "U"},  {0x016B, "u"},  {0x016C, "U"},
    {0x016D, "u"},  {0x016E, "U"},    {0x016F, "u"},  {0x0170, "U"},    {0x0171, "u"},  {0x0172, "U"},  {0x0173, "u"},
    {0x0174, "W"},  {0x0175, "w"},    {0x0176, "Y"},  {0x0177, "y"},    {0x0178, "Y"},  {0x0179, "Z"},  {0x017A, "z"},
    {0x017B, "Z"},  {0x017C, "z"},    {0x017D, "Z"},  {0x017E, "z"},    {0x017F, "s"},  {0x01A0, "O"},  {0x01A1, "o"},
    {0x01AF, "U"},  {0x01B0, "u"},    {0x01C4, "DZ"}, {0x01C5, "Dz"},   {0x01C6, "dz"}, {0x01C7, "LJ"}, {0x01C8, "Lj"},
    {0x01C9, "lj"}, {0x01CA, "NJ"},   {0x01CB, "Nj"}, {0x01CC, "nj"},   {0x01CD, "A"},  {0x01CE, "a"},  {0x01CF, "I"},
    {0x01D0, "i"},  {0x01D1, "O"},    {0x01D2, "o"},  {0x01D3, "U"},    {0x01D4, "u"},  {0x01D5, "U"},  {0x01D6, "u"},
    {0x01D7, "U"},  {0x01D8, "u"},    {0x01D9, "U"},  {0x01DA, "u"},    {0x01DB, "U"},  {0x01DC, "u"},  {0x01DE, "A"},
    {0x01DF, "a"},  {0x01E0, "A"},    {0x01E1, "a"},  {0x01E6, "G"},    {0x01E7, "g"},  {0x01E8, "K"},  {0x01E9, "k"},
    {0x01EA, "O"},  {0x01EB, "o"},    {0x01EC, "O"},  {0x01ED, "o"},    {0x01F0, "j"},  {0x01F1, "DZ"}, {0x01F2, "Dz"},
    {0x01F3, "dz"}, {0x01F4, "G"},    {0x01F5, "g"},  {0x01F8, "N"},    {0x01F9, "n"},  {0x01FA, "A"},  {0x01FB, "a"},
    {0x0200, "A"},  {0x0201, "a"},    {0x0202, "A"},  {0x0203, "a"},    {0x0204, "E"},  {0x0205, "e"},  {0x0206, "E"},
    {0x0207, "e"},  {0x0208, "I"},    {0x0209, "i"},  {0x020A, "I"},    {0x020B, "i"},  {0x020C, "O"},  {0x020D, "o"},
    {0x020E, "O"},  {0x020F, "o"},    {0x0210, "R"},  {0x0211, "r"},    {0x0212, "R"},  {0x0213, "r"},  {0x0214, "U"},
    {0x0215, "u"},  {0x0216, "U"},    {0x0217, "u"},  {0x0218, "S"},    {0x0219, "s"},  {0x021A, "T"},  {0x021B, "t"},
    {0x021E, "H"},  {0x021F, "h"},    {0x0226, "A"},  {0x0227, "a"},    {0x0228, "E"},  {0x0229, "e"},  {0x022A, "O"},
    {0x022B, "o"},  {0x022C, "O"},    {0x022D, "o"},  {0x022E, "O"},    {0x022F, "o"},  {0x0230, "O"},  {0x0231, "o"},
    {0x0232, "Y"},  {0x0233, "y"},    {0x0386, "A"},  {0x0388, "E"},    {0x0389, "I"},  {0x038A, "I"},  {0x038C, "O"},
    {0x038E, "Y"},  {0x038F, "O"},    {0x0390, "i"},  {0x0391, "A"},    {0x0392, "V"},  {0x0393, "G"},  {0x0394, "D"},
    {0x0395, "E"},  {0x0396, "Z"},    {0x0397, "I"},  {0x0398, "Th"},   {0x0399, "I"},  {0x039A, "K"},  {0x039B, "L"},
    {0x039C, "M"},  {0x039D, "N"},    {0x039E, "X"},  {0x039F, "O"},    {0x03A0, "P"},  {0x03A1, "R"},  {0x03A3, "S"},
    {0x03A4, "T"},  {0x03A5, "Y"},    {0x03A6, "F"},  {0x03A7, "Ch"},   {0x03A8, "Ps"}, {0x03A9, "O"},  {0x03AA, "I"},
    {0x03AB, "Y"},  {0x03AC, "a"},    {0x03AD, "e"},  {0x03AE, "i"},    {0x03AF, "i"},  {0x03B0, "y"},  {0x03B1, "a"},
    {0x03B2, "v"},  {0x03B3, "g"},    {0x03B4, "d"},  {0x03B5, "e"},    {0x03B6, "z"},  {0x03B7, "i"},  {0x03B8, "th"},
    {0x03B9, "i"},  {0x03BA, "k"},    {0x03BB, "l"},  {0x03BC, "m"},    {0x03BD, "n"},  {0x03BE, "x"},  {0x03BF, "o"},
    {0x03C0, "p"},  {0x03C1, "r"},    {0x03C2, "s"},  {0x03C3, "s"},    {0x03C4, "t"},  {0x03C5, "y"},  {0x03C6, "f"},
    {0x03C7, "ch"}, {0x03C8, "ps"},   {0x03C9, "o"},  {0x03CA, "i"},    {0x03CB, "y"},  {0x03CC, "o"},  {0x03CD, "y"},
    {0x03CE, "o"},  {0x03D0, "v"},    {0x03D1, "th"}, {0x03D2, "Y"},    {0x03D3, "Y"},  {0x03D4, "Y"},  {0x03D5, "f"},
    {0x03D6, "p"},  {0x03F0, "k"},    {0x03F1, "r"},  {0x03F2, "s"},    {0x03F4, "Th"}, {0x03F5, "e"},  {0x03F9, "S"},
    {0x0401, "Yo"}, {0x0404, "Ye"},   {0x0406, "I"},  {0x0407, "Yi"},   {0x0410, "A"},  {0x0411, "B"},  {0x0412, "V"},
    {0x0413, "G"},  {0x0414, "D"},    {0x0415, "E"},  {0x0416, "Zh"},   {0x0417, "Z"},  {0x0418, "I"},  {0x0419, "Y"},
    {0x041A, "K"},  {0x041B, "L"},    {0x041C, "M"},  {0x041D, "N"},    {0x041E, "O"},  {0x041F, "P"},  {0x0420, "R"},
    {0x0421, "S"},  {0x0422, "T"},    {0x0423, "U"},  {0x0424, "F"},    {0x0425, "Kh"}, {0x0426, "Ts"}, {0x0427, "Ch"},
    {0x0428, "Sh"}, {0x0429, "Shch"}, {0x042B, "Y"},  {0x042D, "E"},    {0x042E, "Yu"}, {0x042F, "Ya"}, {0x0430, "a"},
    {0x0431, "b"},  {0x0432, "v"},    {0x0433, "g"},  {0x0434, "d"},    {0x0435, "e"},  {0x0436, "zh"}, {0x0437, "z"},
    {0x0438, "i"},  {0x0439, "y"},    {0x043A, "k"},  {0x043B, "l"},    {0x043C, "m"},  {0x043D, "n"},  {0x043E, "o"},
    {0x043F, "p"},  {0x0440, "r"},    {0x0441, "s"},  {0x0442, "t"},    {0x0443, "u"},  {0x0444, "f"},  {0x0445, "kh"},
    {0x0446, "ts"}, {0x0447, "ch"},   {0x0448, "sh"}, {0x0449, "shch"}, {0x044B, "y"},  {0x044D, "e"},  {0x044E, "yu"},
    {0x044F, "ya"}, {0x0451, "yo"},   {0x0454, "ye"}, {0x0456, "i"},    {0x0457, "yi"},
};

const char* fold(std::uint32_t c) {
  const auto it = std::lower_bound(std::begin(kFolds), std::end(kFolds), c,
                                   [](const Fold& f, std::uint32_t v) { return f.code_point < v; });
  return it != std::end(kFolds) && it->code_point == c ? it->ascii : nullptr;
}

// A combining mark: the accent of a letter written apart from it (Unicode's decomposed form, NFD,
// which macOS file names use: "e" followed by U+0301 for "é"), Hebrew points and Arabic vowel
// marks (مُحَمَّد is محمد), or a format character. Folding drops it, so "José" typed on Windows
// and saved on a Mac fold alike.
bool combining_mark(std::uint32_t c) {
  return (c >= 0x0300 && c <= 0x036F) || (c >= 0x1AB0 && c <= 0x1AFF) || (c >= 0x1DC0 && c <= 0x1DFF) ||
         (c >= 0x20D0 && c <= 0x20FF) || (c >= 0xFE20 && c <= 0xFE2F) ||                              // Latin ...
         (c >= 0x0591 && c <= 0x05C7 && c != 0x05BE && c != 0x05C0 && c != 0x05C3 && c != 0x05C6) ||  // Hebrew
         (c >= 0x0610 && c <= 0x061A) || (c >= 0x064B && c <= 0x065F) || c == 0x0670 ||               // Arabic
         (c >= 0x06D6 && c <= 0x06ED && c != 0x06DD && c != 0x06DE && c != 0x06E5 && c != 0x06E6 && c != 0x06E9) ||
         format_character(c);
}

// The name folded to ASCII letters and digits, every other run of characters one ' '. Composed
// first, so that a Mac's "и" + U+0306 folds as the typed "й" (y, not i); a letter the table does
// not fold (Vietnamese "ễ", "ạ") folds as its base letter, its marks dropped.
std::string folded(std::string_view name) {
  std::string out;
  const auto add = [&out](std::uint32_t c) {
    if (combining_mark(c)) return;
    if (c < 0x80 && std::isalnum(static_cast<int>(c)))
      out += static_cast<char>(c);
    else if ((c == 0x03C5 || c == 0x03CD) && !out.empty() && (out.back() == 'o' || out.back() == 'O'))
      out += 'u';  // ου
    else if (const char* ascii = fold(c))
      out += ascii;
    else if (c == '.' || c == '-' || c == '@')
      out += static_cast<char>(c);
    else if (out.empty() || out.back() != ' ')
      out += ' ';
  };
  for (const std::uint32_t c : code_points(nfc(to_valid_utf8(name)))) {
    if (c < 0x80 || fold(c)) {
      add(c);
    } else {
      for (const std::uint32_t part : canonical_decomposition(c)) add(part);
    }
  }
  const auto first = out.find_first_not_of(" .-@");
  const auto last = out.find_last_not_of(" .-@");
  return first == std::string::npos ? "" : out.substr(first, last - first + 1);
}

std::size_t letters(const std::string& utf8) {
  std::size_t n = 0;
  for (const std::uint32_t c : code_points(utf8)) n += (c < 0x80 && std::isalpha(static_cast<int>(c))) || fold(c);
  return n;
}

// The words of a name in a script with no fold to ASCII (Chinese, Japanese, Korean, Arabic ...):
// split at spaces and punctuation, combining marks dropped, Korean jamo composed into syllables
// (a Mac writes 김 as three jamo), so that a folder and a roster row of one name compare equal.
std::vector<std::string> unfolded_words(std::string_view name) {
  std::string visible;  // without format characters, which would keep a letter from its marks
  for (const std::uint32_t c : code_points(to_valid_utf8(name)))
    if (!format_character(c)) append_utf8(visible, c);
  std::vector<std::string> words(1);
  for (const std::uint32_t c : code_points(nfc(visible))) {
    if (combining_mark(c)) continue;
    const bool separator =
        c < 0x80 ? !std::isalnum(static_cast<int>(c)) : (c == 0x3000 || c == 0x30FB || c == 0xFF0C || c == 0x200B);
    if (separator) {
      if (!words.back().empty()) words.emplace_back();
    } else {
      append_utf8(words.back(), c < 0x80 ? static_cast<std::uint32_t>(std::tolower(static_cast<int>(c))) : c);
    }
  }
  if (words.back().empty()) words.pop_back();
  return words;
}

std::uint32_t fnv1a(std::string_view s) {
  std::uint32_t h = 2166136261u;
  for (const char ch : s) h = (h ^ static_cast<unsigned char>(ch)) * 16777619u;
  return h;
}

}  // namespace

std::string decode_file_name(std::string_view bytes) {
  if (is_valid_utf8(bytes)) return std::string(bytes);
  std::string western = windows_1252_to_utf8(bytes), oem = cp437_to_utf8(bytes);
  return letters(oem) > letters(western) ? oem : western;
}

std::string derive_student_id(std::string_view name) {
  std::string id = folded(name);
  std::replace(id.begin(), id.end(), ' ', '_');
  if (id.size() > 100) id.resize(100);
  const bool has_alnum =
      std::any_of(id.begin(), id.end(), [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)); });
  if (!has_alnum || !valid_student_id(id)) return fmt::format("id-{:08x}", fnv1a(name));
  return id;
}

std::string name_key(std::string_view name) {
  std::string text = folded(name);
  std::replace_if(
      text.begin(), text.end(), [](char ch) { return ch == '.' || ch == '-' || ch == '_'; }, ' ');
  std::vector<std::string> words;
  std::istringstream in(text);
  for (std::string w; in >> w;) {
    std::transform(w.begin(), w.end(), w.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
    words.push_back(w);
  }
  // A name in a script with no fold to ASCII: its own words (compared as written, in any order).
  // Its characters, in sorted order: Chinese and Korean names are written with the space between
  // family and given name and without it, in either order (김민준, 김 민준; 李娜, 李 娜).
  if (words.empty()) {
    std::vector<std::uint32_t> chars;
    for (const auto& w : unfolded_words(name))
      for (const std::uint32_t c : code_points(w)) chars.push_back(c);
    std::sort(chars.begin(), chars.end());
    std::string key;
    for (const std::uint32_t c : chars) append_utf8(key, c);
    return key;
  }
  std::sort(words.begin(), words.end());
  std::string key;
  for (const auto& w : words) key += (key.empty() ? "" : " ") + w;
  return key;
}

}  // namespace grader
