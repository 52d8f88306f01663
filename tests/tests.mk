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

# The suites of the filters, launch and bench's host logic again, on
# programs built with AddressSanitizer and UBSan (any report aborts the
# program, so its test fails). Part of `make test`.
SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
SAN_DIR := $(OBJ)/san
SAN_SUITES := $(addprefix tests/,$(addsuffix .bats,grep-iters window median speedup table plot launch compare ranks))
SAN_PROGS := $(FILTERS) test-arena-check test-gpu-host $(if $(CUDA_FOUND),check-gpu-compare) \
	test-data-check imagenet-synthetic
# bench's host logic: the memory plan's checker, loss scaling, the layout
# maps, convolution shapes, pooling windows and check-gpu's comparison.
SAN_HOST_TESTS := memory plan|arena|loss scale|loss-scale|cudnnFind|index maps|padded|pooling|tolerances|check-gpu-compare (passes|fails|says|refuses)|32-bit|warp-per-row|local rank|batch norm runs|bounded wait
# bench's input pipeline, piece by piece (bin/test-data-check: no bench run).
SAN_DATA_TESTS := crop box|decoded|grayscale|reduced DCT|SIMD scales|shards|same seed|own label|numbered|imagenet-synthetic writes

test-sanitize:
	@$(MAKE) --no-print-directory CUDA_QUIET=1 BIN=$(SAN_DIR)/bin OBJ=$(SAN_DIR) \
		EXTRA_CFLAGS='$(SAN_FLAGS)' EXTRA_LDFLAGS='$(SAN_FLAGS)' \
		$(addprefix $(SAN_DIR)/bin/,$(SAN_PROGS))
	BIN_UNDER_TEST=$(abspath $(SAN_DIR)/bin) ASAN_OPTIONS=detect_leaks=0 \
		$(BATS) $(BATS_FLAGS) $(SAN_SUITES)
	BIN_UNDER_TEST=$(abspath $(SAN_DIR)/bin) ASAN_OPTIONS=detect_leaks=0,protect_shadow_gap=0 \
		$(BATS) $(BATS_FLAGS) -f '$(SAN_HOST_TESTS)' tests/bench.bats tests/bench-cuda.bats
	BIN_UNDER_TEST=$(abspath $(SAN_DIR)/bin) ASAN_OPTIONS=detect_leaks=0 \
		$(BATS) $(BATS_FLAGS) -f '$(SAN_DATA_TESTS)' tests/data.bats
.PHONY: test-sanitize
