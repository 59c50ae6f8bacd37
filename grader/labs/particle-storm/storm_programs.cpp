// particle-storm's whole programs checked storm by storm: each maximum, and the layer it was
// taken from (cells sampled during the call and around every impact: layer_samples.hpp); the
// workloads of the correctness cases.
#include "storm_tests.hpp"

namespace storm_tests {

// ---- whole programs ---------------------------------------------------------------------------------

// Compares a program's results with the reference's, storm by storm (reference.hpp, judge).
std::string wrong_results(const std::vector<Result>& expected, const std::vector<sg::RefLayer>& layers,
                          const std::vector<Result>& got) {
  if (got.size() != expected.size())
    return strf("simulate() returned %zu results for %zu storms", got.size(), expected.size());
  std::size_t wrong = 0, first = 0;
  std::string why;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const auto v = sg::judge(layers[i], expected[i], got[i]);
    if (!v.ok && wrong++ == 0) {
      first = i;
      why = v.why;
    }
  }
  if (wrong == 0) return "";
  std::string detail = strf("storm %zu of %zu: %s", first + 1, got.size(), why.c_str());
  if (wrong > 1) detail += strf(" (%zu storms wrong)", wrong);
  const Result& g = got[first];
  if (g.position == -1 && bits_of(g.value) == bits_of(NAN)) {
    // Exactly what the starter's simulate() returns for a storm it did not compute.
    detail +=
        "; (-1, nan) is the starter's placeholder: simulate() did not fill in this storm's result (see the "
        "TODO(resident) steps in storm.cu)";
  } else if (g.position == -1 && workbook::is_poison(g.value)) {
    detail +=
        "; position -1 and a NaN with every bit set: the bytes the grader leaves in free device memory, so "
        "the result was copied from device memory that nothing wrote (did maximum() write this storm's "
        "element of the result arrays before the copy?)";
  } else if (g.position == -1) {
    detail +=
        "; position -1 is not the starter's placeholder: your code computed it (a reduction that starts "
        "from position -1 and met no candidate?); with no strict local maximum greater than 0, the result "
        "is position 0, value 0";
  }
  return detail;
}

// ---- the whole layer (layer_samples.hpp) ----------------------------------------------------------

// The workloads (steps, layer size, storms) whose every storm's layer and maximum a call of the
// student's simulate() got right in this run. A later call on the same storms with the same steps
// may return its results without running the steps at all (results it remembers): those were
// checked, cell by cell, when it computed them.
std::set<std::uint64_t>& checked_workloads() {
  static std::set<std::uint64_t> keys;
  return keys;
}
std::uint64_t workload_key(std::uint32_t steps, int layer_size, const std::vector<Storm>& storms) {
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a over the words
  const auto mix = [&h](std::uint64_t v) {
    for (int b = 0; b < 8; ++b) h = (h ^ ((v >> (8 * b)) & 0xFF)) * 1099511628211ull;
  };
  mix(steps);
  mix(std::uint64_t(layer_size));
  mix(storms.size());
  for (const Storm& s : storms) {
    mix(s.posval.size());
    for (int v : s.posval) mix(std::uint32_t(v));
  }
  return h;
}

// The sampled cells of storms 0 .. storms-1 against the reference layers: "" when every one is
// within the tolerance of its cell (sg::tolerance, as update's cases), else the first storm with
// a wrong cell, described.
std::string wrong_layers(const std::vector<sg::RefLayer>& layers, std::size_t storms) {
  const auto& stage = sg::sample_stage();
  const auto& l = stage.layout;
  const std::size_t slots = l.slot_offset[storms];
  if (slots == 0) return "";
  std::vector<int> positions(slots);
  std::vector<float> values(slots);
  CUDA_CHECK(cudaMemcpy(positions.data(), stage.positions.data(), slots * sizeof(int), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(values.data(), stage.values.data(), slots * sizeof(float), cudaMemcpyDeviceToHost));
  for (std::size_t i = 0; i < storms; ++i) {
    const sg::RefLayer& ref = layers[i];
    std::size_t wrong = 0, checked = 0, first = 0;
    for (std::size_t t = l.slot_offset[i]; t < l.slot_offset[i + 1]; ++t) {
      const int k = positions[t];
      if (k < 0 || k >= ref.size()) {  // the runner writes the cells it read: never outside
        return strf("storm %zu of %zu: internal: the layer sample names cell %d of %d", i + 1, layers.size(), k,
                    ref.size());
      }
      const float expected = ref.value[k];
      if (!std::isfinite(expected)) continue;  // nothing to compare with (the results' check judges)
      ++checked;
      const double allowed = sg::tolerance(ref, k);
      if (!(std::isfinite(values[t]) && std::fabs(double(values[t]) - expected) <= allowed) && wrong++ == 0) first = t;
    }
    if (wrong == 0) continue;
    const int k = positions[first];
    std::string detail = strf(
        "storm %zu of %zu: cells of the layer were wrong (the layer simulate() handed to steps.maximum, %s): "
        "layer[%d] expected %.9g, got %.9g (allowed +-%.3g); %zu of %zu cells checked wrong",
        i + 1, layers.size(),
        l.whole(i)
            ? "every cell"
            : "checked at both ends, around every particle's impact and at cells drawn at random during the call",
        k, ref.value[k], values[first], sg::tolerance(ref, k), wrong, checked);
    if (std::isnan(values[first]))
      detail +=
          "; a NaN: a cell never written (the grader leaves NaN in free device memory: zero the layer on the device)";
    return detail;
  }
  return "";
}

// One call of a program judged: each storm's result (wrong_results) and, for the student's
// simulate() (which runs in the runner, remote.cu), the layer after each storm. The call must
// have been staged (sg::stage_layer_samples) just before it, and no count of copies may be
// running (the samples are read back with cudaMemcpy).
std::string check_program(int layer_size, const std::vector<Storm>& storms, const std::vector<Result>& expected,
                          const std::vector<sg::RefLayer>& layers, const std::vector<Result>& got) {
  const std::optional<sg::LayerSampleRecord> record = sg::last_layer_samples();
  sg::last_layer_samples().reset();
  const std::string results = wrong_results(expected, layers, got);
  if (!record || !record->sampled) return results;  // the tiers (the grader's own programs)
  const std::size_t n = storms.size();
  const std::size_t calls = record->maximum_calls;
  const std::uint64_t key = workload_key(record->steps, layer_size, storms);
  if (calls == n) {
    std::string layer = wrong_layers(layers, n);
    if (!layer.empty())
      return layer + (results.empty() ? "; each storm's maximum was right, but every cell of the layer must be"
                                      : "; the maxima are wrong too: " + results);
    if (results.empty()) checked_workloads().insert(key);
    return results;
  }
  if (!results.empty()) return results;                         // the starter's placeholders and the like say more
  if (calls == 0 && checked_workloads().count(key)) return "";  // remembered from a call checked in full
  return strf(
      "simulate() called steps.maximum %zu times for %zu storms: storm.h asks it to call steps.update, steps.relax "
      "(or relax by ping-pong) and steps.maximum once per storm, through `steps`, not directly: the grader checks "
      "the layer that each call of steps.maximum is handed, so results returned without it cannot be checked%s",
      calls, n,
      calls == 0 ? " (results remembered from an earlier call with other steps, or computed without the steps?)" : "");
}

Workload make_workload(std::string name, int layer_size, std::vector<Storm> storms) {
  Workload w{std::move(name), layer_size, std::move(storms), {}, {}};
  workbook::PhaseScope phase(workbook::Phase::Reference);
  w.expected = sg::ref_simulate_best(w.layer_size, w.storms, &w.layers);
  return w;
}

// Leaves NaN in the memory the next allocations will likely get, so that a layer that is
// allocated but never zeroed holds garbage instead of the zeros a fresh allocation often has.
void dirty_device_memory(std::size_t bytes) {
  DeviceBuffer<unsigned char> junk(bytes);
  junk.poison();
  CUDA_CHECK(cudaDeviceSynchronize());
}

// The shipped debugging cases (storms/cases.txt) and generated workloads.
std::vector<Workload>& program_workloads() {
  static std::vector<Workload> all;
  if (!all.empty()) return all;
  for (const auto& c : storm_io::read_cases(std::string(PARTICLE_STORM_DIR) + "/storms")) {
    std::vector<Storm> storms;
    for (const auto& f : c.files) storms.push_back(storm_io::read_storm_file(f));
    all.push_back(make_workload("storms/" + c.name + ": " + cells(c.layer_size), c.layer_size, std::move(storms)));
  }
  struct Generated {
    int layer_size, storms, particles;
    long long min_position, max_position;
    int min_energy, max_energy;
  };
  const Generated generated[] = {
      {1000, 3, 50, 0, 999, 1, 1000},
      {4097, 4, 500, -200, 4296, -1000, 1000},
      {100003, 2, 1000, 0, 100002, 1, 1000},
      {1 << 20, 2, 200, -1000, (1 << 20) + 1000, 1, 1000},
      // The leaderboard's layer, with both signs and particles off both ends (the layer check
      // makes a program that computes only near the particles fail here, whatever its maxima).
      {1 << 20, 2, 512, -65536, (1 << 20) + 65536, -1000, 1000},
  };
  int index = 0;
  for (const auto& g : generated) {
    const sg::StormShape shape = sg::storm_shape(g.layer_size, g.storms, g.particles, g.min_position, g.max_position,
                                                 g.min_energy, g.max_energy);
    all.push_back(make_workload(strf("generated: %s, %d storms x %d particles%s", cells(g.layer_size).c_str(), g.storms,
                                     g.particles, g.min_energy < 0 ? ", mixed signs" : ""),
                                g.layer_size, sg::generate_storms(shape, input_seed(4, index++, 0))));
  }
  return all;
}

// Runs the program twice on the workload (the second run likely gets the first one's memory
// back: a layer that is not zeroed then starts from the first run's energy). Each run is judged
// on its results and on its layer after every storm (check_program).
void run_program_case(const Workload& w, const Program& program, CaseResult& r) {
  r.metrics = {{"layer_size", w.layer_size}, {"storms", w.storms.size()}};
  dirty_device_memory(std::size_t(w.layer_size) * 4 * sizeof(float) + (1 << 20));
  for (int run = 0; run < 2; ++run) {
    std::optional<workbook::PhaseScope> phase(std::in_place, workbook::Phase::Inputs);
    sg::stage_layer_samples(w.layer_size, w.storms);
    phase.emplace(workbook::Phase::Call);
    const auto got = program(w.layer_size, w.storms);
    phase.emplace(workbook::Phase::Check);
    const std::string wrong = check_program(w.layer_size, w.storms, w.expected, w.layers, got);
    if (!wrong.empty()) {
      r.outcome = Outcome::Incorrect;
      r.detail =
          (run == 1 ? "right the first time, wrong the second (is the layer zeroed on the device?): " : "") + wrong;
      return;
    }
  }
  r.outcome = Outcome::Passed;
}

// simulate() with the grader's steps (Ref1: the sequential program's arithmetic), for `resident`.
std::vector<Result> simulate_with_ref1(int layer_size, const std::vector<Storm>& storms) {
  return storm::simulate(layer_size, storms, storm_tiers::ref1_steps());
}
// simulate() with the student's steps: the program as main() runs it.
std::vector<Result> simulate_with_yours(int layer_size, const std::vector<Storm>& storms) {
  return storm::simulate(layer_size, storms);
}

}  // namespace storm_tests
