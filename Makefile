# dlbench — the pipeline: configurations → logs → results.
#
#   make                                  build, then a real small table on this machine
#   make results/4n8g_b128_fp32.md        the ladder 1n1g … 4n8g; runs only missing logs
#   make test                             every Bats suite
#
# Each part of the tree brings its own make fragment, included below:
# filters/filters.mk (the six filters), bench/bench.mk (the native workload),
# pipelines/*.mk (one per framework), tests/tests.mk (suites, sanitizers).

.DELETE_ON_ERROR:
.SUFFIXES:
SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
MAKEFLAGS += --no-builtin-rules --no-builtin-variables

CC := cc
CSTD := -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE
OPT := -O2 -g
WARN := -Wall -Wextra
CFLAGS := $(CSTD) $(OPT) $(WARN) $(EXTRA_CFLAGS)
LDFLAGS := $(EXTRA_LDFLAGS)

BIN := bin
OBJ := build

.DEFAULT_GOAL := all

# Objects depend on the flags they were built with (git's GIT-CFLAGS idea):
# changing CFLAGS rebuilds, an unchanged make does nothing.
$(OBJ)/.cflags: FORCE | $(OBJ)
	@f='$(CC) $(CFLAGS) $(LDFLAGS)'; \
	[ -f $@ ] && [ "$$(cat $@)" = "$$f" ] || echo "$$f" > $@
FORCE:

$(BIN) $(OBJ):
	mkdir -p $@

include filters/filters.mk
include bench/bench.mk
include bench/cuda.mk
include pipelines/pipelines.mk
include tests/tests.mk

.PHONY: all clean FORCE
clean:
	rm -rf $(BIN) $(OBJ)
