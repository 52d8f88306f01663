# ngc-pytorch: NVIDIA DeepLearningExamples PyTorch/Classification/ConvNets
# main.py under its multiproc.py, at the commit DLPerf ran (5cc03caa, the NGC
# 20.03 container; DLL log lines, doc/formats.md). Give
# DLE_CONVNETS=<checkout>/PyTorch/Classification/ConvNets and
# IMAGENET=<ImageNet directory>.
#
# SETTINGS=best (pipelines/settings.mk; each value's source in
# doc/pipelines.md): DLE's README benchmark command, amp with
# --static-loss-scale 256; DALI on the CPU (DLE_DATA_BACKEND, dali-gpu on a
# DGX-2); -j 8 DALI threads (DLE_WORKERS; DLE's DGX A100 script uses 16);
# NCHW, the layout of this commit (its README: NHWC for mixed precision not
# yet supported; a newer checkout takes DLE_MEMORY_FORMAT=nhwc); jemalloc
# preloaded with its pages kept. SETTINGS=dlperf: DLPerf's command (amp with
# --dynamic-loss-scale, its learning-rate flags), --prof 150 instead of 120
# because the window needs 125 iterations. The log's setting lines say which.

DLE_CONVNETS ?=
IMAGENET ?=
PYTHON ?= python3
DLE_DATA_BACKEND ?= dali-cpu
DLE_WORKERS ?= 8
DLE_MEMORY_FORMAT ?= nchw
DLE_LOSS_SCALE ?= 256

ngc-pytorch_procs = --nnodes $(run_nodes) --node_rank $$NODE_RANK --nproc_per_node $(run_gpus) \
	--master_addr $$MASTER_ADDR --master_port $$MASTER_PORT
ngc-pytorch_best = $(call settings_print,$(torch_malloc_settings) layout=$(DLE_MEMORY_FORMAT) \
	data_backend=$(DLE_DATA_BACKEND) workers=$(DLE_WORKERS) \
	amp=$(if $(run_half),static-loss-scale-$(DLE_LOSS_SCALE),none)) && \
	exec env $(torch_malloc) $(PYTHON) ./multiproc.py $(ngc-pytorch_procs) ./main.py \
	--arch resnet50 -b $(run_batch) --training-only -p 1 --epochs 1 --prof 150 --no-checkpoints \
	--data-backend $(DLE_DATA_BACKEND) -j $(DLE_WORKERS) --memory-format $(DLE_MEMORY_FORMAT) \
	$(if $(run_half),--amp --static-loss-scale $(DLE_LOSS_SCALE)) $(IMAGENET)
ngc-pytorch_dlperf = $(call settings_print,allocator=glibc layout=nchw data_backend=dali-cpu \
	workers=8 amp=$(if $(run_half),dynamic-loss-scale,none)) && \
	exec $(PYTHON) ./multiproc.py $(ngc-pytorch_procs) ./main.py \
	--data-backend dali-cpu --raport-file ./raport.json -j8 -p 1 \
	--lr $(dlperf_lr) \
	--optimizer-batch-size -1 --warmup 8 --arch resnet50 -c fanin --label-smoothing 0.1 \
	--lr-schedule cosine --mom 0.125 --wd 3.0517578125e-05 --workspace ./ -b $(run_batch) \
	--epochs 1 --prof 150 --training-only --no-checkpoints \
	$(if $(run_half),--amp --dynamic-loss-scale) $(IMAGENET)
ngc-pytorch_CMD = $(call need,DLE_CONVNETS,path to DeepLearningExamples/PyTorch/Classification/ConvNets)$(call need,IMAGENET,ImageNet directory)$(call settings_check,ngc-pytorch,fp32 amp fp16) \
	$(nccl_env) $(abspath pipelines/per-node) bash -c 'cd $(DLE_CONVNETS) && \
	$(strip $(call if_dlperf,$(ngc-pytorch_dlperf),$(ngc-pytorch_best)))'
ngc-pytorch_DEPS :=
ngc-pytorch_FORMAT := ngc-pytorch
ngc-pytorch_VERSIONS = $(call py_versions,$(PYTHON),torch torchvision nvidia-dali-cuda110 nvidia-dali-cuda120)
