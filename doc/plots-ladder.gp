# plot: made by dlbench's plot from speedup records; draw with
#   gnuplot THIS.gp > THIS.svg
set terminal svg size 1100,480 font "sans,12" noenhanced background rgb "white"
# Each $dN block: one framework, rows in ladder order. Columns:
#   1 devices  2 nodes  3 devices per node  4 samples/s (median of n runs)
#   5, 6 error bar low, high: 95 % CI of the mean of the runs (none where n < 2)
#   7 speedup over 1n1g  8, 9 its error bar low, high: ± speedup_pm (the CIs propagated)
#   10 efficiency % (speedup / devices)  11 ideal samples/s (1n1g median × devices)  12 n runs

# $d1: bench
$d1 << EOD
1	1	1	22.95	10.13	39.70	1.00	1.00	1.00	100.0	22.95	3
2	1	2	26.42	5.12	47.90	1.15	0.00	2.30	58.0	45.90	3
EOD

set multiplot layout 1,2 title "bench b16 fp32 on vm (AMD EPYC)" font ",14"
set grid
set border 3
set xtics nomirror 1
set ytics nomirror
set key samplen 2
set offsets 0, graph 0.05, graph 0.1, 0

# Left: throughput against devices.
set xlabel "devices (nodes × devices per node)"
set ylabel "throughput (samples/s)"
set xrange [0:*]
set yrange [0:*]
set key below left Left reverse maxcols 1
plot $d1 using 1:11 with lines dashtype 2 linewidth 1.5 lc rgb "#7f7f7f" title "ideal: 1n1g × devices", \
     $d1 using 1:4:5:6 with yerrorlines pointtype 7 pointsize 0.8 linewidth 1.5 lc rgb "#1f77b4" title "bench: median, bars 95 % CI of the mean of the runs"

# Right: speedup over 1n1g and efficiency against devices.
set ylabel "speedup over 1n1g (×)"
set yrange [0:*]
set ytics nomirror
set y2tics
set y2range [0:120]
set y2label "scaling efficiency (%, speedup / devices)"
plot x with lines dashtype 2 linewidth 1.5 lc rgb "#7f7f7f" title "ideal: speedup = devices", \
     $d1 using 1:7:8:9 with yerrorlines pointtype 7 pointsize 0.8 linewidth 1.5 lc rgb "#1f77b4" title "bench speedup, bars ± its CI", \
     $d1 using 1:10 axes x1y2 with linespoints pointtype 5 pointsize 0.7 dashtype 3 lc rgb "#d62728" title "efficiency (right axis)"
unset multiplot
