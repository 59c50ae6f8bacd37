#!/usr/bin/env python3
"""Builds the attack suite's submission folder for matmul-tiled from the shipped starter and the
reference: make_submissions.py <source-root> <build-root> <out-dir>. Each submission is one
attack (fixtures/*.cu.in added to a starter or a reference, or the reference changed); expected.tsv
says what each must get."""
import os, re, sys

# The reference without its starter markers (grader/src/release/starter.hpp): the BEGIN SOLUTION /
# STARTER / END SOLUTION lines and the starter's //| lines.
def solution_text(path):
    return re.sub(r'^[ \t]*//( BEGIN SOLUTION.*| STARTER| END SOLUTION|\|.*)\n', '', open(path).read(), flags=re.M)

# make_submissions.py <src> <build> <out> [--only a,b,...]: every submission, or only those named.
# make_submissions.py <src> <build> <out> --copies N [--lab LAB]: N copies of LAB's reference
# (ref-1 .. ref-N), for a leaderboard that must tie them (board-on-gpu.sh --copies).
args = sys.argv[1:]
def option(name, default=None):
    if name not in args: return default
    i = args.index(name)
    value = args[i + 1]
    del args[i:i + 2]
    return value
only, copies, lab = option('--only'), option('--copies'), option('--lab', 'matmul-tiled')
src, build, out = args[:3]
if copies:
    text = solution_text(f'{src}/solutions/{lab}/' + {'matmul-tiled': 'matmul.cu', 'coalescing': 'coalescing.cu'}[lab])
    for i in range(1, int(copies) + 1):
        os.makedirs(f'{out}/ref-{i}', exist_ok=True)
        open(f'{out}/ref-{i}/' + ('matmul.cu' if lab == 'matmul-tiled' else 'coalescing.cu'), 'w').write(text)
    sys.exit(0)
starter = open(f'{src}/labs/matmul-tiled/matmul.cu').read()
ref = solution_text(f'{src}/solutions/matmul-tiled/matmul.cu')
fx = lambda name: open(f'{os.path.dirname(__file__)}/fixtures/{name}.cu.in').read() \
    .replace('WORKBOOK_ATTACK_BUILD_ROOT', f'"{build}"').replace('WORKBOOK_ATTACK_SOURCE_ROOT', f'"{src}"')
launch = 'CUDA_CHECK_LAUNCH(naiveKernel<<<grid, block, 0, stream>>>(A, B, C, M, N, K));'
head = '  const int Row = blockIdx.y * blockDim.y + threadIdx.y;\n  const int Col = blockIdx.x * blockDim.x + threadIdx.x;\n  if (Row < M && Col < N) {  // the grid'
assert launch in ref and head in ref
# tiled() as the reference writes it, then variants of it: 20 launches per call (an honest but slow
# tiled, the control of the caches), and the same with a cache of results in front.
tiled_fn = re.search(r'void tiled\(const float\* A.*?\n}\n', ref, flags=re.S).group(0)
tiled_call = '    case 32: launchTiled<32>(A, B, C, M, N, K, stream); break;'
assert tiled_call in tiled_fn
slow = ref.replace(tiled_call, '    case 32: for (int rep = 0; rep < 20; ++rep) launchTiled<32>(A, B, C, M, N, K, stream); break;')
slow_fn = tiled_fn.replace(tiled_call, '    case 32: for (int rep = 0; rep < 20; ++rep) launchTiled<32>(A, B, C, M, N, K, stream); break;')
def cached(fixture, lookup, store):
    """The slow tiled() with a cache: `lookup` returns early on a hit, `store` saves C after."""
    body = slow_fn.replace('  switch (tile_width) {', lookup + '\n  switch (tile_width) {', 1)
    body = body[:body.rindex('}')] + store + '\n}\n'
    return '#include <cstdint>\n#include <cstring>\n' + slow.replace(slow_fn, body) \
        .replace('namespace matmul {', fx(fixture) + '\nnamespace matmul {', 1)
# The tiled kernel's loads without their bounds checks (the store keeps its own): what lies past
# the end of A or B is read as if it were a zero.
unchecked_loads = ref.replace('Mds[ty][tx] = (Row < M && aCol < K) ? A[Row * K + aCol] : 0.0f;', 'Mds[ty][tx] = A[Row * K + aCol];') \
                     .replace('Nds[ty][tx] = (bRow < K && Col < N) ? B[bRow * N + Col] : 0.0f;', 'Nds[ty][tx] = B[bRow * N + Col];')
assert unchecked_loads.count('A[Row * K + aCol];') == 1
# The tiled kernel's body, for the honest controls that write it another way.
tiled_body = re.search(r'(__global__ void tiledKernel\(.*?\) \{\n)(.*?)(\n}\n)', ref, flags=re.S)
helper_body = '  const int Row = blockIdx.y * TILE_WIDTH + threadIdx.y, Col = blockIdx.x * TILE_WIDTH + threadIdx.x;\n' \
              '  const float Pvalue = tile_product<TILE_WIDTH>(A, B, M, N, K, Row, Col);\n' \
              '  if (Row < M && Col < N) C[Row * N + Col] = Pvalue;'
tiles_in_helper = ref.replace(tiled_body.group(2), helper_body).replace('namespace matmul {', fx('tiles-in-helper') + '\nnamespace matmul {', 1)
dynamic_body = tiled_body.group(2).replace('  __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];\n  __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];\n',
    '  float (*Mds)[TILE_WIDTH] = reinterpret_cast<float (*)[TILE_WIDTH]>(dynamic_tiles);\n'
    '  float (*Nds)[TILE_WIDTH] = reinterpret_cast<float (*)[TILE_WIDTH]>(dynamic_tiles + TILE_WIDTH * TILE_WIDTH);\n')
assert dynamic_body != tiled_body.group(2)
dynamic_shared = ref.replace(tiled_body.group(2), dynamic_body) \
    .replace('tiledKernel<TILE_WIDTH><<<grid, block, 0, stream>>>', 'tiledKernel<TILE_WIDTH><<<grid, block, 2 * TILE_WIDTH * TILE_WIDTH * sizeof(float), stream>>>') \
    .replace('namespace matmul {', fx('dynamic-shared') + '\nnamespace matmul {', 1)
assert 'sizeof(float), stream>>>' in dynamic_shared
# cooperative-groups tiles: the kernel's body is calls of helpers (fixtures/cg-tiles.cu.in).
cg_body = '  Tiles<TILE_WIDTH>& tiles = block_tiles<TILE_WIDTH>();\n' \
          '  const int row = blockIdx.y * TILE_WIDTH + threadIdx.y, col = blockIdx.x * TILE_WIDTH + threadIdx.x;\n' \
          '  float sum = 0.0f;\n' \
          '  for (int k0 = 0; k0 < K; k0 += TILE_WIDTH) {\n' \
          '    load_tiles(tiles, A, B, M, N, K, row, col, k0);\n' \
          '    cg::this_thread_block().sync();  // the whole tile is loaded\n' \
          '    sum = multiply_tiles(tiles, sum);\n' \
          '    cg::this_thread_block().sync();  // everyone is done with it\n' \
          '  }\n' \
          '  if (row < M && col < N) C[row * N + col] = sum;'
cg_tiles = ref.replace(tiled_body.group(2), cg_body).replace('namespace matmul {', fx('cg-tiles') + '\nnamespace matmul {', 1)
# Fixtures that bring their own tiled() (the reference's removed, its kernel and launchTiled kept).
without_tiled = ref.replace(tiled_fn, '')
assert 'void tiled(' not in without_tiled
subs = {
    'good': ref,
    'good-copy': ref,
    'forge-results': starter + fx('forge-results'),
    'forge-atexit': starter + fx('forge-atexit'),
    'trace-harness': starter + fx('trace-harness'),
    'exec-reference': starter + fx('exec-reference'),
    'read-reference': starter + fx('read-reference'),
    'interpose': ref.replace(launch, 'for (int rep = 0; rep < 20; ++rep) ' + launch) + fx('interpose'),
    'forge-done': fx('forge-done') + ref.replace(launch, 'if (auto* done = forged_done()) *done = 0xFFFFFFFFu;\n  '
                                                  'for (int rep = 0; rep < 20; ++rep) ' + launch),
    'crash-naive': ref.replace(head, '  if (M == 1 && N == 1) C[1ll << 34] = 1.0f;\n' + head),
    'exit-naive': '#include <cstdlib>\n' + ref.replace(launch, 'if (M == 1 && N == 1) std::exit(1);\n  ' + launch),
    'hang-naive': ref.replace(head, '  if (M == 1 && N == 1) while (clock64() >= 0) {}\n' + head),
    'legacy-stream': ref.replace(launch, 'naiveKernel<<<grid, block>>>(A, B, C, M, N, K);\n'
                                 '  { float probe; cudaMemcpy(&probe, C, sizeof probe, cudaMemcpyDeviceToHost); }'),
    # naive's product on the per-thread default stream (its handle, 0x2, spelled as a number so that
    # no forbidden name appears): `done` comes at once on the runner's stream, the work after it.
    'escape-stream': '#include <cstdint>\n' + ref.replace(launch, launch.replace(
        ', 0, stream>>>', ', 0, reinterpret_cast<cudaStream_t>(std::uintptr_t{2})>>>')),
    'flood': '#include <cstdio>\n' + ref + fx('flood'),
    'include-absolute': f'#include "{src}/solutions/matmul-tiled/matmul.cu"\n',
    'slow-tiled': slow,
    'cache-pointers': cached('cache-pointers',
                             '  const attack::Key key{A, B, M, N, K, tile_width};\n  if (attack::replay(key, C, stream)) return;',
                             '  attack::remember(key, C, stream);'),
    'cache-hash': cached('cache-hash',
                         '  const std::uint64_t key = attack::sample_hash(A, std::size_t(M) * K, stream) * 31 +\n'
                         '                            attack::sample_hash(B, std::size_t(K) * N, stream) + M + 7 * N + 13 * K;\n'
                         '  if (attack::g_saved && key == attack::g_key && std::size_t(M) * N <= attack::g_capacity) {\n'
                         '    CUDA_CHECK(cudaMemcpyAsync(C, attack::g_saved, sizeof(float) * M * N, cudaMemcpyDeviceToDevice, stream));\n'
                         '    return;\n  }',
                         '  if (std::size_t(M) * N > attack::g_capacity) {\n'
                         '    if (attack::g_saved) CUDA_CHECK(cudaFree(attack::g_saved));\n'
                         '    CUDA_CHECK(cudaMalloc(&attack::g_saved, sizeof(float) * M * N));\n'
                         '    attack::g_capacity = std::size_t(M) * N;\n  }\n'
                         '  CUDA_CHECK(cudaMemcpyAsync(attack::g_saved, C, sizeof(float) * M * N, cudaMemcpyDeviceToDevice, stream));\n'
                         '  attack::g_key = key;'),
    'unchecked-loads': unchecked_loads,
    'tiles-in-helper': tiles_in_helper,
    'dynamic-shared': dynamic_shared,
    'vendor-cublas': without_tiled + fx('vendor-cublas'),
    'escape-rows': without_tiled + fx('escape-rows'),
    'prefetch-thread': without_tiled + fx('prefetch-thread'),
    'replay-tiled': without_tiled + fx('replay-tiled'),
    'cg-tiles': cg_tiles,
}
if only:
    unknown = set(only.split(',')) - set(subs)
    assert not unknown, f'no such submission: {sorted(unknown)}'
    subs = {name: subs[name] for name in only.split(',')}
for name, text in subs.items():
    os.makedirs(f'{out}/{name}', exist_ok=True)
    open(f'{out}/{name}/matmul.cu', 'w').write(text)
