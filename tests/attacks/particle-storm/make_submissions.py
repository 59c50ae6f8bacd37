#!/usr/bin/env python3
"""Builds particle-storm's attack submissions from the reference solution:
make_submissions.py <source-root> <out-dir>. Each submission is a whole storm.cu (the reference
with its starter markers stripped, then changed); expected.tsv beside this file says what each
must get from `grader batch`, check_board.py what `grader leaderboard` must make of them.

  good, good-copy  the reference, twice: the honest controls (100/100, valid on the board)
  sparse-layer     simulate() swaps in an update that computes only the cells within REACH of
                   an impact of any of its storms (it knows them all before the first: 5% of the
                   layer per storm at the leaderboard's workload, where each storm's maximum stays
                   right; the other cells are never touched) on layers of 2^20 cells and more,
                   when it is given its own steps (the grader's steps, and update() graded on its
                   own, stay honest)
  cache-storms     simulate() keeps a hash of (layer size, steps, storms) and returns the results
                   it remembers for storms it has seen, without running anything
"""
import os, re, sys

# The reference without its starter markers, as tests/attacks/make_submissions.py's solution_text
# (grader/src/release/starter.hpp): the BEGIN SOLUTION / STARTER / END SOLUTION lines and the
# starter's //| lines.
def solution_text(path):
    return re.sub(r'^[ \t]*//( BEGIN SOLUTION.*| STARTER| END SOLUTION|\|.*)\n', '', open(path).read(), flags=re.M)

src, out = sys.argv[1:3]
ref = solution_text(f'{src}/solutions/particle-storm/storm.cu')
signature = 'std::vector<Result> simulate(int layer_size, const std::vector<Storm>& storms, const Steps& steps) {\n'
assert signature in ref and ref.count(signature) == 1
tail = '  return results;\n}\n\n}  // namespace storm'
assert ref.rstrip().endswith(tail.rstrip()), ref[-200:]

SPARSE = r'''// ---- attack: an update of the cells near the particles only -------------------------------------
namespace attack {
constexpr int REACH = 12;  // cells each side of an impact: 2048 particles x 25 cells = 5% of 2^20

// One block per particle (of every storm): marks the cells within REACH of its impact.
__global__ void markKernel(unsigned char* mark, int layer_size, const int* posval) {
  const long long k = (long long)posval[2 * blockIdx.x] - REACH + threadIdx.x;
  if (threadIdx.x <= 2 * REACH && k >= 0 && k < layer_size) mark[k] = 1;
}

// Every particle's energy, as the reference adds it, into the marked cells only.
__global__ void sparseUpdateKernel(float* layer, int layer_size, const int* posval, int num_particles,
                                   const unsigned char* mark) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= layer_size || !mark[k]) return;
  const float reciprocal = 1.0f / layer_size;
  const float threshold = THRESHOLD / layer_size;
  float value = layer[k];
  for (int j = 0; j < num_particles; ++j) {
    const int2 p = reinterpret_cast<const int2*>(posval)[j];
    const float distance = (float)(llabs((long long)p.x - k) + 1);
    const float energy_k = (float)p.y * 1000.0f * reciprocal * rsqrtf(distance);
    if (fabsf(energy_k) >= threshold) value += energy_k;
  }
  layer[k] = value;
}

unsigned char* g_mark = nullptr;
int g_mark_size = 0;

// Before the first storm: the cells near every storm's impacts (all the particles, uploaded).
void mark_all(int layer_size, const int* posval, int num_particles, cudaStream_t stream) {
  if (g_mark_size < layer_size) {
    if (g_mark) CUDA_CHECK(cudaFree(g_mark));
    CUDA_CHECK(cudaMalloc(&g_mark, layer_size));
    g_mark_size = layer_size;
  }
  CUDA_CHECK(cudaMemsetAsync(g_mark, 0, layer_size, stream));
  if (num_particles > 0) CUDA_CHECK_LAUNCH(markKernel<<<num_particles, 32, 0, stream>>>(g_mark, layer_size, posval));
}

void sparse_update(float* layer, int layer_size, const int* posval, int num_particles, cudaStream_t stream) {
  if (num_particles == 0) return;
  CUDA_CHECK_LAUNCH(sparseUpdateKernel<<<ceil_div(layer_size, 256), 256, 0, stream>>>(layer, layer_size, posval,
                                                                                     num_particles, g_mark));
}
}  // namespace attack

'''
# The layer zeroed, the particles up: mark the cells near every storm's impacts, once.
zeroed = '  CUDA_CHECK(cudaMemsetAsync(layer.data(), 0, layer.bytes(), stream));  // all bits 0 is 0.0f\n'
assert ref.count(zeroed) == 1
sparse = ref.replace(zeroed, zeroed + '  if (steps.update == attack::sparse_update)\n'
                     '    attack::mark_all(layer_size, d_posval.data(), static_cast<int>(posval.size() / 2), stream);\n')
sparse = sparse.replace(signature, SPARSE + signature.replace('const Steps& steps', 'const Steps& given') +
                     '  Steps steps = given;\n'
                     '  if (steps.update == update && layer_size >= (1 << 20)) steps.update = attack::sparse_update;\n')
# ceil_div lives in the reference's anonymous namespace, before simulate(): visible here.
assert 'ceil_div(' in ref

CACHE = r'''// ---- attack: results remembered by a hash of the storms ------------------------------------------
namespace attack {
std::uint64_t key_of(int layer_size, const std::vector<Storm>& storms, const Steps& steps) {
  std::uint64_t h = 1469598103934665603ull;
  const auto mix = [&h](std::uint64_t v) { h = (h ^ v) * 1099511628211ull; };
  mix(std::uint64_t(layer_size));
  mix(reinterpret_cast<std::uintptr_t>(steps.update));
  mix(reinterpret_cast<std::uintptr_t>(steps.relax));
  mix(reinterpret_cast<std::uintptr_t>(steps.maximum));
  for (const Storm& s : storms) {
    mix(s.posval.size());
    for (int v : s.posval) mix(std::uint32_t(v));
  }
  return h;
}
std::map<std::uint64_t, std::vector<Result>> g_remembered;
}  // namespace attack

'''
cache = ref.replace(signature, CACHE + signature +
                    '  const std::uint64_t key = attack::key_of(layer_size, storms, steps);\n'
                    '  if (const auto it = attack::g_remembered.find(key); it != attack::g_remembered.end()) return it->second;\n')
at = cache.rindex('  return results;\n}')
cache = cache[:at] + '  attack::g_remembered[key] = results;\n' + cache[at:]
cache = cache.replace('#include <algorithm>\n', '#include <algorithm>\n#include <cstdint>\n#include <map>\n', 1)

subs = {'good': ref, 'good-copy': ref, 'sparse-layer': sparse, 'cache-storms': cache}
for name, text in subs.items():
    os.makedirs(f'{out}/{name}', exist_ok=True)
    open(f'{out}/{name}/storm.cu', 'w').write(text)
