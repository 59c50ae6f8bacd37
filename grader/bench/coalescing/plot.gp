# coalescing: each kernel's bandwidth as a share of the device-to-device copy, from
# coalescing-bench --csv (see grader/plot.sh). Two panels:
#   top     the n x n section: every exercise and the variants, % of the copy bandwidth;
#   bottom  the sweep: one thread per row / per column with T threads, with and without L1.
# Columns: section,kernel,M,N,threads,median_ms,min_ms,cv,gbs,percent_of_copy,gpu
# (kernel names hold no commas, so splitting on every comma is safe).
set datafile separator ","
set terminal pngcairo size 1100,1000 font "sans,10"
set output png
gpu = system("awk -F, 'NR==2 {gsub(/\"/, \"\", $11); print $11}' " . csv)
n = system("awk -F, '$1==\"n\" {print $3; exit}' " . csv)
# The rows of one section, quotes removed, as a data source.
rows(section) = sprintf("< awk -F, '{gsub(/\"/, \"\")} $1==\"%s\"' %s", section, csv)
sweep(kernel) = sprintf("< awk -F, '{gsub(/\"/, \"\")} $1==\"sweep\" && $2==\"%s\"' %s", kernel, csv)
# Bar colours: the copy, the reference's kernels, the variants of bench_kernels.cu.
colour(name) = strstrt(name, "copy") ? 0x555555 : (strstrt(name, "variant") ? 0xB0B0B0 : 0x4C72B0)

set multiplot layout 2,1 title sprintf("Bandwidth as a share of the device-to-device copy (bytes read + written), float32 - %s", gpu)

# ---- top: n x n ----
set title sprintf("n = %s: every kernel (blue: the reference's exercises; grey: variants with one change)", n)
set ylabel "% of the copy bandwidth (higher is better)"
set yrange [0:125]
set xrange [-0.6:*]
set grid ytics
set key off
set style fill solid 0.85 border -1
set xtics rotate by -35 left noenhanced font "sans,9"
set bmargin 9
plot rows("n") using 0:10:(0.7):(colour(stringcolumn(2))):xtic(2) with boxes lc rgb variable, \
     ''        using 0:($10 + 3):(sprintf("%.0f%%", $10)) with labels font "sans,9"

# ---- bottom: the sweep ----
set title "One thread per row or per column, T threads, 2^{26} elements (T x 2^{26}/T or 2^{26}/T x T): when L1 hides uncoalesced loads"
set xlabel "T: threads (= rows for per\\_row, = columns for per\\_column)"
set ylabel "% of the copy bandwidth"
set logscale x 2
set xrange [768:350000]
set yrange [0:105]
set xtics auto norotate enhanced font "sans,10"
set format x "2^{%L}"
set bmargin 4
set key top left box opaque
plot sweep("per_column")       using 5:10 with linespoints lw 2 pt 7 lc rgb "#4C72B0" title "per\\_column (coalesced)", \
     sweep("per_column no L1") using 5:10 with linespoints lw 2 pt 6 dt 2 lc rgb "#4C72B0" title "per\\_column, loads bypass L1", \
     sweep("per_row")          using 5:10 with linespoints lw 2 pt 7 lc rgb "#C44E52" title "per\\_row (uncoalesced)", \
     sweep("per_row no L1")    using 5:10 with linespoints lw 2 pt 6 dt 2 lc rgb "#C44E52" title "per\\_row, loads bypass L1"
unset multiplot
