# bench: this project's native ResNet50 v1.5 trainer (bench/), CPU backend
# on oneDNN, or CUDA when built with it. One rank per device; launch starts
# N x G ranks under mpirun. BENCH_ARGS adds flags (e.g. --image 112).

PIPELINES += bench
BENCH_ITERS ?= 120
BENCH_ARGS ?=
bench_CMD = $(abspath $(BIN)/bench) --batch {batch} --precision {precision} \
	--iters $(BENCH_ITERS) $(BENCH_ARGS)
bench_DEPS = $(BIN)/bench
bench_FORMAT := bench
bench_WINDOW :=
