// Text from anywhere into a result, valid UTF-8 by construction (nlohmann::json refuses to write
// anything else, and one student's Latin-1 comment in a compiler error must not stop a class).
//
// Courses in Spanish, Greek and French write sources, rosters and file names in Windows-1252 or
// Latin-1, and Windows Explorer names the entries of a zip in the OEM code page (CP437): these
// are decoded; what no decoding explains becomes U+FFFD.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace grader {

bool is_valid_utf8(std::string_view text);

// The text as valid UTF-8: every valid UTF-8 sequence kept as it is, every other byte read as
// Windows-1252 (Latin-1's superset); the five bytes Windows-1252 leaves undefined become U+FFFD.
// Valid UTF-8 comes back unchanged.
std::string to_valid_utf8(std::string_view text);

// Every byte above 0x7F read as Windows-1252 (a whole file known not to be UTF-8). `undefined`
// (optional) gets the offset of the first byte Windows-1252 leaves undefined, or npos.
std::string windows_1252_to_utf8(std::string_view text, std::size_t* undefined = nullptr);

// Every byte above 0x7F read as IBM code page 437 (a zip entry's name without the UTF-8 flag).
std::string cp437_to_utf8(std::string_view text);

// One code point as UTF-8 (U+FFFD for one that is not a scalar value).
void append_utf8(std::string& out, std::uint32_t code_point);

// An invisible format character: the right-to-left mark that Arabic and Hebrew text often
// carries, a zero-width joiner, a byte-order mark. (A zero-width space, U+200B, separates words.)
bool format_character(std::uint32_t code_point);

// The code points of valid UTF-8 (what to_valid_utf8 gives).
std::vector<std::uint32_t> code_points(std::string_view utf8);

// Valid UTF-8 with its letters composed as Unicode's NFC composes a canonically ordered
// decomposition (what a Mac gives file names): a letter followed by its combining marks
// ("Jose\u0301") becomes the precomposed letter ("José"), in every script Unicode composes (Latin,
// Greek, Cyrillic, Arabic's hamza forms, kana with dakuten), and Korean jamo become syllables. Two
// spellings of one name then compare equal byte for byte; the accents stay (José is not Jose).
// Not the whole of NFC: marks out of canonical order are not reordered, and singletons (U+212B
// ANGSTROM SIGN) are not replaced; neither occurs in names a keyboard or a file system writes.
std::string nfc(std::string_view utf8);

// One character's canonical decomposition (NFD, from the same pairs; a Korean syllable into its
// jamo): a precomposed letter as its base and its combining marks, "ễ" -> "e" U+0302 U+0303, so
// that dropping the marks leaves the base letter however the name was typed. Itself otherwise.
std::vector<std::uint32_t> canonical_decomposition(std::uint32_t code_point);

}  // namespace grader
