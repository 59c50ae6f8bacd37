// Late work (`grader batch --config course.toml` with a [deadline] table; docs/instructor-guide.md,
// "Deadlines and late work"). The kept per-student result holds the raw points; lateness is
// applied each time the outputs are rendered, so a changed deadline, grace, penalty, extension
// or submission time applies to everyone at the next run, graded again or not.
//
//   [deadline]
//   due = 2026-12-01T23:59:00-05:00   # a TOML date-time with its UTC offset (or Z)
//   grace_minutes = 15                # this late still counts as on time
//   penalty_per_day = 10              # percent lost per day late, a started day counting whole
//   max_penalty = 50                  # percent, at most (100: a late enough submission gets 0)
//   penalty_of = "earned"             # "earned": of the points earned; "possible": of the lab's points
//
// A student's extension (the roster's `extension` column) moves their due time: "2d", "36h",
// "90m", or a date-time of its own.
#pragma once

#include "grader/lab_config.hpp"

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace grader::course {

// Seconds since 1970-01-01T00:00:00Z of an RFC 3339 / TOML date-time with an offset
// ("2026-12-01T23:59:00-05:00", "2026-12-02 04:59:00Z"); nothing for anything else (a time
// without its offset is ambiguous: whose midnight?).
std::optional<std::int64_t> parse_time(const std::string& text);
std::string format_time(std::int64_t seconds);  // "2026-12-02T04:59:00Z"

struct LatePolicy {
  std::int64_t due = 0;
  double grace_s = 0;
  double percent_per_day = 0;
  double max_percent = 100;
  bool of_possible = false;  // penalty_of = "possible"
};

// The course's [deadline], if it has one. Throws ConfigError naming the key.
std::optional<LatePolicy> late_policy(const LabConfig& config);

// The file whose [deadline] table is in force: the last of `files` (lab.toml, course.toml, the
// --config files, in the order they are laid) that has one; "" for none. For messages.
std::string deadline_file(const std::vector<std::filesystem::path>& files);

// The due time of one student: the course's, moved by their extension ("" for none). Throws
// std::invalid_argument for an extension that is neither a duration nor a date-time.
std::int64_t due_for(const LatePolicy& policy, const std::string& extension);

struct Lateness {
  bool known = false;  // a submission time was known
  std::int64_t submitted = 0;
  std::int64_t due = 0;
  double late_s = 0;   // after the due time (0: on time, grace included)
  int days = 0;        // days charged: started days after the due time
  double percent = 0;  // the penalty, percent
  double penalty = 0;  // points lost
  double final_points = 0;
  std::string why;  // one sentence for the student's feedback
};

// What a submission made at `submitted` (if known) with `raw` of `possible` points gets.
Lateness assess(const LatePolicy& policy, std::optional<std::int64_t> submitted, const std::string& extension,
                double raw, double possible);

// A CSV of submission times (`grader batch --times times.csv`): columns `id` (a roster id, an
// LMS id or a submission's name) and `submitted_at` (a date-time with its offset). Throws
// std::runtime_error naming the file and line. The ids are keyed composed (nfc, utf8.hpp): a
// name typed "José" finds the entry a Mac wrote "Jose\u0301"; look them up by times_key().
std::map<std::string, std::int64_t> read_times(const std::filesystem::path& file);

// What an entry's name or id is looked up by in read_times' map.
std::string times_key(const std::string& id);

}  // namespace grader::course
