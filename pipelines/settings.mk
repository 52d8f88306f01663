# pipelines/settings.mk — what the GPU pipelines (pytorch, ngc-pytorch,
# oneflow, plsc) share; no framework of its own.
#
# SETTINGS=best (the default) runs each framework at its own documented best;
# SETTINGS=dlperf runs DLPerf's own command, the one DLPerf's published
# numbers come from. doc/pipelines.md gives each setting, its source and what
# DLPerf used instead. The run's key is read from the log the run writes ($@
# is LOGDIR/<fw>/<key>/<run>.log in the run rule), so the flags a precision
# or a batch selects are fixed by make and `make -n` prints them as they run.

SETTINGS ?= best

run_key = $(notdir $(@D))
run_nodes = $(call key_nodes,$(run_key))
run_gpus = $(call key_gpus,$(run_key))
run_batch = $(word 3,$(call key_parts,$(run_key)))
run_prec = $(word 4,$(call key_parts,$(run_key)))
# the node's batch, and DLPerf's learning rate for it (the node's batch / 1000)
run_node_batch = $(shell echo $$(( $(run_batch) * $(run_gpus) )))
dlperf_lr = $(shell awk 'BEGIN { print $(run_batch) * $(run_gpus) / 1000 }')
# non-empty for the half-precision keys (DLPerf ran fp16 and amp alike)
run_half = $(filter amp fp16,$(run_prec))
# $(call if_dlperf,A,B): A under SETTINGS=dlperf, else B (call expands both:
# an $(error) goes in a plain $(if) instead).
if_dlperf = $(if $(filter dlperf,$(SETTINGS)),$(1),$(2))

# $(call settings_check,FW,PRECISIONS): one line and a stop when SETTINGS is
# neither best nor dlperf or the run's precision is not one FW runs.
settings_check = $(if $(filter best dlperf,$(SETTINGS)),,$(error SETTINGS=$(SETTINGS): \
	expected best or dlperf))$(if $(filter $(2),$(run_prec)),,$(error FRAMEWORK=$(1) \
	SETTINGS=$(SETTINGS) runs $(2) only, not $(run_key)))

# PyTorch's allocator at its best (as pipelines/pytorch-synthetic.mk): jemalloc
# preloaded, its pages kept; nothing where jemalloc is not installed.
torch_malloc = $(if $(JEMALLOC),LD_PRELOAD=$(JEMALLOC) MALLOC_CONF=$(PYTORCH_MALLOC_CONF))
torch_malloc_settings = $(if $(JEMALLOC),allocator=jemalloc malloc_conf=$(PYTORCH_MALLOC_CONF),allocator=glibc)

# $(call settings_print,NAME=VALUE ...): the pipeline's "# env node=0
# setting.<name>=<value>" lines, for a command inside bash -c '…'.
settings_print = printf "\# env node=0 setting.%s\n" settings=$(SETTINGS) $(1)
