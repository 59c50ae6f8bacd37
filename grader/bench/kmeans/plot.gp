# kmeans plots, drawn by grader/plot.sh from either CSV the lab writes:
#   kmeans-bench --csv FILE             one iteration of each version (default plot)
#   kmeans-run-reference --sweep --csv  speedup of each version against the block size
#     grader/plot.sh kmeans                                                   (the benchmark)
#     grader/plot.sh kmeans docs/measurements/kmeans-sweep.csv labs/kmeans/figures/kmeans-sweep.png
set datafile separator ","
set terminal pngcairo size 1000,520 font "sans,11"
set output png
header = system("head -1 " . csv)
gpu = system("awk -F, 'NR==2 {gsub(/\"/, \"\", $NF); print $NF}' " . csv)
set grid ytics
set xtics noenhanced
set key noenhanced

if (strstrt(header, "size_mb") > 0) {
  # The block-size sweep. Columns: version,size_mb,coords,clusters,max_loops,block_size,loops,
  # total_ms,h2d_ms,kernels_ms,d2h_ms,host_ms,other_ms,iteration_ms,iteration_kernels_ms,speedup,gpu
  coords_list = system("awk -F, 'NR>1 {print $3}' " . csv . " | sort -nu | tr '\\n' ' '")
  panels = words(coords_list)
  if (panels == 1) { set terminal pngcairo size 860,520 font "sans,11" }
  set output png
  set multiplot layout 1,panels title sprintf("k-means, whole program: speedup over the sequential program - %s", gpu)
  set logscale x 2
  set logscale y 10
  set xrange [24:1400]
  set xtics (32, 64, 128, 256, 512, 1024)
  set xlabel "threads per block"
  set ylabel "speedup (higher is better)"
  set key top left font ",9"
  do for [nc in coords_list] {
    set title sprintf("{256,%s,16,10}", nc) noenhanced
    plot for [v in "naive transpose shared all_gpu all_gpu_privatized"] \
      csv using 6:((strcol(1) eq v && $3 == nc + 0) ? $16 : 1/0) skip 1 with linespoints lw 2 pt 7 title v
  }
  unset multiplot
} else {
  # The benchmark. Columns: version,objects,coords,clusters,block_size,program_ms,iteration_ms,
  # kernels_ms,h2d_ms,d2h_ms,host_ms,read_ms,copy_gbs,kernels_over_read,gpu
  read_ms = real(system("awk -F, 'NR==2 {print $12}' " . csv))
  objects = system("awk -F, 'NR==2 {print $2}' " . csv)
  set title sprintf("One k-means iteration, %s objects x 2 coords, K = 16 - %s", objects, gpu)
  set ylabel "ms per iteration (log scale, lower is better)"
  set logscale y 10
  set yrange [0.02:2000]
  set style data histogram
  set style histogram clustered gap 1
  set style fill solid 0.8 border -1
  set boxwidth 0.9
  set key top right
  # Long names on two lines: "all_gpu_privatized per-block b512" -> "all_gpu_privatized\nper-block b512".
  label(s) = strstrt(s, " ") > 0 ? s[1:strstrt(s, " ") - 1] . "\n" . s[strstrt(s, " ") + 1:] : s
  set bmargin 4
  set xtics font ",9"
  plot csv using 7:xtic(label(strcol(1))) skip 1 lc rgb "#8C8C8C" title "whole iteration (transfers and host work too)", \
       ''  using 8 skip 1 lc rgb "#4C72B0" title "kernels", \
       ''  using ($0 + 0.17):($8 * 1.3):(sprintf("%.3f", $8)) skip 1 with labels notitle font ",9", \
       read_ms with lines dt 2 lw 2 lc rgb "#C44E52" title sprintf("reading the objects once at the copy bandwidth: %.3f ms", read_ms)
}
