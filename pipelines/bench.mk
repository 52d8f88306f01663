# bench: this project's native ResNet50 v1.5 trainer (bench/). One rank per
# device; launch starts N x G ranks under mpirun. BENCH_ARGS adds flags
# (e.g. --image 112). BENCH_BIN picks the build: bin/bench-cuda where it was
# built and this machine has a CUDA device (bin/check-gpu-compare devices), else the
# CPU build bin/bench. Checked only when a run is planned.

BENCH_ITERS ?= 120
BENCH_ARGS ?=
BENCH_BIN ?= $(abspath $(if $(and $(wildcard $(BIN)/bench-cuda),\
	$(shell $(BIN)/check-gpu-compare devices >/dev/null 2>&1 && echo y)),$(BIN)/bench-cuda,$(BIN)/bench))
bench_CMD = $(BENCH_BIN) --batch {batch} --precision {precision} \
	--iters $(BENCH_ITERS) $(BENCH_ARGS)
bench_DEPS = $(BIN)/bench
bench_FORMAT := bench
