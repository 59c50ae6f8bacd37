// particle-storm's timings: the sequential baselines, update's speedup, and the whole programs
// (yours and the tiers Ref1 and Ref2) timed on fresh storms every round.
#include "storm_tests.hpp"
#include "grader/verdicts.hpp"

namespace storm_tests {

// ---- performance -------------------------------------------------------------------------------------

PerfWorkload perf_workload() {
  const auto& c = grading::config();
  return {static_cast<int>(c.require_number("performance.layer_size")),
          static_cast<int>(c.require_number("performance.storms")),
          static_cast<int>(c.require_number("performance.particles")),
          static_cast<std::uint64_t>(c.require_number("performance.seed"))};
}

// Measured once per machine and workload and cached (grader/baseline_cache.hpp). One run of the
// sequential program gives both: it times its phases.
const Baselines& baselines() {
  static std::optional<Baselines> cached;
  if (cached) return *cached;
  const PerfWorkload w = perf_workload();
  const auto announce = [](const std::string& msg) { std::cout << "  " << msg << std::endl; };
  std::optional<double> update_ms;
  const auto run_sequential = [&](int storms) {
    sg::StormShape shape = w.shape();
    shape.storms = storms;
    const auto input = sg::generate_storms(shape, w.seed);
    sg::SequentialBreakdown breakdown;
    const auto t = workbook::time_host(
        [&] {
          breakdown = {};
          sg::sequential_simulate(w.layer_size, input, &breakdown);
        },
        1, 0.0);
    update_ms = breakdown.update_s * 1e3 / storms;
    return grader::BaselineTime{t.ms.median, t.ms.min, t.ms.cv, t.ms.count, false};
  };
  const auto program = grader::cached_baseline(
      "particle-storm/sequential/program/" + w.key(), [&] { return run_sequential(w.storms); }, announce);
  const auto update = grader::cached_baseline(
      strf("particle-storm/sequential/update/%dx%d", w.layer_size, w.particles),
      [&] {
        if (!update_ms) run_sequential(1);
        return grader::BaselineTime{*update_ms, *update_ms, 0.0, 1, false};
      },
      announce);
  cached = Baselines{program.median_ms, update.median_ms};
  return *cached;
}

// update, timed on device-resident data: fresh particles before every call (outside the timed
// window), every call's layer checked.
void update_performance(CaseResult& r) {
  const PerfWorkload w = perf_workload();
  const double min_speedup = grading::threshold("exercises.update.min_speedup");
  const int n = w.layer_size;
  sg::StormShape shape = w.shape();
  shape.storms = 1;

  workbook::Stream stream;
  const auto initial = workbook::random_floats(n, input_seed(5, 0, 0), 0.0f, 1.0f);
  DeviceBuffer<float> d_initial(n), layer(n);
  copy_to_device(d_initial.data(), initial, stream);
  DeviceBuffer<int> particles(2 * std::size_t(w.particles));
  Storm s;
  sg::RefLayer expected;
  int call = 0;
  std::size_t wrong = 0, calls = 0;
  std::string first_wrong;
  workbook::TimingOptions options = grading::timing_options();
  options.decided = workbook::decided_by_limit(baselines().update_ms / min_speedup, options.min_runs);
  const auto timing = workbook::time_gpu(
      stream, [&] { storm::update(layer.data(), n, particles.data(), s.size(), stream); },
      [&] {
        s = sg::generate_storm(shape, input_seed(5, 1, 0), call++);
        CUDA_CHECK(cudaMemcpyAsync(particles.data(), s.posval.data(), s.posval.size() * sizeof(int),
                                   cudaMemcpyHostToDevice, stream));
        CUDA_CHECK(cudaMemcpyAsync(layer.data(), d_initial.data(), layer.bytes(), cudaMemcpyDeviceToDevice, stream));
        workbook::PhaseScope reference(workbook::Phase::Reference);
        expected = sg::RefLayer(initial);
        // The same bits as ref_update, on the device: a storm of this size is seconds of CPU
        // work for every call (device_reference.hpp).
        if (sg::device_reference_pays(double(n), double(s.size()))) {
          sg::ref_update_device(expected, s.posval.data(), s.size());
        } else {
          sg::ref_update(expected, s.posval.data(), s.size());
        }
      },
      [&] {
        ++calls;
        const auto got = layer.download();
        const auto c = check_cells(got, expected.value, [&](std::size_t k) { return sg::tolerance(expected, int(k)); });
        if (c.wrong > 0 && wrong++ == 0) first_wrong = describe(c, got.size());
      },
      options);

  // Ref1's and Ref2's update on the same storm size, for comparison (the grader's own kernels,
  // validated elsewhere, so timed on one storm without checking each call).
  const auto tier_ms = [&](storm_tiers::Update which) {
    const auto storm_for_tiers = sg::generate_storm(shape, input_seed(5, 2, 0), 0);
    copy_to_device(particles.data(), storm_for_tiers.posval, stream);
    return workbook::time_gpu(
               stream,
               [&] { storm_tiers::update(which, layer.data(), n, particles.data(), storm_for_tiers.size(), stream); },
               [&] { CUDA_CHECK(cudaMemsetAsync(layer.data(), 0, layer.bytes(), stream)); }, {},
               grading::timing_options())
        .ms.median;
  };
  const double ref1_ms = tier_ms(storm_tiers::Update::Ref1), ref2_ms = tier_ms(storm_tiers::Update::Ref2);

  const double base = baselines().update_ms;
  const double med = timing.ms.median;
  const double speedup = base / med;
  const double updates = double(n) * w.particles;
  r.metrics = {{"layer_size", n},
               {"particles", w.particles},
               {"median_ms", med},
               {"min_ms", timing.ms.min},
               {"cv", timing.ms.robust_cv},
               {"runs", timing.ms.count},
               {"baseline_ms", base},
               {"speedup", speedup},
               {"min_speedup", min_speedup},
               {"gcell_updates_per_s", updates / (med * 1e-3) / 1e9},
               {"ref1_ms", ref1_ms},
               {"ref2_ms", ref2_ms}};
  grading::threshold_verdict(
      r, wrong > 0,
      strf("%zu of %zu calls (warm-up and timed) gave a wrong layer, first: %s", wrong, calls, first_wrong.c_str()),
      speedup, min_speedup, [&](std::ostream& d) {
        d << strf(
            "median %.3g ms (%.0f G cell-updates/s) is %.0fx the sequential update (%.4g ms); needs %.0fx, "
            "i.e. at most %.3g ms (Ref1's update takes %.3g ms, Ref2's %.3g ms)",
            med, updates / (med * 1e-3) / 1e9, speedup, base, min_speedup, base / min_speedup, ref1_ms, ref2_ms);
      });
}

// One call of a program on the round's storms: its wall time, and whether its results are right.
double call_program(Timed& p, int layer_size, const std::vector<Storm>& storms, const std::vector<Result>& expected,
                    const std::vector<sg::RefLayer>& layers, bool count_transfers) {
  using clock = std::chrono::steady_clock;
  sg::stage_layer_samples(layer_size, storms);  // before the count and the clock
  std::optional<sg::TransferCount> count;
  if (count_transfers) count.emplace();
  std::vector<Result> got;
  std::string wrong;
  (void)workbook::take_foreign_call();
  std::optional<workbook::PhaseScope> phase(std::in_place, workbook::Phase::Call);
  const auto t0 = clock::now();
  try {
    got = p.program(layer_size, storms);
  } catch (const workbook::CudaError& e) {
    if (e.sticky()) throw;  // the context is lost: the case is recorded as crashed
    wrong = std::string("simulate() threw: ") + e.what();
  } catch (const remote::CallFailed& e) {
    if (e.crashed) throw;  // a fault, an exit or a hang: the case is recorded as such
    wrong = std::string("simulate() threw: ") + e.what();
  } catch (const std::exception& e) {
    wrong = std::string("simulate() threw: ") + e.what();
  }
  double ms = std::chrono::duration<double, std::milli>(clock::now() - t0).count();
  // Your program ran in the runner (grader/remote/): its time is the harness's clock from the
  // call to its end, without packing the storms into shared memory before and the results out
  // after. The tiers run here, and the host clock around them is their time.
  if (const auto foreign = workbook::take_foreign_call()) ms = foreign->device_ms;
  if (count) p.transfers = count->stop();
  ++p.calls;
  phase.emplace(workbook::Phase::Check);
  if (wrong.empty()) wrong = check_program(layer_size, storms, expected, layers, got);
  if (!wrong.empty()) {
    if (p.wrong++ == 0) p.first_wrong = wrong;
    p.active = false;  // a wrong program is not worth timing any further
  }
  return ms;
}

// One round's storms and the reference's results for them: on the device for the [performance]
// workload (on the CPU it was 2.7 s of the reference solution's check on an H100 host), the same
// bits as the CPU reference (device_reference.hpp).
struct RoundInputs {
  std::vector<Storm> storms;
  std::vector<sg::RefLayer> layers;
  std::vector<Result> expected;
};

RoundInputs round_inputs(const PerfWorkload& w, int round) {
  workbook::PhaseScope phase(workbook::Phase::Reference);
  RoundInputs in;
  in.storms = sg::generate_storms(w.shape(), input_seed(6, round, 0));
  in.expected = sg::ref_simulate_best(w.layer_size, in.storms, &in.layers);
  return in;
}

// Rounds, each program in turn in an order that rotates from round to round. Each program is
// called twice in a row: first on the previous round's storms (untimed: it brings the GPU back to
// full clocks after the idle time of the reference, which would otherwise favour whoever runs
// later), then on this round's fresh storms, which no earlier call has seen: that call is timed,
// so results kept from an earlier call have nothing to hit. Both calls are checked. At least
// min_runs timed rounds after `warmup` untimed ones, then more until every program's spread is
// under target_cv or the budget is spent; but no more once the first program's calls decide its
// verdicts (`decided`, timer.hpp's decided_by_limit) or it gave a wrong result (after one timed
// round, so that the tiers have a time to show).
void time_programs(std::vector<Timed>& programs, const std::function<bool(const std::vector<double>&)>& decided) {
  using clock = std::chrono::steady_clock;
  const auto options = grading::timing_options();
  const PerfWorkload w = perf_workload();
  const int warmup = std::max(1, options.warmup);
  const auto started = clock::now();
  RoundInputs previous = round_inputs(w, 0);
  for (int round = 0; round < warmup + options.max_runs; ++round) {
    RoundInputs fresh = round_inputs(w, round + 1);
    for (std::size_t i = 0; i < programs.size(); ++i) {
      Timed& p = programs[(i + round) % programs.size()];
      if (!p.active) continue;
      call_program(p, w.layer_size, previous.storms, previous.expected, previous.layers, round == 0);
      if (!p.active) continue;
      const double ms = call_program(p, w.layer_size, fresh.storms, fresh.expected, fresh.layers, false);
      if (p.active && round >= warmup) p.samples.push_back(ms);
    }
    previous = std::move(fresh);
    const int timed = round + 1 - warmup;
    if (timed >= 1 && (!programs[0].active || decided(programs[0].samples))) break;
    if (timed >= options.min_runs) {
      const double elapsed = std::chrono::duration<double>(clock::now() - started).count();
      const bool steady = std::all_of(programs.begin(), programs.end(), [&](const Timed& p) {
        return !p.active || p.summary().robust_cv < options.target_cv;  // one late call moves no median
      });
      if (steady || elapsed > options.budget_s) break;
    }
  }
}

Breakdown step_times() {
  const PerfWorkload w = perf_workload();
  const int n = w.layer_size;
  const auto s = sg::generate_storm(w.shape(), input_seed(8, 0, 0), 0);
  workbook::Stream stream;
  DeviceBuffer<float> layer(n), layer_copy(n), candidate_values(2 * std::size_t(n)), max_value(1);
  DeviceBuffer<int> candidate_positions(2 * std::size_t(n)), max_position(1);  // 2n: storm.h
  const auto particles = device_particles(s, stream);
  CUDA_CHECK(cudaMemsetAsync(layer.data(), 0, layer.bytes(), stream));
  workbook::TimingOptions options = grading::timing_options();
  options.budget_s = 0.5;
  const auto time = [&](const std::function<void()>& launch) {
    return workbook::time_gpu(stream, launch, {}, {}, options).ms.median;
  };
  Breakdown b;
  b.update_ms = time([&] { storm::update(layer.data(), n, particles.data(), s.size(), stream); });
  b.relax_ms = time([&] { storm::relax(layer.data(), layer_copy.data(), n, stream); });
  b.maximum_ms = time([&] {
    storm::maximum(layer.data(), n, candidate_values.data(), candidate_positions.data(), max_value.data(),
                   max_position.data(), stream);
  });
  return b;
}

const ProgramTimes& program_times() {
  static std::optional<ProgramTimes> times;
  if (times) return *times;
  std::vector<Timed> programs(3);
  programs[0].name = "your program";
  programs[0].program = simulate_with_yours;
  programs[1].name = "Ref1";
  programs[1].program = storm_tiers::ref1_program;
  programs[2].name = "Ref2";
  programs[2].program = storm_tiers::ref2_program;
  // Decided once the calls settle both tiers' verdicts (the median against each tier's limit).
  const auto limit = [](const char* key) {
    return baselines().program_ms / grading::threshold(std::string("exercises.resident.") + key);
  };
  const int min_runs = grading::timing_options().min_runs;
  const auto ref1_decided = workbook::decided_by_limit(limit("min_speedup_ref1"), min_runs);
  const auto ref2_decided = workbook::decided_by_limit(limit("min_speedup_ref2"), min_runs);
  time_programs(programs, [&](const std::vector<double>& ms) { return ref1_decided(ms) && ref2_decided(ms); });
  times = ProgramTimes{programs[0], programs[1], programs[2], std::nullopt};
  if (programs[0].wrong == 0 && !programs[0].samples.empty()) {
    times->steps = step_times();
    const auto& b = *times->steps;
    const PerfWorkload w = perf_workload();
    const double median = programs[0].summary().median;
    const double kernels = w.storms * (b.update_ms + b.relax_ms + b.maximum_ms);
    std::cout << strf(
        "  your program: %.3f ms = %d storms x (update %.3f + relax %.3f + maximum %.3f ms of kernels) "
        "+ %.3f ms of allocation, transfers and host work (%s in the first call)\n",
        median, w.storms, b.update_ms, b.relax_ms, b.maximum_ms, median - kernels,
        programs[0].transfers.describe().c_str());
  }
  return *times;
}

void program_metrics(const Timed& t, CaseResult& r) {
  const double base = baselines().program_ms;
  const auto s = t.summary();
  r.metrics["median_ms"] = s.median;
  r.metrics["min_ms"] = s.min;
  r.metrics["cv"] = s.robust_cv;
  r.metrics["runs"] = s.count;
  r.metrics["baseline_ms"] = base;
  r.metrics["speedup"] = base / s.median;
}

// One tier of the leaderboard: your program's speedup must reach the tier's threshold. The
// metrics place you between Ref1 and Ref2, timed in the same rounds.
void tier_case(const std::string& threshold_key, CaseResult& r) {
  const auto& t = program_times();
  const double min_speedup = grading::threshold("exercises.resident." + threshold_key);
  const double base = baselines().program_ms;
  const PerfWorkload w = perf_workload();
  r.metrics = {{"layer_size", w.layer_size}, {"storms", w.storms}, {"particles", w.particles}};
  if (t.yours.wrong > 0 || t.yours.samples.empty()) {
    r.outcome = Outcome::Incorrect;
    r.detail = strf("%zu of %zu calls gave wrong results, first: %s", t.yours.wrong, t.yours.calls,
                    t.yours.first_wrong.c_str());
    return;
  }
  program_metrics(t.yours, r);
  r.metrics["min_speedup"] = min_speedup;
  const double med = t.yours.summary().median;
  r.metrics["h2d_bytes"] = t.yours.transfers.h2d_bytes;
  r.metrics["d2h_bytes"] = t.yours.transfers.d2h_bytes;
  if (t.steps) {  // the breakdown: kernels per storm, and the rest
    r.metrics["update_ms"] = t.steps->update_ms;
    r.metrics["relax_ms"] = t.steps->relax_ms;
    r.metrics["maximum_ms"] = t.steps->maximum_ms;
    r.metrics["other_ms"] = med - w.storms * (t.steps->update_ms + t.steps->relax_ms + t.steps->maximum_ms);
  }
  if (!t.ref1.samples.empty()) r.metrics["ref1_ms"] = t.ref1.summary().median;
  if (!t.ref2.samples.empty()) r.metrics["ref2_ms"] = t.ref2.summary().median;
  if (!t.ref1.samples.empty() && !t.ref2.samples.empty()) {
    // Where you stand: 0 at Ref1's time, 1 at Ref2's (on a log scale of time), beyond either end.
    const double a = std::log(t.ref1.summary().median), b = std::log(t.ref2.summary().median);
    r.metrics["between_ref1_and_ref2"] = (a - std::log(med)) / (a - b);
  }
  const double speedup = base / med;
  grading::threshold_verdict(r, false, "", speedup, min_speedup, [&](std::ostream& d) {
    d << strf(
        "median %.3g ms is %.0fx the sequential program (%.4g s); needs %.0fx, i.e. at most %.3g ms "
        "(Ref1 takes %.3g ms, Ref2 %.3g ms)",
        med, speedup, base / 1e3, min_speedup, base / min_speedup,
        t.ref1.samples.empty() ? NAN : t.ref1.summary().median, t.ref2.samples.empty() ? NAN : t.ref2.summary().median);
  });
}

// A reference tier's own row: its time and speedup, beside the threshold of its tier.
void reference_tier(const Timed& t, const std::string& threshold_key, CaseResult& r) {
  if (t.wrong > 0 || t.samples.empty()) {
    r.outcome = Outcome::Error;
    r.detail = "internal: the reference tier gave wrong results: " + t.first_wrong;
    return;
  }
  program_metrics(t, r);
  r.metrics["min_speedup"] = grading::threshold("exercises.resident." + threshold_key);
  r.outcome = Outcome::Passed;
}

}  // namespace storm_tests
