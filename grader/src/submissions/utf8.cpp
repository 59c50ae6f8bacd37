#include "grader/utf8.hpp"
#include <algorithm>
#include <iterator>

namespace grader {
namespace {

constexpr std::uint32_t kReplacement = 0xFFFD;

// Windows-1252's 0x80..0x9F (0xA0..0xFF are Latin-1's, the code points of the same numbers).
constexpr std::uint16_t kCp1252[32] = {0x20AC, 0xFFFD, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
                                       0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0xFFFD, 0x017D, 0xFFFD,
                                       0xFFFD, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
                                       0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0xFFFD, 0x017E, 0x0178};

// IBM code page 437's 0x80..0xFF (Python's cp437 codec).
constexpr std::uint16_t kCp437[128] = {
    0x00C7, 0x00FC, 0x00E9, 0x00E2, 0x00E4, 0x00E0, 0x00E5, 0x00E7, 0x00EA, 0x00EB, 0x00E8, 0x00EF, 0x00EE,
    0x00EC, 0x00C4, 0x00C5, 0x00C9, 0x00E6, 0x00C6, 0x00F4, 0x00F6, 0x00F2, 0x00FB, 0x00F9, 0x00FF, 0x00D6,
    0x00DC, 0x00A2, 0x00A3, 0x00A5, 0x20A7, 0x0192, 0x00E1, 0x00ED, 0x00F3, 0x00FA, 0x00F1, 0x00D1, 0x00AA,
    0x00BA, 0x00BF, 0x2310, 0x00AC, 0x00BD, 0x00BC, 0x00A1, 0x00AB, 0x00BB, 0x2591, 0x2592, 0x2593, 0x2502,
    0x2524, 0x2561, 0x2562, 0x2556, 0x2555, 0x2563, 0x2551, 0x2557, 0x255D, 0x255C, 0x255B, 0x2510, 0x2514,
    0x2534, 0x252C, 0x251C, 0x2500, 0x253C, 0x255E, 0x255F, 0x255A, 0x2554, 0x2569, 0x2566, 0x2560, 0x2550,
    0x256C, 0x2567, 0x2568, 0x2564, 0x2565, 0x2559, 0x2558, 0x2552, 0x2553, 0x256B, 0x256A, 0x2518, 0x250C,
    0x2588, 0x2584, 0x258C, 0x2590, 0x2580, 0x03B1, 0x00DF, 0x0393, 0x03C0, 0x03A3, 0x03C3, 0x00B5, 0x03C4,
    0x03A6, 0x0398, 0x03A9, 0x03B4, 0x221E, 0x03C6, 0x03B5, 0x2229, 0x2261, 0x00B1, 0x2265, 0x2264, 0x2320,
    0x2321, 0x00F7, 0x2248, 0x00B0, 0x2219, 0x00B7, 0x221A, 0x207F, 0x00B2, 0x25A0, 0x00A0};

std::uint32_t cp1252(unsigned char b) { return b >= 0x80 && b < 0xA0 ? kCp1252[b - 0x80] : b; }

// The length of the valid UTF-8 sequence at text[i], 0 when there is none (RFC 3629: no
// overlong forms, no surrogates, nothing above U+10FFFF).
std::size_t sequence_length(std::string_view text, std::size_t i) {
  const auto at = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char b = at(i);
  if (b < 0x80) return 1;
  std::size_t n = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // the second byte's range
  if (b >= 0xC2 && b <= 0xDF)
    n = 2;
  else if (b == 0xE0)
    n = 3, lo = 0xA0;
  else if (b == 0xED)
    n = 3, hi = 0x9F;
  else if (b >= 0xE1 && b <= 0xEF)
    n = 3;
  else if (b == 0xF0)
    n = 4, lo = 0x90;
  else if (b == 0xF4)
    n = 4, hi = 0x8F;
  else if (b >= 0xF1 && b <= 0xF3)
    n = 4;
  else
    return 0;
  if (i + n > text.size()) return 0;
  if (at(i + 1) < lo || at(i + 1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k)
    if (at(i + k) < 0x80 || at(i + k) > 0xBF) return 0;
  return n;
}

}  // namespace

void append_utf8(std::string& out, std::uint32_t c) {
  if (c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) c = kReplacement;
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

bool is_valid_utf8(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = sequence_length(text, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string to_valid_utf8(std::string_view text) {
  if (is_valid_utf8(text)) return std::string(text);
  std::string out;
  out.reserve(text.size() + text.size() / 4);
  for (std::size_t i = 0; i < text.size();) {
    if (const std::size_t n = sequence_length(text, i)) {
      out.append(text.substr(i, n));
      i += n;
    } else {
      append_utf8(out, cp1252(static_cast<unsigned char>(text[i++])));
    }
  }
  return out;
}

std::string windows_1252_to_utf8(std::string_view text, std::size_t* undefined) {
  if (undefined) *undefined = std::string_view::npos;
  std::string out;
  out.reserve(text.size() + text.size() / 4);
  for (std::size_t i = 0; i < text.size(); ++i) {
    const std::uint32_t c = cp1252(static_cast<unsigned char>(text[i]));
    if (c == kReplacement && undefined && *undefined == std::string_view::npos) *undefined = i;
    append_utf8(out, c);
  }
  return out;
}

std::string cp437_to_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size() + text.size() / 4);
  for (const char ch : text) {
    const auto b = static_cast<unsigned char>(ch);
    append_utf8(out, b < 0x80 ? b : kCp437[b - 0x80]);
  }
  return out;
}

bool format_character(std::uint32_t c) {
  return (c >= 0x200C && c <= 0x200F) || (c >= 0x202A && c <= 0x202E) || (c >= 0x2060 && c <= 0x2069) || c == 0xFEFF;
}

std::vector<std::uint32_t> code_points(std::string_view s) {
  std::vector<std::uint32_t> out;
  for (std::size_t i = 0; i < s.size();) {
    const auto b = static_cast<unsigned char>(s[i]);
    const std::size_t n = b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
    std::uint32_t c = n == 1 ? b : n == 2 ? b & 0x1F : n == 3 ? b & 0x0F : b & 0x07;
    for (std::size_t k = 1; k < n && i + k < s.size(); ++k)
      c = (c << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
    out.push_back(c);
    i += n;
  }
  return out;
}

namespace {

struct Composition {
  std::uint32_t base, mark, composed;
};
constexpr Composition kCompositions[] = {
#include "compositions.inc"
};

// The precomposed letter for `base` followed by `mark`, or 0 where Unicode has none.
std::uint32_t compose(std::uint32_t base, std::uint32_t mark) {
  // Korean: a leading consonant and a vowel, then an optional final consonant (Unicode 3.12).
  if (base >= 0x1100 && base <= 0x1112 && mark >= 0x1161 && mark <= 0x1175)
    return 0xAC00 + ((base - 0x1100) * 21 + (mark - 0x1161)) * 28;
  if (base >= 0xAC00 && base <= 0xD7A3 && (base - 0xAC00) % 28 == 0 && mark >= 0x11A8 && mark <= 0x11C2)
    return base + (mark - 0x11A7);
  const auto it = std::lower_bound(
      std::begin(kCompositions), std::end(kCompositions), Composition{base, mark, 0},
      [](const Composition& a, const Composition& b) { return a.base != b.base ? a.base < b.base : a.mark < b.mark; });
  return it != std::end(kCompositions) && it->base == base && it->mark == mark ? it->composed : 0;
}

}  // namespace

std::string nfc(std::string_view utf8) {
  std::vector<std::uint32_t> out;
  for (const std::uint32_t c : code_points(utf8)) {
    const std::uint32_t composed = out.empty() ? 0 : compose(out.back(), c);
    if (composed)
      out.back() = composed;  // "e" U+0302 U+0301 composes twice: ê, then ế
    else
      out.push_back(c);
  }
  std::string text;
  for (const std::uint32_t c : out) append_utf8(text, c);
  return text;
}

namespace {

// The pairs sorted by the precomposed character, for decomposing.
const std::vector<Composition>& by_composed() {
  static const std::vector<Composition> table = [] {
    std::vector<Composition> t(std::begin(kCompositions), std::end(kCompositions));
    std::sort(t.begin(), t.end(), [](const Composition& a, const Composition& b) { return a.composed < b.composed; });
    return t;
  }();
  return table;
}

void decompose(std::uint32_t c, std::vector<std::uint32_t>& out) {
  if (c >= 0xAC00 && c <= 0xD7A3) {  // a Korean syllable: its jamo (Unicode 3.12)
    const std::uint32_t s = c - 0xAC00;
    out.push_back(0x1100 + s / (21 * 28));
    out.push_back(0x1161 + (s % (21 * 28)) / 28);
    if (s % 28) out.push_back(0x11A7 + s % 28);
    return;
  }
  const auto& t = by_composed();
  const auto it =
      std::lower_bound(t.begin(), t.end(), c, [](const Composition& a, std::uint32_t v) { return a.composed < v; });
  if (it == t.end() || it->composed != c) {
    out.push_back(c);
    return;
  }
  decompose(it->base, out);  // ễ is ê then U+0303, and ê is e then U+0302
  out.push_back(it->mark);
}

}  // namespace

std::vector<std::uint32_t> canonical_decomposition(std::uint32_t code_point) {
  std::vector<std::uint32_t> out;
  decompose(code_point, out);
  return out;
}

}  // namespace grader
