// Which GPUs a batch grades on, and with which thresholds (instructor guide, "Every GPU of the
// node"). Machine profiles are keyed by GPU model, so each model gets its own override files:
// its profile's derived thresholds first, then the instructor's. A node of two models grades
// each submission on one model throughout (gpu_pool.hpp), or is refused when a model has no
// thresholds of its own for a lab whose thresholds follow the machine.
#pragma once

#include "batch/gpu_pool.hpp"

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace grader {

// What the machine's profile gives one model (calibrate::apply_profile of one of its GPUs).
struct ModelThresholds {
  std::optional<std::filesystem::path> file;  // the derived thresholds, an override file
  std::string note;                           // where they come from; "" for a lab with no rule
};

struct GpuSetup {
  std::vector<GpuSlot> gpus;
  std::map<std::string, std::vector<std::filesystem::path>> overrides;  // model -> override files
  std::map<std::string, std::string> notes;                             // model -> note
};

// The GPUs the CUDA runtime shows the grader, each named as a child's CUDA_VISIBLE_DEVICES names
// it; empty without a GPU.
std::vector<GpuSlot> visible_gpu_slots();

// `chosen`'s models with their thresholds: `thresholds(ordinal)` for one GPU of each model;
// `base` the run's override files, from which `device0_file` (what was applied for the grader's
// device 0 before the GPUs were chosen) is taken out. Throws std::runtime_error (the refusal,
// naming the models, their GPUs and what to do) for two models where one has no thresholds of
// its own and the lab's thresholds follow the machine.
GpuSetup plan_gpus(const std::vector<GpuSlot>& chosen, const std::string& lab,
                   const std::vector<std::filesystem::path>& base,
                   const std::optional<std::filesystem::path>& device0_file,
                   const std::function<ModelThresholds(int ordinal)>& thresholds);

}  // namespace grader
