# bench/bench-cpu.mk — `make bench-cpu`: bench against PyTorch on this CPU, and
# bin/peak, the oneDNN convolution roof it is measured against. Included by
# bench/bench.mk. A benchmark prints figures; it is not a test.
#
#   make bench-cpu                      one run of each configuration
#   make bench-cpu REPEAT=3             medians of three
#   make bench-cpu BENCH_CPU_ARGS='...' see bench/bench-cpu.sh for the knobs

REPEAT ?= 1
BENCH_CPU_ITERS ?= 30
BENCH_CPU_WARMUP ?= 10
BENCH_CPU_ARGS ?=

$(BIN)/peak: bench/peak.c $(OBJ)/.flags-c | $(BIN)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ bench/peak.c -ldnnl

all: $(BIN)/peak

bench-cpu: $(BIN)/bench $(BIN)/peak bench/bench-cpu.sh pipelines/pytorch_synthetic.py
	REPEAT=$(REPEAT) ITERS=$(BENCH_CPU_ITERS) WARMUP=$(BENCH_CPU_WARMUP) \
	BENCH=$(BIN)/bench PEAK=$(BIN)/peak bash bench/bench-cpu.sh $(BENCH_CPU_ARGS)

.PHONY: bench-cpu
