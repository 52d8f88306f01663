# The filters: median, speedup, compare and outcome one C file each in filters/;
# window in filters/window/, table in filters/table/; grep-iters in filters/grep-iters/ (the driver, log
# paths, rank grouping) with the log formats in filters/formats/ (one file a
# format and their registry); launch in filters/launch/. All link lib/. Files
# added to those folders are built with no edit here.

FILTERS := launch grep-iters window median speedup table plot ranks compare outcome
FORMATS_LIB := $(OBJ)/libformats.a

$(FORMATS_LIB): $(call objs,$(wildcard filters/formats/*.c))
	@rm -f $@
	ar rcs $@ $^

# A filter is one file, filters/NAME.c, or a folder of them, filters/NAME/
# (formats/ is the log formats' library, not a filter).
FILTER_DIRS := $(filter-out formats,$(patsubst filters/%/,%,$(wildcard filters/*/)))

define folder_filter
$(BIN)/$(1): $(call objs,$(wildcard filters/$(1)/*.c)) $(FORMATS_LIB) $(LIBDLBENCH) | $(BIN)
	$$(CC) $$(CFLAGS) $$(LDFLAGS) -o $$@ $$^ -lm
endef
$(foreach f,$(FILTER_DIRS),$(eval $(call folder_filter,$(f))))

$(BIN)/%: $(OBJ)/filters/%.o $(FORMATS_LIB) $(LIBDLBENCH) | $(BIN)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -lm

filters: $(addprefix $(BIN)/,$(FILTERS))
all: filters
.PHONY: filters

# doc/dlperf.md's table of the log formats is grep-iters -l's output between
# its two marker lines: `make generate` (lib/lib.mk) rewrites it,
# tests/tree.bats fails when it differs.
FORMATS_DOC := doc/dlperf.md
generate: gen-formats-doc
gen-formats-doc: $(BIN)/grep-iters
	@grep -q '^<!-- begin: grep-iters -l' $(FORMATS_DOC) && grep -q '^<!-- end: grep-iters -l' \
		$(FORMATS_DOC) || { echo "$(FORMATS_DOC): no grep-iters -l marker lines" >&2; exit 1; }
	$(BIN)/grep-iters -l > $(FORMATS_DOC).table
	awk -v t=$(FORMATS_DOC).table '/^<!-- end: grep-iters -l/ { while ((getline l < t) > 0) \
		print l; skip = 0 } !skip { print } /^<!-- begin: grep-iters -l/ { skip = 1 }' \
		$(FORMATS_DOC) > $(FORMATS_DOC).tmp
	@rm $(FORMATS_DOC).table
	@mv $(FORMATS_DOC).tmp $(FORMATS_DOC)
.PHONY: gen-formats-doc

# `make compare BASE=<log tree>`: every configuration that both BASE and
# LOGDIR hold (our layout, <framework>/<key>/<run>.log), BASE the baseline,
# read as every result reads logs (run_records in the Makefile: COMPAT,
# ALIAS, WINDOW) into compare (COMPARE_FLAGS, e.g. -t 5).
# It fails when a configuration is significantly slower (make: "Error 3",
# compare's status) or on bad input ("Error 1"): a CI job can gate on it
# (doc/statistics.md).
COMPARE_FLAGS ?=
compare: $(addprefix $(BIN)/,grep-iters window compare)
	@[ -n "$(BASE)" ] || { echo "make compare needs BASE=<log tree>" >&2; exit 2; }
	@dirs() { (cd "$$1" && for d in */*/; do [ -e "$$d" ] && echo "$${d%/}"; done) | sort; }; \
	common=$$(comm -12 <(dirs "$(BASE)") <(dirs "$(LOGDIR)")); \
	[ -n "$$common" ] || { echo "make compare: $(BASE) and $(LOGDIR) have no configuration in common" >&2; exit 1; }; \
	tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	runs() { $(call run_records,$$(for d in $$common; do echo "$$1/$$d"/*.log; done)) \
		> "$$tmp/$$2"; }; \
	runs "$(BASE)" base; runs "$(LOGDIR)" new; \
	$(BIN)/compare $(COMPARE_FLAGS) "$$tmp/base" "$$tmp/new"
.PHONY: compare
