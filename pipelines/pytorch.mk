# pytorch: pytorch/examples imagenet/main.py, as DLPerf ran it (PyTorch 1.6;
# log format in doc/formats.md). Give PYTORCH_EXAMPLES=<checkout>/imagenet and
# IMAGENET=<ImageNet directory>. main.py starts one process per GPU of its
# node and takes the node's total batch with -b. The script has no layout or
# precision flags (NCHW, fp32 whatever the key says); its setting lines say so.

PYTORCH_EXAMPLES ?=
IMAGENET ?=
PYTHON ?= python3
pytorch_CMD = $(call need,PYTORCH_EXAMPLES,path to pytorch/examples/imagenet)$(call need,IMAGENET,ImageNet directory) \
	$(abspath pipelines/per-node) bash -c 'printf "\# env node=0 setting.%s\n" layout=nchw precision=fp32 workers=8 dist_backend=nccl; \
	exec $(PYTHON) $(PYTORCH_EXAMPLES)/main.py -a resnet50 \
	-b $$(( {batch} * {gpus} )) --epochs 1 --print-freq 1 --workers 8 \
	--dist-url tcp://$$MASTER_ADDR:$$MASTER_PORT --dist-backend nccl \
	--multiprocessing-distributed --world-size {nodes} --rank $$NODE_RANK $(IMAGENET)'
pytorch_DEPS :=
pytorch_FORMAT := pytorch
pytorch_VERSIONS = $(call py_versions,$(PYTHON),torch torchvision)
