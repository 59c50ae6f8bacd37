// kmeans' five versions, called in the harness and run in the runner (grader/remote/).
//
// A version is a whole program on host data: the objects in, the memberships and centroids out,
// sizes given by Params, and a Timeline for the breakdown. So the generic WORKBOOK_REMOTE line
// (device pointers and plain values) does not fit, and this file writes both sides by hand:
//
//   harness  copies the objects and the poisoned outputs into the arena (remote/arena.hpp),
//            sends Params and where each array lies, copies the outputs back after the reply,
//            and loads the runner's breakdown into the caller's Timeline (for the report only:
//            the grader's time is the harness's own clock, from the call to `done`);
//   runner   calls the student's version on the arena's arrays with a Timeline on its own
//            stream, and answers with the number of iterations and the Timeline's parts.
#include "kmeans.h"
#include "remote/arena.hpp"
#include "remote/call.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <vector>

namespace {

struct Arguments {
  kmeans::Params params;
  remote::HostBlock objects, membership, clusters;
};

// The breakdown of at most this many iterations comes back (the reply is one message).
constexpr std::uint32_t kMaxIterations = 500;

std::size_t objects_bytes(const kmeans::Params& p) {
  return static_cast<std::size_t>(std::max(p.numObjs, 0)) * static_cast<std::size_t>(std::max(p.numCoords, 0)) *
         sizeof(double);
}
std::size_t membership_bytes(const kmeans::Params& p) {
  return static_cast<std::size_t>(std::max(p.numObjs, 0)) * sizeof(int);
}
std::size_t clusters_bytes(const kmeans::Params& p) {
  return static_cast<std::size_t>(std::max(p.numClusters, 0)) * static_cast<std::size_t>(std::max(p.numCoords, 0)) *
         sizeof(double);
}

}  // namespace

#ifdef WORKBOOK_RUNNER

namespace {

// Decodes a call when it is prepared (before the clock), and returns the call itself.
template <kmeans::Version Version>
remote::Bound bind_version(remote::Reader& in) {
  const auto a = in.get<Arguments>();
  if (!in.done()) throw std::runtime_error("malformed call (arguments left over)");
  if (a.objects.bytes != objects_bytes(a.params) || a.membership.bytes != membership_bytes(a.params) ||
      a.clusters.bytes != clusters_bytes(a.params))
    throw std::runtime_error("malformed call (array sizes do not match the parameters)");
  const auto* objects = static_cast<const double*>(remote::arena_open(a.objects));
  auto* membership = static_cast<int*>(remote::arena_open(a.membership));
  auto* clusters = static_cast<double*>(remote::arena_open(a.clusters));
  return [=](remote::Writer& out) {
    kmeans::Timeline timeline(remote::runner_stream());
    const int loops = Version(objects, a.params, membership, clusters, timeline);
    // Reading the parts waits for the stream (the version's work is over by then anyway: its
    // results are on the host when it returns) and costs microseconds per part.
    const std::vector<kmeans::Breakdown> iterations = timeline.iterations();
    out.put(loops);
    out.put(timeline.outside());
    const auto n = static_cast<std::uint32_t>(std::min<std::size_t>(iterations.size(), kMaxIterations));
    out.put(n);
    for (std::uint32_t i = 0; i < n; ++i) out.put(iterations[i]);
  };
}

const remote::Registration naive_registration("kmeans::naive", &bind_version<kmeans::naive>);
const remote::Registration transpose_registration("kmeans::transpose", &bind_version<kmeans::transpose>);
const remote::Registration shared_registration("kmeans::shared", &bind_version<kmeans::shared>);
const remote::Registration all_gpu_registration("kmeans::all_gpu", &bind_version<kmeans::all_gpu>);
const remote::Registration all_gpu_privatized_registration("kmeans::all_gpu_privatized",
                                                           &bind_version<kmeans::all_gpu_privatized>);

}  // namespace

#else

namespace {

int call(const char* name, const double* objects, const kmeans::Params& params, int* membership, double* clusters,
         kmeans::Timeline& timeline) {
  remote::arena_begin();
  Arguments a;
  a.params = params;
  a.objects = remote::arena_put(objects, objects_bytes(params), "the objects");
  a.membership = remote::arena_put(membership, membership_bytes(params), "membership");
  a.clusters = remote::arena_put(clusters, clusters_bytes(params), "clusters");
  remote::Writer w;
  w.put(a);
  remote::note_call_stream(timeline.stream());
  const std::vector<unsigned char> value = remote::invoke(name, w);

  std::memcpy(membership, remote::arena_data(a.membership), a.membership.bytes);
  std::memcpy(clusters, remote::arena_data(a.clusters), a.clusters.bytes);
  remote::Reader r(value);
  const int loops = r.get<int>();
  const auto outside = r.get<kmeans::Breakdown>();
  std::vector<kmeans::Breakdown> iterations(std::min(r.get<std::uint32_t>(), kMaxIterations));
  for (auto& b : iterations) b = r.get<kmeans::Breakdown>();
  timeline.load(iterations, outside);
  return loops;
}

}  // namespace

namespace kmeans {
int naive(const double* objects, const Params& params, int* membership, double* clusters, Timeline& timeline) {
  return call("kmeans::naive", objects, params, membership, clusters, timeline);
}
int transpose(const double* objects, const Params& params, int* membership, double* clusters, Timeline& timeline) {
  return call("kmeans::transpose", objects, params, membership, clusters, timeline);
}
int shared(const double* objects, const Params& params, int* membership, double* clusters, Timeline& timeline) {
  return call("kmeans::shared", objects, params, membership, clusters, timeline);
}
int all_gpu(const double* objects, const Params& params, int* membership, double* clusters, Timeline& timeline) {
  return call("kmeans::all_gpu", objects, params, membership, clusters, timeline);
}
int all_gpu_privatized(const double* objects, const Params& params, int* membership, double* clusters,
                       Timeline& timeline) {
  return call("kmeans::all_gpu_privatized", objects, params, membership, clusters, timeline);
}
}  // namespace kmeans

#endif
