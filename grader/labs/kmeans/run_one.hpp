// One timed run of a kmeans version, as the runner and the benchmark make it: the wall time of
// the whole call beside the Timeline's breakdown (timeline.h), and what the breakdown leaves
// unexplained (allocation, frees, anything done outside the Timeline's helpers).
#pragma once

#include "kmeans.h"

#include <algorithm>
#include <chrono>
#include <vector>

namespace kmeans_grading {

struct Run {
  int loops = 0;
  double wall_ms = 0;                         // the whole call, host inputs to host results
  std::vector<kmeans::Breakdown> iterations;  // one per iteration
  kmeans::Breakdown outside;                  // setup and final copies
  kmeans::Breakdown total;                    // outside + iterations
  double other_ms() const { return std::max(0.0, wall_ms - total.sum_ms()); }
  // The median over the iterations of f(iteration).
  template <class F>
  double iteration_median(F f) const {
    std::vector<double> v;
    for (const auto& b : iterations) v.push_back(f(b));
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
  }
};

inline Run run_one(kmeans::Version version, const double* objects, const kmeans::Params& params, int* membership,
                   double* clusters, cudaStream_t stream) {
  kmeans::Timeline timeline(stream);
  Run r;
  const auto t0 = std::chrono::steady_clock::now();
  r.loops = version(objects, params, membership, clusters, timeline);
  CUDA_CHECK(cudaStreamSynchronize(stream));
  r.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  r.iterations = timeline.iterations();
  r.outside = timeline.outside();
  r.total = timeline.total();
  return r;
}

}  // namespace kmeans_grading
