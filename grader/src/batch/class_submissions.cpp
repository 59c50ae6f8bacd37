// A class's submissions as the batch takes them (batch.hpp's class_submissions): the entries of
// the submissions folder in any LMS layout, each matched to its roster row, duplicates resolved,
// and what was not taken said.
#include "batch/batch.hpp"
#include "course/duplicates.hpp"
#include "course/lateness.hpp"
#include "course/lms.hpp"
#include "grader/roster.hpp"
#include "grader/student_id.hpp"

#include <fmt/format.h>

#include <iostream>
#include <stdexcept>

namespace grader {
namespace fs = std::filesystem;

namespace {

// The course's id of an entry, by the roster: its LMS id (or e-mail), else, for an entry named
// as people are or a stranger with a name, the one student of that name.
std::optional<std::string> roster_id(const Roster& roster, const Submission& s) {
  if (const auto id = roster.id_of(s.student)) return id;
  if (s.name.empty()) return std::nullopt;
  return roster.id_by_name(s.name);
}

// One entry given two times by --times (its LMS id, then a correction by the course's id):
// which holds is no rule's to pick, as for one id given twice. A student with two entries may
// have a time for each (by the entries' names); the roster's ids apply to a lone entry only.
void refuse_two_times(const std::vector<Submission>& submissions, const Roster* roster,
                      const std::map<std::string, std::int64_t>& times) {
  if (times.empty()) return;
  std::map<std::string, int> entries;
  for (const Submission& s : submissions) ++entries[s.student];
  for (const Submission& s : submissions) {
    std::vector<std::string> keys = {s.lms_id, s.entry};
    if (entries[s.student] == 1) {
      keys.push_back(s.student);
      if (roster)
        for (const auto& e : roster->students)
          if (e.id == s.student) keys.insert(keys.end(), {e.lms_id, e.email});
    }
    std::optional<std::pair<std::string, std::int64_t>> first;
    for (const auto& key : keys) {
      const auto t = key.empty() ? times.end() : times.find(course::times_key(key));
      if (t == times.end()) continue;
      if (first && first->second != t->second)
        throw std::invalid_argument(fmt::format("--times gives {} two times: {} as {} and {} as {}; keep one row",
                                                s.student, course::format_time(first->second), first->first,
                                                course::format_time(t->second), key));
      if (!first) first.emplace(key, t->second);
    }
  }
}

// When an entry came: --times by the entry's LMS id or name, else the LMS's own time.
course::EntryTime entry_time(const std::map<std::string, std::int64_t>& times) {
  return [&times](const Submission& s) -> std::optional<std::int64_t> {
    for (const auto& key : {s.lms_id, s.entry})
      if (const auto t = times.find(course::times_key(key)); !key.empty() && t != times.end()) return t->second;
    return course::parse_time(s.submitted_at);
  };
}

// One submission's student id: the roster's, when the roster knows the folder's id or name (what
// was matched said when `say`); a folder the roster does not know goes into `strangers`.
void match_roster(Submission& s, const Roster* roster, bool say, std::vector<std::string>& strangers) {
  s.lms_id = s.derived_id ? "" : s.student;  // an id made from a name is no LMS's id
  if (s.entry.empty()) s.entry = s.path.filename().string();
  const auto id = roster ? roster_id(*roster, s) : std::nullopt;
  if (roster && !id) strangers.push_back(s.student);
  if (roster && !id && !s.name.empty())
    if (const auto same = roster->ids_by_name(s.name); same.size() > 1 && say) {
      std::string list;
      for (const auto& other : same) list += (list.empty() ? "" : ", ") + other;
      std::cerr << "roster: " << s.entry << " is the name of " << same.size() << " students (" << list
                << "): graded as " << s.student << "; rename it to the right one's id\n";
      s.notes.push_back("'" + s.name + "' is the roster's name of " + list +
                        ": graded under an id made from it until its folder is renamed to the right one's id");
    }
  if (id && *id != s.student) {
    if (say)
      std::cerr << "roster: " << (s.derived_id ? s.entry : s.student) << " is " << roster->word_for(s.student) << " of "
                << *id << ": graded as " << *id << '\n';
    if (s.derived_id)  // the note said the id made from the name; the roster's is the one graded
      for (auto& note : s.notes)
        if (note.rfind("'" + s.name + "' is not a usable id", 0) == 0)
          note = "'" + s.name + "' is the roster's name of " + *id + ": graded as " + *id;
    s.student = *id;
  } else if (s.derived_id && say) {
    std::cerr << "named: " << (s.name.empty() ? s.entry : s.name)
              << " is no usable id (letters, digits, . _ - @): graded as " << s.student
              << (s.name.empty() || s.name == s.entry ? "" : " (" + s.entry + ")") << '\n';
  }
}

// The kept entry of a student: its time from --times, its LMS names, its student's name.
void keep(Submission&& s, const std::map<std::string, std::int64_t>& times, bool say, ClassSubmissions& out) {
  for (const auto& key : {s.lms_id, s.entry})
    if (const auto t = times.find(course::times_key(key));
        !key.empty() && t != times.end() && !out.kept_times.count(s.student))
      out.kept_times[s.student] = t->second;
  if (say)
    for (const auto& note : s.notes)
      if (note.rfind("took ", 0) == 0) std::cerr << "two entries for " << s.student << ": " << note << '\n';
  out.entry_names[s.student] = s.lms_id;
  out.entries[s.student] = s.entry;
  if (!s.name.empty()) out.names[s.student] = s.name;
  out.submissions.push_back(std::move(s));
}

}  // namespace

ClassSubmissions class_submissions(const BatchOptions& o, const LabConfig& config, const Roster* roster, bool say) {
  ClassSubmissions out;
  auto submissions = course::discover_lms(course::parse_lms_layout(o.from), o.submissions, config.files(),
                                          fs::absolute(o.out) / "lms", &out.skipped);
  if (say)
    for (const auto& why : out.skipped) std::cerr << "skipped " << why << '\n';
  std::vector<std::string> strangers;
  for (Submission& s : submissions) match_roster(s, roster, say, strangers);
  std::map<std::string, std::int64_t> times;
  if (o.times) try {
      times = course::read_times(*o.times);
    } catch (const std::exception&) {
      // said by run_batch, which reads it first
    }
  for (const Submission& s : submissions)
    for (const auto& key : {s.lms_id, s.entry})
      if (!key.empty()) out.entry_keys.insert(course::times_key(key));
  refuse_two_times(submissions, roster, times);
  for (Submission& s : course::one_entry_per_student(std::move(submissions), entry_time(times)))
    keep(std::move(s), times, say, out);
  if (say && !strangers.empty()) {
    std::string list;
    for (const auto& id : strangers) list += (list.empty() ? "" : ", ") + id;
    std::cerr << "not on the roster (graded all the same; is the roster complete?): " << list << '\n';
  }
  return out;
}

}  // namespace grader
