# The filters: one C file each in filters/, linked with the shared helpers
# in filters/lib.c (errors, numbers, records, keys) and filters/formats.c
# (the table of log formats).

FILTERS := launch grep-iters window median speedup table
FILTER_LIB := $(OBJ)/filters/lib.o $(OBJ)/filters/formats.o

$(OBJ)/filters/%.o: filters/%.c filters/lib.h filters/formats.h $(OBJ)/.cflags
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c -o $@ $<

$(BIN)/%: $(OBJ)/filters/%.o $(FILTER_LIB) | $(BIN)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -lm

filters: $(addprefix $(BIN)/,$(FILTERS))
all: filters
.PHONY: filters

# The harness's speed figures (a benchmark, not a test): see filters/bench-filters.sh.
bench-filters: filters
	filters/bench-filters.sh
.PHONY: bench-filters
