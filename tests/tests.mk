# Tests: a target a suite, and `make test`.
#
#   make test-grep-iters     tests/grep-iters.bats on freshly built programs
#                            (any tests/<name>.bats: make test-<name>)
#   make test-sanitize-table tests/table.bats on the sanitizer build (below)
#   make test-sanitize       every suite of the sanitizer run
#   make test                the Debian packages the tests need, every
#                            suite, then the sanitizer run: what the README
#                            and .ci/run call
#
# `make test` runs as many suites at a time as the machine has cores
# (TEST_JOBS=1: one at a time; a -j given to make wins). They do not clash: a suite
# writes only under its Bats temporary directories; the cluster rig
# (tests/rig) names its namespaces after its process and takes a free subnet
# under a lock; the builds a suite runs are done before it starts; the
# suites that keep every core busy (bench's and PyTorch's threads, nvcc) take
# turns under one lock, so that two never share the cores. Each suite's
# output comes in one piece (--output-sync), its TAP lines whole; a failing
# suite stops none of the others (-k).

BATS := bats
TEST_NAMES := $(patsubst tests/%.bats,%,$(sort $(wildcard tests/*.bats)))

# The suites that keep every core busy, the longest first.
TEST_CPU := bench-torch bench arcface bench-cuda gpu-ready data-units multinode profile data
TEST_LOCK = $(OBJ)/.test-cpu.lock
# test_cmd NAME: a suite's bats, said as it could be typed; it runs under
# the lock when the suite is one of TEST_CPU. The makes a suite runs
# (compare.bats, make.bats, ...) get this command line's variables but not
# its options (-k, -j and the job server would change what they do), and
# run as a make typed at a shell does (MAKELEVEL would make them say
# "make[2]:" where a user's make says "make:").
test_cmd = echo '$(strip $(BATS) $(BATS_FLAGS)) tests/$(1).bats'; \
	env -u MFLAGS -u MAKELEVEL MAKEFLAGS="$${MAKEFLAGS\#"$${MAKEFLAGS%%-- *}"}" \
	$(if $(filter $(1),$(TEST_CPU)),flock $(TEST_LOCK)) $(BATS) $(BATS_FLAGS) tests/$(1).bats

TEST_JOBS ?= $(shell nproc 2>/dev/null || echo 1)
test: test-deps
	@case "$${MAKEFLAGS%%-- *}" in *j*) j= ;; *) j=-j$(TEST_JOBS) ;; esac; \
	case "$$j" in -j1) goals='$(TEST_ORDER)' ;; *) goals='$(TEST_ORDER_J)' ;; esac; \
	$(MAKE) --no-print-directory -k $$j $$goals

test-build:
	@$(MAKE) --no-print-directory CUDA_QUIET=1 all

# NVML faked (tests/drivers/fake-nvml.c) for launch's energy counters:
# tests/launch.bats names its folder in LD_LIBRARY_PATH.
$(BIN)/test-fake-nvml/libnvidia-ml.so.1: tests/drivers/fake-nvml.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -fPIC -shared $(LDFLAGS) -o $@ $<
all: $(BIN)/test-fake-nvml/libnvidia-ml.so.1

TEST_TARGETS := $(addprefix test-,$(TEST_NAMES))
$(TEST_TARGETS): test-%: test-build
	@$(call test_cmd,$*)

.PHONY: test test-build $(TEST_TARGETS)

# The suites of the filters, launch, bench's host logic and its input
# pipeline's pieces again, on programs built with AddressSanitizer and UBSan
# (any report aborts the program, so its test fails). Part of `make test`.
# Whole files: a test belongs to this run by the file it is in.
SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
SAN_DIR := $(OBJ)/san
SAN_NAMES := grep-iters window median speedup table plot launch compare ranks outcome bench-host \
	data-units
SAN_PROGS := $(FILTERS) test-arena-check test-gpu-host $(if $(CUDA_FOUND),check-gpu-compare) \
	test-data-check imagenet-synthetic test-fake-nvml/libnvidia-ml.so.1
SAN_ASAN := detect_leaks=0
# bench's host logic: its programs link the CUDA libraries, whose start-up
# maps memory where AddressSanitizer's shadow gap would be.
SAN_GAP := bench-host
SAN_ASAN_GAP := detect_leaks=0,protect_shadow_gap=0

test-sanitize-build:
	@$(MAKE) --no-print-directory CUDA_QUIET=1 BIN=$(SAN_DIR)/bin OBJ=$(SAN_DIR) \
		EXTRA_CFLAGS='$(SAN_FLAGS)' EXTRA_LDFLAGS='$(SAN_FLAGS)' \
		$(addprefix $(SAN_DIR)/bin/,$(SAN_PROGS))

# The sanitizer's flags in the environment too: a make in a suite
# (compare.bats) then finds these programs up to date, where it would
# rebuild them without the sanitizer.
SAN_TARGETS := $(addprefix test-sanitize-,$(SAN_NAMES))
$(SAN_TARGETS): test-sanitize-%: test-sanitize-build
	@export BIN_UNDER_TEST=$(abspath $(SAN_DIR)/bin) \
		ASAN_OPTIONS=$(if $(filter $*,$(SAN_GAP)),$(SAN_ASAN_GAP),$(SAN_ASAN)) \
		EXTRA_CFLAGS='$(SAN_FLAGS)' EXTRA_LDFLAGS='$(SAN_FLAGS)'; \
	echo "BIN_UNDER_TEST=$$BIN_UNDER_TEST ASAN_OPTIONS=$$ASAN_OPTIONS \\"; \
	$(call test_cmd,$*)

test-sanitize: $(SAN_TARGETS)

.PHONY: test-sanitize test-sanitize-build $(SAN_TARGETS)

# The order of `make test`: every suite, then the sanitizer run; under
# make -j, the longest suite of TEST_CPU first, all the others beside it,
# then the rest of TEST_CPU, one after another (a suite of TEST_CPU waiting
# for the lock holds one of the jobs).
TEST_ORDER := $(TEST_TARGETS) $(SAN_TARGETS)
TEST_CPU_TARGETS := $(foreach n,$(TEST_CPU),$(filter test-$(n) test-sanitize-$(n),$(TEST_ORDER)))
TEST_ORDER_J := $(firstword $(TEST_CPU_TARGETS)) $(filter-out $(TEST_CPU_TARGETS),$(TEST_ORDER)) \
	$(wordlist 2,$(words $(TEST_CPU_TARGETS)),$(TEST_CPU_TARGETS))

# make -j with suites among the goals: each suite's output in one piece.
ifneq ($(filter test-%,$(MAKECMDGOALS)),)
MAKEFLAGS += --output-sync=target
endif
