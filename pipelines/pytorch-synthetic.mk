# pipelines/pytorch-synthetic.mk — torchvision resnet50 on synthetic data
# (pipelines/pytorch_synthetic.py), logged in bench's format, so that bench and
# PyTorch stand side by side in results/compare_*.md on any machine.
#
# Debian's torch is seen by /usr/bin/python3 only (a pyenv python3 may come
# first on PATH). jemalloc is preloaded when installed: with glibc malloc
# PyTorch runs ~40 % slower here (page faults on large tensors).
# Threads default to cores / processes on the node; more than one process
# (mpirun's OMPI_COMM_WORLD_* or torchrun's env://) trains with DDP over gloo.


PYTORCH_PYTHON ?= /usr/bin/python3
JEMALLOC ?= $(firstword $(wildcard /usr/lib/x86_64-linux-gnu/libjemalloc.so.2 \
	/usr/lib/aarch64-linux-gnu/libjemalloc.so.2 /usr/lib/libjemalloc.so.2))
PYTORCH_SYNTHETIC_ITERS ?= 120
PYTORCH_SYNTHETIC_FLAGS ?=

pytorch-synthetic_CMD := env $(if $(JEMALLOC),LD_PRELOAD=$(JEMALLOC)) $(PYTORCH_PYTHON) \
	$(CURDIR)/pipelines/pytorch_synthetic.py --batch {batch} --precision {precision} \
	--iters $(PYTORCH_SYNTHETIC_ITERS) $(PYTORCH_SYNTHETIC_FLAGS)
pytorch-synthetic_DEPS := pipelines/pytorch_synthetic.py
pytorch-synthetic_FORMAT := bench
