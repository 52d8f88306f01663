#!/usr/bin/env bats
# The GPU pipelines (pytorch, ngc-pytorch, oneflow, plsc; pipelines/*.mk).
# Their frameworks are not here, so: the command make gives launch for a key,
# under SETTINGS=best and SETTINGS=dlperf, is checked flag for flag from
# `make -n` (where each flag comes from: doc/pipelines.md); a stand-in python
# lets the commands run under launch, which shows the setting lines they write
# and the train.py plsc edits; and those lines reach table's footer. Last,
# which build of bench the bench pipeline runs, and what pytorch-synthetic
# runs on a GPU (its GPU path with torch.cuda standing in on the CPU).

bats_require_minimum_version 1.5.0
load helper

# mk ARGS…: make -n in the repository, the pipelines' paths given, and a
# jemalloc path of its own (so that the commands do not depend on this host),
# NCCL's variables as make's defaults make them.
mk() {
	env -u NCCL_DEBUG -u NCCL_DEBUG_SUBSYS make -n -s --no-print-directory -C "$ROOT" CUDA=0 BIN="${BIN_UNDER_TEST:-$ROOT/bin}" RUNS=1 \
		LOGDIR="$BATS_TEST_TMPDIR/logs" RESULTS="$BATS_TEST_TMPDIR/results" \
		PYTHON="${PY:-py}" JEMALLOC=/je.so DLE_CONVNETS=/dle IMAGENET=/in PYTORCH_EXAMPLES=/pe \
		PLSC="${PLSC:-/plsc}" ONEFLOW_CNNS=/of "$@"
}

# plan FW KEY ARGS…: the command make -n gives launch for KEY's first run,
# the repository's path written as $ROOT.
plan() {
	local fw=$1 key=$2 out
	shift 2
	out=$(mk FRAMEWORK="$fw" "$@" "$BATS_TEST_TMPDIR/results/$key.md") || return
	out=$(grep -F " $key -- " <<<"$out") || return
	out=${out#* "$key" -- }
	out=${out#"${out%%[! ]*}"}
	out=${out% > "$BATS_TEST_TMPDIR/logs/$fw/$key/1.log.tmp"*}
	printf '%s\n' "${out//"$ROOT"/\$ROOT}"
}

# j WORDS…: the words joined by one space.
j() {
	local IFS=' '
	printf '%s\n' "$*"
}

# same GOT WANT: equal, or both printed.
same() {
	[ "$1" = "$2" ] || { printf 'got:  %s\nwant: %s\n' "$1" "$2"; false; }
}

NCCL='env NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT'
PN="$NCCL \$ROOT/pipelines/per-node bash -c '"
SET='printf "# env node=0 setting.%s\n"'
JE='allocator=jemalloc malloc_conf=dirty_decay_ms:-1,muzzy_decay_ms:-1'

@test "ngc-pytorch: DLE's best (static loss scale 256, DALI on the CPU, 8 threads, NCHW, jemalloc) and DLPerf's command" {
	same "$(plan ngc-pytorch 1n8g_b128_amp)" "$(j "${PN}cd /dle &&" "$SET" settings=best "$JE" \
		layout=nchw data_backend=dali-cpu workers=8 amp=static-loss-scale-256 '&& exec env' \
		'LD_PRELOAD=/je.so MALLOC_CONF=dirty_decay_ms:-1,muzzy_decay_ms:-1 py ./multiproc.py' \
		'--nnodes 1 --node_rank $NODE_RANK --nproc_per_node 8 --master_addr $MASTER_ADDR' \
		'--master_port $MASTER_PORT ./main.py --arch resnet50 -b 128 --training-only -p 1' \
		'--epochs 1 --prof 150 --no-checkpoints --data-backend dali-cpu -j 8 --memory-format nchw' \
		"--amp --static-loss-scale 256 /in'")"
	same "$(plan ngc-pytorch 1n1g_b64_fp32)" "$(j "${PN}cd /dle &&" "$SET" settings=best "$JE" \
		layout=nchw data_backend=dali-cpu workers=8 amp=none '&& exec env' \
		'LD_PRELOAD=/je.so MALLOC_CONF=dirty_decay_ms:-1,muzzy_decay_ms:-1 py ./multiproc.py' \
		'--nnodes 1 --node_rank $NODE_RANK --nproc_per_node 1 --master_addr $MASTER_ADDR' \
		'--master_port $MASTER_PORT ./main.py --arch resnet50 -b 64 --training-only -p 1' \
		"--epochs 1 --prof 150 --no-checkpoints --data-backend dali-cpu -j 8 --memory-format nchw /in'")"
	# DLPerf's single_node_train.sh; --prof 150 for our window (125 iterations)
	same "$(plan ngc-pytorch 1n8g_b128_amp SETTINGS=dlperf)" "$(j "${PN}cd /dle &&" "$SET" \
		settings=dlperf allocator=glibc layout=nchw data_backend=dali-cpu workers=8 \
		amp=dynamic-loss-scale '&& exec py ./multiproc.py --nnodes 1 --node_rank $NODE_RANK' \
		'--nproc_per_node 8 --master_addr $MASTER_ADDR --master_port $MASTER_PORT ./main.py' \
		'--data-backend dali-cpu --raport-file ./raport.json -j8 -p 1 --lr 1.024' \
		'--optimizer-batch-size -1 --warmup 8 --arch resnet50 -c fanin --label-smoothing 0.1' \
		'--lr-schedule cosine --mom 0.125 --wd 3.0517578125e-05 --workspace ./ -b 128 --epochs 1' \
		"--prof 150 --training-only --no-checkpoints --amp --dynamic-loss-scale /in'")"
	same "$(plan ngc-pytorch 1n1g_b64_fp32 SETTINGS=dlperf)" "$(j "${PN}cd /dle &&" "$SET" \
		settings=dlperf allocator=glibc layout=nchw data_backend=dali-cpu workers=8 amp=none \
		'&& exec py ./multiproc.py --nnodes 1 --node_rank $NODE_RANK' \
		'--nproc_per_node 1 --master_addr $MASTER_ADDR --master_port $MASTER_PORT ./main.py' \
		'--data-backend dali-cpu --raport-file ./raport.json -j8 -p 1 --lr 0.064' \
		'--optimizer-batch-size -1 --warmup 8 --arch resnet50 -c fanin --label-smoothing 0.1' \
		'--lr-schedule cosine --mom 0.125 --wd 3.0517578125e-05 --workspace ./ -b 64 --epochs 1' \
		"--prof 150 --training-only --no-checkpoints /in'")"
	# the knobs for another DGX, and no jemalloc where there is none
	same "$(plan ngc-pytorch 1n1g_b64_fp32 JEMALLOC= DLE_WORKERS=16 DLE_DATA_BACKEND=dali-gpu \
		DLE_MEMORY_FORMAT=nhwc)" "$(j "${PN}cd /dle &&" "$SET" settings=best allocator=glibc \
		layout=nhwc data_backend=dali-gpu workers=16 amp=none '&& exec env py ./multiproc.py' \
		'--nnodes 1 --node_rank $NODE_RANK --nproc_per_node 1 --master_addr $MASTER_ADDR' \
		'--master_port $MASTER_PORT ./main.py --arch resnet50 -b 64 --training-only -p 1' \
		"--epochs 1 --prof 150 --no-checkpoints --data-backend dali-gpu -j 16 --memory-format nhwc /in'")"
}

@test "pytorch: one data worker per CPU and jemalloc at best, DLPerf's 8 workers; fp32 only" {
	# the autotuner as main.py sets it (on until 2022-09)
	local cb='cudnn_benchmark=$(grep -qs "^ *cudnn.benchmark = True" /pe/main.py && echo on || echo off)'
	same "$(plan pytorch 1n1g_b64_fp32)" "$(j "${PN}workers=\$(getconf _NPROCESSORS_ONLN) &&" \
		"$SET" settings=best "$JE" layout=nchw precision=fp32 "$cb" \
		'workers=$workers dist_backend=nccl && exec env LD_PRELOAD=/je.so' \
		'MALLOC_CONF=dirty_decay_ms:-1,muzzy_decay_ms:-1 py /pe/main.py -a resnet50 -b 64 --epochs 1' \
		'--print-freq 1 --workers $workers --multiprocessing-distributed --dist-backend nccl' \
		"--dist-url tcp://\$MASTER_ADDR:\$MASTER_PORT --world-size 1 --rank \$NODE_RANK /in'")"
	# main.py takes the node's batch
	same "$(plan pytorch 2n8g_b128_fp32 PYTORCH_WORKERS=48)" "$(j "${PN}workers=48 &&" \
		"$SET" settings=best "$JE" layout=nchw precision=fp32 "$cb" \
		'workers=$workers dist_backend=nccl && exec env LD_PRELOAD=/je.so' \
		'MALLOC_CONF=dirty_decay_ms:-1,muzzy_decay_ms:-1 py /pe/main.py -a resnet50 -b 1024 --epochs 1' \
		'--print-freq 1 --workers $workers --multiprocessing-distributed --dist-backend nccl' \
		"--dist-url tcp://\$MASTER_ADDR:\$MASTER_PORT --world-size 2 --rank \$NODE_RANK /in'")"
	same "$(plan pytorch 1n1g_b64_fp32 SETTINGS=dlperf)" "$(j "$PN$SET" settings=dlperf \
		allocator=glibc layout=nchw precision=fp32 "$cb" workers=8 dist_backend=nccl \
		'&& exec py /pe/main.py --arch resnet50 --epochs 1 --batch-size 64 --lr 0.064 --workers 8' \
		'--momentum 0.125 --print-freq 1 --multiprocessing-distributed --dist-backend nccl' \
		"--dist-url tcp://\$MASTER_ADDR:\$MASTER_PORT --world-size 1 --rank \$NODE_RANK /in'")"
	for s in best dlperf; do
		run -2 mk FRAMEWORK=pytorch SETTINGS=$s "$BATS_TEST_TMPDIR/results/1n8g_b128_amp.md"
		[[ "${lines[-1]}" == *"*** FRAMEWORK=pytorch SETTINGS=$s runs fp32 only, not 1n1g_b128_amp.  Stop." ]]
	done
}

@test "oneflow: the script's own fp16 and fp32 flags at best; DLPerf's rn50_train.sh" {
	local fp16='--use_fp16 --channel_last=True --pad_output'
	local fuse='--fuse_bn_relu=True --fuse_bn_add_relu=True --nccl_fusion_threshold_mb=16 --nccl_fusion_max_ops=24 --gpu_image_decoder=True'
	local fuseset='fuse_bn_relu=yes fuse_bn_add_relu=yes nccl_fusion=16mb,24ops gpu_image_decoder=yes nccl_launch_mode=PARALLEL'
	local opt='--optimizer=sgd --momentum=0.875 --label_smoothing=0.1 --learning_rate=0.001'
	same "$(plan oneflow 1n8g_b128_amp)" "$(j "$PN$SET" settings=best layout=nhwc use_fp16=yes \
		"$fuseset" data=synthetic '&& exec env PYTHONUNBUFFERED=1 NCCL_LAUNCH_MODE=PARALLEL py' \
		/of/of_cnn_train_val.py --num_examples=122880 --num_nodes=1 --gpu_num_per_node=8 "$opt" \
		--loss_print_every_n_iter=20 --batch_size_per_device=128 --val_batch_size_per_device=125 \
		--num_epoch=1 "$fp16" "$fuse" "--node_ips=\$NODE_IPS --model=resnet50'")"
	same "$(plan oneflow 1n1g_b64_fp32 DATA=/d)" "$(j "$PN$SET" settings=best layout=nchw use_fp16=no \
		"$fuseset" data=ofrecord '&& exec env PYTHONUNBUFFERED=1 NCCL_LAUNCH_MODE=PARALLEL py' \
		/of/of_cnn_train_val.py --num_examples=7680 --train_data_dir=/d/train \
		--train_data_part_num=256 --num_nodes=1 --gpu_num_per_node=1 "$opt" \
		--loss_print_every_n_iter=20 --batch_size_per_device=64 --val_batch_size_per_device=125 \
		--num_epoch=1 --channel_last=False "$fuse" "--node_ips=\$NODE_IPS --model=resnet50'")"
	same "$(plan oneflow 1n8g_b128_amp SETTINGS=dlperf)" "$(j "$PN$SET" settings=dlperf layout=nhwc \
		use_fp16=yes "$fuseset" data=synthetic \
		'&& exec env PYTHONUNBUFFERED=1 NCCL_LAUNCH_MODE=PARALLEL py' \
		/of/of_cnn_train_val.py --num_examples=122880 --num_nodes=1 --gpu_num_per_node=8 "$opt" \
		--loss_print_every_n_iter=20 --batch_size_per_device=128 --val_batch_size_per_device=125 \
		--num_epoch=1 "$fp16" "$fuse" --log_dir=./log "--node_ips=\$NODE_IPS --model=resnet50'")"
	same "$(plan oneflow 1n1g_b64_fp32 SETTINGS=dlperf)" "$(j "$PN$SET" settings=dlperf layout=nchw \
		use_fp16=no data=synthetic '&& exec env PYTHONUNBUFFERED=1 py' /of/of_cnn_train_val.py \
		--num_examples=7680 --num_nodes=1 --gpu_num_per_node=1 --learning_rate=0.001 \
		--loss_print_every_n_iter=20 --batch_size_per_device=64 --val_batch_size_per_device=125 \
		--num_epoch=1 --log_dir=./log "--node_ips=\$NODE_IPS --model=resnet50'")"
}

@test "oneflow: ONEFLOW_ITERS=200 runs OneFlow 0.1.8's report's 200 iterations and says so in the log; fewer than 120 are refused" {
	c=$(plan oneflow 1n8g_b128_fp32 ONEFLOW_ITERS=200 SETTINGS=dlperf)
	[[ $c == *" --num_examples=204800 "* ]]
	[[ $c == *" data=synthetic iters=200 && exec "* ]]
	c=$(plan oneflow 1n8g_b128_fp32 SETTINGS=dlperf)
	[[ $c == *" --num_examples=122880 "* && $c != *iters=* ]]
	for n in 100 x 0200; do
		run -2 mk FRAMEWORK=oneflow ONEFLOW_ITERS=$n "$BATS_TEST_TMPDIR/results/1n1g_b128_fp32.md"
		[[ "${lines[-1]}" == *"*** ONEFLOW_ITERS=$n: expected a whole number of iterations, at least 120.  Stop." ]]
	done
}

@test "plsc: mixed precision with Paddle's cuDNN flags at best; DLPerf's runner, fp32 at 128 only" {
	local launch='-m paddle.distributed.launch --cluster_node_ips=$NODE_IPS --node_ip=$(echo $NODE_IPS | cut -d, -f$(( NODE_RANK + 1 )))'
	local flags='FLAGS_cudnn_exhaustive_search=1 FLAGS_conv_workspace_size_limit=4000 FLAGS_cudnn_batchnorm_spatial_persistent=1'
	local fset='cudnn_exhaustive_search=1 conv_workspace_size_limit=4000 cudnn_batchnorm_spatial_persistent=1'
	local tmp='cd /plsc && t=$(mktemp -d) && trap "rm -rf $t" EXIT && sed'
	local bs='-e "s/^\(\s*\)ins\.set_train_batch_size\s*=.*/\1ins.set_train_batch_size'
	same "$(plan plsc 1n8g_b128_amp)" "$(j "$PN$tmp" "$bs(128)/\"" \
		'-e "s/^\(\s*\)ins = Entry()/&\n\1ins.set_mixed_precision(True)/"' \
		'-e "s/^LOSS_TYPE = .*/LOSS_TYPE = \"dist_arcface\"/" train.py > $t/train.py &&' "$SET" \
		settings=best layout=nchw precision=amp batch=128 loss_type=dist_arcface "$fset" \
		'&& PYTHONPATH=/plsc${PYTHONPATH:+:$PYTHONPATH}' "$flags" py "$launch" \
		"--selected_gpus=0,1,2,3,4,5,6,7 \$t/train.py'")"
	same "$(plan plsc 1n1g_b64_fp32)" "$(j "$PN$tmp" "$bs(64)/\"" \
		'-e "s/^LOSS_TYPE = .*/LOSS_TYPE = \"arcface\"/" train.py > $t/train.py &&' "$SET" \
		settings=best layout=nchw precision=fp32 batch=64 loss_type=arcface \
		'&& PYTHONPATH=/plsc${PYTHONPATH:+:$PYTHONPATH}' "py \$t/train.py'")"
	same "$(plan plsc 1n8g_b128_fp32 SETTINGS=dlperf)" "$(j "$PN$tmp" \
		'-e "s/\(ins.set_train_batch_size=\)\S*/ins.set_train_batch_size=128/"' \
		'-e "s/^LOSS_TYPE = .*/LOSS_TYPE = \"dist_arcface\"/" train.py > $t/train.py &&' "$SET" \
		settings=dlperf layout=nchw precision=fp32 batch=128 loss_type=dist_arcface \
		'&& PYTHONPATH=/plsc${PYTHONPATH:+:$PYTHONPATH} py' "$launch" \
		"--selected_gpus=0,1,2,3,4,5,6,7 \$t/train.py'")"
	run -2 mk FRAMEWORK=plsc SETTINGS=dlperf "$BATS_TEST_TMPDIR/results/1n8g_b128_amp.md"
	[[ "${lines[-1]}" == *"*** FRAMEWORK=plsc SETTINGS=dlperf runs fp32 only, not 1n1g_b128_amp.  Stop." ]]
	run -2 mk FRAMEWORK=plsc SETTINGS=dlperf "$BATS_TEST_TMPDIR/results/1n1g_b64_fp32.md"
	[[ "${lines[-1]}" == *"*** FRAMEWORK=plsc SETTINGS=dlperf runs batch 128 only (DLPerf's train.py keeps PLSC's default), not 1n1g_b64_fp32.  Stop." ]]
}

@test "a SETTINGS other than best or dlperf stops make with one line" {
	for fw in pytorch ngc-pytorch oneflow plsc; do
		run -2 mk FRAMEWORK=$fw SETTINGS=fast "$BATS_TEST_TMPDIR/results/1n1g_b128_fp32.md"
		[[ "${lines[-1]}" == *"*** SETTINGS=fast: expected best or dlperf.  Stop." ]]
	done
}

# A stand-in python: prints how it was started, then any script it was given
# that exists (plsc's edited train.py), then what $PY_OUT holds (a log).
stand_in() {
	PY=$BATS_TEST_TMPDIR/py
	cat >"$PY" <<-'SH'
		#!/bin/bash
		echo "py $*"
		for a; do [[ $a != *.py || ! -f $a ]] || cat "$a"; done
		[ -z "${PY_OUT:-}" ] || cat "$PY_OUT"
	SH
	chmod +x "$PY"
	PLSC=$BATS_TEST_TMPDIR/plsc
	mkdir -p "$PLSC"
	# the lines of DLPerf's train.py that its runner and ours edit
	printf '%s\n' "LOSS_TYPE = 'dist_arcface'" "def main():" "    ins = Entry()" \
		"    ins.set_train_batch_size=128" "    ins.train()" >"$PLSC/train.py"
}

# settings_of LOG…: a run's setting lines, as name=value words.
settings_of() {
	grep '^# env node=0 setting\.' <<<"$1" | sed 's/^# env node=0 setting\.//' | paste -sd' '
}

@test "under launch, each command writes its setting lines and starts its script" {
	stand_in
	c=$(plan ngc-pytorch 1n1g_b2_amp DLE_CONVNETS="$BATS_TEST_TMPDIR")
	eval "run -0 --separate-stderr launch 1n1g_b2_amp -- $c"
	same "$(settings_of "$output")" "settings=best $JE layout=nchw data_backend=dali-cpu workers=8 amp=static-loss-scale-256"
	[[ "$output" == *$'\npy ./multiproc.py --nnodes 1 --node_rank 0 --nproc_per_node 1 --master_addr localhost --master_port 29500 ./main.py '* ]]
	mkdir -p "$BATS_TEST_TMPDIR/pe"
	echo "    cudnn.benchmark = True" >"$BATS_TEST_TMPDIR/pe/main.py"
	c=$(plan pytorch 1n1g_b2_fp32 PYTORCH_EXAMPLES="$BATS_TEST_TMPDIR/pe")
	eval "run -0 --separate-stderr launch 1n1g_b2_fp32 -- $c"
	same "$(settings_of "$output")" "settings=best $JE layout=nchw precision=fp32 cudnn_benchmark=on workers=$(getconf _NPROCESSORS_ONLN) dist_backend=nccl"
	[[ "$output" == *"--workers $(getconf _NPROCESSORS_ONLN) "* ]]
	c=$(plan oneflow 1n1g_b2_fp32 SETTINGS=dlperf)
	eval "run -0 --separate-stderr launch 1n1g_b2_fp32 -- $c"
	same "$(settings_of "$output")" "settings=dlperf layout=nchw use_fp16=no data=synthetic"
	[[ "$output" == *"--node_ips=localhost --model=resnet50"* ]]
}

@test "plsc edits a copy of train.py: batch, loss and mixed precision at best, DLPerf's edit at dlperf" {
	stand_in
	cp "$PLSC/train.py" "$BATS_TEST_TMPDIR/orig"
	c=$(plan plsc 1n1g_b64_amp)
	eval "run -0 --separate-stderr launch 1n1g_b64_amp -- $c"
	mapfile -t lines < <(grep -v '^#' <<<"$output")
	[[ "${lines[0]}" == "py /"*/train.py ]]
	same "$(printf '%s\n' "${lines[@]:1}")" "LOSS_TYPE = \"arcface\"
def main():
    ins = Entry()
    ins.set_mixed_precision(True)
    ins.set_train_batch_size(64)
    ins.train()"
	# the copy is gone, the checkout as it was
	[ ! -e "${lines[0]#py }" ]
	cmp "$PLSC/train.py" "$BATS_TEST_TMPDIR/orig"
	c=$(plan plsc 1n1g_b128_fp32 SETTINGS=dlperf)
	eval "run -0 --separate-stderr launch 1n1g_b128_fp32 -- $c"
	same "$(settings_of "$output")" "settings=dlperf layout=nchw precision=fp32 batch=128 loss_type=arcface"
	mapfile -t lines < <(grep -v '^#' <<<"$output")
	same "$(printf '%s\n' "${lines[@]:1}")" "LOSS_TYPE = \"arcface\"
def main():
    ins = Entry()
    ins.set_train_batch_size=128
    ins.train()"
}

@test "a pipeline's settings reach table's footer" {
	stand_in
	# OneFlow's lines for iterations 20 and 120 (doc/formats.md), 10 s apart
	export PY_OUT=$BATS_TEST_TMPDIR/of.log
	printf 'train: epoch 0, iter %s, loss: 1.0, top_1: 0.0, top_k: 0.0, samples/s: 1.0 %s\n' \
		20 1700000000.0 120 1700000010.0 >"$PY_OUT"
	d=$BATS_TEST_TMPDIR/logs/oneflow/1n1g_b128_amp
	mkdir -p "$d"
	c=$(plan oneflow 1n1g_b128_amp)
	eval "launch 1n1g_b128_amp -- $c" >"$d/1.log"
	run -0 --separate-stderr bash -c "grep-iters '$d/1.log' | window | median | speedup | table"
	same "$(grep '^- settings: ' <<<"$output")" "- settings: settings best, layout nhwc, use_fp16 yes, fuse_bn_relu yes, fuse_bn_add_relu yes, nccl_fusion 16mb,24ops, gpu_image_decoder yes, nccl_launch_mode PARALLEL, data synthetic"
	[[ "$(grep '^| 1 ' <<<"$output")" == "| 1 | 1 | 128 | 1280.00 |"* ]]
}

@test "grep-iters passes a pipeline's setting lines on with the run's identity" {
	d="$BATS_TEST_TMPDIR/logs/pytorch-synthetic/1n1g_b2_fp32"
	mkdir -p "$d"
	printf '%s\n' "# bench model=resnet50 backend=pytorch-cpu nodes=1 gpus_per_node=1 batch_per_device=2 precision=fp32 image=32 data=synthetic" \
		"# env node=0 setting.allocator=jemalloc" "# env node=0 setting.malloc_conf=dirty_decay_ms:-1,muzzy_decay_ms:-1" \
		"iter=1 loss=6.9 step_s=0.5 samples_per_s=4.00 ts=1763781234.000001" >"$d/1.log"
	run -0 --separate-stderr grep-iters "$d/1.log"
	[ "${lines[1]}" = "# env framework=pytorch-synthetic key=1n1g_b2_fp32 run=1 node=0 setting.allocator=jemalloc" ]
	[ "${lines[2]}" = "# env framework=pytorch-synthetic key=1n1g_b2_fp32 run=1 node=0 setting.malloc_conf=dirty_decay_ms:-1,muzzy_decay_ms:-1" ]
}

# bench_cmd ARGS…: the command make -n gives launch for a bench run.
bench_cmd() {
	env -u NCCL_DEBUG -u NCCL_DEBUG_SUBSYS make -n -s --no-print-directory -C "$ROOT" \
		CUDA_QUIET=1 BIN="${BIN_UNDER_TEST:-$ROOT/bin}" RUNS=1 LOGDIR="$BATS_TEST_TMPDIR/logs" \
		RESULTS="$BATS_TEST_TMPDIR/results" "$@" "$BATS_TEST_TMPDIR/results/1n1g_b16_fp32.md" |
		sed -n 's/.* 1n1g_b16_fp32 -- \([^>]*\) > .*/\1/p'
}

# bench_of ARGS…: the program of that command (bench, or bench-cuda where
# the build found the toolkit and a device), after env's words.
bench_of() {
	bench_cmd "$@" | sed 's/^env \(NCCL_[A-Z_]*=[^ ]* \)*//' | cut -d' ' -f1 | xargs -r basename
}

@test "bench: bin/bench-cuda where the build finds the toolkit and a CUDA device, else bin/bench" {
	run -0 bench_of CUDA=0 CUDA_DEVICE=1
	[ "$output" = bench ]
	run -0 bench_of CUDA_DEVICE=
	[ "$output" = bench ]
	# bench-cuda where the toolkit is found, else bench
	run -0 bench_of CUDA_DEVICE=1
	[[ $output == bench-cuda || $output == bench ]]
	cuda=$output
	# the probe: a GPU in nvidia-smi's list (where the driver's device
	# files are absent), hidden by CUDA_VISIBLE_DEVICES set empty or to -1
	mkdir -p "$BATS_TEST_TMPDIR/smi"
	printf '#!/bin/sh\necho "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-0)"\n' >"$BATS_TEST_TMPDIR/smi/nvidia-smi"
	chmod +x "$BATS_TEST_TMPDIR/smi/nvidia-smi"
	PATH=$BATS_TEST_TMPDIR/smi:$PATH run -0 bench_of
	[ "$output" = "$cuda" ]
	PATH=$BATS_TEST_TMPDIR/smi:$PATH CUDA_VISIBLE_DEVICES=0 run -0 bench_of
	[ "$output" = "$cuda" ]
	PATH=$BATS_TEST_TMPDIR/smi:$PATH CUDA_VISIBLE_DEVICES=-1 run -0 bench_of
	[ "$output" = bench ]
	PATH=$BATS_TEST_TMPDIR/smi:$PATH CUDA_VISIBLE_DEVICES= run -0 bench_of
	[ "$output" = bench ]
	if ! compgen -G '/dev/nvidia[0-9]*' >/dev/null; then
		printf '#!/bin/sh\nexit 9\n' >"$BATS_TEST_TMPDIR/smi/nvidia-smi"
		PATH=$BATS_TEST_TMPDIR/smi:$PATH run -0 bench_of
		[ "$output" = bench ]
	fi
}

@test "bench-arcface: iresnet50 with the ArcFace head over PLSC's 85742 classes, DLPerf's PLSC figures published" {
	same "$(plan bench-arcface 1n8g_b128_fp32 CUDA_DEVICE=)" "$(j '$ROOT/bin/bench' \
		--model iresnet50 --head arcface --classes 85742 --batch {batch} \
		--precision {precision} --iters 120)"
	same "$(plan bench-arcface 1n1g_b64_fp32 CUDA_DEVICE= BENCH_ARCFACE_ARGS='--classifier whole')" \
		"$(j '$ROOT/bin/bench' --model iresnet50 --head arcface --classes 85742 --batch {batch} \
			--precision {precision} --iters 120 --classifier whole)"
	# the table's published column: DLPerf's PLSC table under this framework's name
	run -0 mk FRAMEWORK=bench-arcface "$BATS_TEST_TMPDIR/results/1n2g_b128_fp32.md"
	[[ "$output" == *"/table -p build/published-bench-arcface.tsv "* ]]
	run -0 make -s --no-print-directory -C "$ROOT" CUDA=0 FRAMEWORK=bench-arcface \
		OBJ="$BATS_TEST_TMPDIR/obj" "$BATS_TEST_TMPDIR/obj/published-bench-arcface.tsv"
	run -0 grep -v '^#' "$BATS_TEST_TMPDIR/obj/published-bench-arcface.tsv"
	[ "${lines[0]}" = "$(printf 'bench-arcface\t1n1g_b128_fp32\t397.78\t1')" ]
	[ "${lines[4]}" = "$(printf 'bench-arcface\t4n8g_b128_fp32\t11084.53\t27.87')" ]
	printf 'bench-arcface\t1n1g_b128_fp32\t%s\t400.0\n' 1 2 3 | median | speedup |
		table -p "$BATS_TEST_TMPDIR/obj/published-bench-arcface.tsv" >"$BATS_TEST_TMPDIR/t.md"
	[[ "$(sed -n 5p "$BATS_TEST_TMPDIR/t.md")" == "| 1 | 1 | 128 | 400.00 |"*" | 397.78 |" ]]
}

# ---- pytorch-synthetic on a GPU -----------------------------------------------------

@test "pytorch-synthetic: on the GPU where there is one, with the python3 that has torch" {
	mkdir -p "$BATS_TEST_TMPDIR/smi" "$BATS_TEST_TMPDIR/venv"
	printf '#!/bin/sh\necho "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-0)"\n' >"$BATS_TEST_TMPDIR/smi/nvidia-smi"
	printf '#!/bin/sh\nexec /usr/bin/python3 "$@"\n' >"$BATS_TEST_TMPDIR/venv/python3"
	chmod +x "$BATS_TEST_TMPDIR/smi/nvidia-smi" "$BATS_TEST_TMPDIR/venv/python3"
	/usr/bin/python3 -c 'import torch' 2>/dev/null || skip "python3-torch not installed"
	cmd() { # the pipeline's command for a run, from make -n (no jemalloc here)
		make -n -s --no-print-directory -C "$ROOT" CUDA_QUIET=1 RUNS=1 JEMALLOC= \
			LOGDIR="$BATS_TEST_TMPDIR/logs" RESULTS="$BATS_TEST_TMPDIR/results" \
			FRAMEWORK=pytorch-synthetic "$@" "$BATS_TEST_TMPDIR/results/1n1g_b256_amp.md" |
			sed -n 's/.* 1n1g_b256_amp -- *//p' | sed "s| *> .*||; s|$ROOT|\$ROOT|g"
	}
	PATH=$BATS_TEST_TMPDIR/smi:$PATH run -0 cmd
	same "$output" "env NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT /usr/bin/python3 \$ROOT/pipelines/pytorch_synthetic.py --batch {batch} --precision {precision} --iters 120 --layout channels_last --device cuda"
	PATH=$BATS_TEST_TMPDIR/smi:$PATH run -0 cmd CUDA_DEVICE= PYTORCH_COMPILE=max-autotune
	same "$output" "env /usr/bin/python3 \$ROOT/pipelines/pytorch_synthetic.py --batch {batch} --precision {precision} --iters 120 --layout channels_last --device cpu --compile max-autotune"
	# where /usr/bin/python3 has no torch: the python3 on PATH (a venv's) that has
	PATH=$BATS_TEST_TMPDIR/venv:$BATS_TEST_TMPDIR/smi:$PATH run -0 cmd \
		PYTORCH_PYTHONS="/nonexistent/python3 python3"
	same "$output" "env NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT $BATS_TEST_TMPDIR/venv/python3 \$ROOT/pipelines/pytorch_synthetic.py --batch {batch} --precision {precision} --iters 120 --layout channels_last --device cuda"
}

@test "pytorch_synthetic.py's GPU path, torch.cuda standing in on the CPU: its settings and memory" {
	/usr/bin/python3 -c 'import torch, torchvision' 2>/dev/null || skip "python3-torch not installed"
	d="$BATS_TEST_TMPDIR/logs/pytorch-synthetic/1n1g_b2_amp"
	mkdir -p "$d"
	# train_cuda as the script calls it, with a torch whose cuda answers as one
	# GPU of 2 GiB with 1 GiB free and whose "cuda" device is the CPU
	run -0 --separate-stderr /usr/bin/python3 - "$ROOT/pipelines/pytorch_synthetic.py" <<'PY'
import importlib.util, sys, types
import torch, torchvision, torch.distributed as dist, torch.nn.functional as F
spec = importlib.util.spec_from_file_location("ps", sys.argv[1])
ps = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ps)
cuda = types.SimpleNamespace(
    is_available=lambda: True, set_device=lambda i: None, device_count=lambda: 1,
    current_device=lambda: 0, get_device_name=lambda d=None: "Fake GPU",
    mem_get_info=lambda d=None: (1 << 30, 2 << 30), max_memory_reserved=lambda d=None: 3 << 20,
    max_memory_allocated=lambda d=None: 2 << 20, amp=torch.cuda.amp)
class Torch:
    def __getattr__(self, name):
        return getattr(torch, name)
fake = Torch()
fake.cuda = cuda
fake.device = lambda *a: torch.device("cpu")
sys.argv = ["pytorch_synthetic", "--device", "cuda", "--batch", "2", "--image", "32",
            "--classes", "10", "--iters", "2", "--precision", "amp"]
args = ps.parse_args()
ps.train_cuda(args, fake, dist, F, torchvision, 0, 1, 0, 1)
PY
	[ "${lines[0]}" = "# bench model=resnet50 backend=pytorch-cuda nodes=1 gpus_per_node=1 batch_per_device=2 precision=amp image=32 data=synthetic" ]
	[ "$(printf '%s\n' "${lines[@]:1:11}" | sed 's/^# env node=0 setting\.//' | head -8 | paste -sd' ')" = "layout=channels_last autocast=fp16 grad_scaler=on tf32=on cudnn_benchmark=on sgd=$(
		/usr/bin/python3 -c 'import torch, inspect; print("fused" if "fused" in inspect.signature(torch.optim.SGD).parameters else "foreach")') compile=none dist_backend=none" ]
	[[ "${lines[9]}" == "# env node=0 setting.torch="* ]]
	# the FLOP of a training sample at 32 px, 10 classes: bench's own count (tests/bench.bats)
	[ "${lines[12]}" = "# env node=0 flop_per_sample=500588544" ]
	[[ "${lines[13]}" =~ ^iter=1\ loss=[0-9]+\.[0-9]{4}\ step_s=[0-9]+\.[0-9]{4}\ samples_per_s=[0-9]+\.[0-9]{2}\ ts=[0-9]+\.[0-9]{6}$ ]]
	[ "${lines[15]}" = "# end iters=2 peak_mem_mb=1024 max_reserved_mb=3 max_allocated_mb=2" ]
	[ "${#lines[@]}" -eq 16 ]
	printf '%s\n' "${lines[@]}" >"$d/1.log"
	run -0 grep-iters "$d/1.log"
	[[ "${lines[1]}" == "pytorch-synthetic	bench	1n1g_b2_amp	1	2	"* ]]
	[ "${lines[3]}" = "# env framework=pytorch-synthetic key=1n1g_b2_amp run=1 node=0 setting.autocast=fp16" ]
}

@test "pytorch_synthetic.py: tf32 and --compile are GPU modes; --device cuda without one says so" {
	/usr/bin/python3 -c 'import torch' 2>/dev/null || skip "python3-torch not installed"
	s=$ROOT/pipelines/pytorch_synthetic.py
	run -2 --separate-stderr /usr/bin/python3 "$s" --device cpu --precision tf32
	[ "${stderr_lines[-1]}" = "pytorch_synthetic: error: argument --precision: tf32 is a GPU mode (--device cuda)" ]
	run -2 --separate-stderr /usr/bin/python3 "$s" --device cpu --compile default
	[ "${stderr_lines[-1]}" = "pytorch_synthetic: error: argument --compile: on the GPU only (--device cuda)" ]
	if ! /usr/bin/python3 -c 'import torch, sys; sys.exit(torch.cuda.is_available())'; then
		skip "this torch sees a GPU"
	fi
	run -1 --separate-stderr /usr/bin/python3 "$s" --device cuda --batch 2 --image 32 --iters 1
	[[ "$stderr" =~ ^pytorch_synthetic:\ --device\ cuda:\ torch\ .*\ sees\ no\ CUDA\ device$ ]]
	# auto: the CPU here, as before
	CUDA_VISIBLE_DEVICES=-1 run -0 --separate-stderr /usr/bin/python3 "$s" --batch 2 --image 32 \
		--classes 10 --iters 1 --threads 1 --allocator system
	[[ "${lines[0]}" == "# bench model=resnet50 backend=pytorch-cpu "* ]]
}

@test "NCCL_DEBUG=INFO (INIT only) for the GPU pipelines and bench-cuda, not the CPU's bench; NCCL_DEBUG= leaves it" {
	for fw in ngc-pytorch pytorch oneflow plsc; do
		[[ "$(plan $fw 2n8g_b128_fp32)" == "$NCCL \$ROOT/pipelines/per-node bash -c '"* ]] ||
			{ echo "$fw: $(plan $fw 2n8g_b128_fp32)"; false; }
		[[ "$(plan $fw 2n8g_b128_fp32 SETTINGS=dlperf)" == "$NCCL "* ]]
		[[ "$(plan $fw 2n8g_b128_fp32 NCCL_DEBUG=)" == "\$ROOT/pipelines/per-node "* ]]
	done
	[[ "$(plan oneflow 1n1g_b128_fp32 NCCL_DEBUG=WARN NCCL_DEBUG_SUBSYS=)" == "env NCCL_DEBUG=WARN \$ROOT/"* ]]
	run -0 bench_cmd CUDA=0
	[[ "$output" == "${BIN_UNDER_TEST:-$ROOT/bin}/bench --batch {batch} "* ]]
	run -0 bench_cmd BENCH_BIN=/opt/bench-cuda
	[ "$output" = "$NCCL /opt/bench-cuda --batch {batch} --precision {precision} --iters 120 " ]
	run -0 bench_cmd BENCH_BIN=/opt/bench-cuda NCCL_DEBUG=
	[[ "$output" == "/opt/bench-cuda --batch"* ]]
}
