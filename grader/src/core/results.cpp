#include "grader/results.hpp"

#include <cstdio>
#include <fstream>
#include <cerrno>
#include <unistd.h>
#include <stdexcept>

namespace grader {

std::string to_string(Outcome outcome) {
  switch (outcome) {
    case Outcome::Passed:
      return "passed";
    case Outcome::Incorrect:
      return "incorrect";
    case Outcome::TooSlow:
      return "too slow";
    case Outcome::Error:
      return "error";
    case Outcome::Crashed:
      return "crashed";
    case Outcome::NotRun:
      return "not run";
  }
  return "unknown";
}

Outcome outcome_from_string(const std::string& name) {
  for (Outcome o :
       {Outcome::Passed, Outcome::Incorrect, Outcome::TooSlow, Outcome::Error, Outcome::Crashed, Outcome::NotRun})
    if (to_string(o) == name) return o;
  throw std::invalid_argument("unknown outcome '" + name + "'");
}

nlohmann::json to_json(const CaseResult& r) {
  nlohmann::json j = {
      {"exercise", r.exercise}, {"kind", r.kind}, {"case", r.name},      {"outcome", to_string(r.outcome)},
      {"detail", r.detail},     {"seed", r.seed}, {"metrics", r.metrics}};
  if (r.hidden) j["hidden"] = true;
  if (!r.thresholds.empty()) j["thresholds"] = r.thresholds;
  if (!r.time_ms.empty()) j["time_ms"] = r.time_ms;
  return j;
}

CaseResult case_from_json(const nlohmann::json& j) {
  CaseResult r;
  r.exercise = j.at("exercise").get<std::string>();
  r.kind = j.at("kind").get<std::string>();
  r.name = j.at("case").get<std::string>();
  r.outcome = outcome_from_string(j.at("outcome").get<std::string>());
  r.detail = j.value("detail", "");
  r.seed = j.value("seed", std::uint64_t{0});
  r.metrics = j.value("metrics", nlohmann::json::object());
  r.hidden = j.value("hidden", false);
  r.thresholds = j.value("thresholds", std::vector<std::string>{});
  if (const auto t = j.find("time_ms"); t != j.end() && t->is_object()) r.time_ms = *t;
  return r;
}

namespace {
// C stdio with an explicit flush: the line is in the kernel's hands before the next case runs,
// so a crash in that case cannot lose it.
void append_line(const std::filesystem::path& path, const std::string& text) {
  std::FILE* f = std::fopen(path.c_str(), "a");
  if (!f) throw std::runtime_error("cannot append to " + path.string());
  const std::string line = text + "\n";
  std::fwrite(line.data(), 1, line.size(), f);
  std::fflush(f);
  std::fclose(f);
}

template <class F>
void for_each_line(const std::filesystem::path& path, F&& f) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    try {
      f(nlohmann::json::parse(line));
    } catch (const std::exception&) {
      // A line the test program did not finish writing: it died mid-case. The report marks the
      // planned cases it never recorded as not run.
    }
  }
}
}  // namespace

void ResultsWriter::append(const std::string& line) const {
  if (fd_ < 0) {
    append_line(path_, line);
    return;
  }
  // One write() per line, retried until all of it is out.
  const std::string text = line + "\n";
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd_, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw std::runtime_error("cannot write the results (descriptor " + std::to_string(fd_) + ")");
    done += static_cast<std::size_t>(n);
  }
}

void ResultsWriter::write(const CaseResult& result) const { append(to_json(result).dump()); }

void ResultsWriter::write(const Plan& plan) const {
  append(nlohmann::json{{"plan", {{"exercise", plan.exercise}, {"kind", plan.kind}, {"cases", plan.cases}}}}.dump());
}

std::vector<CaseResult> read_results(const std::filesystem::path& path) {
  std::vector<CaseResult> results;
  for_each_line(path, [&](const nlohmann::json& j) {
    if (!j.contains("plan")) results.push_back(case_from_json(j));
  });
  return results;
}

std::vector<Plan> read_plans(const std::filesystem::path& path) {
  std::vector<Plan> plans;
  for_each_line(path, [&](const nlohmann::json& j) {
    if (j.contains("plan"))
      plans.push_back({j["plan"].at("exercise").get<std::string>(), j["plan"].at("kind").get<std::string>(),
                       j["plan"].at("cases").get<int>()});
  });
  return plans;
}

}  // namespace grader
