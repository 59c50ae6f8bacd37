# granularity: throughput of each kernel, from granularity-bench --csv (see grader/plot.sh).
# Columns: kernel,n,median_ms,min_ms,cv,tflops,percent_of_cublas,speedup_over_tiled,gpu
# Dashed lines: the issue's targets, 30% (register_1d) and 60% (register_2d) of cuBLAS.
set datafile separator ","
set terminal pngcairo size 1000,560 font "sans,11"
set output png
gpu = system("awk -F, 'NR==2 {gsub(/\"/, \"\", $9); print $9}' " . csv)
n = system("awk -F, 'NR==2 {print $2}' " . csv)
cublas = real(system("awk -F, 'NR==2 {print $6}' " . csv))
set title sprintf("C = A x B, n = %s, float32 - %s", n, gpu)
set ylabel "TFLOP/s (higher is better)"
set style data histogram
set style fill solid 0.8 border -1
set boxwidth 0.7
set yrange [0:cublas * 1.12]
set xrange [-1.5:5.6]
set grid ytics
set key off
set bmargin 6
set xtics noenhanced rotate by -20 nomirror
set arrow 1 from graph 0, first 0.3 * cublas to graph 1, first 0.3 * cublas nohead dt 2 lc rgb "#888888"
set arrow 2 from graph 0, first 0.6 * cublas to graph 1, first 0.6 * cublas nohead dt 2 lc rgb "#888888"
set label 1 "30% of cuBLAS" at graph 0.01, first 0.3 * cublas offset 0,0.6 left tc rgb "#666666"
set label 2 "60% of cuBLAS" at graph 0.01, first 0.6 * cublas offset 0,0.6 left tc rgb "#666666"
plot csv using 6:xtic(1) skip 1 lc rgb "#4C72B0", \
     ''  using 0:($6 + cublas * 0.03):(sprintf("%.1f (%.0f%%)", $6, $7)) skip 1 with labels notitle
