# pipelines/pytorch-synthetic.mk — torchvision resnet50 on synthetic data
# (pipelines/pytorch_synthetic.py), logged in bench's format, so that bench and
# PyTorch stand side by side in results/compare_*.md on any machine.
#
# On the GPU where this machine has one (cuda.mk's CUDA_DEVICE, as the bench
# pipeline decides on bin/bench-cuda; CUDA_DEVICE= for the CPU), else on the
# CPU, each at PyTorch's best, by construction (the script's doc says what
# each setting is and why, and writes them into the log: "# env node=0
# setting.autocast=fp16" and so on). The GPU: channels_last, cudnn.benchmark,
# fused SGD, AMP fp16 with a GradScaler for amp, bf16 autocast for bf16, TF32
# for tf32 and none for fp32, NCCL between processes (NCCL_DEBUG=INFO, as for
# bench-cuda: pipelines/settings.mk); PYTORCH_COMPILE=MODE adds torch.compile. The CPU: jemalloc preloaded with its pages kept
# (MALLOC_CONF below: with jemalloc's defaults or glibc's malloc, large
# tensors' pages are returned and faulted in again every step;
# doc/performance.md has the cost); threads = cores / processes on the node;
# channels_last, the faster layout in doc/performance.md's runs
# (PYTORCH_LAYOUT=nchw for the other); gloo between processes. More than one
# process: mpirun's OMPI_COMM_WORLD_* or torchrun's env://, under DDP.
#
# PYTORCH_PYTHON: the first of PYTORCH_PYTHONS that has torch, found once
# when a run is planned: /usr/bin/python3 (Debian's torch; a pyenv python3
# may come first on PATH), else the python3 on PATH (a PyTorch venv's).

PYTORCH_PYTHONS ?= /usr/bin/python3 python3
pytorch_python = $(firstword $(foreach p,$(PYTORCH_PYTHONS),$(if $(shell $(p) -c \
	'import importlib.util as u; print(u.find_spec("torch") is not None)' 2>/dev/null | \
	grep -x True),$(shell command -v $(p)))) $(firstword $(PYTORCH_PYTHONS)))
PYTORCH_PYTHON ?= $(eval PYTORCH_PYTHON := $(pytorch_python))$(PYTORCH_PYTHON)
JEMALLOC ?= $(firstword $(wildcard /usr/lib/x86_64-linux-gnu/libjemalloc.so.2 \
	/usr/lib/aarch64-linux-gnu/libjemalloc.so.2 /usr/lib/libjemalloc.so.2))
PYTORCH_MALLOC_CONF ?= dirty_decay_ms:-1,muzzy_decay_ms:-1
PYTORCH_LAYOUT ?= channels_last
PYTORCH_SYNTHETIC_ITERS ?= 120
PYTORCH_SYNTHETIC_FLAGS ?=
PYTORCH_COMPILE ?=

pytorch-synthetic_CMD = env$(if $(CUDA_DEVICE),$(patsubst env%,%,$(nccl_env)))$(if $(JEMALLOC), \
	LD_PRELOAD=$(JEMALLOC) MALLOC_CONF=$(PYTORCH_MALLOC_CONF)) \
	$(PYTORCH_PYTHON) $(CURDIR)/pipelines/pytorch_synthetic.py --batch {batch} \
	--precision {precision} --iters $(PYTORCH_SYNTHETIC_ITERS) --layout $(PYTORCH_LAYOUT) \
	--device $(if $(CUDA_DEVICE),cuda,cpu)$(if $(PYTORCH_COMPILE), --compile $(PYTORCH_COMPILE)) \
	$(PYTORCH_SYNTHETIC_FLAGS)
pytorch-synthetic_DEPS := pipelines/pytorch_synthetic.py
pytorch-synthetic_FORMAT := bench
# The versions launch writes into the log ("# env node=<i> torch=..."), from
# the packages' metadata (importing torch would take seconds).
pytorch-synthetic_VERSIONS = $(call py_versions,$(PYTORCH_PYTHON),torch torchvision)
