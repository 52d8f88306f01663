# Tests: every tests/*.bats suite, with the Debian packages the tests need
# and the binaries built first, then the sanitizer run below. `make test` is
# what the README and .ci/run call.

BATS := bats
TEST_SUITES := $(sort $(wildcard tests/*.bats))

test: test-deps
	@$(MAKE) --no-print-directory CUDA_QUIET=1 all
	$(BATS) $(BATS_FLAGS) $(TEST_SUITES)
	@$(MAKE) --no-print-directory CUDA_QUIET=1 test-sanitize

.PHONY: test

# The suites of the filters, launch, bench's host logic and its input
# pipeline's pieces again, on programs built with AddressSanitizer and UBSan
# (any report aborts the program, so its test fails). Part of `make test`.
# Whole files: a test belongs to this run by the file it is in.
SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
SAN_DIR := $(OBJ)/san
SAN_SUITES := $(addprefix tests/,$(addsuffix .bats,grep-iters window median speedup table plot launch compare ranks \
	data-units))
# bench's host logic: its programs link the CUDA libraries, whose start-up
# maps memory where AddressSanitizer's shadow gap would be.
SAN_HOST_SUITES := tests/bench-host.bats
SAN_PROGS := $(FILTERS) test-arena-check test-gpu-host $(if $(CUDA_FOUND),check-gpu-compare) \
	test-data-check imagenet-synthetic

test-sanitize:
	@$(MAKE) --no-print-directory CUDA_QUIET=1 BIN=$(SAN_DIR)/bin OBJ=$(SAN_DIR) \
		EXTRA_CFLAGS='$(SAN_FLAGS)' EXTRA_LDFLAGS='$(SAN_FLAGS)' \
		$(addprefix $(SAN_DIR)/bin/,$(SAN_PROGS))
	BIN_UNDER_TEST=$(abspath $(SAN_DIR)/bin) ASAN_OPTIONS=detect_leaks=0 \
		$(BATS) $(BATS_FLAGS) $(SAN_SUITES)
	BIN_UNDER_TEST=$(abspath $(SAN_DIR)/bin) ASAN_OPTIONS=detect_leaks=0,protect_shadow_gap=0 \
		$(BATS) $(BATS_FLAGS) $(SAN_HOST_SUITES)
.PHONY: test-sanitize
