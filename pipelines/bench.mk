# bench: this project's native ResNet50 v1.5 trainer (bench/). One rank per
# device; launch starts N x G ranks under mpirun. BENCH_ARGS adds flags
# (e.g. --image 112). BENCH_BIN picks the build: bin/bench-cuda where the
# build found the CUDA toolkit and this machine has a CUDA device (both said
# by bench/cuda/cuda.mk: CUDA_FOUND, CUDA_DEVICE), else the CPU build
# bin/bench. Decided only when a run is planned. bench-cuda runs with
# NCCL_DEBUG=INFO (pipelines/settings.mk: NCCL's choices into the log).

BENCH_ITERS ?= 120
BENCH_ARGS ?=
bench_bin = $(BIN)/$(if $(and $(CUDA_FOUND),$(CUDA_DEVICE)),bench-cuda,bench)
BENCH_BIN ?= $(abspath $(bench_bin))
bench_CMD = $(strip $(if $(filter %bench-cuda,$(BENCH_BIN)),$(nccl_env)) $(BENCH_BIN)) \
	--batch {batch} --precision {precision} \
	--iters $(BENCH_ITERS) $(BENCH_ARGS)
bench_DEPS = $(bench_bin)
bench_FORMAT := bench
