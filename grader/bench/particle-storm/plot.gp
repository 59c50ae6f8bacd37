# particle-storm: throughput of each update kernel, from particle-storm-bench --csv (grader/plot.sh).
# Columns: kernel,layer_size,particles,median_ms,min_ms,cv,gcell_updates_per_s,over_ref1,gpu
set datafile separator ","
set terminal pngcairo size 1000,520 font "sans,11"
set output png
gpu = system("awk -F, 'NR==2 {gsub(/\"/, \"\", $9); print $9}' " . csv)
n = system("awk -F, 'NR==2 {print $2}' " . csv)
p = system("awk -F, 'NR==2 {print $3}' " . csv)
rows = system("awk 'END {print NR - 1}' " . csv)
set title sprintf("Update step, %s cells x %s particles - %s", n, p, gpu)
set ylabel "G cell-updates/s (higher is better)"
set style fill solid 0.8 border -1
set boxwidth 0.6
set xrange [-0.6:rows - 0.4]
set yrange [0:*]
set bmargin 5
set grid ytics
set key off
set xtics noenhanced font ",10"
# Long names: one line per " + " part.
label(s) = system("echo '" . s . "' | sed 's/ + /\\n/g'")
plot csv using 0:7:xtic(label(strcol(1))) skip 1 with boxes lc rgb "#4C72B0", \
     ''  using 0:7:(sprintf("%.0f (%.1fx Ref1)", $7, $8)) skip 1 with labels offset 0,0.8 notitle
