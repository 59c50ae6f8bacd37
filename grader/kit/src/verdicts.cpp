#include "grader/verdicts.hpp"

#include "grader/catch.hpp"
#include "grader/grading.hpp"
#include "grader/static_check.hpp"

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace grading {

std::string source_text(const std::string& name) {
  const auto path = source_file(name);
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void shared_memory_verdict(grader::CaseResult& r, const std::string& file, const std::string& kernel,
                           const std::string& advice) {
  const std::string body = grader::kernel_code(source_text(file), kernel);
  if (body.empty()) {
    r.outcome = grader::Outcome::Incorrect;
    r.detail = "no definition of " + kernel + " found in " + file + " (keep the starter's kernel name)";
  } else if (!grader::code_uses(body, "__shared__")) {
    r.outcome = grader::Outcome::Incorrect;
    r.detail = "neither " + kernel + " nor a function it calls declares a __shared__ array: " + advice;
  } else {
    r.outcome = grader::Outcome::Passed;
  }
}

void threshold_verdict(grader::CaseResult& r, bool wrong, const std::string& wrong_detail, double value, double minimum,
                       const std::function<void(std::ostream&)>& too_slow) {
  if (wrong) {
    r.outcome = grader::Outcome::Incorrect;
    r.detail = wrong_detail;
  } else if (value >= minimum) {
    r.outcome = grader::Outcome::Passed;
  } else {
    r.outcome = grader::Outcome::TooSlow;
    std::ostringstream d;
    d.precision(3);
    too_slow(d);
    r.detail = d.str();
  }
}

void record_own_entry(const std::string& exercise, const workbook::ContestResult& result) {
  record_leaderboard(exercise, "self", result);
  INFO(result.invalid);
  CHECK(result.valid());
}

}  // namespace grading
