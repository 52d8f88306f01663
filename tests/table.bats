#!/usr/bin/env bats
# table: speedup records -> markdown scaling / comparison tables, DLPerf JSON.
# The reproduction tests run DLPerf's sample-output runs
# (tests/fixtures/median/) through median | speedup | table -p and compare
# with the published tables in data/dlperf/ (doc/dlperf.md, "Published
# tables"); tests/fixtures/table/oneflow-0821.tsv holds the runs of
# OneFlow's 2020-08-21 report as window records.

bats_require_minimum_version 1.5.0
load helper

M="$FIXTURES/median"
D="$ROOT/data/dlperf"

# From a scaling table: "<N>n<G>g_b<B> samples/s speedup published" per row
# (columns found by their header: ours come between them).
table_rows() {
	awk -F'|' '/^\| node_num/ { for (i = 2; i <= NF; i++) { h = $i; gsub(/ /, "", h); c[h] = i } }
		/^\| [0-9]/ { for (i = 2; i <= NF; i++) gsub(/ /, "", $i);
		print $2 "n" $3 "g_b" $4, $c["samples/s"], $c["speedup"], $c["published"] }'
}

# From a published file: "<N>n<G>g_b<B> samples/s speedup samples/s", %.2f.
published_rows() {
	awk -F'\t' '!/^#/ { k = $2; sub(/_[a-z0-9]+$/, "", k);
		printf "%s %.2f %.2f %.2f\n", k, $3, $4, $3 }' "$1"
}

reproduces() { # fixture published-file
	run -0 --separate-stderr bash -c "median '$M/$1.tsv' | speedup | table -p '$D/$2.tsv'"
	[ -z "$stderr" ]
	got=$(printf '%s\n' "$output" | table_rows)
	want=$(published_rows "$D/$2.tsv")
	[ -n "$want" ]
	[ "$got" = "$want" ]
}

@test "DLPerf's PyTorch DALI workers=8 runs reproduce the published table" {
	reproduces pytorch pytorch_fp32_b128_dali-w8
}

@test "DLPerf's NGC PyTorch AMP runs reproduce the published table" {
	reproduces ngc-pytorch ngc-pytorch_amp_b256_dynamic
}

@test "DLPerf's NGC TensorFlow 1.15 FP32 runs reproduce the published table" {
	reproduces ngc-tensorflow ngc-tensorflow_fp32_b128
}

@test "DLPerf's TensorFlow 2.3 FP32 runs reproduce the published table" {
	reproduces tensorflow tensorflow_fp32_b128
}

@test "DLPerf's PaddlePaddle FP32 runs reproduce the published table" {
	reproduces paddle paddle_fp32_b128
}

@test "DLPerf's NGC MXNet FP32 runs reproduce the published table" {
	reproduces ngc-mxnet ngc-mxnet_fp32_b128
}

@test "DLPerf's gluon-cv FP32 runs reproduce the published table" {
	reproduces mxnet mxnet_fp32_b128
}

@test "DLPerf's MindSpore FP32 runs reproduce the published table" {
	reproduces mindspore mindspore_fp32_b128
}

@test "DLPerf's PLSC runs reproduce the published table" {
	reproduces plsc plsc_fp32_b128
}

@test "OneFlow's 2020-08-21 report runs reproduce its Final Results table" {
	run -0 --separate-stderr bash -c "median '$FIXTURES/table/oneflow-0821.tsv' | speedup | table -p '$D/oneflow_fp32_b128_v0.1.9.tsv'"
	got=$(printf '%s\n' "$output" | table_rows)
	want=$(published_rows "$D/oneflow_fp32_b128_v0.1.9.tsv")
	[ "$got" = "$want" ]
}

@test "the reproduction check fails on a table that differs" {
	run -0 bash -c "median '$M/pytorch.tsv' | speedup | table -p '$D/pytorch_fp32_b128_dali-w48.tsv'"
	got=$(printf '%s\n' "$output" | table_rows)
	want=$(published_rows "$D/pytorch_fp32_b128_dali-w48.tsv")
	[ "$got" != "$want" ]
}

# ---- scaling ------------------------------------------------------------------

@test "scaling: exact layout, rows in ladder order" {
	run -0 table <<'IN'
pytorch	4n8g_b128_fp32	8816.70	8773.38	8468.23	9046.34	10	24.88
pytorch	1n1g_b128_fp32	354.44	354.23	353.62	354.61	5	1.00
pytorch	1n16g_b128_fp32	4000.00	4000.00	4000.00	4000.00	1	11.29
pytorch	2n8g_b128_fp32	4372.33	4328.90	4038.81	4484.64	5	12.34
pytorch	1n2g_b128_fp32	700.00	700.00	665.00	735.00	3	1.97
IN
	[ "$output" = "## PyTorch b128 fp32

| node_num | gpu_num_per_node | batch_size_per_device | samples/s | speedup | n | spread |
| --- | --- | --- | --- | --- | --- | --- |
| 1 | 1 | 128 | 354.44 | 1.00 | 5 | 0.3% |
| 1 | 2 | 128 | 700.00 | 1.97 | 3 | 10.0% |
| 1 | 16 | 128 | 4000.00 | 11.29 | 1 | 0.0% |
| 2 | 8 | 128 | 4372.33 | 12.34 | 5 | 10.2% |
| 4 | 8 | 128 | 8816.70 | 24.88 | 10 | 6.6% |" ]
}

@test "scaling: one table per framework, batch and precision, in the order first met" {
	run -0 table <<'IN'
b	1n1g_b64_fp32	2.00	2.00	2.00	2.00	1	1.00
a	1n1g_b128_amp	1.00	1.00	1.00	1.00	1	1.00
b	1n1g_b128_amp	3.00	3.00	3.00	3.00	1	1.00
IN
	[ "$output" = "## b b64 fp32

| node_num | gpu_num_per_node | batch_size_per_device | samples/s | speedup | n | spread |
| --- | --- | --- | --- | --- | --- | --- |
| 1 | 1 | 64 | 2.00 | 1.00 | 1 | 0.0% |

## a b128 amp

| node_num | gpu_num_per_node | batch_size_per_device | samples/s | speedup | n | spread |
| --- | --- | --- | --- | --- | --- | --- |
| 1 | 1 | 128 | 1.00 | 1.00 | 1 | 0.0% |

## b b128 amp

| node_num | gpu_num_per_node | batch_size_per_device | samples/s | speedup | n | spread |
| --- | --- | --- | --- | --- | --- | --- |
| 1 | 1 | 128 | 3.00 | 1.00 | 1 | 0.0% |" ]
}

@test "scaling -p: published samples/s in a last column, - where none" {
	printf '# a comment\nngc-pytorch\t1n1g_b256_amp\t802.9\t1.00\n' > "$BATS_TEST_TMPDIR/p"
	run -0 table -p "$BATS_TEST_TMPDIR/p" <<'IN'
ngc-pytorch	1n1g_b256_amp	802.90	801.31	793.90	803.69	5	1.00
ngc-pytorch	1n4g_b256_amp	3137.44	3133.70	3119.23	3144.55	5	3.91
IN
	[ "$output" = "## NGC PyTorch b256 amp

| node_num | gpu_num_per_node | batch_size_per_device | samples/s | speedup | n | spread | published |
| --- | --- | --- | --- | --- | --- | --- | --- |
| 1 | 1 | 256 | 802.90 | 1.00 | 5 | 1.2% | 802.90 |
| 1 | 4 | 256 | 3137.44 | 3.91 | 5 | 0.8% | - |" ]
}

@test "scaling -p: 2,000 tables from rows far apart, in the order first met, rows in ladder order, published figures found" {
	awk 'BEGIN { for (k = 2; k >= 1; k--) for (b = 1; b <= 2000; b++)
		printf "f%d\t1n%dg_b%d_fp32\t%d.00\t%d.00\t%d.00\t%d.00\t1\t%d.00\n", b % 3, k, b, k * b, k * b, k * b, k * b, k }' > "$BATS_TEST_TMPDIR/in"
	awk 'BEGIN { for (b = 2000; b >= 2; b -= 2) printf "f%d\t1n2g_b%d_fp32\t%d.50\t2.00\n", b % 3, b, 2 * b }' > "$BATS_TEST_TMPDIR/p"
	run -0 table -p "$BATS_TEST_TMPDIR/p" "$BATS_TEST_TMPDIR/in"
	[ "$output" = "$(awk 'BEGIN { for (b = 1; b <= 2000; b++) {
		printf "%s## f%d b%d fp32\n\n", (b > 1 ? "\n" : ""), b % 3, b
		print "| node_num | gpu_num_per_node | batch_size_per_device | samples/s | speedup | n | spread | published |"
		print "| --- | --- | --- | --- | --- | --- | --- | --- |"
		printf "| 1 | 1 | %d | %d.00 | 1.00 | 1 | 0.0%% | - |\n", b, b
		printf "| 1 | 2 | %d | %d.00 | 2.00 | 1 | 0.0%% | %s |\n", b, 2 * b, b % 2 ? "-" : (2 * b) ".50" } }')" ]
}

@test "scaling -p: each framework's published figures with the most decimals the file gives it (at least 2), OOM as published" {
	printf '%s\n' $'oneflow\t1n1g_b160_fp32\t383.760\t-' $'oneflow\t1n2g_b160_fp32\t747.3\t-' \
		$'tensorflow\t1n1g_b160_fp32\t336.2\t-' $'tensorflow\t2n8g_b160_fp32\tOOM\t-' > "$BATS_TEST_TMPDIR/p"
	run -0 table -p "$BATS_TEST_TMPDIR/p" <<'IN'
oneflow	1n1g_b160_fp32	383.76	383.76	383.76	383.76	1	1.00
oneflow	1n2g_b160_fp32	747.30	747.30	747.30	747.30	1	1.95
tensorflow	1n1g_b160_fp32	336.23	336.23	336.23	336.23	1	1.00
tensorflow	2n8g_b160_fp32	4000.00	4000.00	4000.00	4000.00	1	11.90
IN
	[ "$output" = "## OneFlow b160 fp32

| node_num | gpu_num_per_node | batch_size_per_device | samples/s | speedup | n | spread | published |
| --- | --- | --- | --- | --- | --- | --- | --- |
| 1 | 1 | 160 | 383.76 | 1.00 | 1 | 0.0% | 383.760 |
| 1 | 2 | 160 | 747.30 | 1.95 | 1 | 0.0% | 747.300 |

## TensorFlow 2.x b160 fp32

| node_num | gpu_num_per_node | batch_size_per_device | samples/s | speedup | n | spread | published |
| --- | --- | --- | --- | --- | --- | --- | --- |
| 1 | 1 | 160 | 336.23 | 1.00 | 1 | 0.0% | 336.20 |
| 2 | 8 | 160 | 4000.00 | 11.90 | 1 | 0.0% | OOM |" ]
}

@test "scaling -p: a file with a memory column (OneFlow 0.1.8's GPU Memory Usage) adds published memory, after our memory" {
	run -0 --separate-stderr bash -c "printf 'oneflow\t1n1g_b128_fp32\t383.76\t383.76\t383.76\t383.76\t1\t1.00\noneflow\t1n4g_b128_fp32\t1497.62\t1497.62\t1497.62\t1497.62\t1\t3.90\n' |
		table -p '$D/oneflow_fp32_b128_v0.1.8.tsv'"
	[ "${lines[1]}" = "| node_num | gpu_num_per_node | batch_size_per_device | samples/s | speedup | n | spread | published | published memory |" ]
	[ "${lines[2]}" = "| --- | --- | --- | --- | --- | --- | --- | --- | --- |" ]
	[ "${lines[3]}" = "| 1 | 1 | 128 | 383.76 | 1.00 | 1 | 0.0% | 383.760 | 12565 |" ]
	[ "${lines[4]}" = "| 1 | 4 | 128 | 1497.62 | 3.90 | 1 | 0.0% | 1497.618 | 12987 |" ]
	# with launch's memory and our columns too, and a row the file lacks
	printf '%s\n' $'oneflow\t1n1g_b128_fp32\t383.76\t383.76\t383.76\t383.76\t2\t380.00\t387.00\t0.50\t-\t1.00\t0.00\t1.00' \
		$'oneflow\t1n16g_b128_fp32\t5000.00\t5000.00\t5000.00\t5000.00\t2\t4990.00\t5010.00\t0.10\t-\t13.03\t0.01\t0.81' \
		'# mem framework=oneflow key=1n1g_b128_fp32 run=1 node=0 gpu=0 gpu_peak_mib=12600' > "$BATS_TEST_TMPDIR/s"
	run -0 table -p "$D/oneflow_fp32_b128_v0.1.8.tsv" "$BATS_TEST_TMPDIR/s"
	[[ "${lines[1]}" == *"| noisy | memory | published | published memory |" ]]
	[[ "${lines[2]}" == *"| --- | --- | --- | --- |" ]]
	[[ "${lines[3]}" == "| 1 | 1 | 128 | 383.76 | "*" | 12600 | 383.760 | 12565 |" ]]
	[[ "${lines[4]}" == "| 1 | 16 | 128 | 5000.00 | "*" | - | - | - |" ]]
}

@test "published files: OOM takes no speedup, memory is a whole number of MiB or -" {
	while IFS='|' read -r line msg; do
		printf '%s\n' "$line" | tr '^' '\t' > "$BATS_TEST_TMPDIR/p"
		run -1 --separate-stderr table -p "$BATS_TEST_TMPDIR/p" /dev/null
		[ "$stderr" = "table: $BATS_TEST_TMPDIR/p:1: $msg" ] || { echo "$line: $stderr"; false; }
	done <<'CASES'
m^1n1g_b1_fp32^OOM^1.00|speedup '1.00' after OOM, expected -
m^1n1g_b1_fp32^oom^-|samples_per_s 'oom' is not a number
m^1n1g_b1_fp32^10^-^12.5|memory '12.5' is not a whole number of MiB
m^1n1g_b1_fp32^10^-^0|memory '0' is not a whole number of MiB
m^1n1g_b1_fp32^10^-^1^2|6 fields, expected 4 or 5
CASES
	printf 'm\t1n1g_b1_fp32\t10\t-\t-\n' > "$BATS_TEST_TMPDIR/p"
	run -0 table -p "$BATS_TEST_TMPDIR/p" <<<$'m\t1n1g_b1_fp32\t10.00\t10.00\t10.00\t10.00\t1\t1.00'
	[ "${lines[1]}" = "| node_num | gpu_num_per_node | batch_size_per_device | samples/s | speedup | n | spread | published |" ]
}

@test "a bad line in the published file is an error naming it" {
	printf '# x\nngc-pytorch\t1n1g_b256_amp\t802.9\n' > "$BATS_TEST_TMPDIR/p"
	run -1 --separate-stderr table -p "$BATS_TEST_TMPDIR/p" /dev/null
	[ "$stderr" = "table: $BATS_TEST_TMPDIR/p:2: 3 fields, expected 4 or 5" ]
}

@test "a missing published file is an error" {
	run -1 --separate-stderr table -p "$BATS_TEST_TMPDIR/none" /dev/null
	[ "$stderr" = "table: $BATS_TEST_TMPDIR/none: No such file or directory" ]
}

@test "every published file in data/dlperf reads" {
	for f in "$D"/*.tsv; do
		run -0 --separate-stderr table -p "$f" /dev/null
		[ -z "$stderr" ]
	done
}

# ---- compare ------------------------------------------------------------------

@test "compare: frameworks in seed order, device num = N x G, - where missing" {
	run -0 --separate-stderr bash -c "cat '$M/paddle.tsv' '$M/pytorch.tsv' '$M/tensorflow.tsv' | median | speedup | table -s compare"
	[ "$output" = "## b128 fp32

| node num | device num | TensorFlow 2.x | PyTorch | PaddlePaddle |
| --- | --- | --- | --- | --- |
| 1 | 1 | 321.80 | 354.44 | 352.72 |
| 1 | 2 | 574.66 | - | 644.66 |
| 1 | 4 | 1143.46 | 1367.67 | 1358.64 |
| 1 | 8 | 2458.74 | 2244.24 | 2625.38 |
| 2 | 16 | 4849.68 | 4372.33 | 4895.27 |
| 4 | 32 | 9418.44 | 8816.70 | 9348.17 |" ]
}

@test "compare: 500 tables of three frameworks from rows far apart, - where one lacks a row" {
	awk 'BEGIN { for (f = 2; f >= 0; f--) for (k = 1; k <= 2; k++) for (b = 1; b <= 500; b++)
		if (k == 1 || b % 3 != f)
			printf "f%d\t1n%dg_b%d_fp32\t%d.00\t%d.00\t%d.00\t%d.00\t1\t%d.00\n", f, k, b, b + f, b + f, b + f, b + f, k }' > "$BATS_TEST_TMPDIR/in"
	run -0 table -s compare "$BATS_TEST_TMPDIR/in"
	[ "$output" = "$(awk 'BEGIN { for (b = 1; b <= 500; b++) {
		printf "%s## b%d fp32\n\n| node num | device num | f0 | f1 | f2 |\n| --- | --- | --- | --- | --- |\n", (b > 1 ? "\n" : ""), b
		printf "| 1 | 1 | %d.00 | %d.00 | %d.00 |\n| 1 | 2 |", b, b + 1, b + 2
		for (f = 0; f <= 2; f++) printf " %s |", b % 3 == f ? "-" : (b + f) ".00"
		print "" } }')" ]
}

@test "compare: OneFlow first, unknown frameworks last by name, one table per batch and precision" {
	run -0 table -s compare <<'IN'
zeta	1n1g_b128_fp32	5.00	5.00	5.00	5.00	1	1.00
ngc-mxnet	1n1g_b128_fp32	4.00	4.00	4.00	4.00	1	1.00
alpha	1n1g_b128_fp32	6.00	6.00	6.00	6.00	1	1.00
oneflow	1n1g_b128_fp32	3.00	3.00	3.00	3.00	1	1.00
ngc-pytorch	1n1g_b256_amp	7.00	7.00	7.00	7.00	1	1.00
IN
	[ "$output" = "## b128 fp32

| node num | device num | OneFlow | NGC MXNet | alpha | zeta |
| --- | --- | --- | --- | --- | --- |
| 1 | 1 | 3.00 | 4.00 | 6.00 | 5.00 |

## b256 amp

| node num | device num | NGC PyTorch |
| --- | --- | --- |
| 1 | 1 | 7.00 |" ]
}

# ---- json ---------------------------------------------------------------------

@test "json: DLPerf's NGC PyTorch AMP result, byte for byte, cases in ladder order" {
	c4n8g='"4n8g": {"average_speed": 22599.43, "batch_size_per_device": 256, "median_speed": 22551.16, "speedup": 28.09}'
	c1n1g='"1n1g": {"average_speed": 801.31, "batch_size_per_device": 256, "median_speed": 802.9, "speedup": 1.0}'
	c2n8g='"2n8g": {"average_speed": 11979.95, "batch_size_per_device": 256, "median_speed": 11991.94, "speedup": 14.94}'
	c1n8g='"1n8g": {"average_speed": 6150.81, "batch_size_per_device": 256, "median_speed": 6154.66, "speedup": 7.67}'
	c1n4g='"1n4g": {"average_speed": 3133.7, "batch_size_per_device": 256, "median_speed": 3137.44, "speedup": 3.91}'
	median -c dlperf "$M/ngc-pytorch.tsv" | speedup | table -s json > "$BATS_TEST_TMPDIR/j"
	printf '{"r50": {%s, %s, %s, %s, %s}}' "$c1n1g" "$c1n4g" "$c1n8g" "$c2n8g" "$c4n8g" > "$BATS_TEST_TMPDIR/want"
	cmp "$BATS_TEST_TMPDIR/want" "$BATS_TEST_TMPDIR/j"
	# our mode: DLPerf's keys unchanged, ours beside them
	median "$M/ngc-pytorch.tsv" | speedup | table -s json > "$BATS_TEST_TMPDIR/o"
	c1n4g=${c1n4g%\}}', "average_speed_ci95_low": 3121.71, "average_speed_ci95_high": 3145.7, "cv_percent": 0.31, "outlier_runs": [], "scaling_efficiency": 0.98, "speedup_error": 0.03, "noisy": false, "runs_for_1pct": 2}'
	grep -F -- "$c1n4g" "$BATS_TEST_TMPDIR/o"
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))["r50"]; assert d["1n1g"]["outlier_runs"] == [2] and d["1n1g"]["noisy"]' "$BATS_TEST_TMPDIR/o"
}

@test "json: shortest floats keep .0 (10724.0) and integers stay bare" {
	run -0 table -s json <<'IN'
mindspore	1n1g_b128_fp32	10724.00	26.50	1.00	99999.00	5	1.00
IN
	[ "$output" = '{"r50": {"1n1g": {"average_speed": 26.5, "batch_size_per_device": 128, "median_speed": 10724.0, "speedup": 1.0}}}' ]
}

@test "json: empty input is an empty model" {
	run -0 table -s json /dev/null
	[ "$output" = '{"r50": {}}' ]
}

@test "json: more than one framework, batch or precision is an error" {
	run -1 --separate-stderr table -s json <<'IN'
a	1n1g_b128_fp32	1.00	1.00	1.00	1.00	1	1.00
a	1n1g_b256_fp32	1.00	1.00	1.00	1.00	1	1.00
IN
	[ -z "$output" ]
	[ "$stderr" = "table: <stdin>:2: -s json takes one framework, batch and precision: a 1n1g_b128_fp32 and a 1n1g_b256_fp32" ]
}

@test "json: numbers are printed as read, not rounded again" {
	run -0 table -s json <<'IN'
a	1n1g_b128_fp32	10.005	26.505	1.00	99.00	5	1.005
IN
	[ "$output" = '{"r50": {"1n1g": {"average_speed": 26.505, "batch_size_per_device": 128, "median_speed": 10.005, "speedup": 1.005}}}' ]
}

@test "json: an outlier run written with a leading zero is bad input, not a JSON number (0130; found by the fuzz campaign)" {
	run -1 --separate-stderr table -s json <<<$'a\t1n1g_b16_fp32\t100.00\t100.00\t90.00\t110.00\t5\t95.00\t105.00\t5.00\t2,0130\t1.00\t0.00\t1.00'
	[ -z "$output" ]
	[ "$stderr" = "table: <stdin>:1: outliers '2,0130' is not run numbers joined by ','" ]
	run -0 table -s json <<<$'a\t1n1g_b16_fp32\t100.00\t100.00\t90.00\t110.00\t5\t95.00\t105.00\t5.00\t0,130\t1.00\t0.00\t1.00'
	[[ $output == *'"outlier_runs": [0,130]'* ]]
}

@test "meta lines are ignored" {
	run -0 table <<<$'# mode=dlperf\na\t1n1g_b64_fp32\t2.00\t2.00\t1.00\t3.00\t3\t1.00\n# x=1\ty=2'
	[ "$output" = "## a b64 fp32

| node_num | gpu_num_per_node | batch_size_per_device | samples/s | speedup | n | spread |
| --- | --- | --- | --- | --- | --- | --- |
| 1 | 1 | 64 | 2.00 | 1.00 | 3 | 100.0% |" ]
}

# ---- errors and usage ---------------------------------------------------------

@test "a record with the wrong number of fields is an error" {
	run -1 --separate-stderr table <<<$'a\t1n1g_b128_fp32\t1.00\t1.00\t1.00\t1.00\t1'
	[ "$stderr" = "table: <stdin>:1: 7 fields, expected 8" ]
}

@test "a configuration met twice is an error" {
	run -1 --separate-stderr table <<'IN'
a	1n1g_b128_fp32	1.00	1.00	1.00	1.00	1	1.00
a	1n1g_b128_fp32	1.00	1.00	1.00	1.00	1	1.00
IN
	[ "$stderr" = "table: <stdin>:2: duplicate configuration a 1n1g_b128_fp32" ]
}

@test "a bad speedup is an error" {
	run -1 --separate-stderr table <<<$'a\t1n1g_b128_fp32\t1.00\t1.00\t1.00\t1.00\t1\t-'
	[ "$stderr" = "table: <stdin>:1: speedup '-' is not a number" ]
}

@test "empty input gives empty output" {
	run -0 --separate-stderr table /dev/null
	[ -z "$output" ]
	[ -z "$stderr" ]
}

@test "an unknown style is a usage error" {
	run -2 --separate-stderr table -s html
	[ "$stderr" = "table: -s: 'html' is not scaling, compare or json" ]
}

@test "-p goes with scaling only" {
	run -2 --separate-stderr table -s json -p "$D/plsc_fp32_b128.tsv"
	[ "$stderr" = "table: -p: only with -s scaling" ]
}

@test "an unknown flag is a usage error" {
	run -2 --separate-stderr table -x
	[ -z "$output" ]
	[ "$stderr" = "$(cat <<'USAGE'
usage: table [-s scaling|compare|json] [-p published.tsv] [-P peak_tflops] [-r roof]
      [file ...]
  in: framework key median mean min max n [ci_lo ci_hi cv_pct outliers]
      speedup [speedup_pm efficiency]  (speedup's output; # env, # mem, # energy)
  scaling: per framework, batch, precision; rows in ladder order:
    | node_num | gpu_num_per_node | batch_size_per_device | samples/s | speedup | n | spread |[ memory |][ nccl |][ published |]
    with the interval fields: samples/s | ± | speedup | ± | efficiency | n
    | spread | cv | noisy |; a failed runs column and OOM, failed or timeout
    rows with # outcome lines; then a footer of machine, versions, settings,
    interconnect (nccl: NCCL's transports, † over sockets between nodes)
  compare: per batch, precision: | node num | device num | <framework> ... |
  json: {"r50": {"<N>n<G>g": {...}, ...}}, cases in ladder order, one line
  J/sample (# energy lines) and MFU % (-P a device's peak, -r bin/perf-roof's
  output) after the failed runs column where known
USAGE
)" ]
}

# ---- the whole pipeline -------------------------------------------------------

bench_log() { # path step_s total_batch: 120 iterations of bench's log
	mkdir -p "$(dirname "$1")"
	awk -v st="$2" -v tb="$3" 'BEGIN {
		print "# bench model=resnet50 backend=cpu-onednn nodes=1 batch_per_device=16"
		for (i = 1; i <= 120; i++)
			printf "iter=%d loss=6.9310 step_s=%.4f samples_per_s=%.2f ts=%d.%06d\n",
				i, st, tb / st, 1763781234 + int(i * st), (i * st - int(i * st)) * 1000000
		print "# end iters=120 peak_mem_mb=4521" }' > "$1"
}

@test "grep-iters | window | median | speedup | table on bench logs" {
	cd "$BATS_TEST_TMPDIR"
	bench_log logs/bench/1n1g_b16_fp32/1.log 0.5 16
	bench_log logs/bench/1n1g_b16_fp32/2.log 0.4 16
	bench_log logs/bench/1n2g_b16_fp32/1.log 0.5 32
	bench_log logs/bench/1n2g_b16_fp32/2.log 0.25 32
	run -0 --separate-stderr bash -c 'grep-iters logs/bench/*/*.log | window | median | speedup | table'
	[ -z "$stderr" ]
	[ "$output" = "## bench b16 fp32

| node_num | gpu_num_per_node | batch_size_per_device | samples/s | ± | speedup | ± | efficiency | n | spread | cv | noisy |
| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |
| 1 | 1 | 16 | 36.00 | 50.82 | 1.00 | 0.00 | 1.00 | 2 | 22.2% | 15.7% | noisy: ±141.2%; 949 runs for ±1% |
| 1 | 2 | 16 | 96.00 | 406.60 | 2.67 | 11.92 | 1.33 | 2 | 66.7% | 47.1% | noisy: ±423.5%; 8537 runs for ±1% |" ]
}

@test "a full disk is a failure" {
	run -1 --separate-stderr bash -c "table -s json '$FIXTURES/speedup/plsc.expected' > /dev/full"
	[ "$stderr" = "table: <stdout>: write error: No space left on device" ]
}

# ---- never a silent wrong number ------------------------------------

@test "json: huge values are printed in shortest form, valid JSON, not i.nf" {
	run -0 table -s json <<<$'m\t1n1g_b1_fp32\t1e308\t1e308\t1e308\t1e308\t1\t1e308'
	[ "$output" = '{"r50": {"1n1g": {"average_speed": 1e+308, "batch_size_per_device": 1, "median_speed": 1e+308, "speedup": 1e+308}}}' ]
}

@test "a spread that overflows is an error naming the record, not inf%" {
	run -1 --separate-stderr table <<<$'m\t1n1g_b1_fp32\t1\t1\t1e-300\t1e308\t1\t1'
	[ -z "$output" ]
	[ "$stderr" = "table: <stdin>:1: spread ('1e308' - '1e-300') / '1' overflows" ]
}

@test "min above max is bad input, not a negative spread" {
	run -1 --separate-stderr table <<<$'m\t1n1g_b1_fp32\t1\t1\t5\t2\t1\t1'
	[ -z "$output" ]
	[ "$stderr" = "table: <stdin>:1: min '5' is above max '2'" ]
}

@test "a median or speedup that %.2f shows as 0.00 is an error" {
	run -1 --separate-stderr table <<<$'m\t1n1g_b1_fp32\t0.001\t0.001\t0.001\t0.001\t1\t1'
	[ "$stderr" = "table: <stdin>:1: median '0.001' rounds to 0.00" ]
	run -1 --separate-stderr table <<<$'m\t2n1g_b1_fp32\t1\t1\t1\t1\t1\t0.004'
	[ "$stderr" = "table: <stdin>:1: speedup '0.004' rounds to 0.00" ]
}

@test "a published samples/s that %.2f shows as 0.00 is an error naming its line" {
	printf 'm\t1n1g_b1_fp32\t0.001\t-\n' > "$BATS_TEST_TMPDIR/p"
	run -1 --separate-stderr table -p "$BATS_TEST_TMPDIR/p" /dev/null
	[ "$stderr" = "table: $BATS_TEST_TMPDIR/p:1: samples_per_s '0.001' rounds to 0.00" ]
}

@test "compare: a key part above 2^20 is not a key, not a wrapped device count" {
	run -1 --separate-stderr table -s compare <<<$'m\t9999999999n9999999999g_b9999999999_fp32\t1\t1\t1\t1\t1\t1'
	[ -z "$output" ]
	[ "$stderr" = "table: <stdin>:1: key '9999999999n9999999999g_b9999999999_fp32' is not <N>n<G>g_b<B>_<prec>" ]
}

@test "compare: the largest key gives the exact device count 2^40" {
	run -0 table -s compare <<<$'m\t1048576n1048576g_b1_fp32\t1.00\t1.00\t1.00\t1.00\t1\t1.00'
	[ "${lines[3]}" = "| 1048576 | 1099511627776 | 1.00 |" ]
}

@test "a NUL byte in a line is an error naming file and line" {
	printf 'm\t1n1g_b1_fp32\t1\t1\t1\t1\t1\t1\0.5\n' > "$BATS_TEST_TMPDIR/n"
	run -1 --separate-stderr table "$BATS_TEST_TMPDIR/n"
	[ "$stderr" = "table: $BATS_TEST_TMPDIR/n:1: NUL byte in the line" ]
}

# ---- launch's environment and memory (meta lines from grep-iters) ---------

# Two configurations of bench, runs 1 and 2 each, with env and mem lines.
env_input() {
	printf 'bench\t1n1g_b16_fp32\t10.00\t10.00\t9.90\t10.10\t2\t1.00\n'
	printf 'bench\t1n2g_b16_fp32\t19.00\t19.00\t18.90\t19.10\t2\t1.90\n'
	for k in 1n1g_b16_fp32 1n2g_b16_fp32; do
		for r in 1 2; do
			p="framework=bench key=$k run=$r node=0"
			echo "# env $p hostname=vm$r"
			echo "# env $p cpu_model=AMD%20EPYC%207B13"
			kernel=6.1.0
			[ "$k$r" != 1n2g_b16_fp322 ] || kernel=${KERNEL2:-6.1.0}
			echo "# env $p kernel=$kernel"
			echo "# env $p load1=0.$r"
			echo "# env $p onednn=3.0.1"
			echo "# mem $p rank=0 host=vm$r rss_peak_mib=$((300 + r))"
		done
	done
	echo "# mem framework=bench key=1n2g_b16_fp32 run=2 node=0 rank=1 host=vm2 rss_peak_mib=410"
}

@test "memory: the largest peak over runs and ranks, a column before published" {
	run -0 --separate-stderr bash -c "$(declare -f env_input); env_input | table -p '$D/ngc-pytorch_amp_b256_dynamic.tsv'"
	[[ "${lines[1]}" == *"| spread | memory | published |" ]]
	[[ "${lines[3]}" == "| 1 | 1 | 16 | 10.00 | "*" | 302 | - |" ]]
	[[ "${lines[4]}" == "| 1 | 2 | 16 | 19.00 | "*" | 410 | - |" ]]
	run -0 --separate-stderr bash -c "$(declare -f env_input); env_input | table -s compare"
	[ "${lines[1]}" = "| node num | device num | bench | bench memory |" ]
	[ "${lines[4]}" = "| 1 | 2 | 19.00 | 410 |" ]
}

@test "memory: GPU memory wins over resident memory; without mem lines no column" {
	run -0 --separate-stderr bash -c "$(declare -f env_input); { env_input;
		echo '# mem framework=bench key=1n1g_b16_fp32 run=1 node=0 gpu=0 gpu_peak_mib=12565'; } | table"
	[[ "${lines[3]}" == *" | 12565 |" ]]
	[[ "${lines[4]}" == *" | 410 |" ]]
	run -0 --separate-stderr bash -c "$(declare -f env_input); env_input | grep -v '^# mem' | table"
	[[ "${lines[1]}" == *"| spread |" ]]
}

@test "the footer names the machine and the versions; equal environments are not flagged" {
	run -0 --separate-stderr bash -c "$(declare -f env_input); env_input | table"
	[ "${lines[-2]}" = "- machine: vm1 / vm2, AMD EPYC 7B13, kernel 6.1.0" ]
	[ "${lines[-1]}" = "- versions: onednn 3.0.1" ]
	! printf '%s\n' "${lines[@]}" | grep -q differ || false
}

@test "runs of one configuration whose environments differ are flagged, load and host aside" {
	run -0 --separate-stderr bash -c "$(declare -f env_input); KERNEL2=6.5.0 env_input | table"
	[ "${lines[-1]}" = "- **environments differ**: bench 1n2g_b16_fp32 node 0: kernel is 6.1.0 in run 1, 6.5.0 in run 2" ]
	[ "$(printf '%s\n' "${lines[@]}" | grep -c differ)" = 1 ]
	run -0 --separate-stderr bash -c "$(declare -f env_input); KERNEL2=6.5.0 env_input | grep -v '1n1g' | table -s json"
	echo "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)
c = d["r50"]["1n2g"]
assert c["memory_mib"] == 410 and c["environment_differs"] == ["kernel"], c
e = d["environment"]
assert len(e) == 2 and e[0]["run"] == 1 and e[1]["kernel"] == "6.5.0", e
assert e[0]["cpu_model"] == "AMD EPYC 7B13" and e[0]["load1"] == "0.1", e[0]'
}

@test "a malformed env or mem meta line is an error naming file and line" {
	printf '# env framework=bench key=1n1g_b16_fp32 run=1 node=0\n' >"$BATS_TEST_TMPDIR/bad"
	run -1 --separate-stderr table "$BATS_TEST_TMPDIR/bad"
	[[ "$stderr" == "table: $BATS_TEST_TMPDIR/bad:1: "* ]]
	printf '# mem framework=bench key=1n1g_b16_fp32 run=1 node=0 rss_peak_mib=many\n' >"$BATS_TEST_TMPDIR/bad"
	run -1 --separate-stderr table "$BATS_TEST_TMPDIR/bad"
	[[ "$stderr" == "table: $BATS_TEST_TMPDIR/bad:1: "* ]]
}

@test "env and mem lines are read by the meta lines' one grammar: its errors, exact" {
	p='framework=bench key=1n1g_b16_fp32 run=1 node=0'
	while IFS='|' read -r line msg; do
		printf '%s\n' "$line" >"$BATS_TEST_TMPDIR/bad"
		run -1 --separate-stderr table "$BATS_TEST_TMPDIR/bad"
		[ "$stderr" = "table: $BATS_TEST_TMPDIR/bad:1: $msg" ] || { echo "$line: $stderr"; false; }
		[ -z "$output" ]
	done <<CASES
# env $p cpu_model=AMD%2xPYC|env line: 'cpu_model=AMD%2xPYC': '%2x' is not %XX (XX two hex digits, not 00)
# env $p cpu_model=AMD%g0|env line: 'cpu_model=AMD%g0': '%g0' is not %XX (XX two hex digits, not 00)
# env $p cpu_model=AMD%|env line: 'cpu_model=AMD%': '%' is not %XX (XX two hex digits, not 00)
# env $p cpu_model=A%00B|env line: 'cpu_model=A%00B': '%00' is not %XX (XX two hex digits, not 00)
# env node=0 hostname=vm|env line: framework=<framework> expected, not 'node=0'
# env key=1n1g_b16_fp32 framework=bench run=1 node=0 hostname=vm|env line: framework=<framework> expected, not 'key=1n1g_b16_fp32'
# env framework=bench key=1n1g_b16_fp32 run=one node=0 hostname=vm|env line: run 'one' is not a whole number
# env $p|env line: 0 items after node=, expected 1
# env $p a=1 b=2|env line: 2 items after node=, expected 1
# env $p a:1|env line: 'a:1' is not name=value
# mem $p rss_peak_mib=many|mem line: rss_peak_mib 'many' is not a whole number
# mem $p gpu=0 peak_mib=1|mem line: the last item, 'peak_mib', is not rss_peak_mib or gpu_peak_mib
CASES
}

@test "env values are decoded (%XX in either case); a control byte shows as a blank in the footer" {
	run -0 --separate-stderr bash -c "$(declare -f env_input); { env_input | sed 's/AMD%20EPYC%207B13/AMD%20epyc%0a7b%2d13/'; } | table"
	[ "${lines[-2]}" = "- machine: vm1 / vm2, AMD epyc 7b-13, kernel 6.1.0" ]
	run -0 --separate-stderr bash -c "$(declare -f env_input); { env_input | sed 's/AMD%20EPYC%207B13/AMD%20epyc%0a7b%2d13/'; } | table -s json"
	[[ "$output" == *'"cpu_model": "AMD epyc\u000a7b-13"'* ]]
}

# ---- ours: ± columns, efficiency, the noisy mark (doc/statistics.md) ------------

@test "noisy rows: half-width above 2 % or an outlier run, with pyperf's runs for ±1 %" {
	printf '%s\n' \
		$'a\t1n1g_b16_fp32\t100.00\t100.00\t99.00\t101.00\t5\t99.50\t100.50\t0.40\t-\t1.00\t0.00\t1.00' \
		$'a\t1n2g_b16_fp32\t190.00\t190.00\t170.00\t210.00\t5\t184.30\t195.70\t2.40\t4\t1.90\t0.06\t0.95' \
		$'a\t1n4g_b16_fp32\t300.00\t300.00\t250.00\t350.00\t3\t290.00\t310.00\t5.00\t-\t3.00\t0.10\t0.75' \
		$'a\t1n8g_b16_fp32\t500.00\t500.00\t500.00\t500.00\t1\t-\t-\t-\t-\t5.00\t-\t0.62' > "$BATS_TEST_TMPDIR/s"
	run -0 --separate-stderr table "$BATS_TEST_TMPDIR/s"
	[ -z "$stderr" ]
	# runs for ±1 %: ceil(4 x 1.96^2 x CV^2 / 0.02^2), computed here
	n2=$(python3 -c 'import math; print(math.ceil(4 * 1.96 ** 2 * 0.024 ** 2 / 0.02 ** 2))')
	n4=$(python3 -c 'import math; print(math.ceil(4 * 1.96 ** 2 * 0.05 ** 2 / 0.02 ** 2))')
	[ "$output" = "## a b16 fp32

| node_num | gpu_num_per_node | batch_size_per_device | samples/s | ± | speedup | ± | efficiency | n | spread | cv | noisy |
| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |
| 1 | 1 | 16 | 100.00 | 0.50 | 1.00 | 0.00 | 1.00 | 5 | 2.0% | 0.4% | - |
| 1 | 2 | 16 | 190.00 | 5.70 | 1.90 | 0.06 | 0.95 | 5 | 21.1% | 2.4% | noisy: ±3.0%, outlier run 4; $n2 runs for ±1% |
| 1 | 4 | 16 | 300.00 | 10.00 | 3.00 | 0.10 | 0.75 | 3 | 33.3% | 5.0% | noisy: ±3.3%; $n4 runs for ±1% |
| 1 | 8 | 16 | 500.00 | - | 5.00 | - | 0.62 | 1 | 0.0% | - | no interval: 1 run |" ]
	[ "$n2" = 23 ] && [ "$n4" = 97 ]
}

@test "a group mixing DLPerf's records and ours: - where a row has none" {
	run -0 table <<<$'a\t1n1g_b16_fp32\t100.00\t100.00\t99.00\t101.00\t5\t1.00\na\t1n2g_b16_fp32\t190.00\t190.00\t189.00\t191.00\t5\t189.00\t191.00\t0.40\t-\t1.90\t0.04\t0.95'
	[ "$(grep '^| 1 | 1 ' <<<"$output")" = "| 1 | 1 | 16 | 100.00 | - | 1.00 | - | - | 5 | 2.0% | - | - |" ]
	[ "$(grep '^| 1 | 2 ' <<<"$output")" = "| 1 | 2 | 16 | 190.00 | 1.00 | 1.90 | 0.04 | 0.95 | 5 | 1.1% | 0.4% | - |" ]
}

@test "the pipelines' setting.<name> items are a footer line of their own" {
	run -0 --separate-stderr bash -c "$(declare -f env_input); { env_input;
		echo '# env framework=bench key=1n1g_b16_fp32 run=1 node=0 setting.threads=2'
		echo '# env framework=bench key=1n2g_b16_fp32 run=1 node=0 setting.threads=1'; } | table"
	[ "${lines[-2]}" = "- versions: onednn 3.0.1" ]
	[ "${lines[-1]}" = "- settings: threads 2 / 1" ]
}

# ---- runs that failed: outcome lines ---------------------------------------
# fixtures/table/failed.tsv: speedup records with outcome lines (1n2g lost a
# run to a timeout, 1n4g's runs all ran out of memory); failed.md and
# failed.json its table and JSON. compare-oom.tsv: DLPerf's cross-framework
# figures at batch 160 with TensorFlow's 2n8g out of memory, compare-oom.md.

T_F="$FIXTURES/table"

@test "scaling: a configuration whose runs all failed gets its row, OOM; a failed runs column and the footer say which and why" {
	run -0 --separate-stderr table "$T_F/failed.tsv"
	[ "$output" = "$(cat "$T_F/failed.md")" ]
	[ -z "$stderr" ]
	[ "${lines[5]}" = "| 1 | 4 | 256 | OOM | - | - | - | - | 0 | - | - | - | runs 1,2,3: OOM |" ]
	[ "${lines[4]}" = "| 1 | 2 | 256 | 689.80 | 3.81 | 1.94 | 0.01 | 0.97 | 2 | 0.1% | 0.1% | - | run 2: timeout |" ]
}

@test "json: null figures, the outcome and the failed runs with their reasons" {
	run -0 table -s json "$T_F/failed.tsv"
	[ "$output" = "$(cat "$T_F/failed.json")" ]
	python3 -c 'import json, sys
d = json.loads(sys.argv[1])["r50"]
assert d["1n4g"]["median_speed"] is None and d["1n4g"]["average_speed"] is None and d["1n4g"]["speedup"] is None
assert d["1n4g"]["outcome"] == "oom" and [f["run"] for f in d["1n4g"]["failed_runs"]] == [1, 2, 3]
assert "outcome" not in d["1n2g"] and d["1n2g"]["failed_runs"] == [{"run": 2, "status": "timeout", "exit": 124, "reason": "launch: 1n2g_b256_fp32: timed out after 3600 s"}]' "$output"
}

@test "compare: TensorFlow's 2n8g out of memory, an OOM cell as in DLPerf's cross-framework table at batch 160" {
	run -0 table -s compare "$T_F/compare-oom.tsv"
	[ "$output" = "$(cat "$T_F/compare-oom.md")" ]
	[ "${lines[7]}" = "| 2 | 16 | 5839.05 | OOM | 2386.48 | 5128.92 |" ]
}

@test "DLPerf's records: the failed row in DLPerf's layout; with no record at all, ours unless the mode is DLPerf's" {
	run -0 bash -c "grep -v '^# outcome .* key=1n1g' '$T_F/compare-oom.tsv' | grep -v '^oneflow\|^pytorch\|^paddle' | table"
	[ "${lines[1]}" = "| node_num | gpu_num_per_node | batch_size_per_device | samples/s | speedup | n | spread | failed runs |" ]
	[ "${lines[7]}" = "| 2 | 8 | 160 | OOM | - | 0 | - | runs 1,2,3,4,5: OOM |" ]
	run -0 bash -c "printf '# mode=dlperf\n# outcome framework=a key=1n1g_b16_fp32 run=1 status=failed exit=3\n' | table"
	[ "${lines[3]}" = "| 1 | 1 | 16 | failed | - | 0 | - | run 1: failed |" ]
	run -0 bash -c "printf '# outcome framework=a key=1n1g_b16_fp32 run=1 status=failed exit=3\n' | table"
	[ "${lines[3]}" = "| 1 | 1 | 16 | failed | - | - | - | - | 0 | - | - | - | run 1: failed |" ]
}

@test "runs that disagree: the row says failed, the column each; - for a speedup whose 1n1g failed" {
	run -0 table "$FIXTURES/plot/failed.tsv"
	[ "${lines[3]}" = "| 1 | 1 | 64 | failed | - | - | - | - | 0 | - | - | - | runs 1,2: failed |" ]
	[ "${lines[5]}" = "| 1 | 4 | 64 | 198.10 | - | - | - | - | 1 | 0.0% | - | no interval: 1 run | run 2: OOM |" ]
	[ "${lines[6]}" = "| 2 | 4 | 64 | failed | - | - | - | - | 0 | - | - | - | run 2: OOM; run 1: timeout |" ]
	[ "${lines[8]}" = "- **failed runs**: bench 1n4g_b64_fp32 run 2: OOM (exit 1): bench: out of device memory: 2048 MiB more on cuda device 3, 812 MiB of 16160 MiB free (cudaMalloc: out of memory); a smaller --batch may fit" ]
	[ "${lines[9]}" = "- **failed runs**: bench 2n4g_b64_fp32 run 2: OOM (exit 1)" ]
}

@test "a speedup of - without its 1n1g's outcome lines, a second outcome of a run, a bad outcome line: errors naming the line" {
	run -1 --separate-stderr table <<<$'# outcome framework=a key=1n2g_b128_fp32 run=1 status=oom exit=1\na\t1n4g_b128_fp32\t1.00\t1.00\t1.00\t1.00\t1\t-'
	[ "$stderr" = "table: <stdin>:2: speedup '-' is not a number" ]
	run -1 --separate-stderr table <<<$'# outcome framework=a key=1n1g_b128_fp32 run=1 status=oom exit=1\na\t1n4g_b128_fp32\t1.00\t1.00\t1.00\t1.00\t1\t-\t-\t-\t-\t-\t-\t0.10'
	[ "$stderr" = "table: <stdin>:2: efficiency '0.10' without a speedup" ]
	run -1 --separate-stderr table <<<$'# outcome framework=a key=1n1g_b128_fp32 run=1 status=oom exit=1\n# outcome framework=a key=1n1g_b128_fp32 run=1 status=oom exit=1'
	[ "$stderr" = "table: <stdin>:2: a second outcome of run 1 of a 1n1g_b128_fp32" ]
	run -1 --separate-stderr table <<<$'# outcome framework=a key=1n1g_b128_fp32 run=1 status=oom exit=256'
	[ "$stderr" = "table: <stdin>:1: outcome line: exit '256' is not a status 1..255" ]
}

@test "an outcome line and a record of one run's configuration: the row is the record's, the column names the failed run" {
	run -0 table <<<$'a\t1n1g_b8_fp32\t2.00\t2.00\t2.00\t2.00\t1\t1.00\n# outcome framework=a key=1n1g_b8_fp32 run=2 status=timeout exit=124'
	[ "${lines[3]}" = "| 1 | 1 | 8 | 2.00 | 1.00 | 1 | 0.0% | run 2: timeout |" ]
}

# ---- the interconnect (doc/cluster.md) ---------------------------------------
# fixtures/table/interconnect.tsv: NGC PyTorch b128 from 1n1g to 4n8g, two
# runs each, with launch's topology (the OneFlow report's DGX-1, nvidia-smi
# topo -m) and InfiniBand items of each node (4n8g's node 1: its port down)
# and grep-iters' NCCL items: 1n8g P2P only, 2n8g's run 1 over InfiniBand
# and run 2 over sockets, 4n8g's runs over sockets with libibverbs' warning.
# interconnect.md and interconnect.json: its table and JSON.

@test "the interconnect: an nccl column, † on a multi-node row over sockets, the footer's topology, ports and note" {
	run -0 --separate-stderr table "$T_F/interconnect.tsv"
	[ "$output" = "$(cat "$T_F/interconnect.md")" ]
	[ -z "$stderr" ]
	[ "${lines[1]}" = "| node_num | gpu_num_per_node | batch_size_per_device | samples/s | speedup | n | spread | nccl |" ]
	[ "${lines[3]}" = "| 1 | 1 | 128 | 100.00 | 1.00 | 2 | 2.0% | - |" ]
	[ "${lines[4]}" = "| 1 | 8 | 128 | 780.00 | 7.80 | 2 | 0.3% | P2P/IPC |" ]
	[ "${lines[5]}" = "| 2 | 8 | 128 | 1500.00 | 15.00 | 2 | 0.1% | NET/IB/GDRDMA, P2P/IPC, NET/Socket † |" ]
	[ "${lines[6]}" = "| 4 | 8 | 128 | 2400.00 | 24.00 | 2 | 0.1% | P2P/IPC, NET/Socket † |" ]
	[ "${lines[8]}" = "- versions: nccl.version 2.5.6+cuda10.2" ]
	[ "${lines[9]}" = "- interconnect: 8 GPUs (pairs: 8 NV2, 8 NV1, 12 SYS); mlx5_0 nearest GPU2, GPU3 (PIX); InfiniBand ports: mlx5_0:1 InfiniBand 100 Gb/sec (4X EDR) ACTIVE / mlx5_0:1 InfiniBand 100 Gb/sec (4X EDR) DOWN" ]
	[ "${lines[10]}" = "- nccl: network IB / Socket, devices mlx5_0:1/IB / ib0, libibverbs: no userspace device-specific driver found for /sys/class/infiniband_verbs/uverbs0" ]
	[ "${lines[13]}" = "- **environments differ**: ngc-pytorch 2n8g_b128_fp32 node 0: nccl.transports is NET/IB/GDRDMA,P2P/IPC in run 1, NET/Socket,P2P/IPC in run 2" ]
	[ "${lines[14]}" = "- † **NCCL over sockets between nodes**: ngc-pytorch 2n8g_b128_fp32 run 2; ngc-pytorch 4n8g_b128_fp32 runs 1, 2. NCCL's traffic between the nodes went over TCP sockets (NET/Socket), not InfiniBand or RoCE (NET/IB): the figure is not what the interconnect can do (doc/cluster.md)" ]
	[ "${#lines[@]}" = 15 ]
	# -s compare: no nccl column, the note all the same
	run -0 --separate-stderr table -s compare "$T_F/interconnect.tsv"
	[ "${lines[1]}" = "| node num | device num | NGC PyTorch |" ]
	[[ "${lines[-1]}" == "- † **NCCL over sockets between nodes**: ngc-pytorch 2n8g_b128_fp32 run 2; "* ]]
}

@test "json: each case's NCCL networks, transports and runs over sockets; the nodes' topologies and ports" {
	run -0 table -s json "$T_F/interconnect.tsv"
	[ "$output" = "$(cat "$T_F/interconnect.json")" ]
	python3 -c 'import json, sys
d = json.loads(sys.argv[1])
r = d["r50"]
assert "nccl" not in r["1n1g"], r["1n1g"]
assert r["1n8g"]["nccl"] == {"network": ["IB"], "transports": ["P2P/IPC"], "socket_runs": []}, r["1n8g"]
assert r["2n8g"]["nccl"] == {"network": ["IB", "Socket"], "transports": ["NET/IB/GDRDMA", "P2P/IPC", "NET/Socket"], "socket_runs": [2]}
assert r["4n8g"]["nccl"]["socket_runs"] == [1, 2]
assert d["interconnect"] == {"topology": ["8 GPUs (pairs: 8 NV2, 8 NV1, 12 SYS); mlx5_0 nearest GPU2, GPU3 (PIX)"],
    "infiniband": ["mlx5_0:1 InfiniBand 100 Gb/sec (4X EDR) ACTIVE", "mlx5_0:1 InfiniBand 100 Gb/sec (4X EDR) DOWN"]}, d["interconnect"]
e = [o for o in d["environment"] if o["key"] == "4n8g_b128_fp32" and o["run"] == 2 and o["node"] == 1][0]
assert e["topo.GPU2"] == "NV1,NV2,X,NV2,SYS,SYS,NV1,SYS,PIX" and e["ib.mlx5_0.1.state"] == "1: DOWN", e' "$output"
}

# nccl_input LINE…: two bench configurations, 1n8g and 2n8g, each run's
# items the LINEs with KEY and RUN replaced.
nccl_input() {
	printf 'bench\t1n8g_b16_fp32\t80.00\t80.00\t79.00\t81.00\t2\t1.00\n'
	printf 'bench\t2n8g_b16_fp32\t150.00\t150.00\t149.00\t151.00\t2\t1.88\n'
	for k in 1n8g_b16_fp32 2n8g_b16_fp32; do
		for r in 1 2; do
			for l in "$@"; do
				l=${l//KEY/$k}
				echo "# env framework=bench key=$k run=$r node=0 ${l//RUN/$r}"
			done
		done
	done
}

@test "which runs are over sockets: a NET/Socket transport, or, without any over a network, NCCL's Socket network; one node never" {
	# the network alone (NCCL 2.5's lines without channels): Socket in 2n8g is marked, 1n8g never
	run -0 --separate-stderr bash -c "$(declare -f nccl_input); nccl_input nccl.net=Socket | table"
	[ "$(grep '^| 1 | 8 ' <<<"$output")" = "| 1 | 8 | 16 | 80.00 | 1.00 | 2 | 2.5% | network Socket |" ]
	[ "$(grep '^| 2 | 8 ' <<<"$output")" = "| 2 | 8 | 16 | 150.00 | 1.88 | 2 | 1.3% | network Socket † |" ]
	[ "${lines[-1]}" = "- † **NCCL over sockets between nodes**: bench 2n8g_b16_fp32 runs 1, 2. NCCL's traffic between the nodes went over TCP sockets (NET/Socket), not InfiniBand or RoCE (NET/IB): the figure is not what the interconnect can do (doc/cluster.md)" ]
	# the transports say IB: not marked, whatever the network line said
	run -0 --separate-stderr bash -c "$(declare -f nccl_input); nccl_input nccl.net=Socket nccl.transports=P2P/IPC,NET/IB | table"
	[ "$(grep '^| 2 | 8 ' <<<"$output")" = "| 2 | 8 | 16 | 150.00 | 1.88 | 2 | 1.3% | P2P/IPC, NET/IB |" ]
	! grep -q '†' <<<"$output" || false
	# one run of 2n8g over sockets: that run named
	run -0 --separate-stderr bash -c "$(declare -f nccl_input); nccl_input nccl.transports=P2P/IPC,NET/IB |
		sed '/2n8g.* run=2 /s,NET/IB,NET/Socket,' | table"
	[ "$(grep '^| 2 | 8 ' <<<"$output")" = "| 2 | 8 | 16 | 150.00 | 1.88 | 2 | 1.3% | P2P/IPC, NET/IB, NET/Socket † |" ]
	[[ "${lines[-1]}" == "- † **NCCL over sockets between nodes**: bench 2n8g_b16_fp32 run 2. "* ]]
	# no NCCL item at all: no column, no interconnect line
	run -0 --separate-stderr bash -c "$(declare -f nccl_input); nccl_input hostname=vm | table"
	[[ "${lines[1]}" == *"| spread |" ]]
	! grep -q 'interconnect\|nccl\|†' <<<"$output" || false
}

@test "with our statistics the nccl column comes after noisy and memory, before published" {
	run -0 --separate-stderr bash -c "$(declare -f nccl_input); { printf '%s\n' \
		\$'bench\t1n8g_b16_fp32\t80.00\t80.00\t79.00\t81.00\t2\t79.00\t81.00\t1.00\t-\t1.00\t0.00\t1.00' \
		\$'bench\t2n8g_b16_fp32\t150.00\t150.00\t149.00\t151.00\t2\t149.00\t151.00\t0.50\t-\t1.88\t0.02\t0.94'
		nccl_input nccl.transports=P2P/CUMEM,NET/Socket | grep '^#'
		echo '# mem framework=bench key=2n8g_b16_fp32 run=1 node=0 gpu=0 gpu_peak_mib=12565'; } |
		table -p '$D/ngc-pytorch_amp_b256_dynamic.tsv'"
	[[ "${lines[1]}" == *"| noisy | memory | nccl | published |" ]]
	[[ "${lines[2]}" == *"| --- | --- | --- | --- |" ]]
	[[ "$(grep '^| 2 | 8 ' <<<"$output")" == *"| - | 12565 | P2P/CUMEM, NET/Socket † | - |" ]]
}

@test "item names short or odd (a, ib.x, topo.) are read as they are, the interconnect from those it knows (found by the fuzz campaign)" {
	run -0 --separate-stderr table <<<$'b\t1n1g_b1_fp32\t1.00\t1.00\t1.00\t1.00\t1\t1.00
# env framework=b key=1n1g_b1_fp32 run=1 node=0 a=1
# env framework=b key=1n1g_b1_fp32 run=1 node=0 ib.x=1
# env framework=b key=1n1g_b1_fp32 run=1 node=0 topo.=1
# env framework=b key=1n1g_b1_fp32 run=1 node=0 topo.columns=GPU0,,x
# env framework=b key=1n1g_b1_fp32 run=1 node=0 ib.y.link_layer=IB
# env framework=b key=1n1g_b1_fp32 run=1 node=0 ib.y.1.link_layer=Ethernet'
	[ "${lines[-2]}" = "- versions: a 1" ]
	[ "${lines[-1]}" = "- interconnect: 1 GPU; InfiniBand ports: y:1 Ethernet" ]
}

@test "the footer's topology: a NIC by its NIC Legend name, its nearest GPUs; no InfiniBand device said so" {
	p='framework=b key=1n1g_b1_fp32 run=1 node=0'
	run -0 --separate-stderr table <<<"$(printf 'b\t1n1g_b1_fp32\t1.00\t1.00\t1.00\t1.00\t1\t1.00\n')
# env $p topo.columns=GPU0,GPU1,GPU2,GPU3,NIC0,NIC1
# env $p topo.GPU0=X,NV18,NV18,NV18,PIX,SYS
# env $p topo.GPU1=NV18,X,NV18,NV18,PIX,SYS
# env $p topo.GPU2=NV18,NV18,X,NV18,SYS,PXB
# env $p topo.GPU3=NV18,NV18,NV18,X,SYS,NODE
# env $p topo.NIC0.name=mlx5_0
# env $p ib_devices=0"
	[ "${lines[-1]}" = "- interconnect: 4 GPUs (pairs: 6 NV18); mlx5_0 nearest GPU0, GPU1 (PIX); NIC1 nearest GPU2 (PXB); InfiniBand ports: none" ]
}

# ---- energy per sample and MFU ----------------------------------------------
# fixtures/table/energy.tsv: bench at 1n1g and 1n2g, 3 runs each (median
# samples/s 11 and 20), window's energy lines (1n1g's runs 1.0, 1.2 and 1.1
# J a sample; 1n2g's run 2 without a counter) and bench's FLOP count (2
# GFLOP a sample); roof.txt a CPU roof of 100 GFLOP/s in fp32, none in
# bf16. energy.md, energy.json and energy-compare.md: their views.

@test "J/sample: the median over runs of joules ÷ samples; - and the footer's reason where a run has none" {
	cd "$T_F"
	run -0 --separate-stderr table -r roof.txt energy.tsv
	[ "$output" = "$(cat energy.md)" ]
	[ -z "$stderr" ]
	[ "${lines[1]}" = "| node_num | gpu_num_per_node | batch_size_per_device | samples/s | ± | speedup | ± | efficiency | n | spread | cv | noisy | J/sample | MFU % |" ]
	[[ "${lines[3]}" == "| 1 | 1 | 16 | 11.00 | "*" | 1.100 | 22.0 |" ]]
	[[ "${lines[4]}" == "| 1 | 2 | 16 | 20.00 | "*" | - | 40.0 |" ]]
	[ "${lines[-2]}" = "- **no energy figure**: bench 1n2g_b16_fp32: run 2: node 0: no energy counter readable: no RAPL (/sys/class/powercap absent)" ]
}

@test "MFU % on CPUs: samples/s × the log's FLOP a sample ÷ (nodes × the measured roof), in every view" {
	cd "$T_F"
	# 11 x 2 GFLOP / 100 GFLOP/s = 22 %; 1n2g: one node's CPUs, 20 x 2 / 100 = 40 %
	run -0 table -s json -r roof.txt energy.tsv
	[ "$output" = "$(cat energy.json)" ]
	python3 -c 'import json, sys
d = json.loads(sys.argv[1])["r50"]
assert d["1n1g"]["energy_j_per_sample"] == 1.1 and d["1n1g"]["mfu_percent"] == 22.0, d
assert d["1n2g"]["energy_j_per_sample"] is None and d["1n2g"]["mfu_percent"] == 40.0, d
assert d["1n2g"]["energy_reason"].startswith("run 2: node 0: no energy counter readable"), d' "$output"
	run -0 table -s compare -r roof.txt energy.tsv
	[ "$output" = "$(cat energy-compare.md)" ]
	[ "${lines[1]}" = "| node num | device num | bench | bench J/sample | bench MFU % |" ]
	[ "${lines[3]}" = "| 1 | 1 | 11.00 | 1.100 | 22.0 |" ]
	# amp on CPUs is bf16: this roof has none, so no MFU, and the footer says so
	run -0 bash -c "sed 's/_fp32/_amp/g' energy.tsv | table -r roof.txt"
	[[ "${lines[1]}" == *"| noisy | J/sample |" ]]
	[ "${lines[-1]}" = "- **no MFU**: bench 1n1g_b16_amp, bench 1n2g_b16_amp: roof.txt has no bf16 roof" ]
	# no roof given: none, and how to give one
	run -0 table energy.tsv
	[ "${lines[-1]}" = "- **no MFU**: bench 1n1g_b16_fp32, bench 1n2g_b16_fp32: no peak of its CPUs: ROOF= bin/perf-roof's output, or PEAK_TFLOPS=" ]
	# -P: a device's peak, here a node's CPUs: 11 x 2 / 50 = 44 %
	run -0 table -P 0.05 energy.tsv
	[[ "${lines[3]}" == *" | 1.100 | 44.0 |" ]]
	[ "${lines[-1]}" = "- MFU: bench 1n1g_b16_fp32, bench 1n2g_b16_fp32: samples/s × 2.000 GFLOP a sample (the trainer's own count, its log's flop_per_sample) ÷ (devices × 0.05 TFLOP/s a node's CPUs (PEAK_TFLOPS))" ]
}

# Speedup records of one run of fw KEY at SAMPLES/s with env lines NAME=VALUE...
gpu_rows() {
	local key=$1 rate=$2
	shift 2
	printf 'fw\t%s\t%s\t%s\t%s\t%s\t1\t-\t-\t-\t-\t1.00\t0.00\t1.00\n' "$key" "$rate" "$rate" "$rate" "$rate"
	for item in "$@"; do
		echo "# env framework=fw key=$key run=1 node=0 $item"
	done
}

@test "MFU % on GPUs: a device's dense peak at the run's precision, by nvidia-smi's name, N × G devices" {
	h100='gpu0.name=NVIDIA%20H100%2080GB%20HBM3'
	# ResNet50 at 224 px, named by a pipeline: 3 x 8,178,368,512 FLOP, bench's count
	run -0 bash -c "$(declare -f gpu_rows); gpu_rows 1n1g_b256_amp 3000.00 '$h100' model=resnet50 image=224 | table"
	# 3000 x 24.535105536e9 / 989.5e12 = 7.4387 %
	[[ "${lines[3]}" == *" | 7.4 |" ]]
	[ "${lines[-1]}" = "- MFU: fw 1n1g_b256_amp: samples/s × 24.535 GFLOP a sample (resnet50 at 224 px: 3 × its forward pass, 2 FLOP a multiply-add) ÷ (devices × 989.5 TFLOP/s a GPU, the dense fp16 peak of the H100's datasheet (NVIDIA H100 80GB HBM3))" ]
	[ "$(bench --describe | sed -n 's/^train_flops_per_sample=//p')" = 24535105536 ] ||
		! command -v bench >/dev/null
	# 8 GPUs of a node: 8 x the peak
	run -0 bash -c "$(declare -f gpu_rows); gpu_rows 1n8g_b256_amp 24000.00 '$h100' flop_per_sample=24535105536 | table -s json"
	python3 -c 'import json, sys
v = json.loads(sys.argv[1])["r50"]["1n8g"]["mfu_percent"]
assert abs(v - 24000 * 24535105536 / (8 * 989.5e12) * 100) < 1e-9, v' "$output"
	# the name picks the row: PCIe, A10 beside A100, V100 without bf16, one unknown
	for c in "NVIDIA%20H100%20PCIe fp32 51" "NVIDIA%20A100-SXM4-80GB tf32 156" "NVIDIA%20A10 bf16 125" \
		"Tesla%20V100-SXM2-16GB fp16 125" "Tesla%20V100-PCIE-32GB amp 112" "NVIDIA%20H200 bf16 989.5" \
		"NVIDIA%20L40S fp16 362.05"; do
		set -- $c
		run -0 bash -c "$(declare -f gpu_rows); gpu_rows 1n1g_b64_$2 100.00 gpu0.name=$1 flop_per_sample=1000000000000 | table"
		[[ "${lines[-1]}" == *"÷ (devices × $3 TFLOP/s a GPU, the dense "* ]]
	done
	run -0 bash -c "$(declare -f gpu_rows); gpu_rows 1n1g_b64_bf16 100.00 gpu0.name=Tesla%20V100-SXM2-16GB flop_per_sample=1 | table"
	[ "${lines[-1]}" = "- **no MFU**: fw 1n1g_b64_bf16: Tesla V100-SXM2-16GB has no bf16 tensor core (PEAK_TFLOPS= gives a peak)" ]
	[[ "${lines[1]}" != *"MFU"* ]]
	run -0 bash -c "$(declare -f gpu_rows); gpu_rows 1n1g_b64_fp32 100.00 gpu0.name=Tesla%20K80 flop_per_sample=1 | table -s json"
	[[ "$output" == *'"mfu_percent": null, "mfu_reason": "no peak known for Tesla K80 (PEAK_TFLOPS= gives one)"'* ]]
	# PEAK_TFLOPS overrides the table
	run -0 bash -c "$(declare -f gpu_rows); gpu_rows 1n1g_b64_fp32 100.00 gpu0.name=Tesla%20K80 flop_per_sample=1000000000000 | table -P 200"
	[[ "${lines[3]}" == *" | 50.0 |" ]]
}

@test "no FLOP count, no MFU and no footer line; a model of unknown FLOP count says so" {
	run -0 bash -c "$(declare -f gpu_rows); gpu_rows 1n1g_b64_fp32 100.00 gpu0.name=NVIDIA%20A100 | table"
	[[ "$output" != *MFU* ]]
	run -0 bash -c "$(declare -f gpu_rows); gpu_rows 1n1g_b64_fp32 100.00 gpu0.name=NVIDIA%20A100 model=resnet50 image=64 | table -s json"
	[[ "$output" == *'"mfu_percent": null, "mfu_reason": "no FLOP count of resnet50 at 64 px (a log'"'"'s flop_per_sample gives one)"'* ]]
}

@test "energy and MFU inputs that are wrong: errors naming file and line, or usage" {
	run -1 --separate-stderr table <<<'# energy framework=a key=1n1g_b1_fp32 run=1 node=0 device=gpu0 how=nvml t=1 j=1'
	[ "$stderr" = "table: <stdin>:1: an energy sample: window turns a run's samples into its joules first" ]
	printf 'roof fp32 fast GFLOP/s\n' > "$BATS_TEST_TMPDIR/roof"
	run -1 --separate-stderr table -r "$BATS_TEST_TMPDIR/roof" </dev/null
	[ "$stderr" = "table: $BATS_TEST_TMPDIR/roof:1: roof 'fast GFLOP/s' is not a positive GFLOP/s" ]
	printf 'peak fp32 1\n' > "$BATS_TEST_TMPDIR/roof"
	run -1 --separate-stderr table -r "$BATS_TEST_TMPDIR/roof" </dev/null
	[ "$stderr" = "table: $BATS_TEST_TMPDIR/roof:1: not bin/perf-roof's 'roof fp32|bf16 <GFLOP/s> GFLOP/s ...'" ]
	run -2 --separate-stderr table -P 0 </dev/null
	[ "${stderr_lines[0]}" = "table: -P: '0' is not a peak in TFLOP/s > 0" ]
	run -1 --separate-stderr table -r "$BATS_TEST_TMPDIR/none" </dev/null
	[[ "$stderr" == "table: $BATS_TEST_TMPDIR/none: "* ]]
}
