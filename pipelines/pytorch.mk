# pytorch: pytorch/examples imagenet/main.py, at the commit DLPerf ran
# (49ec0bd, PyTorch 1.6; log format in doc/formats.md). Give
# PYTORCH_EXAMPLES=<checkout>/imagenet and IMAGENET=<ImageNet directory>.
# main.py starts one process per GPU of its node and takes the node's batch
# and the node's data workers, which it divides among its GPUs. The script
# has no precision, layout or cuDNN flags: it trains in fp32 and NCHW (keys
# other than fp32 are refused), and turns cuDNN's autotuner on itself until
# 2022-09 (later checkouts leave it off; the setting line reads main.py).
#
# SETTINGS=best (pipelines/settings.mk; sources in doc/pipelines.md): one
# data worker per online CPU of the node (PYTORCH_WORKERS), jemalloc
# preloaded with its pages kept (the workers decode with PIL). SETTINGS=dlperf:
# DLPerf's command (8 workers, its learning rate and momentum). The log's
# setting lines say which.

PYTORCH_EXAMPLES ?=
IMAGENET ?=
PYTHON ?= python3
PYTORCH_WORKERS ?= $$(getconf _NPROCESSORS_ONLN)

# cuDNN's autotuner: on where main.py turns it on
pytorch_cudnn = cudnn_benchmark=$$(grep -qs "^ *cudnn.benchmark = True" $(PYTORCH_EXAMPLES)/main.py && \
	echo on || echo off)
pytorch_dist = --multiprocessing-distributed --dist-backend nccl \
	--dist-url tcp://$$MASTER_ADDR:$$MASTER_PORT --world-size $(run_nodes) --rank $$NODE_RANK
pytorch_best = workers=$(PYTORCH_WORKERS) && \
	$(call settings_print,$(torch_malloc_settings) layout=nchw precision=fp32 $(pytorch_cudnn) \
	workers=$$workers dist_backend=nccl) && \
	exec env $(torch_malloc) $(PYTHON) $(PYTORCH_EXAMPLES)/main.py -a resnet50 \
	-b $(run_node_batch) --epochs 1 --print-freq 1 --workers $$workers \
	$(pytorch_dist) $(IMAGENET)
pytorch_dlperf = $(call settings_print,allocator=glibc layout=nchw precision=fp32 $(pytorch_cudnn) \
	workers=8 dist_backend=nccl) && \
	exec $(PYTHON) $(PYTORCH_EXAMPLES)/main.py --arch resnet50 --epochs 1 \
	--batch-size $(run_node_batch) \
	--lr $(dlperf_lr) --workers 8 \
	--momentum 0.125 --print-freq 1 $(pytorch_dist) $(IMAGENET)
pytorch_CMD = $(call need,PYTORCH_EXAMPLES,path to pytorch/examples/imagenet)$(call need,IMAGENET,ImageNet directory)$(call settings_check,pytorch,fp32) \
	$(nccl_env) $(abspath pipelines/per-node) bash -c '$(strip $(call if_dlperf,$(pytorch_dlperf),$(pytorch_best)))'
pytorch_DEPS :=
pytorch_FORMAT := pytorch
pytorch_VERSIONS = $(call py_versions,$(PYTHON),torch torchvision)
