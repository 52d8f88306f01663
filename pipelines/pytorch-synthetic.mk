# pipelines/pytorch-synthetic.mk — torchvision resnet50 on synthetic data
# (pipelines/pytorch_synthetic.py), logged in bench's format, so that bench and
# PyTorch stand side by side in results/compare_*.md on any machine.
#
# PyTorch at its best on this CPU, by construction: Debian's torch, seen by
# /usr/bin/python3 only (a pyenv python3 may come first on PATH); jemalloc
# preloaded with its pages kept (MALLOC_CONF below: with jemalloc's defaults
# or glibc's malloc, large tensors' pages are returned and faulted in again
# every step; doc/performance.md has the cost); threads = cores / processes
# on the node; channels_last, the faster layout in doc/performance.md's
# runs (PYTORCH_LAYOUT=nchw for the other). The script writes the settings in
# effect into the log: "# env node=0 setting.allocator=jemalloc" and so on.
# More than one process (mpirun's OMPI_COMM_WORLD_* or torchrun's env://)
# trains with DDP over gloo.

PYTORCH_PYTHON ?= /usr/bin/python3
JEMALLOC ?= $(firstword $(wildcard /usr/lib/x86_64-linux-gnu/libjemalloc.so.2 \
	/usr/lib/aarch64-linux-gnu/libjemalloc.so.2 /usr/lib/libjemalloc.so.2))
PYTORCH_MALLOC_CONF ?= dirty_decay_ms:-1,muzzy_decay_ms:-1
PYTORCH_LAYOUT ?= channels_last
PYTORCH_SYNTHETIC_ITERS ?= 120
PYTORCH_SYNTHETIC_FLAGS ?=

pytorch-synthetic_CMD := env $(if $(JEMALLOC),LD_PRELOAD=$(JEMALLOC) MALLOC_CONF=$(PYTORCH_MALLOC_CONF)) \
	$(PYTORCH_PYTHON) $(CURDIR)/pipelines/pytorch_synthetic.py --batch {batch} \
	--precision {precision} --iters $(PYTORCH_SYNTHETIC_ITERS) --layout $(PYTORCH_LAYOUT) \
	$(PYTORCH_SYNTHETIC_FLAGS)
pytorch-synthetic_DEPS := pipelines/pytorch_synthetic.py
pytorch-synthetic_FORMAT := bench
# The versions launch writes into the log ("# env node=<i> torch=..."), from
# the packages' metadata (importing torch would take seconds).
pytorch-synthetic_VERSIONS = $(call py_versions,$(PYTORCH_PYTHON),torch torchvision)
