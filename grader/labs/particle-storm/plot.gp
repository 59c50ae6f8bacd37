# particle-storm: throughput of each update kernel, from particle-storm-bench --csv (grader/plot.sh).
# Columns: kernel,layer_size,particles,median_ms,min_ms,cv,gcell_updates_per_s,over_ref1,gpu
set datafile separator ","
set terminal pngcairo size 900,500 font "sans,11"
set output png
gpu = system("awk -F, 'NR==2 {gsub(/\"/, \"\", $9); print $9}' " . csv)
n = system("awk -F, 'NR==2 {print $2}' " . csv)
p = system("awk -F, 'NR==2 {print $3}' " . csv)
set title sprintf("Update step, %s cells x %s particles - %s", n, p, gpu)
set ylabel "G cell-updates/s (higher is better)"
set style data histogram
set style fill solid 0.8 border -1
set boxwidth 0.7
set yrange [0:*]
set grid ytics
set key off
set xtics noenhanced font ",9"
plot csv using 7:xtic(1) skip 1 lc rgb "#4C72B0", \
     ''  using 0:($7 * 1.04):(sprintf("%.0f (%.1fx)", $7, $8)) skip 1 with labels notitle
