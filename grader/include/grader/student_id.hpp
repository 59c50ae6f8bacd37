// Ids for students whose entry is named as people are (`José Núñez/`, a Gradescope :sid: with a
// space): never skipped in silence, graded under an id usable as a file name.
#pragma once

#include <string>
#include <string_view>

namespace grader {

// An id usable as a file name (valid_student_id) from a name in UTF-8: Latin letters without
// their accents (é -> e, ß -> ss), Greek and Cyrillic ones transliterated, each run of spaces and
// other characters one '_': "José Núñez" -> "Jose_Nunez", "Γιάννης Παπαδόπουλος" ->
// "Giannis_Papadopoulos". A name with no letter or digit left gets "id-" and a hash of it.
std::string derive_student_id(std::string_view name);

// A file or folder name in UTF-8: as it is where it is valid UTF-8; else its bytes read as
// Windows-1252 or as CP437 (what unzip leaves of a Windows Explorer zip's names), whichever reads
// as more letters ("Jos\x82" is José in CP437, "Jos\xE9" in Windows-1252).
std::string decode_file_name(std::string_view bytes);

// A name as compared with a roster's: its words folded as above, lower case, in sorted order, so
// "Núñez, José", "José Núñez" (also decomposed, as a Mac writes it) and "jose_nunez" compare
// equal. A name with nothing to fold (王小明, 김민준) keys by its own characters, sorted, Korean
// jamo composed, spaces dropped (李娜 is 李 娜).
std::string name_key(std::string_view name);

}  // namespace grader
