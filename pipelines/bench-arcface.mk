# bench-arcface: PLSC's workload in bench (bench/), the framework-free
# baseline of DLPerf's PLSC table: IResNet-50 at 112 px with the ArcFace
# head over PLSC's 85,742 classes, the classifier split by class over the
# ranks (PLSC's dist_arcface; one rank, the whole classifier: its arcface).
# One rank per device, as the bench pipeline (pipelines/bench.mk: BENCH_BIN,
# BENCH_ITERS); BENCH_ARCFACE_ARGS adds flags (e.g. --classifier whole).
#
# Its tables' published column is DLPerf's PLSC table
# (data/dlperf/plsc_fp32_b128.tsv: PLSC's ResNet50 backbone, Paddle 1.8.5,
# V100s), given under this framework's name (table matches a published
# figure by framework and key), unless PUBLISHED says otherwise:
#
#   make results/4n8g_b128_fp32.md FRAMEWORK=bench-arcface

BENCH_ARCFACE_CLASSES ?= 85742
BENCH_ARCFACE_ARGS ?=
bench-arcface_CMD = $(strip $(BENCH_BIN) --model iresnet50 --head arcface \
	--classes $(BENCH_ARCFACE_CLASSES) --batch {batch} --precision {precision} \
	--iters $(BENCH_ITERS) $(BENCH_ARCFACE_ARGS))
bench-arcface_DEPS = $(bench_bin)
bench-arcface_FORMAT := bench

BENCH_ARCFACE_PUBLISHED := data/dlperf/plsc_fp32_b128.tsv
ifeq ($(FRAMEWORK),bench-arcface)
PUBLISHED ?= $(OBJ)/published-bench-arcface.tsv
endif
$(OBJ)/published-bench-arcface.tsv: $(BENCH_ARCFACE_PUBLISHED)
	@mkdir -p $(@D)
	{ echo "# $< with its framework named bench-arcface (pipelines/bench-arcface.mk)"; \
		sed 's/^plsc\t/bench-arcface\t/' $<; } $(to_tmp)
	@mv $@.tmp $@
