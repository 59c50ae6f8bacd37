// A zip written byte by byte (stored entries, no compression), for names as other tools write
// them: Windows Explorer's in its OEM code page without the UTF-8 flag (CP437), Python's and
// Info-ZIP's in UTF-8 with the flag (general purpose bit 11). libarchive's writer decides the
// flag from the locale, so it cannot write the first kind. Used by the unit tests and by
// make-archives (tests/batch/course-corpus.sh).
#pragma once

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

namespace raw_zip {

struct Entry {
  std::string name;  // bytes as they go into the archive
  std::string data;
  bool utf8_flag = false;
};

inline std::uint32_t crc32(const std::string& data) {
  std::uint32_t crc = 0xFFFFFFFFu;
  for (const unsigned char byte : data) {
    crc ^= byte;
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}

inline void put(std::string& out, std::uint32_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out += static_cast<char>((value >> (8 * i)) & 0xFF);
}

inline bool write(const std::string& path, const std::vector<Entry>& entries) {
  std::string body, directory;
  for (const auto& e : entries) {
    const std::uint32_t offset = static_cast<std::uint32_t>(body.size()), crc = crc32(e.data);
    const std::uint32_t size = static_cast<std::uint32_t>(e.data.size()), flags = e.utf8_flag ? 0x0800 : 0;
    put(body, 0x04034b50, 4);
    put(body, 20, 2);
    put(body, flags, 2);
    put(body, 0, 2);
    put(body, 0, 4);
    put(body, crc, 4);
    put(body, size, 4);
    put(body, size, 4);
    put(body, static_cast<std::uint32_t>(e.name.size()), 2);
    put(body, 0, 2);
    body += e.name + e.data;
    put(directory, 0x02014b50, 4);
    put(directory, 20, 2);
    put(directory, 20, 2);
    put(directory, flags, 2);
    put(directory, 0, 2);
    put(directory, 0, 4);
    put(directory, crc, 4);
    put(directory, size, 4);
    put(directory, size, 4);
    put(directory, static_cast<std::uint32_t>(e.name.size()), 2);
    put(directory, 0, 2);
    put(directory, 0, 2);
    put(directory, 0, 2);
    put(directory, 0, 2);
    put(directory, 0, 4);
    put(directory, offset, 4);
    directory += e.name;
  }
  std::string end;
  put(end, 0x06054b50, 4);
  put(end, 0, 2);
  put(end, 0, 2);
  put(end, static_cast<std::uint32_t>(entries.size()), 2);
  put(end, static_cast<std::uint32_t>(entries.size()), 2);
  put(end, static_cast<std::uint32_t>(directory.size()), 4);
  put(end, static_cast<std::uint32_t>(body.size()), 4);
  put(end, 0, 2);
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file << body << directory << end;
  return static_cast<bool>(file);
}

}  // namespace raw_zip
