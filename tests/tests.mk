# Tests: every tests/*.bats suite, with the Debian packages the tests need
# and the binaries built first. `make test` is what the README and .ci/run
# call.

BATS := bats
TEST_SUITES := $(sort $(wildcard tests/*.bats))

test: test-deps
	@$(MAKE) --no-print-directory CUDA_QUIET=1 all
	$(BATS) $(BATS_FLAGS) $(TEST_SUITES)

.PHONY: test

# The filter suites again, on filters built with AddressSanitizer and UBSan
# (any report aborts the filter, so the suite fails).
SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
SAN_SUITES := $(addprefix tests/,$(addsuffix .bats,grep-iters window median speedup table launch))
test-sanitize:
	$(MAKE) --no-print-directory CUDA_QUIET=1 BIN=$(OBJ)/san/bin OBJ=$(OBJ)/san \
		EXTRA_CFLAGS='$(SAN_FLAGS)' EXTRA_LDFLAGS='$(SAN_FLAGS)' \
		$(addprefix $(OBJ)/san/bin/,$(FILTERS))
	BIN_UNDER_TEST=$(abspath $(OBJ)/san/bin) ASAN_OPTIONS=detect_leaks=0 $(BATS) $(BATS_FLAGS) $(SAN_SUITES)
.PHONY: test-sanitize
