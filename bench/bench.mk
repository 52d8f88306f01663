# bench: the native ResNet50 v1.5 trainer (bench/*.c), CPU backend on oneDNN,
# data parallel over MPI. Objects in build/bench/, binary bin/bench.
# Needs libdnnl-dev and libopenmpi-dev; the MPI flags come from mpicc.

BENCH_SRC := main model backend_cpu comm_mpi probe
BENCH_OBJ := $(patsubst %,$(OBJ)/bench/%.o,$(BENCH_SRC))
BENCH_HDR := $(wildcard bench/*.h)
MPICC := mpicc
BENCH_MPI_CFLAGS := $(shell $(MPICC) --showme:compile 2>/dev/null)
BENCH_MPI_LIBS := $(shell $(MPICC) --showme:link 2>/dev/null)
BENCH_CFLAGS := $(CFLAGS) -fopenmp $(BENCH_MPI_CFLAGS)
BENCH_LIBS := -ldnnl $(BENCH_MPI_LIBS) -fopenmp -lm

$(OBJ)/bench/%.o: bench/%.c $(BENCH_HDR) $(OBJ)/.flags-c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(BENCH_CFLAGS) -c -o $@ $<

$(BIN)/bench: $(BENCH_OBJ) | $(BIN)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(BENCH_LIBS)

all: $(BIN)/bench

# bin/bench-arena-check: model.c's memory plan under a backend that does no
# arithmetic and checks every read against the last write (tests/bench.bats).
$(BIN)/bench-arena-check: $(OBJ)/bench/arena-check.o $(OBJ)/bench/model.o | $(BIN)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -fopenmp -lm

all: $(BIN)/bench-arena-check

# `make bench-cpu` (bench against PyTorch on this CPU) lives in its own
# fragment, owned with the benchmark.
include $(wildcard bench/bench-cpu.mk)
