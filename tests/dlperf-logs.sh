#!/usr/bin/env bash
# dlperf-logs.sh — full-length training logs of the five DLPerf reports, each
# in its report's own layout and line format, written so that the report's
# method gives the report's per-run speeds (its table's figure as one run
# where it gives none). tests/dlperf.bats runs them through make.
#
#   tests/dlperf-logs.sh REPORT ROOT
#
# REPORT and what it writes under ROOT:
#   oneflow-0.1.8   <N>n<G>g/r50_b<B>_fp32_1.log: OneFlow 0.1.8, batch 128 and
#                   160, 200 iterations printed every 20, no time stamps
#   plsc            <N>n<G>g/r50_b128_fp32_<run>.log: PLSC, 150 batches
#                   printed every 10, N lines a period for N nodes
#   ngc-pytorch     fp32_ngc/, amp_ngc/ (dynamic loss scale, 1n1g-1n8g named
#                   fp16 as DLPerf's tree), amp_static_ngc/:
#                   <N>n<G>g/r50_b<B>_<prec>_<run>.log, 150 DLL iterations
#   pytorch         <model>_<N>node_bz<B>/<N>n<G>c_real.log (train.sh's
#                   layout): one epoch of ImageNet, every rank's lines
#
# These logs are made, not measured: each is the inverse of its method
# (doc/dlperf.md), with noise that the method averages away exactly. The
# figures are the reports' (data/dlperf/); a pseudo-random sequence of fixed
# seed makes the same bytes every time.
set -euo pipefail

usage() {
	echo "usage: tests/dlperf-logs.sh oneflow-0.1.8|plsc|ngc-pytorch|pytorch ROOT" >&2
	exit 2
}
[ $# -eq 2 ] || usage
report=$1 root=$2

# The awk functions every generator shares: Park-Miller's generator (exact in
# doubles, so every awk gives the same sequence) and a time of day.
AWK_LIB='
function rnd() { seed = (seed * 16807) % 2147483647; return seed / 2147483647 }
# an integer in [-a, a]
function jit(a) { return int(rnd() * (2 * a + 1)) - a }
function hms(s,   h, m) { h = int(s / 3600); m = int((s - h * 3600) / 60)
	return sprintf("%02d:%02d:%02d", h, m, int(s - h * 3600 - m * 60)) }
'

# ---- OneFlow 0.1.8 (report 004) ----------------------------------------------
# The report's rule: the mean of the samples/s after the first. The nine are
# printed in thousandths and sum to 9 x the figure + 0.001: their mean is the
# figure to three decimals, away from a tie at two.
oneflow_log() { # file figure seed
	mkdir -p "$(dirname "$1")"
	awk -v fig="$2" -v seed="$3" "$AWK_LIB"'
	BEGIN {
		tm = int(fig * 1000 + 0.5); sum = 0
		for (i = 1; i <= 8; i++) { v[i] = tm + jit(500); sum += v[i] }
		v[9] = 9 * tm + 1 - sum
		first = int(tm * (0.72 + 0.06 * rnd()))
		loss = 6.9
		for (k = 1; k <= 10; k++) {
			r = k == 1 ? first : v[k - 1]
			loss = k < 5 ? loss * (0.66 + 0.08 * rnd()) : 1.05 + 0.004 * rnd()
			t1 = k < 3 ? 0.01 * k * rnd() : k < 4 ? 0.8 + 0.2 * rnd() : 1
			t5 = k < 3 ? 0.05 * k * rnd() : 1
			printf "train: epoch 0, iter %d, loss: %.6f, top_1: %.6f, top_k: %.6f, samples/s: %d.%03d\n",
				20 * k, loss, t1, t5, int(r / 1000), r % 1000
		}
	}' > "$1"
}

oneflow_tree() {
	local seed=1 b case fig
	for b in 128 160; do
		while read -r case fig; do
			oneflow_log "$root/$case/r50_b${b}_fp32_1.log" "$fig" "$seed"
			seed=$((seed + 1))
		done < <(awk -F'\t' '!/^#/ { k = $2; sub(/_.*/, "", k); print k, $3 }' \
			"$(dirname "$0")/../data/dlperf/oneflow_fp32_b${b}_v0.1.8.tsv")
	done
}

# ---- PLSC (report 003) ---------------------------------------------------------
# Every node's trainer prints a line a period; DLPerf averaged qps entries
# 5N+1 ... 15N of the log: the lines of batches 50 ... 140. Their qps, in
# hundredths, sum to 10N x the run's figure.
plsc_log() { # file nodes gpus figure seed start_s
	mkdir -p "$(dirname "$1")"
	awk -v n="$2" -v g="$3" -v fig="$4" -v seed="$5" -v start="$6" "$AWK_LIB"'
	function line(t, b, q, l) {
		printf "INFO 2021-03-12 %s,%03d entry.py:1024] Pass:0 batch:%d lr:0.10000000 loss:%.6f qps:%d.%02d\n",
			hms(t), int((t - int(t)) * 1000), b, l, int(q / 100), q % 100
	}
	BEGIN {
		tb = n * g * 128; xc = int(fig * 100 + 0.5); m = 10 * n; sum = 0
		for (i = 1; i < m; i++) { w[i] = xc + jit(1500); sum += w[i] }
		w[m] = m * xc - sum
		t = start
		printf "INFO 2021-03-12 %s,000 entry.py:199] Set train batch size to 128.\n", hms(t)
		printf "INFO 2021-03-12 %s,000 entry.py:203] Set log period to 10.\n", hms(t)
		printf "INFO 2021-03-12 %s,000 entry.py:349] Set loss_type to %s.\n", hms(t), (n * g > 1 ? "dist_arcface" : "arcface")
		t += 20; loss = 42.83; e = 0
		for (p = 0; p < 15; p++) {
			b = 10 * p
			for (j = 1; j <= n; j++) {
				if (p >= 5) q[j] = w[++e]
				else if (p == 0) q[j] = int(xc * (0.2 + 0.05 * rnd()))
				else q[j] = xc + jit(3000)
			}
			t += (p == 0 ? 1 : 10) * tb / (q[1] / 100)
			loss -= 0.01 + 0.01 * rnd()
			for (j = 1; j <= n; j++)
				line(t + 0.004 * (j - 1) + 0.002 * rnd(), b, q[j], loss + 0.0001 * jit(5))
		}
	}' > "$1"
}

plsc_tree() {
	# the runs of the README's sample output, run = its index
	local seed=1 start=36000 case runs r x
	while read -r case runs; do
		r=1
		for x in ${runs//,/ }; do
			plsc_log "$root/$case/r50_b128_fp32_$r.log" "${case%%n*}" "${case#*n}" "$x" "$seed" "$start"
			seed=$((seed + 1)) r=$((r + 1)) start=$((start + 600))
		done
	done <<'RUNS'
1n1g 397.44,398.05,398.98,397.64,397.78
1n4g 1555.18,1534.62,1540.66,1539.66,1535.04
1n8g 2536.04,2545.3,2563.28,2554.13,2542.14
2n8g 5950.34,5953.84,5982.75,5961.68,5934.43
4n8g 11165.17,11109.91,11084.53,11077.58,10997.67
RUNS
}

# ---- NGC PyTorch (report 001) ---------------------------------------------------
# DLPerf: TB x 100 / (t(iteration 125) - t(iteration 25)), R2p; the stamps
# in microseconds: the span is the one that gives the figure.
ngc_log() { # file nodes gpus batch prec figure seed start_s
	mkdir -p "$(dirname "$1")"
	local name=${1#"$root/"}
	awk -v n="$2" -v g="$3" -v b="$4" -v prec="$5" -v fig="$6" -v seed="$7" -v start="$8" \
		-v name="$name" "$AWK_LIB"'
	function stamp(us) { return sprintf("2020-09-15 %s.%06d", hms(int(us / 1000000)), us % 1000000) }
	BEGIN {
		tb = n * g * b; w = n * g; half = prec != "fp32"
		span = int(tb * 100 * 1000000 / fig + 0.5)
		for (d = 0; d < 50; d++) {
			if (sprintf("%.2f", tb / ((span + d) / 1000000 / 100)) + 0 == fig + 0) { span += d; break }
			if (sprintf("%.2f", tb / ((span - d) / 1000000 / 100)) + 0 == fig + 0) { span -= d; break }
		}
		if (d == 50) { print "no span gives " fig > "/dev/stderr"; exit 1 }
		q = int(span / 100); sum = 0
		for (i = 26; i < 125; i++) { st[i] = q + jit(int(q / 40)); sum += st[i] }
		st[125] = span - sum
		for (i = 2; i <= 25; i++) st[i] = int(q * (i < 6 ? 1.6 - 0.1 * i : 1) + jit(int(q / 40)))
		for (i = 126; i <= 150; i++) st[i] = q + jit(int(q / 40))
		us = start * 1000000
		printf "+ %s -z %s %s\n+ tee %s\n", "'\''['\''", name, "'\'']'\''", name
		printf "+ python /workspace/rn50/multiproc.py --nnodes %d --node_rank 0 --nproc_per_node %d --master_addr 10.11.0.2 --master_port=22333 /workspace/rn50/main.py --data-backend dali-cpu --raport-file /workspace/rn50/raport.json -j8 -p 1 --lr 1.024 --optimizer-batch-size -1 --warmup 8 --arch resnet50 -c fanin --label-smoothing 0.1 --lr-schedule cosine --mom 0.125 --wd 3.0517578125e-05 --workspace /workspace/rn50 -b %d --epochs 1 --prof 150 --training-only --no-checkpoints%s /data/image\n", n, g, b, (half ? (prec == "amp-static" ? " --amp --static-loss-scale 128" : " --amp --dynamic-loss-scale") : "")
		print "=> creating model '\''('\''resnet50'\'', '\''fanin'\'', 1000)'\''"
		print "read 1281167 files from 1000 directories"
		print "read 50000 files from 1000 directories"
		printf "DLL %s - PARAMETER data : /data/image  data_backend : dali-cpu  arch : resnet50  model_config : fanin  num_classes : 1000  workers : 8  epochs : 1  run_epochs : -1  batch_size : %d  optimizer_batch_size : -1  lr : 1.024  lr_schedule : cosine  warmup : 8  label_smoothing : 0.1  mixup : 0.0  momentum : 0.125  weight_decay : 3.0517578125e-05  bn_weight_decay : False  nesterov : False  print_freq : 1  resume : None  pretrained_weights :   fp16 : False  static_loss_scale : %s  dynamic_loss_scale : %s  prof : 150  amp : %s  seed : None  gather_checkpoints : False  raport_file : /workspace/rn50/raport.json  evaluate : False  training_only : True  save_checkpoints : False  checkpoint_filename : checkpoint.pth.tar  workspace : /workspace/rn50  memory_format : nchw  distributed : %s  local_rank : 0  gpu : %d  world_size : %d \n",
			stamp(us), b, (prec == "amp-static" ? "128.0" : "1"), (half && prec != "amp-static" ? "True" : "False"), (half ? "True" : "False"), (w > 1 ? "True" : "False"), (w > 1 ? g : 0), w
		print " ! Weight decay NOT applied to BN parameters "
		print "RUNNING EPOCHS FROM 0 TO 1"
		us += 19975322; loss = 7.1
		for (i = 1; i <= 150; i++) {
			if (i > 1) us += st[i]
			loss = loss > 6.5 ? loss - 0.012 * rnd() : loss
			step = i == 1 ? 19.975322 : st[i] / 1000000
			printf "DLL %s - Epoch: 0 Iteration: %d  train.loss : %.5f  train.total_ips : %.2f img/s\n",
				stamp(us), i, loss, tb / step
		}
		printf "DLL %s - Summary: train.loss : %.5f  train.total_ips : %.2f img/s\n", stamp(us), loss, tb * 100 / (span / 1000000)
	}' > "$1"
}

ngc_tree() {
	local seed=1 start=36000 dir case b prec runs r x
	while read -r dir case b prec runs; do
		r=1
		for x in ${runs//,/ }; do
			ngc_log "$root/$dir/$case/r50_b${b}_${prec%-static}_$r.log" "${case%%n*}" "${case#*n}" \
				"$b" "$prec" "$x" "$seed" "$start"
			seed=$((seed + 1)) r=$((r + 1)) start=$((start + 300))
		done
	done <<'RUNS'
fp32_ngc 1n1g 128 fp32 367.29
fp32_ngc 1n4g 128 fp32 1449.48
fp32_ngc 1n8g 128 fp32 2887.65
fp32_ngc 2n8g 128 fp32 5716.79
fp32_ngc 4n8g 128 fp32 10917.09
amp_ngc 1n1g 256 fp16 803.69,793.9,803.66,802.4,802.9
amp_ngc 1n4g 256 fp16 3129.63,3119.23,3137.44,3137.67,3144.55
amp_ngc 1n8g 256 fp16 6135.08,6130.69,6154.66,6173.05,6160.56
amp_ngc 2n8g 256 amp 12046.71,11896.95,11991.94,11999.35,11964.81
amp_ngc 4n8g 256 amp 22364.13,22551.16,22978.13,23049.75,22053.98
amp_static_ngc 1n1g 256 amp-static 827.86
amp_static_ngc 1n4g 256 amp-static 3253.68
amp_static_ngc 1n8g 256 amp-static 6446.74
RUNS
}

# ---- PyTorch, train.sh (reports 000 and 002) -------------------------------------
# One node: DataParallel, one process, batch 128 x G. More: every process
# of the node prints (--multiprocessing-distributed), interleaved. DLPerf:
# drop indices 0-5 of every rank, TB / the mean Time of kept lines 21-120 in
# file order, R2p; those 100 Times, in milliseconds, sum to the span that
# gives the figure.
pytorch_log() { # file nodes gpus batch figure seed
	mkdir -p "$(dirname "$1")"
	awk -v n="$2" -v g="$3" -v b="$4" -v fig="$5" -v seed="$6" "$AWK_LIB"'
	function line(r, i,   t, d, l, a1, a5) {
		t = i < 6 ? (i == 0 ? 11.5 + rnd() : 0.9 - 0.1 * i) * q / 1000 / 0.37 : step[r, i] / 1000
		d = t * (0.25 + 0.05 * rnd()); l = 6.95 - 0.002 * i + 0.05 * rnd()
		a1 = 100 * rnd() / 64; a5 = 5 * a1
		tsum[r] += t; dsum[r] += d; lsum[r] += l; a1sum[r] += a1; a5sum[r] += a5
		printf "Epoch: [0][%" digits "d/%d]\tTime %6.3f (%6.3f)\tData %6.3f (%6.3f)\tLoss %.4e (%.4e)\tAcc@1 %6.2f (%6.2f)\tAcc@5 %6.2f (%6.2f)\n",
			i, iters, t, tsum[r] / (i + 1), d, dsum[r] / (i + 1), l, lsum[r] / (i + 1),
			a1, a1sum[r] / (i + 1), a5, a5sum[r] / (i + 1)
	}
	BEGIN {
		tb = n * g * b; ranks = n > 1 ? g : 1; w = n * g
		per = n > 1 ? int((1281167 + w - 1) / w) : 1281167
		iters = int((per + (n > 1 ? b : b * g) - 1) / (n > 1 ? b : b * g))
		digits = length(iters "")
		# the sum whose figure is the report'\''s, else the nearest there is
		s0 = int(tb * 100 * 1000 / fig + 0.5); best = -1
		for (d = -3; d <= 3; d++) {
			x = sprintf("%.2f", tb / ((s0 + d) / 1000 / 100)) - fig
			if (x < 0) x = -x
			if (best < 0 || x < best - 0.001) { best = x; sms = s0 + d }
		}
		q = int(sms / 100)
		# the kept lines in file order: iteration i of the ranks in a shuffled order
		k = 0; sum = 0
		for (i = 6; i < iters; i++) {
			for (r = 0; r < ranks; r++) order[r] = r
			for (r = ranks - 1; r > 0; r--) { j = int(rnd() * (r + 1)); x = order[r]; order[r] = order[j]; order[j] = x }
			for (r = 0; r < ranks; r++) {
				k++; who[k] = order[r]; at[k] = i
				step[order[r], i] = q + jit(int(q / 30))
				if (k >= 21 && k <= 120) { last = k; sum += step[order[r], i] }
			}
		}
		step[who[last], at[last]] += sms - sum
		print "=> creating model '\''resnet50'\''"
		for (r = 0; r < ranks && n > 1; r++) printf "Use GPU: %d for training\n", r
		for (i = 0; i < 6; i++)
			for (r = 0; r < ranks; r++) line(r, i)
		for (k2 = 1; k2 <= k; k2++) line(who[k2], at[k2])
	}' > "$1"
}

pytorch_tree() {
	local seed=1 b f case fig
	# the first report's PyTorch column of each cross-framework table (its
	# ladder is the batch-128 column)
	for b in 160 128 64 32; do
		f="$(dirname "$0")/../data/dlperf/summary_fp32_b${b}_0820.tsv"
		while read -r case fig; do
			pytorch_log "$root/resnet50_${case%%n*}node_bz$b/${case%%g}c_real.log" "${case%%n*}" \
				"$(g=${case#*n}; echo "${g%g}")" "$b" "$fig" "$seed"
			seed=$((seed + 1))
		done < <(awk -F'\t' '$1 == "pytorch" { k = $2; sub(/_.*/, "", k); print k, $3 }' "$f")
	done
}

case $report in
oneflow-0.1.8) oneflow_tree ;;
plsc) plsc_tree ;;
ngc-pytorch) ngc_tree ;;
pytorch) pytorch_tree ;;
*) usage ;;
esac
