# Tests: every tests/*.bats suite, with the binaries built first.
# `make test` is what the README and .ci/run call.

BATS := bats
TEST_SUITES := $(sort $(wildcard tests/*.bats))

test: all
	$(BATS) $(BATS_FLAGS) $(TEST_SUITES)

.PHONY: test
