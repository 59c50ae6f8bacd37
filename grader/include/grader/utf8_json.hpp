// JSON as a batch writes it: every string and key valid UTF-8 (grader/utf8.hpp) before dump(),
// which throws type_error.316 on anything else. The last guard, after each text was decoded
// where it came in: nothing one submission holds can stop the class's files being written.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace grader {

nlohmann::json with_valid_utf8(nlohmann::json j);

// with_valid_utf8(j).dump(2) and a line end: what a results file holds.
std::string dump_json(const nlohmann::json& j);

}  // namespace grader
