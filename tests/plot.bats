#!/usr/bin/env bats
# plot: speedup records -> a gnuplot script (data inline) -> gnuplot's SVG;
# plot -s page -> the HTML page, opened in headless Chromium.
# fixtures/plot/plain.tsv: DLPerf's NGC PyTorch AMP medians as 8-column
# speedup records; stats.tsv: 14-column records (CIs, CV, outliers,
# speedup_pm, efficiency) with environment lines; stats.md: a table.

bats_require_minimum_version 1.5.0
load helper

P="$FIXTURES/plot"

setup() {
	common_setup
	T=$BATS_TEST_TMPDIR
}

# draw GP: gnuplot GP > GP's .svg, nothing on stderr, a valid XML document.
draw() {
	run -0 --separate-stderr gnuplot "$1"
	[ -z "$stderr" ] || { echo "gnuplot: $stderr"; false; }
	printf '%s\n' "$output" > "${1%.gp}.svg"
	xmllint --noout "${1%.gp}.svg"
}

# "x y" of each point (<use>) of the plot element ID (gnuplot_plot_<n><panel>).
points() {
	xmllint --xpath "//*[@id='$2']//*[local-name()='use']/@transform" "$1" |
		sed -nE 's/.*translate\(([0-9.]+),([0-9.]+)\).*/\1 \2/p'
}

# The left panel's frame: "left bottom" (border 3: the axes' corner).
corner() {
	grep -oE "d='M([0-9.]+),[0-9.]+ L\1,[0-9.]+ L" "$1" | head -1 |
		sed -E "s/d='M([0-9.]+),[0-9.]+ L[0-9.]+,([0-9.]+) L/\1 \2/"
}

# The data points of a line (the path after the key's sample): "x y" a line.
line_points() {
	xmllint --xpath "string((//*[@id='$2']//*[local-name()='path'])[1]/@d)" "$1" |
		tr -s ' \n\t' '\n' | awk '/^M/ { m++ } m == 2' | tr -d 'ML' | tr ',' ' '
}

# Points inside the frame (below its bottom is the key).
in_frame() {
	awk -v b="$2" '$2 <= b' <<<"$1"
}

@test "one point per configuration, in ladder order, and the ideal line is the 1n1g figure per device" {
	run -0 plot "$P/plain.tsv"
	printf '%s\n' "$output" > "$T/p.gp"
	# The data: devices and the ideal samples/s (1n1g median x devices).
	got=$(awk '/^\$d1 << EOD/ { on = 1; next } /^EOD/ { on = 0 } on { print $1, $4, $11 }' "$T/p.gp")
	[ "$got" = "1 802.90 802.90
4 3137.44 3211.60
8 6154.66 6423.20
16 11991.94 12846.40
32 22551.16 25692.80" ]
	draw "$T/p.gp"
	read -r left bottom < <(corner "$T/p.svg")
	# gnuplot_plot_2a: the measured series; 5 configurations, 5 points.
	pts=$(in_frame "$(points "$T/p.svg" gnuplot_plot_2a)" "$bottom")
	[ "$(wc -l <<<"$pts")" -eq 5 ]
	# gnuplot_plot_1a: the ideal line. It starts on the 1n1g point, and every
	# point of it lies on the line from the axes' origin (0 devices, 0
	# samples/s) through that point: slope = the 1n1g figure per device.
	ideal=$(line_points "$T/p.svg" gnuplot_plot_1a)
	[ "$(wc -l <<<"$ideal")" -eq 5 ]
	[ "$(head -1 <<<"$ideal")" = "$(head -1 <<<"$pts")" ]
	awk -v x0="$left" -v y0="$bottom" 'NR == 1 { s = (y0 - $2) / ($1 - x0) }
		{ r = (y0 - $2) / ($1 - x0) / s; if (r < 0.995 || r > 1.005) bad = 1 }
		END { exit bad }' <<<"$ideal"
	# The measured 4n8g point lies below the ideal one (87.8 % efficiency).
	[ "$(tail -1 <<<"$pts" | cut -d' ' -f2 | cut -d. -f1)" -gt \
		"$(tail -1 <<<"$ideal" | cut -d' ' -f2 | cut -d. -f1)" ]
}

@test "the slope check fails on a line that is not through the origin" {
	ideal=$'110 350\n210 250\n410 100'
	run -1 awk -v x0=100 -v y0=360 'NR == 1 { s = (y0 - $2) / ($1 - x0) }
		{ r = (y0 - $2) / ($1 - x0) / s; if (r < 0.995 || r > 1.005) bad = 1 }
		END { exit bad }' <<<"$ideal"
}

@test "the published figures are a second series, on both panels" {
	plot -p "$ROOT/data/dlperf/ngc-pytorch_amp_b256_dynamic.tsv" "$P/plain.tsv" > "$T/p.gp"
	grep -q '^\$pub << EOD' "$T/p.gp"
	grep -q 'title "published"' "$T/p.gp"
	draw "$T/p.gp"
	read -r left bottom < <(corner "$T/p.svg")
	[ "$(in_frame "$(points "$T/p.svg" gnuplot_plot_3a)" "$bottom" | wc -l)" -eq 5 ]
	# Right panel: ideal, speedup, efficiency, published speedup.
	[ "$(points "$T/p.svg" gnuplot_plot_4b | wc -l)" -eq 6 ]
}

@test "a published OOM cell is no point of the published series" {
	printf '%s\n' $'tensorflow\t1n1g_b160_fp32\t336.23\t336.23\t336.23\t336.23\t1\t1.00' \
		$'tensorflow\t2n8g_b160_fp32\t4000.00\t4000.00\t4000.00\t4000.00\t1\t11.90' > "$T/tf.tsv"
	plot -p "$ROOT/data/dlperf/summary_fp32_b160_0820.tsv" "$T/tf.tsv" > "$T/p.gp"
	[ "$(awk '/^\$pub << EOD/ { on = 1; next } /^EOD/ { on = 0 } on { print $1 }' "$T/p.gp" | tr '\n' ' ')" = "1 2 4 8 32 " ]
}

@test "error bars: min..max of the runs from 8 columns, the 95 % CI from 14" {
	plot "$P/plain.tsv" > "$T/p.gp"
	grep -q 'bars min..max of the runs' "$T/p.gp"
	[ "$(awk '/^\$d1 << EOD/ { getline; print $5, $6 }' "$T/p.gp")" = "793.90 803.69" ]
	plot "$P/stats.tsv" > "$T/s.gp"
	grep -q 'bars 95 % CI of the mean of the runs' "$T/s.gp"
	got=$(awk '/^\$d1 << EOD/ { on = 1; next } /^EOD/ { on = 0 } on { print $5, $6, $8, $9, $10 }' "$T/s.gp")
	# n = 1: no interval, a bar of no length; efficiency from the records.
	[ "$got" = "95.00 106.00 0.94 1.06 100.0
130.00 172.00 1.30 1.70 75.0
200.00 200.00 2.00 2.00 50.0" ]
	draw "$T/s.gp"
}

@test "the title names configuration and machine, decoded from the environment lines" {
	run -0 plot "$P/stats.tsv"
	[[ "$output" == *'multiplot layout 1,2 title "bench b16 fp32 on box1 (AMD EPYC 7B13)"'* ]]
	run -0 plot "$P/plain.tsv"
	[[ "$output" == *'title "NGC PyTorch b256 amp on dgx-1"'* ]]
	run -0 bash -c "grep -v '^#' '$P/plain.tsv' | plot"
	[[ "$output" == *'title "NGC PyTorch b256 amp on a machine not recorded in the logs"'* ]]
	grep -q 'set xlabel "devices (nodes × devices per node)"' <<<"$output"
	grep -q 'set ylabel "throughput (samples/s)"' <<<"$output"
	grep -q 'set y2label "scaling efficiency (%, speedup / devices)"' <<<"$output"
}

@test "compare: one series a framework, side by side" {
	sed 's/^ngc-pytorch/oneflow/' "$P/plain.tsv" | grep -v '^#' > "$T/of.tsv"
	plot -s compare "$P/plain.tsv" "$T/of.tsv" > "$T/c.gp"
	grep -q '^\$d2 << EOD' "$T/c.gp"
	grep -q 'frameworks side by side' "$T/c.gp"
	draw "$T/c.gp"
	read -r left bottom < <(corner "$T/c.svg")
	[ "$(in_frame "$(points "$T/c.svg" gnuplot_plot_1a)" "$bottom" | wc -l)" -eq 5 ]
	[ "$(in_frame "$(points "$T/c.svg" gnuplot_plot_2a)" "$bottom" | wc -l)" -eq 5 ]
}

@test "bad input: one line naming the file and what is wrong, exit 1" {
	sed 's/^ngc-pytorch/oneflow/' "$P/plain.tsv" | grep -v '^#' > "$T/of.tsv"
	run -1 plot "$P/plain.tsv" "$T/of.tsv"
	[ "$output" = "plot: $T/of.tsv:1: a second framework, oneflow after ngc-pytorch (-s compare takes several)" ]
	grep -v 1n1g "$P/plain.tsv" > "$T/no-base.tsv"
	run -1 plot "$T/no-base.tsv"
	[ "$output" = "plot: $T/no-base.tsv:1: ngc-pytorch b256 amp: no 1n1g record (the ideal line and efficiency start there)" ]
	run -1 plot /dev/null
	[ "$output" = "plot: /dev/null: no records to plot" ]
	printf 'x\t1n1g_b16_fp32\t1\n' > "$T/short.tsv"
	run -1 plot "$T/short.tsv"
	[ "$output" = "plot: $T/short.tsv:1: 3 fields, expected 8 or 14 (speedup records)" ]
	sed 's/_b256_amp\t802/_b128_amp\t802/' "$P/plain.tsv" > "$T/mixed.tsv"
	run -1 plot "$T/mixed.tsv"
	[[ "$output" == "plot: $T/mixed.tsv:3: 1n4g_b256_amp: one batch and precision to a plot"* ]]
	run -2 plot -s page "$P/plain.tsv"
	[ "${lines[0]}" = "plot: -s page needs -t table.md and -g plot.svg" ]
}

@test "a malformed env or mem line is an error naming file and line, not an item skipped" {
	p='framework=bench key=1n1g_b16_fp32 run=1 node=0'
	# stats.tsv and the line LINE after it: plot fails, the error in $stderr
	plot_with() {
		{ cat "$P/stats.tsv"; printf '%s\n' "$1"; } > "$T/bad.tsv"
		run -1 --separate-stderr plot "$T/bad.tsv"
		[ -z "$output" ]
	}
	plot_with "# env $p cpu model=x"
	[ "$stderr" = "plot: $T/bad.tsv:12: env line: 2 items after node=, expected 1" ]
	plot_with "# env $p cpu_model"
	[ "$stderr" = "plot: $T/bad.tsv:12: env line: 'cpu_model' is not name=value" ]
	plot_with "# env $p cpu_model=AMD%ZZ"
	[ "$stderr" = "plot: $T/bad.tsv:12: env line: 'cpu_model=AMD%ZZ': '%ZZ' is not %XX (XX two hex digits, not 00)" ]
	plot_with '# env node=0 hostname=box2'
	[ "$stderr" = "plot: $T/bad.tsv:12: env line: framework=<framework> expected, not 'node=0'" ]
	plot_with "# mem $p rank=0 rss_peak_mib=lots"
	[ "$stderr" = "plot: $T/bad.tsv:12: mem line: rss_peak_mib 'lots' is not a whole number" ]
}

@test "env values are decoded (%XX in either case); a control byte shows as a blank in title and page" {
	sed 's/AMD%20EPYC%207B13/AMD%09epyc%0a7b%2d13/' "$P/stats.tsv" > "$T/c.tsv"
	run -0 plot "$T/c.tsv"
	[[ "$output" == *'multiplot layout 1,2 title "bench b16 fp32 on box1 (AMD epyc 7b-13)"'* ]]
	plot "$T/c.tsv" > "$T/c.gp"
	draw "$T/c.gp"
	run -0 plot -s page -t "$P/stats.md" -g "$T/c.svg" "$T/c.tsv"
	[[ "$output" == *'<td>cpu_model</td><td>AMD epyc 7b-13</td><td>2</td>'* ]]
}

@test "main runs again in one process: same bytes twice" {
	a=$(plot "$P/stats.tsv")
	b=$(plot "$P/stats.tsv")
	[ "$a" = "$b" ]
}

@test "the page: table, the SVG inline, noise marks, environment, method; nothing outside it" {
	plot "$P/stats.tsv" > "$T/s.gp"
	draw "$T/s.gp"
	run -0 plot -s page -t "$P/stats.md" -g "$T/s.svg" "$P/stats.tsv"
	printf '%s\n' "$output" > "$T/s.html"
	[ "${lines[0]}" = "<!DOCTYPE html>" ]
	grep -q '<td>1</td><td>2</td><td>16</td><td>150.00</td>' "$T/s.html"
	[ "$(grep -c '<svg' "$T/s.html")" -eq 1 ]
	! grep -q '<?xml' "$T/s.html" || false
	grep -q 'id="gnuplot_plot_2a"' "$T/s.html"
	grep -q '<td>1n2g</td><td>3</td><td>140.00 .. 160.00</td><td>130.00 .. 172.00</td><td>6.60 %</td><td>3</td><td class="bad">noisy: ± 13.9 % of the mean; outliers</td>' "$T/s.html"
	grep -q '<td>1n1g</td>.*<td class="bad">noisy: ± 5.5 % of the mean</td>' "$T/s.html"
	grep -q 'too few runs for an interval' "$T/s.html"
	# Environment: decoded, and a CPU model that differs between runs marked.
	grep -q '<td>cpu_model</td><td>Intel Xeon = 100%</td><td>1</td><td class="bad">differs between runs</td>' "$T/s.html"
	grep -q '<td>load1</td><td>0.5 .. 1.5</td><td>2</td><td></td>' "$T/s.html"
	grep -q '^<ul>$' "$T/s.html" && grep -q '^<li>versions: openmpi 4.1.4</li>$' "$T/s.html"
	grep -q '^<li><strong>environments differ</strong>: bench 1n4g_b16_fp32 node 0: cpu_model</li>$' "$T/s.html"
	grep -q "95 % confidence interval of the mean (Student's t)" "$T/s.html"
	# Self-contained: no script, nothing fetched (an xmlns names, it fetches nothing).
	! grep -qiE '<script|<link|<img|<iframe|src=|url\(|@import' "$T/s.html" || false
	! grep -oE '(href|src)="[^#"][^"]*"' "$T/s.html" | grep -q . || false
}

@test "the page renders in headless Chromium: not blank, the plot drawn, no console message" {
	command -v chromium >/dev/null || { echo "chromium is missing: make test-deps installs it"; false; }
	plot "$P/stats.tsv" > "$T/s.gp"
	draw "$T/s.gp"
	plot -s page -t "$P/stats.md" -g "$T/s.svg" "$P/stats.tsv" > "$T/s.html"
	browse() { # page: the DOM on stdout, the console on $T/console, a screenshot $T/shot.png
		timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
			--user-data-dir="$T/profile" --enable-logging=stderr --v=0 \
			--window-size=1200,900 "$@" 2>>"$T/console"
	}
	: > "$T/console"
	browse --screenshot="$T/shot.png" "file://$T/s.html" >/dev/null
	run -0 browse --dump-dom "file://$T/s.html"
	[[ "$output" == *'<svg'*'id="gnuplot_plot_2a"'* ]]
	[[ "$output" == *'<section id="environment">'* ]]
	! grep ':CONSOLE' "$T/console" || false
	# The screenshot's pixels through gnuplot (a PNG as x y r g b a): not
	# blank, and the series' blue (#1f77b4) drawn.
	gnuplot -e "set table '$T/px.txt'; plot '$T/shot.png' binary filetype=png with rgbimage"
	dark=$(awk 'NF == 7 && $3 + $4 + $5 < 600 { n++ } END { print n + 0 }' "$T/px.txt")
	blue=$(awk 'NF == 7 && $3 < 60 && $4 > 100 && $4 < 140 && $5 > 160 { n++ } END { print n + 0 }' "$T/px.txt")
	echo "dark $dark blue $blue"
	[ "$dark" -gt 5000 ] && [ "$blue" -gt 100 ]
}

@test "the browser check sees a console error and a blank page" {
	command -v chromium >/dev/null || { echo "chromium is missing: make test-deps installs it"; false; }
	printf '<!DOCTYPE html><html><body><script>console.error("boom")</script></body></html>\n' > "$T/bad.html"
	timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
		--user-data-dir="$T/profile" --enable-logging=stderr --v=0 --window-size=1200,900 \
		--screenshot="$T/shot.png" "file://$T/bad.html" 2>"$T/console" >/dev/null
	grep -q ':CONSOLE.*"boom"' "$T/console"
	gnuplot -e "set table '$T/px.txt'; plot '$T/shot.png' binary filetype=png with rgbimage"
	[ "$(awk 'NF == 7 && $3 + $4 + $5 < 600 { n++ } END { print n + 0 }' "$T/px.txt")" -lt 5000 ]
}

# ---- runs that failed: outcome lines ---------------------------------------
# fixtures/plot/failed.tsv: bench b64, its 1n1g's runs all failed (no
# speedups), 1n4g lost a run to OOM, 2n4g's runs all failed (OOM, timeout).

@test "a configuration whose runs all failed has no point: its status on the x axis; no ideal line without a 1n1g figure" {
	run -0 plot "$P/failed.tsv"
	printf '%s\n' "$output" > "$T/f.gp"
	[ "$(awk '/^\$d1 << EOD/ { on = 1; next } /^EOD/ { on = 0 } on { print $1, $4, $7, $10, $11 }' "$T/f.gp")" = "2 101.50 NaN NaN NaN
4 198.10 NaN NaN NaN" ]
	[ "$(awk '/^\$f1 << EOD/ { on = 1; next } /^EOD/ { on = 0 } on' "$T/f.gp")" = "1	1	1	failed
8	2	4	failed" ]
	! grep -q 'ideal: 1n1g' "$T/f.gp" || false
	! grep -q 'efficiency (right axis)' "$T/f.gp" || false
	[ "$(grep -c '\$f1 using 1:(0):4 with labels' "$T/f.gp")" -eq 2 ]
	draw "$T/f.gp"
	[ "$(grep -c '>failed<' "$T/f.svg")" -eq 4 ]
}

@test "every run failed: a plot of the statuses alone, drawn without a word; compare too" {
	printf '# outcome framework=bench key=1n1g_b64_fp32 run=1 status=oom exit=1\n# outcome framework=other key=1n1g_b64_fp32 run=1 status=timeout exit=124\n' > "$T/all.tsv"
	run -0 plot -s compare "$T/all.tsv"
	printf '%s\n' "$output" > "$T/all.gp"
	grep -qx 'set yrange \[0:1\]' "$T/all.gp"
	draw "$T/all.gp"
	grep -q '>OOM<' "$T/all.svg" && grep -q '>timeout<' "$T/all.svg"
	run -1 --separate-stderr plot "$T/all.tsv"
	[ "$stderr" = "plot: $T/all.tsv:2: a second framework, other after bench (-s compare takes several)" ]
}

@test "the page's noise table says which runs failed" {
	table "$P/failed.tsv" > "$T/f.md"
	plot "$P/failed.tsv" > "$T/f.gp"
	gnuplot "$T/f.gp" > "$T/f.svg"
	run -0 plot -s page -t "$T/f.md" -g "$T/f.svg" "$P/failed.tsv"
	[[ "$output" == *'<tr><td>bench</td><td>1n1g</td><td>0</td><td>-</td><td>-</td><td>-</td><td>-</td><td class="bad">failed: every run failed (runs 1,2: failed)</td></tr>'* ]]
	[[ "$output" == *'<td class="bad">too few runs for an interval; failed: run 2: OOM</td>'* ]]
	[[ "$output" == *'<td class="bad">failed: every run failed (run 2: OOM; run 1: timeout)</td>'* ]]
	[[ "$output" == *'<strong>failed runs</strong>: bench 1n4g_b64_fp32 run 2: OOM'* ]]
}

@test "a speedup of - without its 1n1g's outcome lines, or a second outcome of a run, is an error naming the line" {
	run -1 --separate-stderr plot <<<$'a\t1n1g_b8_fp32\t2.00\t2.00\t2.00\t2.00\t1\t1.00\na\t1n2g_b8_fp32\t2.00\t2.00\t2.00\t2.00\t1\t-'
	[ "$stderr" = "plot: <stdin>:2: speedup '-' is not a number" ]
	run -1 --separate-stderr plot <<<$'# outcome framework=a key=1n1g_b8_fp32 run=1 status=oom exit=1\n# outcome framework=a key=1n1g_b8_fp32 run=1 status=failed exit=2'
	[ "$stderr" = "plot: <stdin>:2: a second outcome of run 1 of a 1n1g_b8_fp32" ]
	run -1 --separate-stderr plot <<<$'a\t1n1g_b8_fp32\t2.00\t2.00\t2.00\t2.00\t1\t1.00\n# outcome framework=a key=1n1g_b16_fp32 run=1 status=oom exit=1'
	[ "$stderr" = "plot: <stdin>:2: 1n1g_b16_fp32: one batch and precision to a plot, not b8 fp32 and b16 fp32" ]
}

# The page's interconnect section of records RECORDS, table TABLE.md.
interconnect_section() {
	plot "$1" > "$T/i.gp"
	draw "$T/i.gp" || return
	plot -s page -t "$2" -g "$T/i.svg" "$1" | sed -n '/^<section id="interconnect">$/,/^<\/section>$/p'
}

@test "the page's interconnect: the topology as a matrix, the InfiniBand ports, what NCCL chose" {
	# table's fixture: the OneFlow report's DGX-1 on each node, 4n8g's node 1
	# with its port down, NCCL over InfiniBand and over sockets
	run -0 --separate-stderr interconnect_section "$FIXTURES/table/interconnect.tsv" "$FIXTURES/table/interconnect.md"
	[ "$output" = "$(cat "$P/interconnect.html")" ]
	grep -qF '<tr><td>GPU2</td><td class="nv">NV1</td><td class="nv">NV2</td><td>X</td><td class="nv">NV2</td><td>SYS</td><td>SYS</td><td class="nv">NV1</td><td>SYS</td><td>PIX</td><td>0-11,24-35</td><td>-</td></tr>' <<<"$output"
	grep -qF '<tr><td>mlx5_0:1</td><td>InfiniBand</td><td>100 Gb/sec (4X EDR)</td><td class="bad">1: DOWN / 4: ACTIVE</td>' <<<"$output"
	grep -qF '<tr><td>network</td><td>Socket</td><td>3</td></tr>' <<<"$output"
	# and the table above says it per configuration: the nccl column, the note
	run -0 plot -s page -t "$FIXTURES/table/interconnect.md" -g "$T/i.svg" "$FIXTURES/table/interconnect.tsv"
	grep -qF '<td>2</td><td>8</td><td>128</td><td>1500.00</td><td>15.00</td><td>2</td><td>0.1%</td><td>NET/IB/GDRDMA, P2P/IPC, NET/Socket †</td>' <<<"$output"
	grep -qF '<li>† <strong>NCCL over sockets between nodes</strong>: ngc-pytorch 2n8g_b128_fp32 run 2;' <<<"$output"
}

@test "the page's interconnect: nodes whose topologies differ are said so; none recorded is said so" {
	sed '/key=4n8g.* node=1 topo.columns=/s/,mlx5_0$//' "$FIXTURES/table/interconnect.tsv" > "$T/d.tsv"
	run -0 --separate-stderr interconnect_section "$T/d.tsv" "$FIXTURES/table/interconnect.md"
	grep -qF "<p>The nodes' topologies differ (GPU0,GPU1,GPU2,GPU3,GPU4,GPU5,GPU6,GPU7 / GPU0,GPU1,GPU2,GPU3,GPU4,GPU5,GPU6,GPU7,mlx5_0): each node's rows are among the environment's items (topo.*).</p>" <<<"$output"
	run -0 --separate-stderr interconnect_section "$P/stats.tsv" "$P/stats.md"
	[ "${lines[2]}" = "<p>No interconnect recorded: no nvidia-smi topo -m, no /sys/class/infiniband, no NCCL lines in the logs.</p>" ]
}

@test "the page of a table with J/sample and MFU %: the columns, their footer, and how they were made" {
	TF="$FIXTURES/table"
	(cd "$TF" && table -r roof.txt energy.tsv) > "$T/e.md"
	plot "$TF/energy.tsv" > "$T/e.gp"
	gnuplot "$T/e.gp" > "$T/e.svg"
	run -0 plot -s page -t "$T/e.md" -g "$T/e.svg" "$TF/energy.tsv"
	[[ "$output" == *'<th>J/sample</th><th>MFU %</th></tr>'* ]]
	[[ "$output" == *'<td>1.100</td><td>22.0</td></tr>'* ]]
	[[ "$output" == *'<li><strong>no energy figure</strong>: bench 1n2g_b16_fp32: run 2: node 0: no energy counter readable'* ]]
	[[ "$output" == *"<p>J/sample: launch samples each node's energy counters"* ]]
	[[ "$output" == *"<p>MFU % (model FLOP utilisation) = samples/s × the FLOP of a training sample"* ]]
	# a table without them: neither paragraph
	run -0 plot -s page -t "$P/stats.md" -g "$T/e.svg" "$P/stats.tsv"
	[[ "$output" != *"J/sample"* && "$output" != *"MFU"* ]]
}
