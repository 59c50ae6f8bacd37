// What a batch records of its students: batch.json's settings, a kept result judged again, the
// files of each student (students/<id>.json, feedback, Gradescope), late work, the gradebook and
// the similarity layout.
#include "batch/batch_class.hpp"

namespace grader {
namespace batch_detail {

void Batch::write_meta() const {
  if (o_.task()) {  // the class's batch.json is the merging grader's; its students' times go to it
    write_atomically(o_.out / "slurm" / "times" / (o_.task_name + ".json"), dump_json(student_meta_));
    return;
  }
  nlohmann::json meta = run_info();
  if (regrading_.is_object()) meta["regrading"] = regrading_;
  // Where the time went: the class's totals over this run's submissions, and each student's.
  meta["time"] = ledger_.to_json(std::chrono::duration<double>(clock::now() - started_).count());
  meta["students"] = student_meta_;
  write_atomically(o_.out / "batch.json", dump_json(meta));
}

std::set<std::string> Batch::students_to_regrade(const std::vector<Submission>& submissions,
                                                 const nlohmann::json& previous) {
  std::set<std::string> asked;
  for (const auto& s : submissions)
    if (o_.regrade_all ||
        std::any_of(o_.regrade.begin(), o_.regrade.end(), [&](const std::string& id) { return names(id, s.student); }))
      asked.insert(s.student);
  if (asked.empty() || o_.task() || o_.merge_only) return asked;
  const nlohmann::json request = {{"all", o_.regrade_all}, {"students", o_.regrade}};
  const nlohmann::json earlier =
      previous.is_object() ? previous.value("regrading", nlohmann::json()) : nlohmann::json();
  std::set<std::string> todo = asked;
  if (earlier.is_object() && earlier.value("request", nlohmann::json()) == request && earlier["pending"].is_array()) {
    // The same regrade, interrupted: those it regraded are kept, the rest are graded now.
    std::set<std::string> pending;
    for (const auto& id : earlier["pending"])
      if (id.is_string()) pending.insert(id.get<std::string>());
    todo.clear();
    for (const auto& id : asked)
      if (pending.count(id)) todo.insert(id);
    std::cerr << fmt::format("resuming the interrupted {}: {} of {} regraded already (kept), {} to go\n",
                             o_.regrade_all ? "--regrade-all" : "--regrade", asked.size() - todo.size(), asked.size(),
                             todo.size());
  }
  regrading_ = {{"request", request}, {"pending", todo}};
  return todo;
}

void Batch::record_or_report(StudentResult r) {
  try {
    record(r);
    return;
  } catch (const std::exception& e) {
    StudentResult error;
    error.student = r.student;
    error.status = "grader error";
    error.detail = "the grader could not record this student's result (" + std::string(e.what()) +
                   "); it was: " + r.status + ". Fix the cause and run the batch again: it is graded again";
    error.report = report_of({}, {RunState::NotGraded, error.detail}, seed_, device_);
    error.graded_at = now_iso();
    try {
      record(error);
    } catch (const std::exception& again) {
      std::cerr << "grader error: " << r.student << ": the result could not be recorded: " << again.what() << '\n';
    }
  }
}

std::optional<StudentResult> Batch::earlier_result(const std::string& id) {
  const fs::path saved = students_dir_ / (id + ".json");
  if (!fs::exists(saved)) return std::nullopt;
  try {
    // Scored again with today's configuration (a changed point value or threshold applies to
    // everyone, not only to those graded after the change).
    StudentResult kept = student_from_json(nlohmann::json::parse(read_file(saved)));
    // "not run" ones too: they count. A timed case whose threshold changed since is judged
    // again from its kept measurement.
    int rejudged = 0;
    const std::vector<CaseResult> cases =
        course::rejudged(all_cases(kept.report), kept.thresholds, config_of(id), &rejudged);
    if (rejudged > 0)
      std::cerr << fmt::format("{}: {} timed case{} judged again by changed thresholds\n", id, rejudged,
                               rejudged == 1 ? "" : "s");
    if (kept.report.run.state == RunState::Completed || kept.report.run.state == RunState::Crashed ||
        kept.report.run.state == RunState::TimedOut) {
      kept.report = rescored(kept, cases);
      kept.status = submission_status(kept.report);
    } else {
      kept.report = rescored(kept, {});
    }
    judge_lateness(kept);
    // Rendered again, and its record too: a changed --times or deadline shows the same in
    // students/<id>.json as in the gradebook and the feedback.
    if (!o_.task()) write_atomically(saved, dump_json(to_json(kept)));
    write_student_files(kept);
    return kept;
  } catch (const std::exception&) {
    return std::nullopt;  // unreadable: graded again
  }
}

void Batch::warn_unmatched_times() const {
  if (!o_.times || times_.empty()) return;
  std::set<std::string> known = submitted_;
  known.insert(entry_keys_.begin(), entry_keys_.end());  // every entry's, the ignored ones' too
  if (roster_)
    for (const auto& e : roster_->students) {
      known.insert(course::times_key(e.id));
      if (!e.lms_id.empty()) known.insert(course::times_key(e.lms_id));
    }
  std::vector<std::string> strangers;
  for (const auto& [id, t] : times_)
    if (!known.count(id)) strangers.push_back(id);
  if (strangers.empty()) return;
  std::string list;
  for (std::size_t i = 0; i < strangers.size() && i < 10; ++i) list += (i ? ", " : "") + strangers[i];
  if (strangers.size() > 10) list += fmt::format(" and {} more", strangers.size() - 10);
  std::cerr << fmt::format(
      "warning: --times {}: {} of its {} ids match no submission and no roster row, so their "
      "times are not used{}: {}\n",
      o_.times->string(), strangers.size(), times_rows_,
      strangers.size() == times_rows_ ? " (none matches: no late penalty comes from this file; "
                                        "are its ids the course's, the LMS's or the entries' names?)"
                                      : "",
      list);
}

void Batch::add_note_later(const std::string& student, const std::string& note) {
  std::optional<StudentResult> again;
  {
    std::lock_guard<std::mutex> l(results_mutex_);
    if (graded_now_.count(student) && results_.count(student)) {
      again = results_[student];
      again->notes.push_back(note);
    } else {
      later_notes_[student].push_back(note);
    }
  }
  if (again) record_or_report(*again);  // its files written again, with the note
}

void Batch::write_student_files(const StudentResult& r) {
  if (o_.task()) return;  // the submitting grader renders them, from every task's results
  write_atomically(o_.out / "feedback" / (r.student + ".md"), to_valid_utf8(feedback_markdown(r)));
  write_atomically(o_.out / "gradescope" / r.student / "results.json",
                   dump_json(gradescope_json(r, gradescope_visibility(config_))));
}

void Batch::judge_lateness(StudentResult& r) const {
  r.late.reset();
  if (!late_policy_) return;
  // The time, keyed in --times by the course's id, the LMS id or the submission's name.
  std::vector<std::string> keys = {r.student};
  if (const auto e = entry_name_.find(r.student); e != entry_name_.end()) keys.push_back(e->second);
  std::string extension;
  if (roster_)
    for (const auto& e : roster_->students)
      if (e.id == r.student) {
        extension = e.extension;
        if (!e.lms_id.empty()) keys.push_back(e.lms_id);
      }
  std::optional<std::int64_t> at;
  for (const auto& key : keys)
    if (const auto t = times_.find(course::times_key(key)); t != times_.end() && !at) at = t->second;
  const auto l = course::assess(*late_policy_, at, extension, r.report.points_earned, r.report.points_possible);
  r.late = StudentResult::Late{
      l.known ? course::format_time(l.submitted) : "", l.late_s / 3600.0, l.days, l.percent, l.final_points, l.why};
}

void Batch::record(StudentResult r) {
  {
    std::lock_guard<std::mutex> lock(results_mutex_);
    if (const auto it = later_notes_.find(r.student); it != later_notes_.end()) {
      r.notes.insert(r.notes.end(), it->second.begin(), it->second.end());
      later_notes_.erase(it);
    }
  }
  judge_lateness(r);
  if (r.thresholds.empty()) r.thresholds = course::threshold_values(config_);  // what judged it
  // The kept result first, then what is rendered from it, each atomic; the gradebook after, from
  // everything so far.
  write_atomically(students_dir_ / (r.student + ".json"), dump_json(to_json(r)));
  write_student_files(r);
  std::vector<std::string> later;  // notes that came while it was written (add_note_later)
  {
    std::lock_guard<std::mutex> lock(results_mutex_);
    results_[r.student] = r;
    graded_now_.insert(r.student);
    if (const auto it = later_notes_.find(r.student); it != later_notes_.end()) {
      later = std::move(it->second);
      later_notes_.erase(it);
    }
    if (regrading_.is_object() && regrading_["pending"].is_array()) {  // a regrade's progress, for its resume
      auto& pending = regrading_["pending"];
      pending.erase(std::remove(pending.begin(), pending.end(), nlohmann::json(r.student)), pending.end());
    }
    write_meta();
    write_gradebook();
  }
  if (!later.empty()) {
    r.notes.insert(r.notes.end(), later.begin(), later.end());
    record(std::move(r));
  }
}

void Batch::write_gradebook() {
  if (o_.task()) return;  // the submitting grader writes the class's files, from every task's
  std::vector<StudentResult> all;
  for (const auto& [id, r] : results_) all.push_back(r);
  // Everyone on the roster has a row: nothing submitted is a row too (not kept, not graded).
  if (roster_)
    for (const auto& e : roster_->students)
      if (!results_.count(e.id) && !submitted_.count(e.id)) {
        StudentResult none;
        none.student = e.id;
        none.status = "no submission";
        none.detail = "nothing was submitted" + (e.name.empty() ? std::string() : " by " + e.name);
        std::vector<std::string> maybe;  // never a silent "no submission": what may be theirs
        // An entry of the same name graded under a made id (a name two students share).
        const auto [from, to] = strangers_by_name_.equal_range(e.name.empty() ? "" : name_key(e.name));
        for (auto it = from; it != to; ++it)
          if (const auto& [name, id] = it->second; results_.count(id))
            maybe.push_back(fmt::format("the entry '{}', graded as {}, has this name: if it is theirs, rename it to {}",
                                        name, id, e.id));
        if (!skipped_.empty())
          maybe.push_back(fmt::format(
              "{} entr{} of the submissions folder {} skipped (results.json's \"skipped\"): is one of them theirs?",
              skipped_.size(), skipped_.size() == 1 ? "y" : "ies", skipped_.size() == 1 ? "was" : "were"));
        for (std::size_t i = 0; i < maybe.size(); ++i) none.detail += (i ? "; " : " under this id; ") + maybe[i];
        none.report = report_of({}, {RunState::NotGraded, none.detail}, seed_, device_);
        all.push_back(std::move(none));
      }
  std::sort(all.begin(), all.end(),
            [](const StudentResult& a, const StudentResult& b) { return a.student < b.student; });
  write_atomically(o_.out / "gradebook.csv", to_valid_utf8(gradebook_csv(config_, all)));
  // The grades in the shapes Canvas's and Moodle's gradebook imports take (course/lms_export.hpp).
  std::vector<course::GradeRow> rows;
  for (const auto& r : all) {
    course::GradeRow row{r.student, "", "", r.final_points(), r.status};
    if (const auto n = lms_name_.find(r.student); n != lms_name_.end()) row.name = n->second;
    if (const auto e = entry_name_.find(r.student); e != entry_name_.end() && e->second != r.student)
      row.lms_id = e->second;
    if (roster_)
      for (const auto& e : roster_->students)
        if (e.id == r.student) {
          if (!e.name.empty()) row.name = e.name;
          if (!e.lms_id.empty()) row.lms_id = e.lms_id;
        }
    if (row.lms_id.empty() && o_.from != "folders") row.lms_id = r.student;  // graded under the LMS's own id
    rows.push_back(std::move(row));
  }
  const std::string column = o_.lms_assignment.empty() ? config_.name() : o_.lms_assignment;
  write_atomically(o_.out / "canvas.csv", to_valid_utf8(course::canvas_csv(rows, column)));
  write_atomically(o_.out / "moodle.csv", to_valid_utf8(course::moodle_csv(rows, column)));
  nlohmann::json info = run_info();
  if (!skipped_.empty()) info["skipped"] = skipped_;
  write_atomically(o_.out / "results.json", dump_json(results_json(config_, all, info)));
}

void Batch::write_similarity_layout() const {
  const fs::path root = fs::absolute(o_.out) / "similarity";
  fs::remove_all(root);  // from today's submissions only: a removed entry leaves no folder
  for (const auto& f : config_.files()) {
    const fs::path starter = paths_.lab_dir(config_.name()) / f;
    if (fs::exists(starter)) write_atomically(root / "base" / f, read_file(starter));
  }
  for (const auto& [id, r] : results_) {
    const fs::path src = work_ / id / "src";
    for (const auto& f : config_.files())
      if (fs::is_regular_file(src / f)) write_atomically(root / "submissions" / id / f, read_file(src / f));
  }
}

}  // namespace batch_detail
}  // namespace grader
