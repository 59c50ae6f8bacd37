// The pieces of `grader check --profile` that `grader batch --feedback-profile` shares: which
// metrics and kernels, running ncu through a given runner (directly or in the sandbox), and the
// comparison as Markdown.
#include "inspect/inspect.hpp"
#include "inspect/ncu_output.hpp"

#include "grader/files.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

namespace grader::inspect {
namespace fs = std::filesystem;

namespace {

// Launches profiled per exercise and side, of all its kernels together (each kernel's first is
// shown): enough for a whole program's kernels to appear (kmeans' iterations alternate theirs).
constexpr int kLaunches = 40;

}  // namespace

std::string metric_text(const LabMetric& m, const std::optional<double>& v) {
  if (!v) return "-";
  // Counts (instructions, conflicts, bytes) in millions or billions past a million: "66.1M"
  // reads at a glance where "66056245" and "6.61e+07" do not.
  const bool count = m.format == "{:.0f}" || m.format == "{:.3g}";
  // (999.96M would round to "1e+03M": from 999.5M on, it is G.)
  if (count && std::abs(*v) >= 999.5e6) return fmt::format("{:.3g}G", *v / 1e9);
  if (count && std::abs(*v) >= 1e6) return fmt::format("{:.3g}M", *v / 1e6);
  if (m.format == "{:.3g}") return fmt::format("{:.0f}", *v);
  return fmt::format(fmt::runtime(m.format), *v);
}

// lab.toml: [profile.metrics] <exercise> = ["metric", ...] (ids of lab_metrics()).
std::vector<std::string> profile_metric_ids(const LabConfig& config, const std::string& exercise) {
  std::vector<std::string> ids;
  const auto* list = config.table().at_path("profile.metrics." + exercise).as_array();
  if (!list) return ids;
  for (const auto& node : *list)
    if (const auto id = node.value<std::string>()) {
      if (!lab_metrics().count(*id))
        throw ConfigError(fmt::format("{}: [profile.metrics] {} names '{}', which is not a metric the grader knows",
                                      config.name(), exercise, *id));
      ids.push_back(*id);
    }
  if (!ids.empty() && std::find(ids.begin(), ids.end(), "duration") == ids.end()) ids.insert(ids.begin(), "duration");
  return ids;
}

std::vector<std::string> kernels_of(const fs::path& dir, const std::vector<std::string>& files) {
  std::vector<std::string> names;
  for (const auto& f : files)
    for (const auto& k : kernels_defined_in(read_file(dir / f)))
      if (std::find(names.begin(), names.end(), k) == names.end()) names.push_back(k);
  return names;
}

Profiled profile_kernels(const fs::path& ncu, const RunTool& run, const fs::path& program,
                         const std::vector<std::string>& kernels, const std::string& filter,
                         std::vector<std::string>& metric_ids, const fs::path& log) {
  Profiled side;
  if (kernels.empty()) {
    side.failure = "no __global__ kernel in the files";
    return side;
  }
  std::string regex = "regex:^(";
  for (std::size_t i = 0; i < kernels.size(); ++i) regex += (i ? "|" : "") + kernels[i];
  regex += ")$";
  for (int attempt = 0; attempt < 6; ++attempt) {
    std::set<std::string> ncu_metrics;
    for (const auto& id : metric_ids)
      for (const auto& m : lab_metrics().at(id).ncu) ncu_metrics.insert(m);
    std::string list;
    for (const auto& m : ncu_metrics) list += (list.empty() ? "" : ",") + m;
    const ProcessResult r =
        run({ncu.string(), "--csv", "--metrics", list, "--kernel-name-base", "function", "--kernel-name", regex,
             "--launch-count", std::to_string(kLaunches), program.string(), filter},
            log);
    side.seconds += r.seconds;
    const std::string text = read_file(log);
    if (const auto unknown = unknown_metric(text)) {
      const auto before = metric_ids.size();
      metric_ids.erase(std::remove_if(metric_ids.begin(), metric_ids.end(),
                                      [&](const std::string& id) {
                                        const auto& needs = lab_metrics().at(id).ncu;
                                        return std::find(needs.begin(), needs.end(), *unknown) != needs.end();
                                      }),
                       metric_ids.end());
      if (metric_ids.size() < before && !metric_ids.empty()) continue;
    }
    if (r.timed_out) {
      side.failure = fmt::format("ncu stopped at its time limit (log: {})", log.string());
      return side;
    }
    if (const std::string why = ncu_failure(text); !why.empty()) {
      side.failure = why;
      return side;
    }
    try {
      for (auto& launch : parse_ncu_csv(text)) {
        const bool seen = std::any_of(side.launches.begin(), side.launches.end(),
                                      [&](const KernelLaunch& k) { return k.function == launch.function; });
        if (!seen) side.launches.push_back(std::move(launch));
      }
    } catch (const std::exception&) {
      side.failure = fmt::format("ncu profiled no kernel of these files ({}); last lines of {}:\n{}", r.describe(),
                                 log.string(), tail_of_file(log, 600));
    }
    return side;
  }
  side.failure = "ncu knows none of the metrics";
  return side;
}

std::string profile_markdown(const std::string& exercise, const std::vector<std::string>& ids, const Profiled& mine,
                             const Profiled* reference) {
  std::string md = fmt::format("### Why is {} slow? (Nsight Compute)\n\n", exercise);
  if (!mine.failure.empty()) return md + "Not profiled: " + mine.failure + "\n";
  md +=
      "Your kernels in the exercise's timed cases (the first launch of each), beside the reference solution's. "
      "\"look here\" marks a metric at least 1.5 times worse than the reference's.\n";
  const std::vector<KernelLaunch> none;
  const auto& theirs = reference && reference->failure.empty() ? reference->launches : none;
  std::set<std::string> read;
  for (std::size_t k = 0; k < mine.launches.size(); ++k) {
    const KernelLaunch& launch = mine.launches[k];
    const KernelLaunch* match = matching_kernel(launch, k, theirs);
    md += fmt::format("\n**`{}`** (grid {}, block {}){}\n\n| metric | yours | reference | |\n|---|---:|---:|---|\n",
                      launch.function, launch.grid, launch.block,
                      match ? fmt::format(", beside the reference's `{}`", match->function) : "");
    for (const auto& row : compare_launch(ids, launch, match)) {
      const LabMetric& m = lab_metrics().at(row.id);
      md += fmt::format("| {} | {} | {} | {} |\n", m.label, metric_text(m, row.yours), metric_text(m, row.reference),
                        row.look_here ? "**look here**" : "");
      if (row.id != "duration") read.insert(row.id);
    }
  }
  if (!read.empty()) {
    md += "\n";
    for (const auto& id : ids)
      if (read.count(id)) md += fmt::format("- *{}*: {}\n", lab_metrics().at(id).label, lab_metrics().at(id).reading);
  }
  return md;
}

}  // namespace grader::inspect
