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
  if (word == "transfer") return Bound::Transfer;
  if (word == "fixed") return Bound::Fixed;
  throw ConfigError("[calibration] \"" + threshold +
                    "\": bound must be \"fp32\", \"bandwidth\", \"transfer\" or \"fixed\", not \"" + word + "\"");
}

// This CPU's baseline time over home's for `threshold`: its own baseline where both machines
// have one under its name, else the geometric mean over every baseline both have.
double cpu_ratio(const Measurement& home, const Measurement& here, const std::string& threshold) {
  const auto h = home.baseline_ms.find(threshold), t = here.baseline_ms.find(threshold);
  if (h != home.baseline_ms.end() && t != here.baseline_ms.end() && h->second > 0 && t->second > 0)
    return t->second / h->second;
  double log_sum = 0;
  int n = 0;
  for (const auto& [key, ms] : here.baseline_ms) {
    const auto at_home = home.baseline_ms.find(key);
    if (at_home == home.baseline_ms.end() || !(at_home->second > 0) || !(ms > 0)) continue;
    log_sum += std::log(ms / at_home->second);
    ++n;
  }
  if (n == 0) throw std::invalid_argument("no sequential baseline measured on both machines for " + threshold);
  return std::exp(log_sum / n);
}

double peak(const Measurement& m, Bound bound) {
  return bound == Bound::Fp32 ? m.fp32_tflops : bound == Bound::Bandwidth ? m.copy_gbs : m.h2d_gbs;
}
const char* peak_name(Bound bound) {
  return bound == Bound::Fp32 ? "FP32 rate" : bound == Bound::Bandwidth ? "copy bandwidth" : "host-to-device bandwidth";
}

}  // namespace

std::vector<Rule> rules(const LabConfig& config) {
  std::vector<Rule> out;
  const auto* table = config.table()["calibration"].as_table();
  if (!table) return out;
  for (const auto& [key, value] : *table) {
    Rule r;
    r.threshold = std::string(key.str());
    if (r.threshold == "home" || r.threshold == "min_margin") continue;
    const auto* rule = value.as_table();
    if (!rule) throw ConfigError("[calibration] \"" + r.threshold + "\" must be { judges = ..., bound = ... }");
    if (!config.number(r.threshold))
      throw ConfigError("[calibration] \"" + r.threshold + "\": lab.toml has no such threshold");
    r.judges = (*rule)["judges"].value_or(std::string{});
    r.bound = bound_of((*rule)["bound"].value_or(std::string{}), r.threshold);
    const std::string name = r.threshold.substr(r.threshold.rfind('.') + 1);
    r.metric = (*rule)["metric"].value_or(name.rfind("min_", 0) == 0 ? name.substr(4) : name);
    const std::string over = (*rule)["over"].value_or(std::string("baseline"));
    if (over != "baseline" && over != "copy")
      throw ConfigError("[calibration] \"" + r.threshold + "\": over must be \"baseline\" or \"copy\", not \"" + over +
                        "\"");
    r.over_copy = over == "copy";
    out.push_back(std::move(r));
  }
  return out;
}

std::string home_profile(const LabConfig& config) {
  return config.table()["calibration"]["home"].value_or(std::string{});
}

double min_margin(const LabConfig& config) {
  const double m = config.table()["calibration"]["min_margin"].value_or(kDefaultMinMargin);
  if (!(m >= 1)) throw ConfigError("[calibration] min_margin must be 1 or more, not " + std::to_string(m));
  return m;
}

// The reference's value of each rule's metric: the lowest over the timed cases the threshold
// judged (a threshold "for each tile width" holds for the slower one).
std::map<std::string, double> reference_values(const std::vector<Rule>& rules, const std::vector<CaseResult>& cases) {
  std::map<std::string, double> out;
  for (const Rule& rule : rules) {
    if (rule.bound == Bound::Fixed) continue;
    for (const CaseResult& c : cases) {
      if (c.outcome != Outcome::Passed && c.outcome != Outcome::TooSlow) continue;
      if (std::find(c.thresholds.begin(), c.thresholds.end(), rule.threshold) == c.thresholds.end()) continue;
      const auto metric = c.metrics.find(rule.metric);
      if (metric == c.metrics.end() || !metric->is_number()) continue;
      const double v = metric->get<double>();
      const auto it = out.find(rule.threshold);
      if (it == out.end() || v < it->second) out[rule.threshold] = v;
    }
  }
  return out;
}

std::vector<Derived> derive(const LabConfig& config, const Measurement& home, const Measurement& here) {
  std::vector<Derived> out;
  const double least_margin = min_margin(config);
  for (const Rule& rule : rules(config)) {
    Derived d;
    d.threshold = rule.threshold;
    d.shipped = *config.number(rule.threshold);
    if (const auto it = here.reference.find(rule.threshold); it != here.reference.end()) d.reference_here = it->second;
    if (rule.bound == Bound::Fixed) {
      d.value = d.shipped;
      d.how = "as shipped: it compares two kernels of one machine";
    } else if (const auto at_home = home.reference.find(rule.threshold);
               d.reference_here && at_home != home.reference.end() && at_home->second > 0) {
      const double shipped_margin = at_home->second / d.shipped;
      const double margin = std::max(shipped_margin, least_margin);
      d.value = *d.reference_here / margin;
      d.how =
          shipped_margin >= least_margin
              ? fmt::format("the reference here ({:.4g}) over the shipped margin ({:.2f})", *d.reference_here, margin)
              : fmt::format("the reference here ({:.4g}) over min_margin ({:.2f}; shipped {:.2f})", *d.reference_here,
                            margin, shipped_margin);
    } else {
      const auto ratio = [&](Bound bound) {
        const double at_home = peak(home, bound), here_now = peak(here, bound);
        if (!(at_home > 0) || !(here_now > 0))
          throw std::invalid_argument(fmt::format("no {} measured for {}", peak_name(bound), rule.threshold));
        return here_now / at_home;
      };
      const double gpu = ratio(rule.bound);
      if (rule.over_copy && rule.bound == Bound::Bandwidth) {
        d.value = d.shipped;
        d.how = "as shipped: a kernel bound by memory keeps its share of the copy bandwidth on any GPU";
      } else if (rule.over_copy) {
        const double copy = ratio(Bound::Bandwidth);
        d.value = d.shipped * gpu / copy;
        d.how = fmt::format("shipped x {} ({:.2f}) / copy bandwidth ({:.2f})", peak_name(rule.bound), gpu, copy);
      } else {
        const double cpu = cpu_ratio(home, here, rule.threshold);
        d.value = d.shipped * gpu * cpu;
        d.how = fmt::format("shipped x {} ({:.2f}) x CPU baseline ({:.2f})", peak_name(rule.bound), gpu, cpu);
      }
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
