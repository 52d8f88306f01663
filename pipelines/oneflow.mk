# oneflow: OneFlow-Benchmark Classification/cnns of_cnn_train_val.py, as
# DLPerf ran it (OneFlow 0.2/0.3; 120 iterations, printed every 20: see
# doc/formats.md; --channel_last False: NCHW, said in the log's settings
# lines). Give ONEFLOW_CNNS=<checkout>/Classification/cnns;
# DATA=<OFRecord ImageNet> (empty: synthetic data). One process per node
# drives its GPUs.

ONEFLOW_CNNS ?=
DATA ?=
PYTHON ?= python3
oneflow_CMD = $(call need,ONEFLOW_CNNS,path to OneFlow-Benchmark/Classification/cnns) \
	$(abspath pipelines/per-node) bash -c 'printf "\# env node=0 setting.%s\n" layout=nchw use_fp16=$$( [ {precision} = fp32 ] && echo no || echo yes ) data=$(if $(DATA),ofrecord,synthetic); \
	exec $(PYTHON) $(ONEFLOW_CNNS)/of_cnn_train_val.py \
	--num_nodes {nodes} --node_ips $$NODE_IPS --gpu_num_per_node {gpus} \
	--batch_size_per_device {batch} --model resnet50 --num_epochs 1 --num_iters 120 \
	--loss_print_every_n_iter 20 --val_batch_size_per_device 125 --optimizer sgd \
	--momentum 0.875 --learning_rate 0.256 --channel_last False --pad_output \
	$$( [ {precision} = fp32 ] || echo --use_fp16 ) \
	$(if $(DATA),--train_data_dir $(DATA)/train --train_data_part_num 256)'
oneflow_DEPS :=
oneflow_FORMAT := oneflow
oneflow_VERSIONS = $(call py_versions,$(PYTHON),oneflow)
