// lab.toml's [profile.expected] tables, written from a profile of the reference solution.
//
// A student's workbook has no solutions/ to profile beside, so `grader check --profile` shows,
// for each kernel, the range [profile.expected.<exercise>] gives for its name. The shipped ranges
// are the reference's values on the labs' home GPU. An instructor whose course runs on another
// GPU measures them again there: `grader check <lab> --profile --reference --expected-ranges`
// prints the tables to put into labs/<lab>/lab.toml before `grader release`.
#pragma once

#include <map>
#include <string>
#include <utility>

namespace grader::inspect {

// The range shown beside a student's value: the reference's value / 1.2 to value x 1.2, rounded
// outwards to three significant digits (66,056 -> [55000, 79300]); a percentage's end at most 100.
std::pair<double, double> expected_range(double value, bool percent);

// exercise -> kernel -> metric id -> the reference's value
using ReferenceValues = std::map<std::string, std::map<std::string, std::map<std::string, double>>>;

// The [profile.expected.<exercise>] tables of `values`, as TOML: one line per kernel, an inline
// table of its metrics' ranges.
std::string expected_tables(const ReferenceValues& values);

// Whether a lab metric is a percentage (its format ends in %).
bool is_percent_metric(const std::string& id);

}  // namespace grader::inspect
