#include "data.hpp"

#include "workbook/random.hpp"

#include <algorithm>
#include <thread>

namespace kmeans_grading {

int objects_for_size(double size_mb, int numCoords) {
  return static_cast<int>(size_mb * 1024 * 1024 / (numCoords * sizeof(double)));
}

int worker_count(std::size_t n, std::size_t work) {
  const unsigned cores = std::min(32u, std::max(1u, std::thread::hardware_concurrency()));
  const std::size_t useful = std::max<std::size_t>(1, n * work / (1u << 20));
  return static_cast<int>(std::min<std::size_t>(cores, useful));
}

void parallel_for(std::size_t n, int workers, const std::function<void(std::size_t, std::size_t, int)>& body) {
  if (workers <= 1) {
    body(0, n, 0);
    return;
  }
  std::vector<std::thread> pool;
  for (int t = 0; t < workers; ++t) {
    const std::size_t begin = n * t / workers, end = n * (t + 1) / workers;
    pool.emplace_back(body, begin, end, t);
  }
  for (auto& th : pool) th.join();
}

std::vector<double> make_objects(int numObjs, int numCoords, std::uint64_t seed, bool paired_centroids,
                                 int numClusters) {
  std::vector<double> objects(static_cast<std::size_t>(numObjs) * numCoords);
  parallel_for(numObjs, worker_count(numObjs, 8 * numCoords), [&](std::size_t begin, std::size_t end, int) {
    for (std::size_t i = begin; i < end; ++i) {
      const std::uint64_t stream = (paired_centroids && i < static_cast<std::size_t>(numClusters)) ? i / 2 : i;
      workbook::SplitMix64 rng(workbook::derive_seed(seed, stream));
      for (int j = 0; j < numCoords; ++j) objects[i * numCoords + j] = 10.0 * rng.uniform();
    }
  });
  return objects;
}

}  // namespace kmeans_grading
