// The grader's tests for particle-storm. The same file builds against labs/particle-storm (what a
// student runs) and against solutions/particle-storm (what the project's own tests require to
// pass). Tags: [update] [relax] [maximum] [resident] x [correctness] [performance] and, for
// resident, [program] [transfers] [tiers].
//
// Each step is graded on its own against the sequential program's semantics (storm.h), on
// inputs made for it; `resident` is graded with the grader's own steps (Ref1), so that it
// depends only on simulate(); the whole program (your simulate with your steps) is graded end
// to end and timed against the sequential baseline, beside the reference tiers Ref1 and Ref2.
// Every call of simulate() is checked storm by storm: each maximum, and the layer it was taken
// from (cells sampled at random during the call and around every impact: layer_samples.hpp).
#include "storm_tests.hpp"

using namespace storm_tests;

// ---- the graded cases ---------------------------------------------------------------------------

TEST_CASE("update: every cell gets every particle's energy", "[update][correctness]") {
  int count = 0;
  for (const auto& s : kUpdateShapes) count += is_large(s.layer_size, s.particles) ? 1 : 2;
  grading::plan("update", "correctness", count);
  int index = 0;
  for (const auto& s : kUpdateShapes) {
    if (is_large(s.layer_size, s.particles) && grading::fewer_cases()) {
      ++index;
      continue;
    }
    for (int repeat = 0; repeat < (is_large(s.layer_size, s.particles) || grading::fewer_cases() ? 1 : 2); ++repeat)
      GRADE_CASE("update", "correctness", update_name(s, repeat),
                 [&](CaseResult& r) { run_update(s, index, repeat, r); });
    ++index;
  }
}

TEST_CASE("update: speedup over the sequential update", "[update][performance]") {
  const PerfWorkload w = perf_workload();
  GRADE_CASE("update", "performance", strf("%d cells x %d particles", w.layer_size, w.particles),
             [](CaseResult& r) { update_performance(r); });
}

TEST_CASE("relax: the three-point average, ends untouched, no race", "[relax][correctness]") {
  grading::plan("relax", "correctness", 2 * static_cast<int>(std::size(kRelaxSizes)));
  int index = 0;
  for (int n : kRelaxSizes) {
    for (int repeat = 0; repeat < (grading::fewer_cases() ? 1 : 2); ++repeat)
      GRADE_CASE("relax", "correctness", cells(n) + (repeat ? " #2" : ""),
                 [&](CaseResult& r) { run_relax(n, index, repeat, r); });
    ++index;
  }
}

TEST_CASE("maximum: strict local maxima, ties to the lowest position", "[maximum][correctness]") {
  const auto cases = maximum_cases();
  grading::plan("maximum", "correctness", 2 * static_cast<int>(cases.size()));
  int index = 0;
  for (const auto& mc : cases) {
    for (int repeat = 0; repeat < (grading::fewer_cases() ? 1 : 2); ++repeat)
      GRADE_CASE("maximum", "correctness", mc.name + (repeat ? " #2" : ""),
                 [&](CaseResult& r) { run_maximum(mc, index, repeat, r); });
    ++index;
  }
}

TEST_CASE("resident: simulate() with the grader's steps", "[resident][correctness]") {
  const auto& workloads = program_workloads();
  grading::plan("resident", "correctness", static_cast<int>(workloads.size()));
  for (const auto& w : workloads)
    GRADE_CASE("resident", "correctness", w.name, [&](CaseResult& r) { run_program_case(w, simulate_with_ref1, r); });
}

TEST_CASE("resident: only the particles go in, only the results come out", "[resident][transfers]") {
  GRADE_CASE("resident", "transfers", "4194304 cells, 3 storms x 64 particles", [](CaseResult& r) {
    const auto& c = grading::config();
    const double per_particle = c.require_number("exercises.resident.max_h2d_bytes_per_particle");
    const double per_storm = c.require_number("exercises.resident.max_d2h_bytes_per_storm");
    const double slack = c.require_number("exercises.resident.transfer_slack_bytes");
    sg::StormShape shape;
    shape.layer_size = 1 << 22;
    shape.storms = 3;
    shape.particles = 64;
    const auto w = make_workload("transfers", shape.layer_size, sg::generate_storms(shape, input_seed(7, 0, 0)));
    dirty_device_memory(std::size_t(w.layer_size) * 4 * sizeof(float));
    sg::stage_layer_samples(w.layer_size, w.storms);  // before the count: its upload is the grader's
    sg::TransferCount count;
    const auto got = simulate_with_ref1(w.layer_size, w.storms);
    const sg::Transfers t = count.stop();
    const std::string wrong = check_program(w.layer_size, w.storms, w.expected, w.layers, got);
    const double h2d_limit = per_particle * shape.storms * shape.particles + slack;
    const double d2h_limit = per_storm * shape.storms + slack;
    r.metrics = {{"h2d_bytes", t.h2d_bytes}, {"h2d_calls", t.h2d_calls}, {"d2h_bytes", t.d2h_bytes},
                 {"d2h_calls", t.d2h_calls}, {"d2d_bytes", t.d2d_bytes}, {"h2d_limit", h2d_limit},
                 {"d2h_limit", d2h_limit}};
    const double layer_bytes = double(w.layer_size) * sizeof(float);
    r.metrics["uncounted_allocations"] = t.uncounted_allocations;
    if (!wrong.empty()) {
      r.outcome = Outcome::Incorrect;
      r.detail = "the results must be right before the copies are judged: " + wrong;
    } else if (t.uncounted_allocations > 0) {
      r.outcome = Outcome::Incorrect;
      r.detail = t.describe() +
                 ": the layer belongs in device memory (cudaMalloc), with only the particles "
                 "copied in and the results copied out, each by a copy the grader can count";
    } else if (t.h2d_bytes > h2d_limit) {
      r.outcome = Outcome::Incorrect;
      r.detail = strf(
          "%s; the particles are %.1f KiB and the layer %.1f MiB: the layer must be zeroed on the device "
          "and never copied from the host",
          t.describe().c_str(), 8.0 * shape.storms * shape.particles / 1024, layer_bytes / 1048576);
    } else if (t.d2h_bytes > d2h_limit) {
      r.outcome = Outcome::Incorrect;
      r.detail = strf("%s; only the results (8 bytes a storm) need to come back, the layer (%.1f MiB) never",
                      t.describe().c_str(), layer_bytes / 1048576);
    } else {
      r.outcome = Outcome::Passed;
    }
  });
}

TEST_CASE("resident: the whole program with your steps", "[resident][program]") {
  const auto& workloads = program_workloads();
  grading::plan("resident", "program", static_cast<int>(workloads.size()));
  for (const auto& w : workloads)
    GRADE_CASE("resident", "program", w.name, [&](CaseResult& r) { run_program_case(w, simulate_with_yours, r); });
}

TEST_CASE("resident: the whole program against the sequential one and the tiers", "[resident][performance][tiers]") {
  grading::plan("resident", "performance", 2);
  GRADE_CASE("resident", "performance", "speedup, Ref1 tier", [](CaseResult& r) { tier_case("min_speedup_ref1", r); });
  GRADE_CASE("resident", "performance", "speedup, Ref2 tier", [](CaseResult& r) { tier_case("min_speedup_ref2", r); });
  grading::plan("resident", "tiers", 2);
  GRADE_CASE("resident", "tiers", "Ref1: straightforward port",
             [](CaseResult& r) { reference_tier(program_times().ref1, "min_speedup_ref1", r); });
  GRADE_CASE("resident", "tiers", "Ref2: optimised reference",
             [](CaseResult& r) { reference_tier(program_times().ref2, "min_speedup_ref2", r); });
}

// The leaderboard (`grader leaderboard particle-storm`, docs/leaderboard-guide.md): the course's
// contest, the whole program on the [performance] workload, host in to host out, wall time
// (contest.hpp, host_timed). Hidden ([.]): run only when asked for by tag. Your program and the
// tiers Ref1 and Ref2 each get the same fresh storms for call i, and every call is checked: each
// storm's maximum and, for your program, its layer (check_program). The first warm-up calls are
// validity calls on workloads unlike the timed one (both signs, particles off the layer, other
// layer sizes, as the lab's storms have): a program right only on the timed workload's kind of
// storm is invalid. Warm-up calls are judged but not timed, and come after the contest's
// baselines are taken (contest.cpp), so they change no rule.
namespace {

// The validity calls' workloads (input kind 11): the leaderboard's layer with both signs and
// particles far off both ends, an odd-sized layer, a small one, and a large one.
std::vector<sg::StormShape> contest_validity_shapes(const PerfWorkload& w) {
  const auto shape = [](int layer_size, int storms, int particles, long long lo, long long hi) {
    return sg::storm_shape(layer_size, storms, particles, lo, hi, -1000, 1000);
  };
  const int n = w.layer_size;
  return {shape(n, w.storms, w.particles, -(n / 16), n + n / 16), shape(100003, 3, 1000, -1000, 101002),
          shape(4097, 3, 300, -200, 4296), shape((1 << 22) + 1, 2, 64, -100000, (1 << 22) + 100000)};
}

void leaderboard_program(const std::string& entry,
                         const std::function<std::vector<Result>(int, const std::vector<Storm>&)>& program) {
  const PerfWorkload w = perf_workload();
  struct Call {
    int layer_size = 0;
    std::vector<Storm> storms;
    std::vector<Result> expected;
    std::vector<sg::RefLayer> layers;
    std::string what;  // a validity call's workload, for the verdict
  };
  static std::map<int, Call> calls;  // shared by the three entries: the same inputs for call i
  const auto validity = contest_validity_shapes(w);
  const int extra = static_cast<int>(validity.size());
  workbook::Stream stream;  // the programs make their own; the contest's rules need one
  workbook::ContestOptions options = grading::contest_options();
  options.host_timed = true;
  options.warmup += extra;  // the validity calls first, then the usual warm-up calls
  std::vector<Result> got;
  int current = 0;
  const auto result = workbook::time_contest(
      stream,
      [&](int i) {
        current = i;
        if (!calls.count(i)) {
          Call c;
          if (i < extra) {
            const sg::StormShape& shape = validity[i];
            c.layer_size = shape.layer_size;
            c.storms = sg::generate_storms(shape, input_seed(11, i, 0));
            c.what = strf(
                "the validity workload %d of %d (%s, %d storms x %d particles, both signs, positions %lld .. %lld)",
                i + 1, extra, cells(shape.layer_size).c_str(), shape.storms, shape.particles, shape.min_position,
                shape.max_position);
          } else {  // the timed workload: call i's storms as before the validity calls came
            c.layer_size = w.layer_size;
            c.storms = sg::generate_storms(w.shape(), input_seed(10, i - extra, 0));
          }
          workbook::PhaseScope reference(workbook::Phase::Reference);
          c.expected = sg::ref_simulate_best(c.layer_size, c.storms, &c.layers);  // large: on the device
          calls[i] = std::move(c);
        }
        sg::stage_layer_samples(calls.at(i).layer_size, calls.at(i).storms);  // untimed: prepare
        got.clear();
      },
      [&] { got = program(calls.at(current).layer_size, calls.at(current).storms); },
      [&](int i) {
        const Call& c = calls.at(i);
        const std::string wrong = check_program(c.layer_size, c.storms, c.expected, c.layers, got);
        return wrong.empty() || c.what.empty() ? wrong : "on " + c.what + ": " + wrong;
      },
      options);
  grading::record_leaderboard("resident", entry, result);
  INFO(entry << ": " << result.invalid);
  CHECK(result.valid());
}

}  // namespace

TEST_CASE("resident: leaderboard timing of the whole program, with the tiers", "[resident][leaderboard][.]") {
  leaderboard_program("self", simulate_with_yours);
  if (grading::leaderboard_tiers()) {  // the reference's run times the tiers; a student's does not
    leaderboard_program("Ref1", storm_tiers::ref1_program);
    leaderboard_program("Ref2", storm_tiers::ref2_program);
  }
}

// The sequential baselines alone (hidden: `grader calibrate` runs them where there is no
// reference solution to time, to learn this CPU's speed; the times land in the baseline cache).
TEST_CASE("the sequential baselines, for grader calibrate", "[baseline][.]") { CHECK(baselines().program_ms > 0); }
