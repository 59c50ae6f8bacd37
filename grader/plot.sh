#!/usr/bin/env bash
# Draws a lab's benchmark plot from the CSV its benchmark wrote:
#   grader/plot.sh <lab> [csv] [png]
# defaults: docs/measurements/<lab>-bench.csv -> labs/<lab>/figures/<lab>-bench.png
# Each lab's gnuplot script is grader/bench/<lab>/plot.gp (needs gnuplot: apt-get install gnuplot-nox).
# To refresh the numbers: run the benchmark on a GPU, e.g.
#   build/gpu/bin/<lab>-bench --csv docs/measurements/<lab>-bench.csv
set -euo pipefail
cd "$(dirname "$0")/.."
lab=${1:?usage: grader/plot.sh <lab> [csv] [png]}
csv=${2:-docs/measurements/$lab-bench.csv}
png=${3:-labs/$lab/figures/$lab-bench.png}
mkdir -p "$(dirname "$png")"
gnuplot -e "csv='$csv'; png='$png'" "grader/bench/$lab/plot.gp"
echo "wrote $png from $csv"
