#include "batch/gpu_setup.hpp"

#include "workbook/device_query.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

namespace grader {

std::vector<GpuSlot> visible_gpu_slots() {
  std::vector<GpuSlot> gpus;
  const int n = workbook::device_count();
  for (int i = 0; i < n; ++i) {
    const workbook::DeviceInfo d = workbook::query_device(i);
    gpus.push_back({i, child_visible_devices(std::getenv("CUDA_VISIBLE_DEVICES"), i),
                    fmt::format("{} ({} SMs)", d.name, d.multiprocessors), d.name});
  }
  return gpus;
}

namespace {

std::string ordinals_of(const std::vector<GpuSlot>& gpus, const std::string& model) {
  std::string list;
  for (const auto& g : gpus)
    if (g.model == model) list += (list.empty() ? "" : ",") + std::to_string(g.ordinal);
  return list;
}

}  // namespace

GpuSetup plan_gpus(const std::vector<GpuSlot>& chosen, const std::string& lab,
                   const std::vector<std::filesystem::path>& base,
                   const std::optional<std::filesystem::path>& device0_file,
                   const std::function<ModelThresholds(int ordinal)>& thresholds) {
  GpuSetup setup;
  setup.gpus = chosen;
  std::vector<std::filesystem::path> rest = base;
  if (device0_file) rest.erase(std::remove(rest.begin(), rest.end(), *device0_file), rest.end());
  const auto models = gpu_models(chosen);
  std::map<std::string, ModelThresholds> of;
  for (const auto& model : models) {
    const auto first = std::find_if(chosen.begin(), chosen.end(), [&](const GpuSlot& g) { return g.model == model; });
    of[model] = thresholds(first->ordinal);
  }
  if (models.size() > 1)
    for (const auto& model : models)
      if (!of[model].file && !of[model].note.empty()) {
        std::string list;
        for (const auto& m : models)
          list += fmt::format("{}{} (GPU {})", list.empty() ? "" : ", ", m, ordinals_of(chosen, m));
        throw std::runtime_error(fmt::format(
            "GPUs of {} models here: {}. Each submission is timed against the thresholds of the model it runs on, "
            "but {} has none of its own for {} ({}). Grade on one model (--gpus {}), or measure this one once: "
            "CUDA_VISIBLE_DEVICES={} grader calibrate {}",
            models.size(), list, model, lab, of[model].note,
            ordinals_of(chosen, models[0] == model ? models[1] : models[0]),
            std::find_if(chosen.begin(), chosen.end(), [&](const GpuSlot& g) { return g.model == model; })->visible,
            lab));
      }
  for (const auto& model : models) {
    auto& files = setup.overrides[model];
    if (of[model].file) files.push_back(*of[model].file);
    files.insert(files.end(), rest.begin(), rest.end());
    setup.notes[model] = of[model].note;
  }
  return setup;
}

}  // namespace grader
