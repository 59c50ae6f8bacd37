// The CPU reference of the kmeans lab and the comparison of a result with it.
//
// The reference is the algorithm of kmeans.h in double precision, spread over the machine's
// cores (each thread sums its contiguous share of the objects; the shares are added in thread
// order, so it is deterministic). It also keeps the centroids its last assignment used, which
// tell whether an object that a result puts in another cluster was a near-tie.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace kmeans_grading {

struct Problem {
  int numObjs = 0, numCoords = 0, numClusters = 0;
  double threshold = 0.001;
  int maxLoops = 10;
};

struct Reference {
  std::vector<int> membership;
  std::vector<double> clusters;       // the final centroids, [numClusters][numCoords]
  std::vector<double> assigned_with;  // the centroids the last assignment used
  int loops = 0;
};

Reference reference_kmeans(const std::vector<double>& objects, const Problem& p);

// Two squared distances are "within rounding" of each other when they differ by at most this,
// relative to the larger of 1 and the distance: far more than double rounding can explain
// (about 1e-15 relative), far less than any real difference between two centroids.
constexpr double kNearTie = 1e-9;
// The centroids' tolerance: |got - expected| <= kCentroidTolerance * max(1, |expected|). The
// sums of a cluster's coordinates, added in another order (atomics), differ from the
// reference's by rounding only, far below this; sums accumulated in float miss it by far.
constexpr double kCentroidTolerance = 1e-9;

// What the grader's poison of the membership array looks like (bytes 0xAB).
constexpr int kMembershipPoison = static_cast<int>(0xABABABABu);

struct Verdict {
  bool ok = false;
  std::string detail;  // empty when ok
  std::size_t wrong_memberships = 0;
  std::size_t near_ties = 0;  // memberships that differ from the reference's by a near-tie
  std::size_t wrong_centroids = 0;
  double max_centroid_error = 0;  // relative, over the finite centroids
};

// Compares a result (membership, clusters, loops) with the reference:
//   - the same number of iterations;
//   - every membership in [0, numClusters) and equal to the reference's, except for objects
//     whose distances to the two centroids (those the reference's last assignment used) are
//     within kNearTie of each other;
//   - every centroid within kCentroidTolerance of the mean of its members under the result's
//     own memberships (which are the reference's, but for near-ties).
// `exercise` names the TODOs to point at when nothing was written.
Verdict check_result(const std::vector<double>& objects, const Problem& p, const Reference& ref, const int* membership,
                     const double* clusters, int loops, const std::string& exercise);

}  // namespace kmeans_grading
