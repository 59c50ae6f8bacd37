// The grader's tests for kmeans. The same file builds against labs/kmeans (what a student runs)
// and against solutions/kmeans (what the project's own tests require to pass).
// Tags: [naive] [transpose] [shared] [all_gpu] [all_gpu_privatized] x [correctness] [performance];
// hidden ([.]): [all_gpu] [all_gpu_privatized] x [leaderboard].
//
// Each version is a whole program (kmeans.h): host objects in, host memberships, centroids and
// loop count out. Correctness compares it with a reference in double (the CPU's; the GPU's for the
// large instances); performance times the whole call, as the course notes did, against the
// sequential baseline.
#include "data.hpp"
#include "device_reference.hpp"
#include "grader/baseline_cache.hpp"
#include "grader/grading.hpp"
#include "grader/verdicts.hpp"
#include "kmeans.h"
#include "reference.hpp"
#include "remote/call.hpp"
#include "sequential.hpp"
#include "workbook/contest.hpp"
#include "workbook/cuda_check.hpp"
#include "workbook/phases.hpp"
#include "workbook/random.hpp"
#include "workbook/stream.hpp"
#include "workbook/timer.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <iterator>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace {

using grader::CaseResult;
using grader::Outcome;
using kmeans_grading::Problem;
using kmeans_grading::Reference;

// ---- inputs --------------------------------------------------------------------------------

struct Config {
  std::string name;
  int numObjs, numCoords, numClusters, maxLoops, blockSize;
  bool paired = false;  // the first numClusters objects in identical pairs
};

// The correctness configurations: the smallest problem, one cluster, one coordinate, 16
// coordinates, 64 clusters, more clusters than threads in a block, object counts that are
// multiples of nothing, block sizes from 32 to 1024 (96: not a power of two), identical
// centroids (exact ties, clusters that start empty), and two larger ones. The small ones run
// until they converge (threshold 0.001) well before maxLoops; the larger ones stop at maxLoops.
const Config kConfigs[] = {
    {"1 object, 1 coord, 1 cluster", 1, 1, 1, 10, 256},
    {"1000 objects, 2 coords, 16 clusters", 1000, 2, 16, 100, 256},
    {"20000 objects, 2 coords, 1 cluster", 20000, 2, 1, 10, 256},
    {"4097 objects, 1 coord, 16 clusters, blocks of 128", 4097, 1, 16, 100, 128},
    {"3001 objects, 16 coords, 64 clusters", 3001, 16, 64, 100, 256},
    {"5000 objects, 2 coords, 300 clusters (more than a block of 128)", 5000, 2, 300, 20, 128},
    {"2000 objects, 3 coords, 16 clusters starting as 8 identical pairs, blocks of 96", 2000, 3, 16, 100, 96, true},
    {"65536 objects, 1 coord, 64 clusters, blocks of 32", 65536, 1, 64, 10, 32},
    {"{16,16,64,10}: 131072 objects, 16 coords, 64 clusters, blocks of 1024", 131072, 16, 64, 10, 1024},
    {"{16,2,16,10}: 1048576 objects, 2 coords, 16 clusters, blocks of 512", 1048576, 2, 16, 10, 512},
};
constexpr int kConfigCount = static_cast<int>(sizeof(kConfigs) / sizeof(kConfigs[0]));

// Small configurations run twice, on fresh inputs: atomics done wrong (a lost update) can give
// the right answer once by luck; rarely twice.
int repeats(const Config& c) { return c.numObjs > 200000 ? 1 : 2; }

struct Instance {
  Problem problem;
  int blockSize = 256;
  std::vector<double> objects;
  Reference ref;
};

Problem problem_of(int numObjs, int numCoords, int numClusters, int maxLoops) {
  Problem p;
  p.numObjs = numObjs;
  p.numCoords = numCoords;
  p.numClusters = numClusters;
  p.maxLoops = maxLoops;
  p.threshold = 0.001;
  return p;
}

kmeans::Params params_of(const Instance& in) {
  kmeans::Params params;
  params.numObjs = in.problem.numObjs;
  params.numCoords = in.problem.numCoords;
  params.numClusters = in.problem.numClusters;
  params.threshold = in.problem.threshold;
  params.maxLoops = in.problem.maxLoops;
  params.blockSize = in.blockSize;
  return params;
}

// Inputs and reference for one case, from the run's seed and the case's own stream number, so
// each case's inputs are fixed by the seed alone. Computed once per process: every version is
// checked against the same reference. The large instances' reference is computed on the GPU
// (device_reference.hpp: the same verdicts, in milliseconds instead of a second or more).
const Instance& instance(std::uint64_t stream, const Problem& p, int blockSize, bool paired) {
  static std::map<std::uint64_t, std::unique_ptr<Instance>> cache;
  auto& slot = cache[stream];
  if (!slot) {
    slot = std::make_unique<Instance>();
    slot->problem = p;
    slot->blockSize = blockSize;
    {
      workbook::PhaseScope phase(workbook::Phase::Inputs);
      slot->objects = kmeans_grading::make_objects(
          p.numObjs, p.numCoords, workbook::derive_seed(grading::seed(), stream), paired, p.numClusters);
    }
    workbook::PhaseScope phase(workbook::Phase::Reference);
    slot->ref = kmeans_grading::reference_kmeans_best(slot->objects, p);  // the device's for the large instances
  }
  return *slot;
}

const Instance& config_instance(int index, int repeat) {
  const Config& c = kConfigs[index];
  return instance(100 * index + repeat, problem_of(c.numObjs, c.numCoords, c.numClusters, c.maxLoops), c.blockSize,
                  c.paired);
}

// ---- host outputs, poisoned and guarded -------------------------------------------------------

// A host array with a guard zone on each side, all filled with a poison byte before each call,
// so that an element never written keeps the poison and a write just outside the array shows.
template <class T>
class HostGuarded {
public:
  static constexpr std::size_t kGuard = 1024;  // elements on each side
  explicit HostGuarded(std::size_t count) : count_(count), storage_(count + 2 * kGuard) {}
  T* data() { return storage_.data() + kGuard; }
  void poison(unsigned char byte) {
    std::memset(storage_.data(), byte, storage_.size() * sizeof(T));
    byte_ = byte;
  }
  bool intact_guards() const {
    const auto* bytes = reinterpret_cast<const unsigned char*>(storage_.data());
    const std::size_t guard_bytes = kGuard * sizeof(T), after = (kGuard + count_) * sizeof(T);
    for (std::size_t b = 0; b < guard_bytes; ++b)
      if (bytes[b] != byte_ || bytes[after + b] != byte_) return false;
    return true;
  }

private:
  std::size_t count_;
  std::vector<T> storage_;
  unsigned char byte_ = 0;
};

constexpr unsigned char kMembershipPoisonByte = 0xAB;  // kmeans_grading::kMembershipPoison
constexpr unsigned char kClustersPoisonByte = 0xFF;    // NaN

// One call of a version on an instance; the verdict goes into `r`.
void run_once(kmeans::Version version, const Instance& in, CaseResult& r) {
  const Problem& p = in.problem;
  workbook::Stream stream;
  kmeans::Timeline timeline(stream);
  HostGuarded<int> membership(p.numObjs);
  HostGuarded<double> clusters(static_cast<std::size_t>(p.numClusters) * p.numCoords);
  membership.poison(kMembershipPoisonByte);
  clusters.poison(kClustersPoisonByte);

  const int loops = version(in.objects.data(), params_of(in), membership.data(), clusters.data(), timeline);

  const auto v =
      kmeans_grading::check_result(in.objects, p, in.ref, membership.data(), clusters.data(), loops, r.exercise);
  r.metrics = {{"numObjs", p.numObjs},
               {"numCoords", p.numCoords},
               {"numClusters", p.numClusters},
               {"blockSize", in.blockSize},
               {"loops", loops},
               {"expected_loops", in.ref.loops},
               {"wrong_memberships", v.wrong_memberships},
               {"near_ties", v.near_ties},
               {"wrong_centroids", v.wrong_centroids},
               {"max_centroid_error", v.max_centroid_error}};
  if (!v.ok) {
    r.outcome = Outcome::Incorrect;
    r.detail = v.detail;
  } else if (!membership.intact_guards() || !clusters.intact_guards()) {
    r.outcome = Outcome::Incorrect;
    r.detail = "wrote outside the membership or clusters array (memory just before or after it changed)";
  } else {
    r.outcome = Outcome::Passed;
  }
}

int correctness_cases() {
  int n = 0;
  for (const Config& c : kConfigs) n += repeats(c);
  return n;
}

// Plans the exercise's correctness cases (and `extra` more that the test adds), then runs them.
void check_correctness(const std::string& exercise, kmeans::Version version, int extra = 0) {
  grading::plan(exercise, "correctness", correctness_cases() + extra);
  for (int i = 0; i < kConfigCount; ++i) {
    const Config& c = kConfigs[i];
    for (int repeat = 0; repeat < (grading::fewer_cases() ? 1 : repeats(c)); ++repeat) {
      GRADE_CASE(exercise, "correctness", c.name + (repeat ? " #2" : ""),
                 [&](CaseResult& r) { run_once(version, config_instance(i, repeat), r); });
    }
  }
}

// ---- performance ----------------------------------------------------------------------------

// {size MB, coords, clusters, loops}, as the notes wrote their configurations.
struct PerfConfig {
  std::string key;  // "2d" or "16d": the suffix of its thresholds in lab.toml
  int size_mb, coords, clusters, loops;
  std::string str() const {
    return "{" + std::to_string(size_mb) + "," + std::to_string(coords) + "," + std::to_string(clusters) + "," +
           std::to_string(loops) + "}";
  }
};

PerfConfig perf_config(const std::string& key) {
  const auto v = grading::config().int_list("performance.config_" + key);
  if (v.size() != 4)
    throw grader::ConfigError("performance.config_" + key + " must be [size MB, coords, clusters, loops]");
  return {key, v[0], v[1], v[2], v[3]};
}
const char* const kPerfKeys[] = {"2d", "16d"};

const Instance& perf_instance(const PerfConfig& c) {
  const int block = static_cast<int>(grading::config().require_number("performance.block_size"));
  const std::uint64_t stream = 1000000 + 1000 * c.size_mb + 10 * c.coords + c.clusters;
  return instance(stream,
                  problem_of(kmeans_grading::objects_for_size(c.size_mb, c.coords), c.coords, c.clusters, c.loops),
                  block, false);
}

struct Measured {
  workbook::Timing timing;
  std::size_t wrong_calls = 0;  // timed (or warm-up) calls whose result was wrong
  std::string first_wrong;
  kmeans::Breakdown breakdown;  // of the last call
  double outside_ms = 0;        // of the last call: its breakdown's part outside the iterations
};

// Every call of a measurement (warm-up included) gets an input of its own: the objects after the
// first numClusters shuffled within windows (shuffled_call, as the leaderboard does), so results
// kept from an earlier call are wrong. New objects would need a new reference, seconds of CPU
// per call; the shuffle costs a pass over the objects, on all cores.
constexpr std::size_t kShuffleWindow = 64;
// The base of the performance cases' shuffles (one per call), apart from every input's stream.
constexpr std::uint64_t kGradingShuffleStream = std::uint64_t{3} << 32;

// A call's input: in's objects, those after the first numClusters shuffled within windows
// of kShuffleWindow; and the result expected of it: in's reference, each membership moved with
// its object (the loop count and the centroids do not depend on the order). call_seed makes the
// shuffle: one per call, from the run's seed.
void shuffled_call(const Instance& in, std::uint64_t call_seed, std::vector<double>& objects, Reference& expected) {
  const Problem& p = in.problem;
  const std::size_t nc = p.numCoords, first = p.numClusters, n = p.numObjs;
  const std::size_t windows = (n - first + kShuffleWindow - 1) / kShuffleWindow;
  objects.resize(in.objects.size());
  expected = in.ref;
  std::copy_n(in.objects.begin(), first * nc, objects.begin());
  kmeans_grading::parallel_for(
      windows, kmeans_grading::worker_count(n, nc), [&](std::size_t begin, std::size_t end, int) {
        std::size_t from[kShuffleWindow];  // from[j]: the object of `in` that goes to place lo + j
        for (std::size_t w = begin; w < end; ++w) {
          const std::size_t lo = first + w * kShuffleWindow, len = std::min(kShuffleWindow, n - lo);
          workbook::SplitMix64 rng(workbook::derive_seed(call_seed, w));
          std::iota(from, from + len, lo);
          for (std::size_t j = len - 1; j > 0; --j) std::swap(from[j], from[rng.next() % (j + 1)]);  // Fisher-Yates
          for (std::size_t j = 0; j < len; ++j) {
            std::copy_n(&in.objects[from[j] * nc], nc, &objects[(lo + j) * nc]);
            expected.membership[lo + j] = in.ref.membership[from[j]];
          }
        }
      });
}

// The harness's own buffers of a timed call (the call's objects, the memberships it writes, the
// result expected of it), one set per instance, kept from case to case: a fresh 256 MiB vector
// costs a few hundred milliseconds of page faults and zeroing, and its free a few tens more, in
// each of the ten performance cases. The calls see none of them (remote.cpp copies into the
// arena), and every call rewrites the objects and poisons the outputs first.
struct CallBuffers {
  std::vector<double> objects;
  std::vector<int> membership;
  Reference expected;
};
CallBuffers& call_buffers(const Instance& in) {
  static std::map<const Instance*, CallBuffers> buffers;
  CallBuffers& b = buffers[&in];
  b.objects.resize(in.objects.size());
  b.membership.resize(in.problem.numObjs);
  return b;
}

// Times the whole call (host inputs to host results, allocation and transfers included) with
// the workbook's method; every call gets shuffled objects (above) and writes into poisoned
// outputs that are checked afterwards, so a version cannot be fast by being wrong or by
// remembering. A call of a whole program takes up to a second and a half: the timing stops as
// soon as its calls decide the verdict against `limit_ms` (timer.hpp, decided_by_limit).
Measured measure(const std::string& exercise, kmeans::Version version, const Instance& in, double limit_ms) {
  const Problem& p = in.problem;
  workbook::Stream stream;
  kmeans::Timeline timeline(stream);
  CallBuffers& buffers = call_buffers(in);
  std::vector<double>& objects = buffers.objects;
  std::vector<int>& membership = buffers.membership;
  std::vector<double> clusters(static_cast<std::size_t>(p.numClusters) * p.numCoords);
  const kmeans::Params params = params_of(in);
  int loops = 0;
  Reference& expected = buffers.expected;
  Measured m;
  workbook::TimingOptions options = grading::timing_options();
  options.decided = workbook::decided_by_limit(limit_ms, options.min_runs);
  m.timing = workbook::time_gpu(
      stream, [&] { loops = version(objects.data(), params, membership.data(), clusters.data(), timeline); },
      [&] {
        workbook::PhaseScope phase(workbook::Phase::Inputs);
        shuffled_call(in, workbook::derive_seed(grading::seed(), kGradingShuffleStream + grading::timed_draw()),
                      objects, expected);
        timeline.reset();
        std::memset(membership.data(), kMembershipPoisonByte, membership.size() * sizeof(int));
        std::memset(clusters.data(), kClustersPoisonByte, clusters.size() * sizeof(double));
      },
      [&] {
        workbook::PhaseScope phase(workbook::Phase::Check);
        const auto v =
            kmeans_grading::check_result(objects, p, expected, membership.data(), clusters.data(), loops, exercise);
        if (!v.ok && m.wrong_calls++ == 0) m.first_wrong = v.detail;
        m.breakdown = timeline.total();
        m.outside_ms = timeline.outside().sum_ms();
      },
      options);
  return m;
}

double baseline_ms(const PerfConfig& c);

// `exercise` as a plain pointer: GCC 13's -Wdangling-reference takes any class-type temporary
// among the arguments (a std::string made from a literal) for one the result may refer to.
const Measured& measured(const char* exercise, kmeans::Version version, const PerfConfig& c) {
  static std::map<std::string, Measured> cache;
  const std::string key = std::string(exercise) + " " + c.str();
  auto it = cache.find(key);
  if (it == cache.end()) {
    const double limit_ms =
        baseline_ms(c) / grading::threshold(std::string("exercises.") + exercise + ".min_speedup_" + c.key);
    it = cache.emplace(key, measure(exercise, version, perf_instance(c), limit_ms)).first;
  }
  return it->second;
}

// The sequential baseline's median, measured once per machine and configuration (cached).
// Its result is checked against the reference too: a baseline that disagreed would make every
// speedup meaningless.
double baseline_ms(const PerfConfig& c) {
  const auto t = grader::cached_baseline(
      "kmeans/sequential/" + c.str(),
      [&] {
        const Instance& in = perf_instance(c);
        const Problem& p = in.problem;
        std::vector<int> membership(p.numObjs);
        std::vector<double> clusters(static_cast<std::size_t>(p.numClusters) * p.numCoords);
        int loops = 0;
        const auto timing = workbook::time_host(
            [&] {
              loops = kmeans_grading::sequential(in.objects.data(), p.numObjs, p.numCoords, p.numClusters, p.threshold,
                                                 p.maxLoops, membership.data(), clusters.data());
            },
            1, 0.0);  // several seconds of deterministic CPU work: one run
        const auto v = kmeans_grading::check_result(in.objects, p, in.ref, membership.data(), clusters.data(), loops,
                                                    "sequential");
        if (!v.ok)
          throw std::logic_error("internal: the sequential baseline disagrees with the reference: " + v.detail);
        return grader::BaselineTime{timing.ms.median, timing.ms.min, timing.ms.cv, timing.ms.count, false};
      },
      [](const std::string& msg) { std::cout << "  " << msg << std::endl; });
  return t.median_ms;
}

void speedup_verdict(const std::string& exercise, const Measured& m, const PerfConfig& c, CaseResult& r) {
  const double min_speedup = grading::threshold("exercises." + exercise + ".min_speedup_" + c.key);
  const double med = m.timing.ms.median;
  const auto& b = m.breakdown;
  r.metrics = {{"config", c.str()},          {"median_ms", med},
               {"min_ms", m.timing.ms.min},  {"cv", m.timing.ms.robust_cv},
               {"runs", m.timing.ms.count},  {"h2d_ms", b.h2d_ms},
               {"kernels_ms", b.kernels_ms}, {"d2h_ms", b.d2h_ms},
               {"host_ms", b.host_ms},       {"unaccounted_ms", std::max(0.0, med - b.sum_ms())},
               {"min_speedup", min_speedup}};
  std::ostringstream detail;
  detail.precision(3);
  if (m.wrong_calls > 0) {
    r.outcome = Outcome::Incorrect;
    detail << m.wrong_calls << " of " << m.timing.ms.count + grading::timing_options().warmup
           << " calls (warm-up and timed) gave a wrong result, first: " << m.first_wrong;
    r.detail = detail.str();
    return;
  }
  const double base = baseline_ms(c);
  const double speedup = base / med;
  r.metrics["baseline_ms"] = base;
  r.metrics["speedup"] = speedup;
  if (speedup >= min_speedup) {
    r.outcome = Outcome::Passed;
  } else {
    r.outcome = Outcome::TooSlow;
    detail << "median " << med << " ms is " << speedup << "x the sequential baseline (" << base << " ms); needs "
           << min_speedup << "x, i.e. at most " << base / min_speedup << " ms. Last call: host-to-device " << b.h2d_ms
           << " ms, kernels " << b.kernels_ms << " ms, device-to-host " << b.d2h_ms << " ms, host " << b.host_ms
           << " ms";
    // Time the Timeline did not see: allocation and frees, raw copies, and host loops outside
    // timeline.host() (a transpose of the objects on the host, say).
    if (const double other = med - b.sum_ms(); other > 0.1 * med)
      detail << "; " << other << " ms of the median call went through none of the Timeline's helpers "
             << "(cudaMalloc/cudaFree, copies or host loops outside timeline.to_device/to_host/host)";
  }
  r.detail = detail.str();
}

// Plans the exercise's performance cases (and `extra` more that the test adds), then runs them.
void check_performance(const std::string& exercise, kmeans::Version version, int extra = 0) {
  grading::plan(exercise, "performance", static_cast<int>(std::size(kPerfKeys)) + extra);
  for (const char* key : kPerfKeys) {
    const PerfConfig c = perf_config(key);
    GRADE_CASE(exercise, "performance", c.str(),
               [&](CaseResult& r) { speedup_verdict(exercise, measured(exercise.c_str(), version, c), c, r); });
  }
}

}  // namespace

TEST_CASE("naive: correct on every configuration", "[naive][correctness]") {
  check_correctness("naive", kmeans::naive);
}

TEST_CASE("naive: speedup over the sequential baseline", "[naive][performance]") {
  check_performance("naive", kmeans::naive);
}

TEST_CASE("transpose: correct on every configuration", "[transpose][correctness]") {
  check_correctness("transpose", kmeans::transpose);
}

TEST_CASE("transpose: speedup over the sequential baseline", "[transpose][performance]") {
  check_performance("transpose", kmeans::transpose);
}

TEST_CASE("shared: correct on every configuration, and fails clearly when the centroids do not fit",
          "[shared][correctness]") {
  check_correctness("shared", kmeans::shared, 1);

  // 1024 clusters x 64 coordinates = 512 KiB of centroids: more shared memory than any GPU
  // gives a block (227 KiB on an H100). kmeans.h asks for std::invalid_argument, thrown before
  // anything is launched; a CUDA launch error or a silent answer is not a clear failure.
  GRADE_CASE("shared", "correctness", "1024 clusters x 64 coords (512 KiB of centroids): throws std::invalid_argument",
             [](CaseResult& r) {
               Instance in;  // no reference needed: the only right answer is the exception
               in.problem = problem_of(2000, 64, 1024, 10);
               in.objects = kmeans_grading::make_objects(2000, 64, workbook::derive_seed(grading::seed(), 999));
               workbook::Stream stream;
               kmeans::Timeline timeline(stream);
               std::vector<int> membership(in.problem.numObjs);
               std::vector<double> clusters(static_cast<std::size_t>(1024) * 64);
               try {
                 kmeans::shared(in.objects.data(), params_of(in), membership.data(), clusters.data(), timeline);
                 r.outcome = Outcome::Incorrect;
                 r.detail =
                     "returned normally, with centroids that cannot fit in shared memory: it must throw "
                     "std::invalid_argument before launching (see centroids_shared_bytes in shared.cu)";
               } catch (const std::invalid_argument& e) {
                 const std::string what = e.what();
                 r.outcome = what.empty() ? Outcome::Incorrect : Outcome::Passed;
                 if (what.empty())
                   r.detail = "threw std::invalid_argument with an empty message: say what does not fit";
                 r.metrics = {{"message", what}};
               } catch (const workbook::CudaError& e) {
                 if (e.sticky()) throw;  // a fault: the grader stops, as for any crash
                 r.outcome = Outcome::Incorrect;
                 r.detail = std::string(
                                "threw a CUDA error instead of std::invalid_argument (check the size before "
                                "launching): ") +
                            e.what();
               } catch (const remote::CallFailed& e) {
                 if (e.crashed) throw;  // a fault or a hang: recorded as such
                 r.outcome = Outcome::Incorrect;
                 r.detail = std::string(
                                "threw something other than std::invalid_argument (check the size before "
                                "launching): ") +
                            e.what();
               } catch (const std::exception& e) {
                 r.outcome = Outcome::Incorrect;
                 r.detail = std::string("threw something other than std::invalid_argument: ") + e.what();
               }
             });
}

TEST_CASE("shared: speedup over the sequential baseline", "[shared][performance]") {
  check_performance("shared", kmeans::shared);
}

TEST_CASE("all_gpu: correct on every configuration", "[all_gpu][correctness]") {
  check_correctness("all_gpu", kmeans::all_gpu);
}

TEST_CASE("all_gpu: speedup over the sequential baseline", "[all_gpu][performance]") {
  check_performance("all_gpu", kmeans::all_gpu);
}

TEST_CASE("all_gpu_privatized: correct on every configuration", "[all_gpu_privatized][correctness]") {
  check_correctness("all_gpu_privatized", kmeans::all_gpu_privatized);
}

TEST_CASE("all_gpu_privatized: speedup over the sequential baseline and over all_gpu",
          "[all_gpu_privatized][performance]") {
  check_performance("all_gpu_privatized", kmeans::all_gpu_privatized, 2);
  for (const char* key : kPerfKeys) {
    const PerfConfig c = perf_config(key);
    GRADE_CASE("all_gpu_privatized", "performance", c.str() + ": faster than all_gpu", [&](CaseResult& r) {
      const double min_ratio = grading::threshold("exercises.all_gpu_privatized.min_speedup_over_all_gpu");
      const Measured& priv = measured("all_gpu_privatized", kmeans::all_gpu_privatized, c);
      const Measured& glob = measured("all_gpu", kmeans::all_gpu, c);
      // The fastest calls, not the medians: the timing stops once a speedup is decided, after as
      // few as 1 or 3 calls, whose median still carries a version's slow first call (its kernels
      // loaded, its memory mapped) when it is the only one; all_gpu is timed first. The fastest
      // call is each version's speed without that.
      const double ratio = glob.timing.ms.min / priv.timing.ms.min;
      r.metrics = {{"config", c.str()},
                   {"all_gpu_ms", glob.timing.ms.min},
                   {"all_gpu_privatized_ms", priv.timing.ms.min},
                   {"all_gpu_kernels_ms", glob.breakdown.kernels_ms},
                   {"all_gpu_privatized_kernels_ms", priv.breakdown.kernels_ms},
                   {"ratio", ratio},
                   {"min_ratio", min_ratio}};
      grading::threshold_verdict(
          r, priv.wrong_calls > 0 || glob.wrong_calls > 0,
          "both all_gpu and all_gpu_privatized must be correct before their times can be compared", ratio, min_ratio,
          [&](std::ostream& d) {
            d << "all_gpu_privatized takes " << priv.timing.ms.min << " ms (fastest call; kernels "
              << priv.breakdown.kernels_ms << " ms), all_gpu " << glob.timing.ms.min << " ms (kernels "
              << glob.breakdown.kernels_ms << " ms): " << ratio << "x; needs " << min_ratio << "x";
          });
    });
  }
}

// The leaderboard (`grader leaderboard kmeans`, docs/leaderboard-guide.md): hidden tests ([.]),
// run only when asked for by tag. As in the performance cases, the whole call is timed, host
// objects in to host results out (contest.hpp, host_timed), here on [leaderboard] config, and
// every call's result, warm-up included, is checked as the correctness cases check theirs
// (check_result).
//
// The expected result of an input is a whole k-means (on the GPU, device_reference.hpp; on the
// CPU it took about 0.7 s of an H100 host's 16 cores for {256,2,16,10}), so a run makes only
// kLeaderboardInputs inputs from the run's seed, each made and solved once per process
// (instance()'s cache, shared by both tests): call i gets input i % kLeaderboardInputs. Every
// call's input is fresh all the same:
//   - consecutive calls get different inputs, so an output kept from the previous call is wrong;
//   - each call also shuffles the objects after the first numClusters (the initial centroids,
//     which stay in place) within windows of kShuffleWindow, a shuffle of its own from the seed
//     and the call's number. It is the same k-means (only the order in which a cluster's sums
//     are added changes, which the check allows, as it allows atomics), and its expected
//     memberships are the input's, moved with their objects. A program that recognised one of
//     the inputs and replayed an answer it kept would still have to find where each object went:
//     a pass over all 256 MiB on the host, about what the copy to the GPU costs the honest call.
// Neither making the inputs, nor shuffling them, nor the reference is timed: prepare(i) does it.
namespace {

constexpr int kLeaderboardInputs = 3;
// instance()'s streams of the leaderboard's inputs, and the base of its calls' shuffles: above
// every other case's stream (correctness: 100 * index + repeat; performance: from 1000000).
constexpr std::uint64_t kLeaderboardStream = std::uint64_t{1} << 32;

PerfConfig leaderboard_config() {
  const auto v = grading::config().int_list("leaderboard.config");
  if (v.size() != 4) throw grader::ConfigError("leaderboard.config must be [size MB, coords, clusters, loops]");
  return {"leaderboard", v[0], v[1], v[2], v[3]};
}

// Input `input` (0 .. kLeaderboardInputs - 1) and its reference, with the performance cases'
// block size.
const Instance& leaderboard_instance(const PerfConfig& c, int input) {
  const int block = static_cast<int>(grading::config().require_number("performance.block_size"));
  return instance(kLeaderboardStream + input,
                  problem_of(kmeans_grading::objects_for_size(c.size_mb, c.coords), c.coords, c.clusters, c.loops),
                  block, false);
}

void leaderboard_case(const std::string& exercise, kmeans::Version version) {
  const PerfConfig c = leaderboard_config();
  const Instance& input0 = leaderboard_instance(c, 0);
  const Problem& p = input0.problem;  // every input's
  const kmeans::Params params = params_of(input0);
  workbook::Stream stream;  // the contest's rules need one; the version does its work on it
  kmeans::Timeline timeline(stream);
  std::vector<double> objects;
  Reference expected;
  std::vector<int> membership(p.numObjs);
  std::vector<double> clusters(static_cast<std::size_t>(p.numClusters) * p.numCoords);
  int loops = 0;
  workbook::ContestOptions options = grading::contest_options();
  options.host_timed = true;  // a whole program: the host clock sees every stream and its host work
  const auto result = workbook::time_contest(
      stream,
      [&](int i) {
        shuffled_call(leaderboard_instance(c, i % kLeaderboardInputs),
                      workbook::derive_seed(grading::seed(), kLeaderboardStream + 1000 + i), objects, expected);
        timeline.reset();
        loops = 0;
        std::memset(membership.data(), kMembershipPoisonByte, membership.size() * sizeof(int));
        std::memset(clusters.data(), kClustersPoisonByte, clusters.size() * sizeof(double));
      },
      [&] { loops = version(objects.data(), params, membership.data(), clusters.data(), timeline); },
      [&](int) {
        const auto v =
            kmeans_grading::check_result(objects, p, expected, membership.data(), clusters.data(), loops, exercise);
        return v.ok ? std::string() : v.detail;
      },
      options);
  grading::record_own_entry(exercise, result);
}

}  // namespace

TEST_CASE("all_gpu: leaderboard timing of the whole program", "[all_gpu][leaderboard][.]") {
  leaderboard_case("all_gpu", kmeans::all_gpu);
}

TEST_CASE("all_gpu_privatized: leaderboard timing of the whole program", "[all_gpu_privatized][leaderboard][.]") {
  leaderboard_case("all_gpu_privatized", kmeans::all_gpu_privatized);
}

// The sequential baselines alone (hidden: `grader calibrate` runs them where there is no
// reference solution to time, to learn this CPU's speed; the times land in the baseline cache).
TEST_CASE("the sequential baselines, for grader calibrate", "[baseline][.]") {
  for (const char* key : kPerfKeys) CHECK(baseline_ms(perf_config(key)) > 0);
}
