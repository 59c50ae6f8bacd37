#include "reference.hpp"

#include "data.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace kmeans_grading {
namespace {

double dist2(const double* object, const double* centroid, int numCoords) {
  double ans = 0.0;
  for (int j = 0; j < numCoords; ++j) {
    const double d = object[j] - centroid[j];
    ans += d * d;
  }
  return ans;
}

int nearest(const double* object, const std::vector<double>& clusters, int numClusters, int numCoords) {
  int index = 0;
  double min_dist = dist2(object, clusters.data(), numCoords);
  for (int k = 1; k < numClusters; ++k) {
    const double d = dist2(object, clusters.data() + static_cast<std::size_t>(k) * numCoords, numCoords);
    if (d < min_dist) {
      min_dist = d;
      index = k;
    }
  }
  return index;
}

// Means of each cluster's members; an empty cluster keeps `previous`.
std::vector<double> means(const std::vector<double>& objects, const Problem& p, const int* membership,
                          const std::vector<double>& previous) {
  const int nc = p.numCoords, K = p.numClusters;
  const int workers = worker_count(p.numObjs, nc);
  std::vector<std::vector<double>> sums(workers, std::vector<double>(static_cast<std::size_t>(K) * nc, 0.0));
  std::vector<std::vector<long>> sizes(workers, std::vector<long>(K, 0));
  parallel_for(p.numObjs, workers, [&](std::size_t begin, std::size_t end, int t) {
    for (std::size_t i = begin; i < end; ++i) {
      const int k = membership[i];
      ++sizes[t][k];
      for (int j = 0; j < nc; ++j) sums[t][static_cast<std::size_t>(k) * nc + j] += objects[i * nc + j];
    }
  });
  std::vector<double> out = previous;
  for (int k = 0; k < K; ++k) {
    long size = 0;
    for (int t = 0; t < workers; ++t) size += sizes[t][k];
    if (size == 0) continue;
    for (int j = 0; j < nc; ++j) {
      double sum = 0;
      for (int t = 0; t < workers; ++t) sum += sums[t][static_cast<std::size_t>(k) * nc + j];
      out[static_cast<std::size_t>(k) * nc + j] = sum / size;
    }
  }
  return out;
}

std::string membership_value(int v, int numClusters) {
  std::ostringstream s;
  s << v;
  if (v == kMembershipPoison)
    s << " (the grader's poison: never written)";
  else if (v == -1)
    s << " (no cluster: never assigned)";
  else if (v < 0 || v >= numClusters)
    s << " (not a cluster index)";
  return s.str();
}

}  // namespace

Reference reference_kmeans(const std::vector<double>& objects, const Problem& p) {
  const int nc = p.numCoords, K = p.numClusters;
  Reference r;
  r.clusters.assign(objects.begin(), objects.begin() + static_cast<std::size_t>(K) * nc);
  r.membership.assign(p.numObjs, -1);
  const int workers = worker_count(p.numObjs, static_cast<std::size_t>(K) * nc);
  std::vector<long> changed(workers);
  double delta = 0;
  do {
    r.assigned_with = r.clusters;
    parallel_for(p.numObjs, workers, [&](std::size_t begin, std::size_t end, int t) {
      long c = 0;
      for (std::size_t i = begin; i < end; ++i) {
        const int index = nearest(&objects[i * nc], r.clusters, K, nc);
        if (r.membership[i] != index) ++c;
        r.membership[i] = index;
      }
      changed[t] = c;
    });
    r.clusters = means(objects, p, r.membership.data(), r.clusters);
    long total = 0;
    for (long c : changed) total += c;
    delta = static_cast<double>(total) / p.numObjs;
    ++r.loops;
  } while (delta > p.threshold && r.loops < p.maxLoops);
  return r;
}

Verdict check_result(const std::vector<double>& objects, const Problem& p, const Reference& ref, const int* membership,
                     const double* clusters, int loops, const std::string& exercise) {
  Verdict v;
  const int nc = p.numCoords, K = p.numClusters;
  std::ostringstream detail;
  detail.precision(17);

  // 1. Memberships: valid, and the reference's but for near-ties.
  std::size_t first_wrong = 0, never_written = 0;
  double first_d_ref = 0, first_d_got = 0;
  for (std::size_t i = 0; i < static_cast<std::size_t>(p.numObjs); ++i) {
    const int got = membership[i], want = ref.membership[i];
    if (got == want) continue;
    bool near_tie = false;
    double d_ref = 0, d_got = 0;
    if (got >= 0 && got < K) {
      d_ref = dist2(&objects[i * nc], &ref.assigned_with[static_cast<std::size_t>(want) * nc], nc);
      d_got = dist2(&objects[i * nc], &ref.assigned_with[static_cast<std::size_t>(got) * nc], nc);
      near_tie = std::fabs(d_got - d_ref) <= kNearTie * std::max({1.0, d_ref, d_got});
    } else if (got == -1 || got == kMembershipPoison) {
      ++never_written;
    }
    if (near_tie) {
      ++v.near_ties;
    } else if (v.wrong_memberships++ == 0) {
      first_wrong = i;
      first_d_ref = d_ref;
      first_d_got = d_got;
    }
  }

  // 2. Centroids: the means under the result's own memberships (the reference's when they agree).
  std::vector<double> expected = ref.clusters;
  if (v.near_ties > 0 && v.wrong_memberships == 0) expected = means(objects, p, membership, ref.assigned_with);
  std::size_t first_bad = 0;
  for (std::size_t e = 0; e < expected.size(); ++e) {
    const double want = expected[e], got = clusters[e];
    const double err = std::fabs(got - want);
    const bool ok = std::isfinite(got) && err <= kCentroidTolerance * std::max(1.0, std::fabs(want));
    if (std::isfinite(got)) v.max_centroid_error = std::max(v.max_centroid_error, err / std::max(1.0, std::fabs(want)));
    if (!ok && v.wrong_centroids++ == 0) first_bad = e;
  }

  // 3. The verdict: loops first (it explains the rest), then memberships, then centroids.
  std::vector<std::string> problems;
  if (loops != ref.loops) {
    std::ostringstream s;
    s << "ran " << loops << " iterations, expected " << ref.loops;
    problems.push_back(s.str());
  }
  if (v.wrong_memberships > 0) {
    const std::size_t i = first_wrong;
    std::ostringstream s;
    s << "membership[" << i << "]: expected " << ref.membership[i] << ", got " << membership_value(membership[i], K);
    if (membership[i] >= 0 && membership[i] < K) {
      s.precision(6);
      s << " (squared distances " << first_d_ref << " and " << first_d_got << " to those centroids: not a near-tie)";
    }
    s << "; " << v.wrong_memberships << " of " << p.numObjs << " memberships wrong";
    if (never_written == static_cast<std::size_t>(p.numObjs))
      s << "; no object was assigned: see the TODO(" << exercise << ") steps";
    problems.push_back(s.str());
  }
  if (v.wrong_centroids > 0) {
    const std::size_t k = first_bad / nc, j = first_bad % nc;
    std::ostringstream s;
    s.precision(12);
    s << "clusters[" << k << "][" << j << "]: expected " << expected[first_bad] << ", got " << clusters[first_bad]
      << "; " << v.wrong_centroids << " of " << expected.size() << " centroid values wrong";
    problems.push_back(s.str());
  }
  v.ok = problems.empty();
  for (std::size_t n = 0; n < problems.size(); ++n) detail << (n ? "; " : "") << problems[n];
  v.detail = detail.str();
  return v;
}

}  // namespace kmeans_grading
