#include "batch/time_ledger.hpp"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

namespace grader {

namespace {

void add_kinds(TimeSpent& into, const TimeSpent& from) {
  into.build_s += from.build_s;
  into.tests_s += from.tests_s;
  for (const auto& [kind, phases] : from.kinds)
    for (const auto& [phase, s] : phases) into.kinds[kind][phase] += s;
}

double number(const nlohmann::json& j, const char* key) {
  return j.contains(key) && j[key].is_number() ? j[key].get<double>() : 0.0;
}

}  // namespace

CpuTicks parse_cpu_ticks(const std::string& line) {
  std::istringstream in(line);
  std::string name;
  if (!(in >> name) || name != "cpu") return {};
  // user nice system idle iowait irq softirq steal (guest time is already in user)
  unsigned long long v[8] = {};
  for (auto& x : v)
    if (!(in >> x)) break;
  CpuTicks t;
  t.busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
  t.total = t.busy + v[3] + v[4];
  return t;
}

CpuTicks read_cpu_ticks() {
  std::ifstream in("/proc/stat");
  std::string line;
  return std::getline(in, line) ? parse_cpu_ticks(line) : CpuTicks{};
}

nlohmann::json to_json(const StageTimes& t) {
  return {{"collect_s", t.collect_s},         {"configure_s", t.configure_s}, {"build_s", t.build_s},
          {"correctness_s", t.correctness_s}, {"timed_s", t.timed_s},         {"rerun_alone_s", t.rerun_s},
          {"gpu_wait_s", t.gpu_wait_s},       {"profile_s", t.profile_s},     {"total_s", t.total_s},
          {"cases", to_json(t.cases)}};
}

StageTimes stage_times_from_json(const nlohmann::json& j) {
  StageTimes t;
  if (!j.is_object()) return t;
  t.collect_s = number(j, "collect_s");
  t.configure_s = number(j, "configure_s");
  t.build_s = number(j, "build_s");
  t.correctness_s = number(j, "correctness_s");
  t.timed_s = number(j, "timed_s");
  t.rerun_s = number(j, "rerun_alone_s");
  t.gpu_wait_s = number(j, "gpu_wait_s");
  t.profile_s = number(j, "profile_s");
  t.total_s = number(j, "total_s");
  if (j.contains("cases") && j["cases"].is_object()) {
    const auto& c = j["cases"];
    t.cases.build_s = number(c, "build_s");
    t.cases.tests_s = number(c, "tests_s");
    if (c.contains("kinds") && c["kinds"].is_object())
      for (const auto& [kind, phases] : c["kinds"].items())
        for (const auto& [phase, s] : phases.items())
          if (s.is_number()) t.cases.kinds[kind][phase] = s.get<double>();
  }
  return t;
}

void TimeLedger::add(const StageTimes& t) {
  std::lock_guard<std::mutex> l(m_);
  sum_.collect_s += t.collect_s;
  sum_.configure_s += t.configure_s;
  sum_.build_s += t.build_s;
  sum_.correctness_s += t.correctness_s;
  sum_.timed_s += t.timed_s;
  sum_.rerun_s += t.rerun_s;
  sum_.gpu_wait_s += t.gpu_wait_s;
  sum_.profile_s += t.profile_s;
  sum_.total_s += t.total_s;
  add_kinds(sum_.cases, t.cases);
  ++n_;
}

void TimeLedger::set_calibration(double s) {
  std::lock_guard<std::mutex> l(m_);
  calibration_s_ = s;
}

void TimeLedger::set_cpu_busy(double fraction, unsigned cpus) {
  std::lock_guard<std::mutex> l(m_);
  cpu_busy_ = fraction;
  cpus_ = cpus;
}

int TimeLedger::submissions() const {
  std::lock_guard<std::mutex> l(m_);
  return n_;
}

std::string TimeLedger::line(double wall_s, int workers) const {
  std::lock_guard<std::mutex> l(m_);
  const StageTimes& s = sum_;
  const double tests = s.correctness_s + s.timed_s + s.rerun_s;
  std::string out = fmt::format("wall {:.1f} s for {} submission{}", wall_s, n_, n_ == 1 ? "" : "s");
  if (n_ > 0) out += fmt::format(" ({:.1f} s each)", wall_s / n_);
  if (calibration_s_ >= 0.05) out += fmt::format(", of it calibration {:.1f} s", calibration_s_);
  out += fmt::format(": build {:.1f} s", s.build_s);
  if (s.configure_s >= 0.05) out += fmt::format(" (configure {:.1f} s)", s.configure_s);
  out += fmt::format(", tests {:.1f} s (correctness {:.1f} s, timed {:.1f} s", tests, s.correctness_s, s.timed_s);
  if (s.rerun_s > 0) out += fmt::format(", run again alone {:.1f} s", s.rerun_s);
  out += fmt::format("), waiting for the GPU {:.1f} s, collect {:.1f} s", s.gpu_wait_s, s.collect_s);
  if (s.profile_s > 0) out += fmt::format(", profiles {:.1f} s", s.profile_s);
  // Inside the cases: the grader's own work against the submissions' calls.
  TimeSpent inside;
  inside.kinds = s.cases.kinds;
  const std::string kinds = describe(inside);
  const auto open = kinds.find('(');
  if (open != std::string::npos && !s.cases.kinds.empty()) out += "; inside the cases " + kinds.substr(open);
  out += fmt::format("; summed over the submissions, {} at a time", workers);
  if (cpu_busy_ >= 0) out += fmt::format("; the machine's {} CPUs {:.0f}% busy", cpus_, 100 * cpu_busy_);
  return out;
}

nlohmann::json TimeLedger::to_json(double wall_s) const {
  std::lock_guard<std::mutex> l(m_);
  nlohmann::json j = grader::to_json(sum_);
  j["wall_s"] = wall_s;
  j["calibration_s"] = calibration_s_;
  if (cpu_busy_ >= 0) j["cpu_busy"] = cpu_busy_;
  j["submissions"] = n_;
  return j;
}

}  // namespace grader
