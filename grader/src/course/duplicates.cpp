#include "course/duplicates.hpp"

#include "course/lateness.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace grader::course {
namespace {

std::string entry_name(const Submission& s) { return s.entry.empty() ? s.path.filename().string() : s.entry; }

// The rule that tells the newest apart, if one does: every entry's time known and the newest
// alone at it; else every entry's LMS order known and the highest alone.
struct Decision {
  std::size_t newest = 0;
  std::string by;  // "submitted 2026-12-02T04:59:00Z" or "LMS submission 9012"
};

std::optional<Decision> decide(const std::vector<Submission>& entries, const EntryTime& time_of) {
  const auto pick = [&](const std::vector<std::int64_t>& keys) -> std::optional<std::size_t> {
    const auto top = std::max_element(keys.begin(), keys.end());
    if (std::count(keys.begin(), keys.end(), *top) != 1) return std::nullopt;
    return static_cast<std::size_t>(top - keys.begin());
  };
  std::vector<std::int64_t> times, orders;
  for (const auto& e : entries) {
    if (const auto t = time_of(e)) times.push_back(*t);
    if (e.lms_order >= 0) orders.push_back(e.lms_order);
  }
  if (times.size() == entries.size())
    if (const auto i = pick(times)) return Decision{*i, "submitted " + format_time(times[*i])};
  if (orders.size() == entries.size())
    if (const auto i = pick(orders)) return Decision{*i, fmt::format("the LMS's submission {}", orders[*i])};
  return std::nullopt;
}

}  // namespace

Submission newest_entry(std::vector<Submission> entries, const EntryTime& time_of) {
  std::sort(entries.begin(), entries.end(),
            [](const Submission& a, const Submission& b) { return entry_name(a) < entry_name(b); });
  const auto decision = decide(entries, time_of);
  std::string names;
  for (const auto& e : entries) names += (names.empty() ? "" : " and ") + entry_name(e);
  if (!decision)
    throw DuplicateEntries(fmt::format(
        "two submissions for student '{}': {}, and no submission time or LMS order tells which is newer. Remove "
        "the one not to grade, or give both times with --times (keyed by the entries' names)",
        entries.front().student, names));
  Submission kept = entries[decision->newest];
  std::string ignored;
  for (std::size_t i = 0; i < entries.size(); ++i)
    if (i != decision->newest) ignored += (ignored.empty() ? "" : ", ") + entry_name(entries[i]);
  kept.notes.push_back(fmt::format("took {} (the newest: {}), ignored {}", entry_name(kept), decision->by, ignored));
  return kept;
}

std::vector<Submission> one_entry_per_student(std::vector<Submission> all, const EntryTime& time_of) {
  std::map<std::string, std::vector<Submission>> by_student;
  for (auto& s : all) by_student[s.student].push_back(std::move(s));
  std::vector<Submission> out;
  for (auto& [id, entries] : by_student) {
    // One entry met twice (a Gradescope group listing a member by :sid: and by :email:, or in
    // two cases of one id) is one entry, not two to choose between.
    std::vector<Submission> distinct;
    for (auto& e : entries)
      if (std::none_of(distinct.begin(), distinct.end(), [&](const Submission& d) { return d.path == e.path; }))
        distinct.push_back(std::move(e));
    out.push_back(distinct.size() == 1 ? std::move(distinct.front()) : newest_entry(std::move(distinct), time_of));
  }
  return out;
}

}  // namespace grader::course
