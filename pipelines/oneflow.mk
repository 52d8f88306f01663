# oneflow: OneFlow-Benchmark Classification/cnns of_cnn_train_val.py (v0.3.0,
# the one DLPerf's OneFlow 0.3.1 report ran; ONEFLOW_ITERS iterations,
# default 120 as DLPerf's rn50_train.sh, printed every 20: doc/formats.md;
# OneFlow's report of 2020-08-08 ran 200). Give
# ONEFLOW_CNNS=<checkout>/Classification/cnns; DATA=<OFRecord ImageNet>
# (empty: synthetic data). One process per node drives its GPUs.
#
# SETTINGS=best (pipelines/settings.mk; sources in doc/pipelines.md): the
# performance flags of the script's own train_fp16.sh / train_fp32.sh:
# channel_last (NHWC) with fp16 and NCHW in fp32, batch norm fused with relu
# and with add-relu, NCCL fusion (16 MB, 24 ops), the GPU image decoder,
# NCCL_LAUNCH_MODE=PARALLEL, and pad_output with fp16. SETTINGS=dlperf:
# DLPerf's rn50_train.sh (the same flags with fp16; in fp32 its OneFlow 0.1.9
# command, none of them). The log's setting lines say which.

ONEFLOW_CNNS ?=
DATA ?=
PYTHON ?= python3
# the number of OFRecord part files under $(DATA)/train (DLPerf's had 256)
ONEFLOW_DATA_PARTS ?= 256
# the iterations of a run (--num_examples over the total batch): at least
# 120, the end of the window (doc/dlperf.md)
ONEFLOW_ITERS ?= 120

oneflow_iters = $(if $(shell [[ '$(ONEFLOW_ITERS)' =~ ^[1-9][0-9]{0,8}$$ ]] && \
	(( $(ONEFLOW_ITERS) >= 120 )) && echo ok),$(ONEFLOW_ITERS),$(error \
	ONEFLOW_ITERS=$(ONEFLOW_ITERS): expected a whole number of iterations, at least 120))
oneflow_common = --num_examples=$(shell echo $$(( $(run_nodes) * $(run_node_batch) * $(oneflow_iters) ))) \
	$(if $(DATA),--train_data_dir=$(DATA)/train --train_data_part_num=$(ONEFLOW_DATA_PARTS)) \
	--num_nodes=$(run_nodes) --gpu_num_per_node=$(run_gpus)
oneflow_tail = --loss_print_every_n_iter=20 --batch_size_per_device=$(run_batch) \
	--val_batch_size_per_device=125 --num_epoch=1
oneflow_fast = $(if $(run_half),--use_fp16 --channel_last=True --pad_output,--channel_last=False) \
	--fuse_bn_relu=True --fuse_bn_add_relu=True --nccl_fusion_threshold_mb=16 \
	--nccl_fusion_max_ops=24 --gpu_image_decoder=True
# a run of other than 120 iterations says so among its settings
oneflow_iters_setting = $(if $(filter-out 120,$(ONEFLOW_ITERS)),iters=$(ONEFLOW_ITERS))
oneflow_fast_settings = layout=$(if $(run_half),nhwc,nchw) use_fp16=$(if $(run_half),yes,no) \
	fuse_bn_relu=yes fuse_bn_add_relu=yes nccl_fusion=16mb,24ops gpu_image_decoder=yes \
	nccl_launch_mode=PARALLEL
oneflow_best = $(call settings_print,$(oneflow_fast_settings) data=$(if $(DATA),ofrecord,synthetic) \
	$(oneflow_iters_setting)) && \
	exec env PYTHONUNBUFFERED=1 NCCL_LAUNCH_MODE=PARALLEL $(PYTHON) $(ONEFLOW_CNNS)/of_cnn_train_val.py \
	$(oneflow_common) --optimizer=sgd --momentum=0.875 --label_smoothing=0.1 --learning_rate=0.001 \
	$(oneflow_tail) $(oneflow_fast) --node_ips=$$NODE_IPS --model=resnet50
oneflow_dlperf = $(call settings_print,$(if $(run_half),$(oneflow_fast_settings),layout=nchw use_fp16=no) \
	data=$(if $(DATA),ofrecord,synthetic) $(oneflow_iters_setting)) && \
	exec env PYTHONUNBUFFERED=1 $(if $(run_half),NCCL_LAUNCH_MODE=PARALLEL) $(PYTHON) $(ONEFLOW_CNNS)/of_cnn_train_val.py \
	$(oneflow_common) $(if $(run_half),--optimizer=sgd --momentum=0.875 --label_smoothing=0.1) \
	--learning_rate=0.001 $(oneflow_tail) $(if $(run_half),$(oneflow_fast)) --log_dir=./log \
	--node_ips=$$NODE_IPS --model=resnet50
oneflow_CMD = $(call need,ONEFLOW_CNNS,path to OneFlow-Benchmark/Classification/cnns)$(call settings_check,oneflow,fp32 amp fp16) \
	$(nccl_env) $(abspath pipelines/per-node) bash -c '$(strip $(call if_dlperf,$(oneflow_dlperf),$(oneflow_best)))'
oneflow_DEPS :=
oneflow_FORMAT := oneflow
oneflow_VERSIONS = $(call py_versions,$(PYTHON),oneflow)
