# bench: the native ResNet50 v1.5 trainer, CPU backend on oneDNN, data
# parallel over MPI (bin/bench); the allreduce benchmark on the same backend
# (bin/bench-allreduce); the memory plan's checker (bin/test-arena-check).
# Needs libdnnl-dev (without it only bench-cuda is built);
# libopenmpi-dev and libjpeg62-turbo-dev where found.
#
#   make MPI=0     no MPI (the default where mpicc is not found): bench runs
#                  one process and refuses a launcher with one line
#   make JPEG=0    no libjpeg-turbo (the default where jpeglib.h is not
#                  found): bench refuses --data with one line
#
# Neither library is linked: bench opens libmpi when a launcher started the
# ranks (bench/mpi_load.h) and libjpeg on --data's first image
# (bench/data/jpeg_load.h), so one binary starts where they are missing.
#
# Objects come from the top Makefile's pattern. For bench/cuda/cuda.mk:
# BENCH_CORE_OBJ is every object of bin/bench but the CPU backend and MPI
# comm (BENCH_CPU_OBJ); ALLREDUCE_OBJ the allreduce program's own objects.

# What was found is said once, on make's first lines: the project's own
# recursive makes pass CUDA_QUIET=1. (A comma in a message is $(,).)
, := ,
build_say = $(if $(CUDA_QUIET),,$(info $(1)))

MPICC := mpicc
BENCH_MPI_CFLAGS := $(shell $(MPICC) --showme:compile 2>/dev/null)
MPI ?= $(if $(BENCH_MPI_CFLAGS),1,0)
ifeq ($(MPI),0)
$(call build_say,MPI: $(if $(BENCH_MPI_CFLAGS),off (MPI=0),not found ($(MPICC))); bench runs \
one process only (several ranks are refused))
BENCH_MPI_CFLAGS := -DBENCH_NO_MPI
BENCH_MPI_LIBS :=
else
# libmpi's folder as mpicc knows it, in the run path: dlopen looks there too.
bench_mpi_libdirs := $(shell $(MPICC) --showme:libdirs 2>/dev/null)
$(call build_say,MPI: $(MPICC) $(firstword $(bench_mpi_libdirs)); libmpi opened when mpirun \
or srun starts several ranks)
BENCH_MPI_LIBS := $(addprefix -Wl$(,)-rpath$(,),$(bench_mpi_libdirs))
endif

JPEG_H := $(firstword $(wildcard /usr/include/jpeglib.h /usr/local/include/jpeglib.h))
JPEG ?= $(if $(JPEG_H),1,0)
ifeq ($(JPEG),0)
$(call build_say,libjpeg: $(if $(JPEG_H),off (JPEG=0),not found (jpeglib.h)); bench refuses --data)
BENCH_JPEG_CFLAGS := -DBENCH_NO_JPEG
else
$(call build_say,libjpeg: $(or $(JPEG_H),jpeglib.h); loaded by bench --data)
BENCH_JPEG_CFLAGS :=
endif

# oneDNN, the CPU backend: without it bin/bench is not built (bench-cuda is).
DNNL_H := $(firstword $(wildcard /usr/include/dnnl.h /usr/include/oneapi/dnnl/dnnl.h \
	/usr/local/include/dnnl.h))
$(if $(DNNL_H),,$(call build_say,oneDNN: not found (dnnl.h); bin/bench and bin/bench-allreduce skipped))

BENCH_XCFLAGS := -fopenmp $(BENCH_MPI_CFLAGS) $(BENCH_JPEG_CFLAGS) -Ibench
DATA_LIBS := -pthread -ldl
BENCH_LIBS := -ldnnl $(BENCH_MPI_LIBS) $(DATA_LIBS) -fopenmp -lm
$(eval $(call track_flags,bench,$(BENCH_XCFLAGS) $(BENCH_LIBS)))

# bench/data/: the input pipeline of bench --data, on libjpeg-turbo's libjpeg
# API (bench/data/data.mk: the generator and the test driver).
# Without libjpeg (JPEG=0) decode_none.c stands for decode.c.
DATA_OBJ := $(call objs,$(filter-out bench/data/synth.c bench/data/decode$(if $(filter \
	0,$(JPEG)),,_none).c,$(wildcard bench/data/*.c)))
# The run-time loading of MPI and libjpeg (mpi_load.h, data/jpeg_load.h).
BENCH_DL_OBJ := $(call objs,bench/dl.c bench/mpi_load.c)
# The model's table: model.c and the files it builds with (MODEL_OBJ).
MODEL_OBJ := $(call objs,bench/model.c bench/table.c bench/iresnet.c)
BENCH_CORE_OBJ := $(call objs,bench/main.c bench/flags.c bench/env.c bench/export.c \
	bench/arena.c bench/step.c bench/head.c bench/synthetic.c bench/profile.c bench/cost.c \
	bench/allreduce/allreduce.c) $(MODEL_OBJ) $(DATA_OBJ) $(BENCH_DL_OBJ)
BENCH_CPU_OBJ := $(call objs,$(wildcard bench/cpu/*.c))
BENCH_OBJ := $(BENCH_CORE_OBJ) $(BENCH_CPU_OBJ)
ALLREDUCE_OBJ := $(call objs,bench/allreduce/main.c bench/allreduce/allreduce.c bench/profile.c \
	bench/cost.c) $(BENCH_DL_OBJ)
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

all: $(if $(DNNL_H),$(BIN)/bench $(BIN)/bench-allreduce) $(BIN)/test-arena-check

include bench/data/data.mk
