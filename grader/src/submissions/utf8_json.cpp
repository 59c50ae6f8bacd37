#include "grader/utf8_json.hpp"

#include "grader/utf8.hpp"

namespace grader {

nlohmann::json with_valid_utf8(nlohmann::json j) {
  if (j.is_string()) return to_valid_utf8(j.get_ref<const std::string&>());
  if (j.is_array()) {
    for (auto& v : j) v = with_valid_utf8(std::move(v));
  } else if (j.is_object()) {
    nlohmann::json out = nlohmann::json::object();
    for (auto& [key, value] : j.items()) out[to_valid_utf8(key)] = with_valid_utf8(value);
    return out;
  }
  return j;
}

std::string dump_json(const nlohmann::json& j) {
  // Replace as well: what with_valid_utf8 missed would still be written, never thrown.
  return with_valid_utf8(j).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace grader
