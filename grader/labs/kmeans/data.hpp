// The inputs of the kmeans lab: objects generated deterministically from a seed, one random
// stream per object, so that object i is the same whatever the number of objects or threads,
// on every machine (SplitMix64, see workbook/random.hpp).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace kmeans_grading {

// The notes' configuration {size MB, coords, clusters, loops}: numObjs = size * 2^20 / (coords * 8),
// so that the objects take `size` MiB.
int objects_for_size(double size_mb, int numCoords);

// numObjs x numCoords doubles in [0, 10), row-major. Object i is drawn from its own stream,
// derive_seed(seed, i). With paired_centroids, the first numClusters objects come in identical
// pairs (objects 2m and 2m+1 are both drawn from stream m), which makes exact ties between
// centroids and clusters that start empty.
std::vector<double> make_objects(int numObjs, int numCoords, std::uint64_t seed, bool paired_centroids = false,
                                 int numClusters = 0);

// How many threads to give n items of `work` units each (about one thread per million units,
// at most the machine's cores, at most 32).
int worker_count(std::size_t n, std::size_t work = 1);
// Runs body(begin, end, t) over [0, n) split into `workers` contiguous chunks, one per thread;
// chunk t is [begin, end) in order, so a caller that combines per-thread results in thread
// order is deterministic.
void parallel_for(std::size_t n, int workers, const std::function<void(std::size_t, std::size_t, int)>& body);

}  // namespace kmeans_grading
