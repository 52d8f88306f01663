# The filters: window, median, speedup and table one C file each in
# filters/; grep-iters in filters/grep-iters/ (the driver, log paths, rank
# grouping) with the log formats in filters/formats/ (one file a format and
# their registry); launch in filters/launch/. All link lib/. Files added to
# those folders are built with no edit here.

FILTERS := launch grep-iters window median speedup table
FORMATS_LIB := $(OBJ)/libformats.a

$(FORMATS_LIB): $(call objs,$(wildcard filters/formats/*.c))
	@rm -f $@
	ar rcs $@ $^

$(BIN)/launch: $(call objs,$(wildcard filters/launch/*.c)) $(LIBDLBENCH) | $(BIN)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -lm

$(BIN)/grep-iters: $(call objs,$(wildcard filters/grep-iters/*.c)) $(FORMATS_LIB) $(LIBDLBENCH) | $(BIN)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -lm

$(BIN)/%: $(OBJ)/filters/%.o $(FORMATS_LIB) $(LIBDLBENCH) | $(BIN)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -lm

filters: $(addprefix $(BIN)/,$(FILTERS))
all: filters
.PHONY: filters
