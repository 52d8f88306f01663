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

@test "each GPU pipeline writes its settings line, after launch's own line" {
	for spec in "pytorch 1n1g_b2_fp32 # settings layout=nchw precision=fp32 workers=8 dist_backend=nccl" \
		"ngc-pytorch 1n1g_b2_amp # settings layout=nchw data_backend=dali-cpu amp=dynamic-loss-scale" \
		"ngc-pytorch 1n1g_b2_fp32 # settings layout=nchw data_backend=dali-cpu amp=none" \
		"oneflow 1n1g_b2_fp16 # settings layout=nchw use_fp16=yes data=synthetic" \
		"plsc 1n1g_b2_fp32 # settings loss_type=script-default"; do
		read -r fw key want <<<"$spec"
		c=$(cmd "$fw")
		[ -n "$c" ]
		eval "run -0 --separate-stderr launch $key -- $c"
		[ "${lines[1]}" = "$want" ]
	done
}
