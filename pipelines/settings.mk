# pipelines/settings.mk — what the GPU pipelines (pytorch, ngc-pytorch,
# oneflow, plsc; bench's NCCL_DEBUG too) share; no framework of its own.
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

# What NCCL chose, in the log: NCCL_DEBUG=INFO makes NCCL print, once at
# initialisation, its version, the network it uses between nodes (IB or
# Socket) and the transport of each connection (P2P/IPC, SHM, NET/IB,
# NET/Socket …), which grep-iters passes on as items of the run and table
# shows (doc/cluster.md); NCCL_DEBUG_SUBSYS=INIT keeps NCCL to those lines
# (none per call or allocation: nothing in the timed window). Every GPU
# pipeline's command, and bench's with bench-cuda, starts with $(nccl_env);
# NCCL_DEBUG= (empty) leaves NCCL as launch's environment has it.
NCCL_DEBUG ?= INFO
NCCL_DEBUG_SUBSYS ?= INIT
nccl_env = $(if $(NCCL_DEBUG),env NCCL_DEBUG=$(NCCL_DEBUG)$(if \
	$(NCCL_DEBUG_SUBSYS), NCCL_DEBUG_SUBSYS=$(NCCL_DEBUG_SUBSYS)))

# $(call settings_print,NAME=VALUE ...): the pipeline's "# env node=0
# setting.<name>=<value>" lines, for a command inside bash -c '…'.
settings_print = printf "\# env node=0 setting.%s\n" settings=$(SETTINGS) $(1)
