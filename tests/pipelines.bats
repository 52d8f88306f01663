#!/usr/bin/env bats
# The pipelines write the settings their framework ran with into the log, as
# one "# settings key=value ..." line (doc/formats.md). The GPU frameworks'
# scripts are not here: a stand-in python (PYTHON=true) lets each command
# run under launch as make runs it, and the line it writes is checked.

bats_require_minimum_version 1.5.0
load helper

# cmd FW: the framework's command as make expands it.
cmd() {
	make -s --no-print-directory -C "$ROOT" CUDA=0 PYTHON=true PYTORCH_EXAMPLES=/x IMAGENET=/y \
		DLE_CONVNETS=/ PLSC=/ ONEFLOW_CNNS=/o --eval "pc: ; \$(info \$(${1}_CMD))@:" pc 2>/dev/null |
		tail -n 1
}

@test "each GPU pipeline writes its settings as environment lines, after launch's own line" {
	for spec in "pytorch 1n1g_b2_fp32 layout=nchw precision=fp32 workers=8 dist_backend=nccl" \
		"ngc-pytorch 1n1g_b2_amp layout=nchw data_backend=dali-cpu amp=dynamic-loss-scale" \
		"ngc-pytorch 1n1g_b2_fp32 layout=nchw data_backend=dali-cpu amp=none" \
		"oneflow 1n1g_b2_fp16 layout=nchw use_fp16=yes data=synthetic" \
		"plsc 1n1g_b2_fp32 loss_type=script-default"; do
		read -r fw key want <<<"$spec"
		c=$(cmd "$fw")
		[ -n "$c" ]
		eval "run -0 --separate-stderr launch $key -- $c"
		# launch's own lines first, then the pipeline's
		got=$(grep '^# env node=0 setting\.' <<<"$output" | sed 's/^# env node=0 setting\.//' | paste -sd' ')
		[ "$got" = "$want" ]
	done
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
