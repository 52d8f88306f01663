# Fuzzing the filters: one libFuzzer target a filter (tests/fuzz/NAME.c with
# the shared harness.c), built with clang, AddressSanitizer and UBSan in
# $(OBJ)/fuzz, seeded from tests/fixtures.
#
#   make fuzz FUZZ_SECONDS=N   every target for N seconds (default 60), one
#                              after another; corpora kept in $(FUZZ_CORPUS)
#   make fuzz-build            the targets only: $(OBJ)/fuzz/fuzz-bin/fuzz-NAME
#
# A finding stops its target and leaves the input in $(FUZZ_FINDINGS); the
# target then fails. doc/fuzzing.md says how to run a long campaign.

FUZZ_DIR := $(OBJ)/fuzz
FUZZ_TARGETS := $(basename $(notdir $(filter-out tests/fuzz/harness.c,$(wildcard tests/fuzz/*.c))))
FUZZ_FLAGS := -g -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer
FUZZ_SECONDS ?= 60
FUZZ_CORPUS ?= $(FUZZ_DIR)/corpus
FUZZ_FINDINGS ?= $(FUZZ_DIR)/findings
# -max_len: the longest fixture is about 30 KB; -timeout: a filter is linear,
# a second per input is a hang.
FUZZ_OPTIONS ?= -max_len=32768 -timeout=10 -rss_limit_mb=4096 -print_final_stats=1

fuzz_srcs = $(if $(wildcard filters/$(1)/),$(wildcard filters/$(1)/*.c),filters/$(1).c)

# The link, as the sub-make below sees it (OBJ is $(FUZZ_DIR) there).
define fuzz_link
$(OBJ)/fuzz-bin/fuzz-$(1): tests/fuzz/$(1).c tests/fuzz/harness.c tests/fuzz/harness.h \
		$(call objs,$(call fuzz_srcs,$(1))) $(FORMATS_LIB) $(LIBDLBENCH)
	@mkdir -p $$(@D)
	$$(CC) $$(CPPFLAGS) $$(CFLAGS) -fsanitize=fuzzer -o $$@ tests/fuzz/$(1).c \
		tests/fuzz/harness.c $(call objs,$(call fuzz_srcs,$(1))) $(FORMATS_LIB) \
		$(LIBDLBENCH) -lm
endef
$(foreach t,$(FUZZ_TARGETS),$(eval $(call fuzz_link,$(t))))

# The harness's own test (tests/fuzz.bats): a program that breaks the
# contract on request.
$(OBJ)/fuzz-bin/fuzz-selftest: tests/fuzz/selftest/selftest.c tests/fuzz/harness.c \
		tests/fuzz/harness.h $(LIBDLBENCH)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -fsanitize=fuzzer -o $@ tests/fuzz/selftest/selftest.c \
		tests/fuzz/harness.c $(LIBDLBENCH) -lm

# Every object compiled for coverage. The harness calls the filter's
# filter_run (filters/filter.h); the filter's main is renamed out of the way
# of libFuzzer's, which is the program's. grep-iters reads in chunks of
# 4 KiB instead of 1 MiB, so that the short inputs cross chunk ends (and no
# 1 MiB block is mapped and unmapped each run).
fuzz-build:
	@command -v clang >/dev/null || { echo "fuzz: clang is missing: apt-get install clang" >&2; exit 1; }
	@$(MAKE) --no-print-directory CUDA=0 CUDA_QUIET=1 CC=clang OBJ=$(FUZZ_DIR) \
		BIN=$(FUZZ_DIR)/bin EXTRA_CFLAGS='$(FUZZ_FLAGS) -Dmain=unused_main -DLINES_CHUNK=4096' \
		$(addprefix $(FUZZ_DIR)/fuzz-bin/fuzz-,$(FUZZ_TARGETS) selftest)

fuzz: fuzz-build
	@for t in $(FUZZ_TARGETS); do \
		tests/fuzz/run.sh $(FUZZ_DIR)/fuzz-bin/fuzz-$$t $$t $(FUZZ_SECONDS) \
			$(FUZZ_CORPUS)/$$t $(FUZZ_FINDINGS)/$$t $(FUZZ_OPTIONS) || exit 1; \
	done

.PHONY: fuzz fuzz-build
