# tests/perf/perf.mk — the project's own benchmarks. A benchmark prints
# figures; it is not a test.
#
#   make perf-roof                     this CPU's oneDNN convolution roof (bin/perf-roof)
#   make perf-step-roof                the roof of one training step, op by op
#                                      (bin/perf-step-roof; ROOF_ARGS='-i 112 -p amp')
#   make perf-cpu                      bench against PyTorch, one run of each configuration
#   make perf-cpu REPEAT=3             medians of three
#   make perf-cpu BENCH_CPU_ARGS='...' see tests/perf/cpu.sh for the knobs
#   make perf-agree REPEAT=3           perf-cpu, and at AGREE's sizes (112) PyTorch three ways
#                                      side by side: the harness's pipeline, perf-cpu's run,
#                                      a plain loop (tests/perf/plain_torch.py)
#   make perf-filters                  grep-iters | window on a 1 GB log, make -n over 1,002
#                                      configurations, every filter at N and 4N records
#                                      (SIZE_MB, REPEAT, N, PARTS: tests/perf/filters.sh)
#   make perf-data                     bench's input pipeline against PyTorch's, on
#                                      data/imagenet-synthetic/train (DATA=, knobs: tests/perf/data.sh)
#   make perf-arcface REPEAT=3         bench's IResNet-50 + ArcFace against PyTorch, 1 rank; the
#                                      split classifier against the whole one at 2 ranks
#                                      (knobs: tests/perf/arcface.sh)

REPEAT ?= 1
BENCH_CPU_ITERS ?= 30
BENCH_CPU_WARMUP ?= 10
BENCH_CPU_ARGS ?=
ROOF_ARGS ?=
AGREE ?= 112

PERF_CONVTIME_OBJ := $(call objs,tests/perf/convtime.c)
PERF_ROOF_OBJ := $(call objs,tests/perf/roof.c) $(PERF_CONVTIME_OBJ)
PERF_STEP_OBJ := $(call objs,tests/perf/step.c) $(PERF_CONVTIME_OBJ) $(MODEL_OBJ) \
	$(call objs,bench/cost.c)
$(call objs,tests/perf/roof.c tests/perf/convtime.c): XCFLAGS := -Ibench
$(call objs,tests/perf/step.c): XCFLAGS := -Ibench -fopenmp

$(BIN)/perf-roof: $(PERF_ROOF_OBJ) $(LIBDLBENCH) | $(BIN)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -ldnnl

# bin/perf-step-roof: the roof of one training step, op by op (step.c)
$(BIN)/perf-step-roof: $(PERF_STEP_OBJ) $(LIBDLBENCH) | $(BIN)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -ldnnl -fopenmp -lm

all: $(BIN)/perf-roof $(BIN)/perf-step-roof

perf-roof: $(BIN)/perf-roof
	$(BIN)/perf-roof

perf-step-roof: $(BIN)/perf-step-roof
	$(BIN)/perf-step-roof $(ROOF_ARGS)

# Every run's images/s comes from the harness: grep-iters | window.
perf-cpu: $(BIN)/bench $(BIN)/perf-roof $(BIN)/perf-step-roof $(BIN)/grep-iters $(BIN)/window \
		tests/perf/cpu.sh pipelines/pytorch_synthetic.py
	REPEAT=$(REPEAT) ITERS=$(BENCH_CPU_ITERS) WARMUP=$(BENCH_CPU_WARMUP) \
	BENCH=$(BIN)/bench PEAK=$(BIN)/perf-roof STEP_ROOF=$(BIN)/perf-step-roof \
	HARNESS_BIN=$(abspath $(BIN)) bash tests/perf/cpu.sh $(BENCH_CPU_ARGS)

perf-agree: $(BIN)/bench $(BIN)/perf-roof $(BIN)/perf-step-roof $(BIN)/launch $(BIN)/grep-iters $(BIN)/window \
		tests/perf/cpu.sh tests/perf/plain_torch.py pipelines/pytorch_synthetic.py
	REPEAT=$(REPEAT) ITERS=$(BENCH_CPU_ITERS) WARMUP=$(BENCH_CPU_WARMUP) \
	BENCH=$(BIN)/bench PEAK=$(BIN)/perf-roof STEP_ROOF=$(BIN)/perf-step-roof \
	AGREE='$(AGREE)' HARNESS_BIN=$(abspath $(BIN)) \
	HARNESS_CMD='$(pytorch-synthetic_CMD)' bash tests/perf/cpu.sh $(BENCH_CPU_ARGS)

perf-filters: $(addprefix $(BIN)/,grep-iters window median speedup table compare ranks plot) \
		tests/perf/filters.sh
	BIN=$(abspath $(BIN)) bash tests/perf/filters.sh

perf-data: $(BIN)/bench tests/perf/data.sh tests/perf/torch_data.py
	BENCH=$(abspath $(BIN)/bench) bash tests/perf/data.sh

# REPEAT is the make variable above (default 1): perf-arcface takes it only
# when given, else the script's own 3.
perf-arcface: $(BIN)/bench $(BIN)/grep-iters $(BIN)/window tests/perf/arcface.sh \
		pipelines/pytorch_synthetic.py pipelines/torch_iresnet.py
	$(if $(filter command line environment,$(origin REPEAT)),REPEAT=$(REPEAT)) \
	BENCH=$(BIN)/bench HARNESS_BIN=$(abspath $(BIN)) bash tests/perf/arcface.sh

.PHONY: perf-roof perf-step-roof perf-cpu perf-agree perf-filters perf-data perf-arcface
