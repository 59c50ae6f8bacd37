#include "grader/results.hpp"

#include <cstdio>
#include <fstream>
#include <stdexcept>

namespace grader {

std::string to_string(Outcome outcome) {
  switch (outcome) {
    case Outcome::Passed: return "passed";
    case Outcome::Incorrect: return "incorrect";
    case Outcome::TooSlow: return "too slow";
    case Outcome::Error: return "error";
    case Outcome::Crashed: return "crashed";
    case Outcome::NotRun: return "not run";
  }
  return "unknown";
}

Outcome outcome_from_string(const std::string& name) {
  for (Outcome o : {Outcome::Passed, Outcome::Incorrect, Outcome::TooSlow, Outcome::Error,
                    Outcome::Crashed, Outcome::NotRun})
    if (to_string(o) == name) return o;
  throw std::invalid_argument("unknown outcome '" + name + "'");
}

nlohmann::json to_json(const CaseResult& r) {
  return {{"exercise", r.exercise}, {"kind", r.kind},     {"case", r.name},
          {"outcome", to_string(r.outcome)}, {"detail", r.detail}, {"seed", r.seed},
          {"metrics", r.metrics}};
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
  return r;
}

void ResultsWriter::write(const CaseResult& result) const {
  // C stdio with an explicit flush: the line is in the kernel's hands before the next case runs,
  // so a crash in that case cannot lose it.
  std::FILE* f = std::fopen(path_.c_str(), "a");
  if (!f) throw std::runtime_error("cannot append to " + path_.string());
  const std::string line = to_json(result).dump() + "\n";
  std::fwrite(line.data(), 1, line.size(), f);
  std::fflush(f);
  std::fclose(f);
}

std::vector<CaseResult> read_results(const std::filesystem::path& path) {
  std::vector<CaseResult> results;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    try {
      results.push_back(case_from_json(nlohmann::json::parse(line)));
    } catch (const std::exception&) {
      // A line the test program did not finish writing: it died mid-case. The report marks the
      // exercise's missing cases as not run.
    }
  }
  return results;
}

}  // namespace grader
