#include "calibrate/profile.hpp"

#include "grader/baseline_cache.hpp"
#include "grader/files.hpp"
#include "workbook/device_query.hpp"

#include <cuda_runtime.h>
#include <fmt/format.h>
#include <toml++/toml.h>

#include <cctype>
#include <sstream>

namespace grader::calibrate {
namespace fs = std::filesystem;

namespace {

std::string version_text(int v) { return fmt::format("{}.{}", v / 1000, (v % 1000) / 10); }

// Lower case, runs of anything but letters and digits as one '-'.
std::string slug(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!out.empty() && out.back() != '-') {
      out += '-';
    }
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out;
}

std::map<std::string, double> numbers(const toml::node_view<const toml::node>& node) {
  std::map<std::string, double> out;
  if (const auto* t = node.as_table())
    for (const auto& [key, value] : *t)
      if (const auto v = value.value<double>()) out[std::string(key.str())] = *v;
  return out;
}

toml::table table_of(const std::map<std::string, double>& values) {
  toml::table t;
  for (const auto& [key, value] : values) t.insert_or_assign(key, value);
  return t;
}

}  // namespace

bool Machine::same_as(const Machine& o) const { return gpu == o.gpu && sms == o.sms && cuda == o.cuda && cpu == o.cpu; }

std::string Machine::name() const { return slug(fmt::format("{} {}sm cuda{} {}", gpu, sms, cuda, cpu)); }

std::string Machine::describe() const {
  return fmt::format("{} ({} SMs, sm_{}), CUDA {}, {}", gpu, sms, compute_capability, cuda, cpu);
}

Machine this_machine(int device) {
  const workbook::DeviceInfo d = workbook::query_device(device);
  Machine m;
  m.gpu = d.name;
  m.sms = d.multiprocessors;
  m.compute_capability = d.compute_capability();
  m.cuda = version_text(CUDART_VERSION);
  m.driver = version_text(d.driver_version);
  m.cpu = cpu_model();
  return m;
}

Measurement Profile::of_lab(const std::string& lab) const {
  Measurement m = peaks;
  if (const auto it = labs.find(lab); it != labs.end()) {
    m.reference = it->second.reference;
    m.baseline_ms = it->second.baseline_ms;
  }
  return m;
}

std::string profile_toml(const Profile& p) {
  toml::table root;
  root.insert_or_assign("machine", toml::table{{"gpu", p.machine.gpu},
                                               {"sms", p.machine.sms},
                                               {"compute_capability", p.machine.compute_capability},
                                               {"cuda", p.machine.cuda},
                                               {"driver", p.machine.driver},
                                               {"cpu", p.machine.cpu},
                                               {"calibrated", p.calibrated}});
  root.insert_or_assign(
      "peaks",
      toml::table{{"fp32_tflops", p.peaks.fp32_tflops}, {"copy_gbs", p.peaks.copy_gbs}, {"h2d_gbs", p.peaks.h2d_gbs}});
  toml::table labs;
  for (const auto& [lab, m] : p.labs)
    labs.insert_or_assign(lab,
                          toml::table{{"reference", table_of(m.reference)}, {"baselines", table_of(m.baseline_ms)}});
  root.insert_or_assign("labs", std::move(labs));
  std::ostringstream out;
  out << "# A machine profile written by `grader calibrate` (grader/src/calibrate/profile.hpp):\n"
         "# [peaks] the GPU's measured ceilings; [labs.<lab>.reference] the reference solution's value\n"
         "# of each threshold's metric here; [labs.<lab>.baselines] the sequential baselines, in ms.\n"
      << root << '\n';
  return out.str();
}

std::optional<Profile> load_profile(const fs::path& dir) {
  const fs::path file = dir / "profile.toml";
  if (!fs::exists(file)) return std::nullopt;
  toml::table root;
  try {
    root = toml::parse(read_file(file), file.string());
  } catch (const toml::parse_error& e) {
    throw ConfigError(fmt::format("{}: {}", file.string(), e.description()));
  }
  Profile p;
  p.dir = dir;
  p.name = dir.filename().string();
  const auto m = root["machine"];
  p.machine.gpu = m["gpu"].value_or(std::string{});
  p.machine.sms = m["sms"].value_or(0);
  p.machine.compute_capability = m["compute_capability"].value_or(std::string{});
  p.machine.cuda = m["cuda"].value_or(std::string{});
  p.machine.driver = m["driver"].value_or(std::string{});
  p.machine.cpu = m["cpu"].value_or(std::string{});
  p.calibrated = m["calibrated"].value_or(std::string{});
  p.peaks.fp32_tflops = root["peaks"]["fp32_tflops"].value_or(0.0);
  p.peaks.copy_gbs = root["peaks"]["copy_gbs"].value_or(0.0);
  p.peaks.h2d_gbs = root["peaks"]["h2d_gbs"].value_or(0.0);
  if (const auto* labs = root["labs"].as_table()) {
    for (const auto& [lab, value] : *labs) {
      Measurement& lm = p.labs[std::string(lab.str())];
      const toml::node_view<const toml::node> node{value};
      lm.reference = numbers(node["reference"]);
      lm.baseline_ms = numbers(node["baselines"]);
    }
  }
  return p;
}

void save_profile(const Profile& p) {
  fs::create_directories(p.dir);
  write_atomically(p.dir / "profile.toml", profile_toml(p));
}

fs::path local_profiles_dir() { return cache_dir() / "profiles"; }
fs::path shipped_profiles_dir(const fs::path& source_root) { return source_root / "grader" / "profiles"; }

std::optional<Profile> find_profile(const Machine& machine, const fs::path& source_root) {
  if (auto own = load_profile(local_profiles_dir() / machine.name()); own && own->machine.same_as(machine)) return own;
  const fs::path shipped = shipped_profiles_dir(source_root);
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(shipped, ec)) {
    if (!entry.is_directory()) continue;
    if (auto p = load_profile(entry.path()); p && p->machine.same_as(machine)) return p;
  }
  return std::nullopt;
}

}  // namespace grader::calibrate
