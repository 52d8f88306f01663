# plsc: PaddlePaddle PLSC ArcFace with a ResNet50 backbone (Paddle 1.8.5;
# doc/formats.md), as DLPerf ran it: train.py patched to stop after 150 batches,
# logging every 10. Give PLSC=<checkout of PLSC with DLPerf's train.py>.
# One GPU runs train.py directly; more run paddle.distributed.launch.

PLSC ?=
PYTHON ?= python3
plsc_CMD = $(call need,PLSC,path to a PLSC checkout with DLPerf's train.py) \
	$(abspath pipelines/per-node) bash -c 'cd $(PLSC) && gpus=$$(seq -s, 0 $$(( {gpus} - 1 ))); \
	echo "\# env node=0 setting.loss_type=$$( [ $$(( {nodes} * {gpus} )) = 1 ] && echo script-default || echo dist_arcface )"; \
	if [ $$(( {nodes} * {gpus} )) = 1 ]; then exec $(PYTHON) train.py --batch_size {batch}; fi; \
	exec $(PYTHON) -m paddle.distributed.launch --cluster_node_ips $$NODE_IPS \
	--node_ip $$(echo $$NODE_IPS | cut -d, -f$$(( NODE_RANK + 1 ))) --selected_gpus $$gpus \
	train.py --batch_size {batch} --loss_type dist_arcface'
plsc_DEPS :=
plsc_FORMAT := plsc
plsc_VERSIONS = $(call py_versions,$(PYTHON),paddlepaddle paddlepaddle-gpu plsc)
