#include "calibrate/thresholds.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <utility>
#include <stdexcept>

namespace grader::calibrate {
namespace {

Bound bound_of(const std::string& word, const std::string& threshold) {
  if (word == "fp32") return Bound::Fp32;
  if (word == "bandwidth") return Bound::Bandwidth;
  if (word == "fixed") return Bound::Fixed;
  throw ConfigError("[calibration] \"" + threshold + "\": bound must be \"fp32\", \"bandwidth\" or \"fixed\", not \"" +
                    word + "\"");
}

double need(const std::map<std::string, double>& values, const std::string& key, const char* what) {
  const auto it = values.find(key);
  if (it == values.end() || !(it->second > 0))
    throw std::invalid_argument(fmt::format("no {} measured for {}", what, key));
  return it->second;
}

}  // namespace

std::vector<Rule> rules(const LabConfig& config) {
  std::vector<Rule> out;
  const auto* table = config.table()["calibration"].as_table();
  if (!table) return out;
  for (const auto& [key, value] : *table) {
    Rule r;
    r.threshold = std::string(key.str());
    const auto* rule = value.as_table();
    if (!rule) throw ConfigError("[calibration] \"" + r.threshold + "\" must be { judges = ..., bound = ... }");
    if (!config.number(r.threshold))
      throw ConfigError("[calibration] \"" + r.threshold + "\": lab.toml has no such threshold");
    r.judges = (*rule)["judges"].value_or(std::string{});
    r.bound = bound_of((*rule)["bound"].value_or(std::string{}), r.threshold);
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<Derived> derive(const LabConfig& config, const Measurement& home, const Measurement& here) {
  std::vector<Derived> out;
  for (const Rule& rule : rules(config)) {
    Derived d;
    d.threshold = rule.threshold;
    d.shipped = *config.number(rule.threshold);
    if (const auto it = here.reference.find(rule.threshold); it != here.reference.end()) d.reference_here = it->second;
    if (rule.bound == Bound::Fixed) {
      d.value = d.shipped;
      d.how = "as shipped: it compares two kernels of one machine";
    } else if (d.reference_here) {
      const double margin = need(home.reference, rule.threshold, "reference at home") / d.shipped;
      d.value = *d.reference_here / margin;
      d.how = fmt::format("the reference here ({:.4g}) over the shipped margin ({:.2f})", *d.reference_here, margin);
    } else {
      const bool fp32 = rule.bound == Bound::Fp32;
      const double peak_home = fp32 ? home.fp32_tflops : home.copy_gbs, peak_here = fp32 ? here.fp32_tflops : here.copy_gbs;
      if (!(peak_home > 0) || !(peak_here > 0))
        throw std::invalid_argument(fmt::format("no {} measured for {}", fp32 ? "FP32 rate" : "copy bandwidth", rule.threshold));
      const double gpu = peak_here / peak_home;
      const double cpu = need(here.baseline_ms, rule.threshold, "baseline here") /
                         need(home.baseline_ms, rule.threshold, "baseline at home");
      d.value = d.shipped * gpu * cpu;
      d.how = fmt::format("shipped x {} ({:.2f}) x CPU baseline ({:.2f})", fp32 ? "FP32 rate" : "copy bandwidth", gpu, cpu);
    }
    out.push_back(std::move(d));
  }
  return out;
}

std::string override_toml(const std::vector<Derived>& derived) {
  // "exercises.naive.min_speedup" -> [exercises.naive] min_speedup = ...; one header per table
  // (TOML allows a table once), in the order the tables first appear.
  std::vector<std::pair<std::string, std::string>> tables;
  for (const auto& d : derived) {
    const auto dot = d.threshold.rfind('.');
    const std::string table = dot == std::string::npos ? "" : d.threshold.substr(0, dot);
    const std::string key = d.threshold.substr(dot == std::string::npos ? 0 : dot + 1);
    auto it = std::find_if(tables.begin(), tables.end(), [&](const auto& t) { return t.first == table; });
    if (it == tables.end()) it = tables.insert(tables.end(), {table, ""});
    it->second += fmt::format("{} = {:.6g}  # {}\n", key, d.value, d.how);
  }
  std::string out;
  for (const auto& [table, lines] : tables) out += (table.empty() ? "" : "[" + table + "]\n") + lines;
  return out;
}

}  // namespace grader::calibrate
