#include "course/lateness.hpp"

#include "grader/csv_reader.hpp"
#include "grader/files.hpp"
#include "grader/text_file.hpp"
#include "grader/utf8.hpp"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace grader::course {
namespace {

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

std::int64_t seconds_of(const toml::date_time& t) {
  const std::int64_t days = days_from_civil(t.date.year, t.date.month, t.date.day);
  return days * 86400 + t.time.hour * 3600 + t.time.minute * 60 + t.time.second - t.offset->minutes * 60;
}

// "2d", "36h", "90m", "1.5d": seconds; nothing for anything else.
std::optional<double> parse_duration(const std::string& text) {
  if (text.size() < 2) return std::nullopt;
  const char unit = text.back();
  const double scale = unit == 'd' ? 86400 : unit == 'h' ? 3600 : unit == 'm' ? 60 : 0;
  if (scale == 0) return std::nullopt;
  std::istringstream in(text.substr(0, text.size() - 1));
  double n = 0;
  if (!(in >> n) || !in.eof() || n < 0) return std::nullopt;
  return n * scale;
}

}  // namespace

std::optional<std::int64_t> parse_time(const std::string& text) {
  if (text.empty() || text.find_first_of("\r\n\"'=#[]{}") != std::string::npos) return std::nullopt;
  // toml++ reads RFC 3339 date-times (a space for the T too): the value of a one-line document.
  try {
    const toml::table doc = toml::parse("t = " + text);
    const auto* t = doc["t"].as_date_time();
    if (!t || !t->get().offset) return std::nullopt;
    return seconds_of(t->get());
  } catch (const toml::parse_error&) {
    return std::nullopt;
  }
}

std::string format_time(std::int64_t seconds) {
  // civil_from_days, the inverse of days_from_civil.
  std::int64_t z = (seconds >= 0 ? seconds : seconds - 86399) / 86400;
  const std::int64_t rest = seconds - z * 86400;
  z += 719468;
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  const unsigned d = doy - (153 * mp + 2) / 5 + 1;
  const unsigned m = mp < 10 ? mp + 3 : mp - 9;
  const std::int64_t y = static_cast<std::int64_t>(yoe) + era * 400 + (m <= 2);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", y, m, d, rest / 3600, rest / 60 % 60, rest % 60);
}

std::optional<LatePolicy> late_policy(const LabConfig& config) {
  const auto* table = config.table()["deadline"].as_table();
  if (!table) return std::nullopt;
  const auto bad = [](const std::string& key, const std::string& want) {
    return ConfigError("[deadline] " + key + ": " + want);
  };
  LatePolicy p;
  const auto* due = (*table)["due"].as_date_time();
  if (!due) throw bad("due", "wanted, as a date-time with its offset, e.g. due = 2026-12-01T23:59:00-05:00");
  if (!due->get().offset)
    throw bad("due", "give its UTC offset (2026-12-01T23:59:00-05:00, or Z for UTC): whose midnight is it?");
  p.due = seconds_of(due->get());
  const auto number = [&](const char* key, double fallback, double lo, double hi) {
    const auto node = (*table)[key];
    if (!node) return fallback;
    const auto v = node.value<double>();
    if (!v || *v < lo || *v > hi) throw bad(key, fmt::format("a number from {} to {}", lo, hi));
    return *v;
  };
  p.grace_s = number("grace_minutes", 0, 0, 7 * 24 * 60) * 60;
  p.percent_per_day = number("penalty_per_day", 0, 0, 100);
  p.max_percent = number("max_penalty", 100, 0, 100);
  if (const auto of = (*table)["penalty_of"]) {
    const auto v = of.value<std::string>();
    if (!v || (*v != "earned" && *v != "possible")) throw bad("penalty_of", "\"earned\" or \"possible\"");
    p.of_possible = *v == "possible";
  }
  for (const auto& [key, value] : *table)
    if (key != "due" && key != "grace_minutes" && key != "penalty_per_day" && key != "max_penalty" &&
        key != "penalty_of")
      throw bad(std::string(key.str()),
                "not a key of [deadline] (due, grace_minutes, penalty_per_day, max_penalty, penalty_of)");
  return p;
}

std::string deadline_file(const std::vector<std::filesystem::path>& files) {
  std::string found;
  for (const auto& f : files) {
    try {
      if (std::filesystem::exists(f) && toml::parse_file(f.string())["deadline"].as_table()) found = f.string();
    } catch (const toml::parse_error&) {
      // its own error is said where it is loaded
    }
  }
  return found;
}

std::int64_t due_for(const LatePolicy& policy, const std::string& extension) {
  if (extension.empty()) return policy.due;
  if (const auto d = parse_duration(extension)) return policy.due + static_cast<std::int64_t>(std::llround(*d));
  if (const auto t = parse_time(extension)) return *t;
  throw std::invalid_argument("extension '" + extension +
                              "': neither a duration (2d, 36h, 90m) nor a date-time with its offset");
}

Lateness assess(const LatePolicy& policy, std::optional<std::int64_t> submitted, const std::string& extension,
                double raw, double possible) {
  Lateness l;
  l.due = due_for(policy, extension);
  l.final_points = raw;
  const std::string due_text = format_time(l.due) + (extension.empty() ? "" : " (with your extension)");
  if (!submitted) {
    l.why = "No submission time is known for this submission: no late penalty was applied (due " + due_text + ").";
    return l;
  }
  l.known = true;
  l.submitted = *submitted;
  const double after = static_cast<double>(*submitted - l.due);
  if (after <= policy.grace_s) {
    l.why = "Submitted " + format_time(*submitted) + ", on time (due " + due_text + ").";
    return l;
  }
  l.late_s = after;
  l.days = static_cast<int>(std::ceil(after / 86400.0));
  l.percent = std::min(policy.max_percent, l.days * policy.percent_per_day);
  l.penalty = std::min(raw, l.percent / 100.0 * (policy.of_possible ? possible : raw));
  l.final_points = raw - l.penalty;
  l.why = fmt::format(
      "Submitted {}, {:.1f} h after the due time {}{}: {} day{} late, {:g}% of the {} points "
      "lost ({:.2f}): {:.2f} of {:g}.",
      format_time(*submitted), after / 3600.0, due_text,
      policy.grace_s > 0 ? fmt::format(" (grace {:g} min)", policy.grace_s / 60) : "", l.days, l.days == 1 ? "" : "s",
      l.percent, policy.of_possible ? "possible" : "earned", l.penalty, l.final_points, possible);
  return l;
}

namespace {

template <char Sep>
std::map<std::string, std::int64_t> read_time_rows(const std::filesystem::path& file, std::istream& in) {
  std::map<std::string, std::int64_t> times;
  io::CSVReader<2, io::trim_chars<' ', '\t'>, io::double_quote_escape<Sep, '"'>> csv(file.string(), in);
  csv.read_header(io::ignore_extra_column, "id", "submitted_at");
  std::string id, at;
  while (csv.read_row(id, at)) {
    if (id.empty() && at.empty()) continue;
    const auto t = parse_time(at);
    if (!t)
      throw std::runtime_error(
          fmt::format("times {}:{}: '{}' is not a date-time with its offset "
                      "(2026-12-01T23:59:00-05:00)",
                      file.string(), csv.get_file_line(), at));
    if (!times.emplace(times_key(id), *t).second)  // keyed composed, as times_key() looks them up
      throw std::runtime_error(fmt::format("times {}:{}: {} has two times", file.string(), csv.get_file_line(), id));
  }
  return times;
}

}  // namespace

std::string times_key(const std::string& id) { return nfc(to_valid_utf8(id)); }

std::map<std::string, std::int64_t> read_times(const std::filesystem::path& file) {
  std::string text;
  try {
    text = read_text_file(file, "times").text;  // UTF-8, with or without a BOM, or Windows-1252
  } catch (const TextFileError& e) {
    throw std::runtime_error(e.what());
  }
  // Excel where the decimal point is a comma separates fields with ';' (as rosters, roster.hpp).
  const std::string header = text.substr(0, text.find('\n'));
  const bool semicolons = header.find(';') != std::string::npos && header.find(',') == std::string::npos;
  std::istringstream in(text);
  try {
    return semicolons ? read_time_rows<';'>(file, in) : read_time_rows<','>(file, in);
  } catch (const io::error::base& e) {
    throw std::runtime_error(fmt::format("times {}: {}", file.string(), e.what()));
  }
}

}  // namespace grader::course
