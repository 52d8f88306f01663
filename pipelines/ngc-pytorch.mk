# ngc-pytorch: NVIDIA DeepLearningExamples PyTorch/Classification/ConvNets
# main.py under its multiproc.py, as DLPerf ran it (NGC 20.03; DLL log lines,
# doc/formats.md). Give DLE_CONVNETS=<checkout>/PyTorch/Classification/ConvNets and
# IMAGENET=<ImageNet directory>. amp runs with --amp --dynamic-loss-scale; the
# layout is the script's default (NCHW), as DLPerf ran it; its settings lines
# in the log say both.

DLE_CONVNETS ?=
IMAGENET ?=
PYTHON ?= python3
ngc-pytorch_CMD = $(call need,DLE_CONVNETS,path to DeepLearningExamples/PyTorch/Classification/ConvNets)$(call need,IMAGENET,ImageNet directory) \
	$(abspath pipelines/per-node) bash -c 'cd $(DLE_CONVNETS) && \
	printf "\# env node=0 setting.%s\n" layout=nchw data_backend=dali-cpu amp=$$( [ {precision} = amp ] || [ {precision} = fp16 ] && echo dynamic-loss-scale || echo none ) && \
	exec $(PYTHON) ./multiproc.py \
	--nnodes {nodes} --node_rank $$NODE_RANK --nproc_per_node {gpus} \
	--master_addr $$MASTER_ADDR --master_port $$MASTER_PORT ./main.py --arch resnet50 \
	-b {batch} --training-only -p 1 --epochs 1 --prof 150 --data-backend dali-cpu \
	$$( [ {precision} = amp ] || [ {precision} = fp16 ] && echo --amp --dynamic-loss-scale ) \
	$(IMAGENET)'
ngc-pytorch_DEPS :=
ngc-pytorch_FORMAT := ngc-pytorch
ngc-pytorch_VERSIONS = $(call py_versions,$(PYTHON),torch torchvision nvidia-dali-cuda110 nvidia-dali-cuda120)
