# bench: the native ResNet50 v1.5 trainer, CPU backend on oneDNN, data
# parallel over MPI (bin/bench); the allreduce benchmark on the same backend
# (bin/bench-allreduce); the memory plan's checker (bin/test-arena-check).
# Needs libdnnl-dev and libopenmpi-dev; the MPI flags come from mpicc.
#
# Objects come from the top Makefile's pattern. For bench/cuda/cuda.mk:
# BENCH_CORE_OBJ is every object of bin/bench but the CPU backend and MPI
# comm (BENCH_CPU_OBJ); ALLREDUCE_OBJ the allreduce program's own objects.

MPICC := mpicc
BENCH_MPI_CFLAGS := $(shell $(MPICC) --showme:compile 2>/dev/null)
BENCH_MPI_LIBS := $(shell $(MPICC) --showme:link 2>/dev/null)
BENCH_XCFLAGS := -fopenmp $(BENCH_MPI_CFLAGS) -Ibench
DATA_LIBS := -ljpeg -pthread
BENCH_LIBS := -ldnnl $(BENCH_MPI_LIBS) $(DATA_LIBS) -fopenmp -lm
$(eval $(call track_flags,bench,$(BENCH_XCFLAGS) $(BENCH_LIBS)))

# bench/data/: the input pipeline of bench --data, on libjpeg-turbo's libjpeg
# API (bench/data/data.mk: the generator and the test driver).
DATA_OBJ := $(call objs,$(filter-out bench/data/synth.c,$(wildcard bench/data/*.c)))
# The model's table: model.c and the files it builds with (MODEL_OBJ).
MODEL_OBJ := $(call objs,bench/model.c bench/table.c bench/iresnet.c)
BENCH_CORE_OBJ := $(call objs,bench/main.c bench/flags.c bench/env.c bench/export.c \
	bench/arena.c bench/step.c bench/head.c bench/synthetic.c bench/profile.c bench/cost.c \
	bench/allreduce/allreduce.c) $(MODEL_OBJ) $(DATA_OBJ)
BENCH_CPU_OBJ := $(call objs,$(wildcard bench/cpu/*.c))
BENCH_OBJ := $(BENCH_CORE_OBJ) $(BENCH_CPU_OBJ)
ALLREDUCE_OBJ := $(call objs,bench/allreduce/main.c bench/allreduce/allreduce.c bench/profile.c \
	bench/cost.c)
ARENA_CHECK_OBJ := $(call objs,tests/drivers/arena-check.c bench/arena.c bench/step.c \
	bench/head.c bench/profile.c bench/cost.c) $(MODEL_OBJ)

$(sort $(BENCH_OBJ) $(ALLREDUCE_OBJ) $(ARENA_CHECK_OBJ)): XCFLAGS := $(BENCH_XCFLAGS)
$(sort $(BENCH_OBJ) $(ALLREDUCE_OBJ) $(ARENA_CHECK_OBJ)): $(OBJ)/.flags-bench
# The resize's two passes (decode.c) are loops the vectoriser must see whole:
# -O3 (GCC's -O2 vectorises only loops of a known trip count).
$(call objs,bench/data/decode.c): XCFLAGS += -O3

$(BIN)/bench: $(BENCH_OBJ) $(LIBDLBENCH) | $(BIN)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(BENCH_LIBS)

# bin/bench-allreduce: the allreduce benchmark through comm.h on MPI
# (bin/bench-cuda-allreduce is the same program on NCCL).
$(BIN)/bench-allreduce: $(ALLREDUCE_OBJ) $(BENCH_CPU_OBJ) $(LIBDLBENCH) | $(BIN)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(BENCH_LIBS)

# bin/test-arena-check: arena.c's memory plan under a backend that does no
# arithmetic and checks every read of step.c's walks against the last write
# (tests/bench.bats).
$(BIN)/test-arena-check: $(ARENA_CHECK_OBJ) $(LIBDLBENCH) | $(BIN)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -fopenmp -lm

all: $(BIN)/bench $(BIN)/bench-allreduce $(BIN)/test-arena-check

include bench/data/data.mk
