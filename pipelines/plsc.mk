# plsc: PaddlePaddle PLSC ArcFace with a ResNet50 backbone (PLSC 9bba9c9,
# Paddle 1.8.5; doc/formats.md), run by DLPerf's train.py (synthetic data,
# logging every 10 batches; PLSC's entry.py patched, as DLPerf's README says,
# to stop after 150 batches). Give PLSC=<that checkout, DLPerf's train.py in
# it>. As DLPerf's runner does, the run edits train.py (here a copy in a
# temporary directory: the checkout is left as it is) for the batch and the
# loss: arcface on one GPU, dist_arcface under paddle.distributed.launch.
#
# SETTINGS=best (pipelines/settings.mk; sources in doc/pipelines.md): amp
# keys train with PLSC's set_mixed_precision(True) (dynamic loss scaling);
# the batch is set by a call (DLPerf's line assigns to the method's name,
# which leaves PLSC's default of 128); with amp, Paddle's cuDNN flags as its
# ResNet50 fp16 script sets them (its fp32 script sets none). NCHW: PLSC's
# ResNet has no layout option.
# SETTINGS=dlperf: DLPerf's runner, fp32 at batch 128 only. The log's
# setting lines say which.

PLSC ?=
PYTHON ?= python3

plsc_one = $(and $(filter 1,$(run_nodes)),$(filter 1,$(run_gpus)))
plsc_loss = $(if $(plsc_one),arcface,dist_arcface)
plsc_edit_best = -e "s/^\(\s*\)ins\.set_train_batch_size\s*=.*/\1ins.set_train_batch_size($(run_batch))/" \
	$(if $(run_half),-e "s/^\(\s*\)ins = Entry()/&\n\1ins.set_mixed_precision(True)/")
plsc_edit_dlperf = -e "s/\(ins.set_train_batch_size=\)\S*/ins.set_train_batch_size=$(run_batch)/"
plsc_flags = FLAGS_cudnn_exhaustive_search=1 FLAGS_conv_workspace_size_limit=4000 \
	FLAGS_cudnn_batchnorm_spatial_persistent=1
plsc_launch = $(if $(plsc_one),,-m paddle.distributed.launch --cluster_node_ips=$$NODE_IPS \
	--node_ip=$$(echo $$NODE_IPS | cut -d, -f$$(( NODE_RANK + 1 ))) \
	--selected_gpus=$(shell seq -s, 0 $$(( $(run_gpus) - 1 ))))
plsc_run = t=$$(mktemp -d) && trap "rm -rf $$t" EXIT && \
	sed $(call if_dlperf,$(plsc_edit_dlperf),$(plsc_edit_best)) \
	-e "s/^LOSS_TYPE = .*/LOSS_TYPE = \"$(plsc_loss)\"/" train.py > $$t/train.py && \
	$(call settings_print,layout=nchw precision=$(call if_dlperf,fp32,$(if $(run_half),amp,fp32)) \
	batch=$(call if_dlperf,128,$(run_batch)) loss_type=$(plsc_loss) \
	$(call if_dlperf,,$(if $(run_half),cudnn_exhaustive_search=1 conv_workspace_size_limit=4000 \
	cudnn_batchnorm_spatial_persistent=1))) && \
	PYTHONPATH=$(PLSC)$${PYTHONPATH:+:$$PYTHONPATH} $(call if_dlperf,,$(if $(run_half),$(plsc_flags))) \
	$(PYTHON) $(plsc_launch) $$t/train.py
# DLPerf's train.py trains at PLSC's default batch whatever it is told
plsc_dlperf_batch = $(if $(filter dlperf,$(SETTINGS)),$(if $(filter 128,$(run_batch)),,$(error \
	FRAMEWORK=plsc SETTINGS=dlperf runs batch 128 only (DLPerf's train.py keeps PLSC's default), \
	not $(run_key))))
plsc_CMD = $(call need,PLSC,path to a PLSC checkout with DLPerf's train.py)$(call settings_check,plsc,$(call if_dlperf,fp32,fp32 amp fp16))$(plsc_dlperf_batch) \
	$(nccl_env) $(abspath pipelines/per-node) bash -c 'cd $(PLSC) && $(strip $(plsc_run))'
plsc_DEPS :=
plsc_FORMAT := plsc
plsc_VERSIONS = $(call py_versions,$(PYTHON),paddlepaddle paddlepaddle-gpu plsc)
