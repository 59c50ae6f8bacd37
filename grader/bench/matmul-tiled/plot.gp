# matmul-tiled: throughput of each kernel, from matmul-tiled-bench --csv (see grader/plot.sh).
# Columns: kernel,n,median_ms,min_ms,cv,tflops,percent_of_cublas,gpu
set datafile separator ","
set terminal pngcairo size 900,500 font "sans,11"
set output png
gpu = system("awk -F, 'NR==2 {gsub(/\"/, \"\", $8); print $8}' " . csv)
n = system("awk -F, 'NR==2 {print $2}' " . csv)
set title sprintf("C = A x B, n = %s, float32 - %s", n, gpu)
set ylabel "TFLOP/s (higher is better)"
set style data histogram
set style fill solid 0.8 border -1
set boxwidth 0.7
set yrange [0:*]
set grid ytics
set key off
set xtics noenhanced
plot csv using 6:xtic(1) skip 1 lc rgb "#4C72B0", \
     ''  using 0:($6 + 1.2):(sprintf("%.1f (%.0f%%)", $6, $7)) skip 1 with labels notitle
