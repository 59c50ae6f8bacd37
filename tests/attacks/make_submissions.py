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

src, build, out = sys.argv[1:4]
starter = open(f'{src}/labs/matmul-tiled/matmul.cu').read()
ref = solution_text(f'{src}/solutions/matmul-tiled/matmul.cu')
fx = lambda name: open(f'{os.path.dirname(__file__)}/fixtures/{name}.cu.in').read() \
    .replace('WORKBOOK_ATTACK_BUILD_ROOT', f'"{build}"').replace('WORKBOOK_ATTACK_SOURCE_ROOT', f'"{src}"')
launch = 'CUDA_CHECK_LAUNCH(naiveKernel<<<grid, block, 0, stream>>>(A, B, C, M, N, K));'
head = '  const int Row = blockIdx.y * blockDim.y + threadIdx.y;\n  const int Col = blockIdx.x * blockDim.x + threadIdx.x;\n  if (Row < M && Col < N) {  // the grid'
assert launch in ref and head in ref
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
}
for name, text in subs.items():
    os.makedirs(f'{out}/{name}', exist_ok=True)
    open(f'{out}/{name}/matmul.cu', 'w').write(text)
